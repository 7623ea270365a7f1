using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;

namespace ToolRegistry.Tests
{
    /// <summary>
    /// The two-step tool loop and ExecuteAsync: the corpora through prepare + finish, concurrency,
    /// concurrency_safe, exceptions, cancellation, re-entrancy, bad input to finish; the pull embedder.
    /// The test program is synchronous, so each test waits for its task at the top (never inside the
    /// library or a host function).
    /// </summary>
    internal static partial class Program
    {
        private static void AsyncTests(string corpusDir)
        {
            Test("async: execute corpus, ExecuteAsync = prepare + finish = Execute = expected", () => TwoStepCorpus(corpusDir));
            Test("async: conversation corpus through ExecuteAsync", () => ConversationCorpusAsync(corpusDir));
            Test("async: 8 async functions are in flight at once", () => Wait(EightAtOnce()));
            Test("async: concurrency_safe false runs alone", () => Wait(UnsafeRunsAlone()));
            Test("async: outcomes as Execute gives them", () => Wait(AsyncOutcomes()));
            Test("async: cancellation throws, reaches the functions, finishes nothing", () => Wait(Cancellation()));
            Test("async: a function calls back into its registry", () => Wait(CallsBack()));
            Test("async: bad input to finish is INVALID_ARGUMENT, nothing applied", BadFinishInput);
            Test("async: registrations released, index follows the library", () => Wait(IndexFollowsLibrary()));
            Test("pull embedder: EmbedPendingAsync, query vector, DiscoverAsync", () => Wait(PullEmbedder()));
            Test("pull embedder: failures and refused vectors", () => Wait(PullEmbedderFailures()));
        }

        private static void Wait(Task task)
        {
            task.GetAwaiter().GetResult();
        }

        /// <summary>Runs a plan's host calls as a host with its own executor would: the fixture's scripts, by hand.</summary>
        private static List<CallResult> ScriptedResults(string plan, Dictionary<string, string> kinds)
        {
            var results = new List<CallResult>();
            foreach (var call in HostCall.FromPlan(plan))
            {
                string kind;
                kinds.TryGetValue(call.Name, out kind);
                switch (kind)
                {
                    case "echo": results.Add(CallResult.Content(call.Id, call.Name + " <- " + call.ArgumentsJson)); break;
                    case "fail": results.Add(CallResult.Error(call.Id, "upstream returned 503")); break;
                    case "panic": results.Add(CallResult.Error(call.Id, "the host function of \"" + call.Name + "\" panicked: kaboom")); break;
                    default: results.Add(CallResult.Unhandled(call.Id)); break;
                }
            }
            // Any order is fine: the library answers in the plan's.
            results.Reverse();
            return results;
        }

        private static Dictionary<string, string> FixtureKinds(string corpusDir)
        {
            var kinds = new Dictionary<string, string>();
            var fixture = JsonNode.Parse(System.IO.File.ReadAllText(System.IO.Path.Combine(corpusDir, "fixture.json")));
            foreach (var entry in fixture["tools"].Items)
            {
                var host = entry["host"];
                if (host != null && host.Kind == 's')
                {
                    kinds[entry["tool"]["name"].Str] = host.Str;
                }
            }
            return kinds;
        }

        private static void TwoStepCorpus(string corpusDir)
        {
            var cases = ExecuteCorpus.Cases(corpusDir);
            True(cases.Count >= 50, "the corpus has " + cases.Count + " cases");
            var kinds = FixtureKinds(corpusDir);
            var failures = new List<string>();
            using (var plain = ExecuteCorpus.Build(corpusDir, false))
            using (var awaiting = ExecuteCorpus.Build(corpusDir, true))
            {
                foreach (var c in cases)
                {
                    string want = ExecuteCorpus.Expected(c.Value);
                    string calls = ExecuteCorpus.Calls(c.Value);
                    var options = ExecuteCorpus.Options(c.Value);
                    string plan = plain.PrepareCalls(calls, options);
                    var got = new Dictionary<string, string>
                    {
                        { "Execute", plain.Execute(calls, options) },
                        { "ExecuteAsync, plain functions", plain.ExecuteAsync(calls, options).GetAwaiter().GetResult() },
                        { "ExecuteAsync, async functions", awaiting.ExecuteAsync(calls, options).GetAwaiter().GetResult() },
                        { "prepare + finish by hand", plain.FinishCalls(plan, ScriptedResults(plan, kinds)) },
                    };
                    foreach (var g in got)
                    {
                        if (g.Value != want)
                        {
                            failures.Add(c.Key + " (" + g.Key + ")\n  want " + want + "\n  got  " + g.Value);
                        }
                    }
                }
            }
            True(failures.Count == 0, failures.Count + " case(s) differ:\n" + string.Join("\n", failures));
        }

        private static void ConversationCorpusAsync(string executeCorpusDir)
        {
            string corpusDir = System.IO.Path.Combine(System.IO.Path.GetDirectoryName(executeCorpusDir.TrimEnd('/', '\\')), "conversation");
            var cases = ConversationCorpus.Cases(corpusDir);
            True(cases.Count >= 8, "only " + cases.Count + " conversation cases");
            var failures = new List<string>();
            foreach (var c in cases)
            {
                string tools;
                var got = ConversationCorpus.Run(corpusDir, c.Value, out tools,
                    (conversation, calls) => conversation.ExecuteAsync(calls).GetAwaiter().GetResult(), true);
                if (got.Key != ConversationCorpus.Expected(c.Value, "expected.json"))
                {
                    failures.Add(c.Key + " messages: " + got.Key);
                }
                if (got.Value != ConversationCorpus.Expected(c.Value, "loaded.json"))
                {
                    failures.Add(c.Key + " loaded: " + got.Value);
                }
                if (System.IO.File.Exists(System.IO.Path.Combine(c.Value, "tools.json")) && tools != ConversationCorpus.Expected(c.Value, "tools.json"))
                {
                    failures.Add(c.Key + " tools: " + tools);
                }
            }
            True(failures.Count == 0, string.Join("\n", failures));
        }

        private static string Tool(string name, string extra = "")
        {
            return "{\"name\": \"" + name + "\", \"description\": \"Test tool " + name + ".\", \"parameters\": {\"type\": \"object\"}" + extra + "}";
        }

        private static string Batch(string tool, int n)
        {
            var args = new List<string>();
            for (int i = 0; i < n; i++)
            {
                args.Add("c" + i);
                args.Add(tool);
                args.Add("{}");
            }
            return OpenAICalls(args.ToArray());
        }

        /// <summary>The contents of OpenAI chat tool messages, by tool_call_id.</summary>
        private static Dictionary<string, string> Contents(string messages)
        {
            var result = new Dictionary<string, string>();
            foreach (var m in JsonNode.Parse(messages).Items)
            {
                result[m["tool_call_id"].Str] = m["content"].Str;
            }
            return result;
        }

        // Each function waits until all eight are inside (a barrier, not a clock): the batch only ends
        // with the real results if they run at once.
        private static async Task EightAtOnce()
        {
            using (var r = new Registry())
            {
                int inside = 0, peak = 0;
                var allIn = new TaskCompletionSource<bool>(TaskCreationOptions.RunContinuationsAsynchronously);
                r.RegisterCallable(Tool("slow"), async (name, args, ct) =>
                {
                    int now = Interlocked.Increment(ref inside);
                    InterlockedMax(ref peak, now);
                    if (now == 8)
                    {
                        allIn.TrySetResult(true);
                    }
                    var first = await Task.WhenAny(allIn.Task, Task.Delay(10000, ct));
                    Interlocked.Decrement(ref inside);
                    return first == allIn.Task ? "ok" : "the other calls never came";
                });
                var contents = Contents(await r.ExecuteAsync(Batch("slow", 8)));
                Eq(8, contents.Count, "results");
                foreach (var c in contents)
                {
                    Eq("ok", c.Value, c.Key);
                }
                Eq(8, peak, "calls in flight at once");
            }
        }

        private static void InterlockedMax(ref int target, int value)
        {
            int seen;
            while ((seen = Volatile.Read(ref target)) < value && Interlocked.CompareExchange(ref target, value, seen) != seen)
            {
            }
        }

        private static async Task UnsafeRunsAlone()
        {
            using (var r = new Registry())
            {
                int inside = 0;
                var events = new List<string>();
                r.RegisterCallable(Tool("safe"), async (name, args, ct) =>
                {
                    Interlocked.Increment(ref inside);
                    await Task.Delay(20, ct);
                    Interlocked.Decrement(ref inside);
                    return "safe";
                });
                r.RegisterCallable(Tool("unsafe", ", \"metadata\": {\"concurrency_safe\": false}"), async (name, args, ct) =>
                {
                    lock (events)
                    {
                        events.Add("unsafe with " + Volatile.Read(ref inside) + " others");
                    }
                    await Task.Delay(20, ct);
                    return "alone";
                });
                string batch = OpenAICalls("a", "safe", "{}", "b", "safe", "{}", "c", "unsafe", "{}", "d", "safe", "{}", "e", "unsafe", "{}", "f", "safe", "{}");
                var plan = HostCall.FromPlan(r.PrepareCalls(batch));
                Seq(new[] { true, true, false, true, false, true }, plan.Select(c => c.ConcurrencySafe), "concurrency_safe in the plan");
                var contents = Contents(await r.ExecuteAsync(batch));
                Seq(new[] { "safe", "safe", "alone", "safe", "alone", "safe" }, new[] { "a", "b", "c", "d", "e", "f" }.Select(id => contents[id]), "results");
                Seq(new[] { "unsafe with 0 others", "unsafe with 0 others" }, events, "the unsafe calls ran alone");
            }
        }

        private static async Task AsyncOutcomes()
        {
            using (var r = new Registry())
            {
                r.RegisterCallable(Tool("ok"), (name, args, ct) => Task.FromResult("fine"));
                r.RegisterCallable(Tool("tool_error"), async (name, args, ct) => { await Task.Yield(); throw new ToolCallException("quota exceeded"); });
                r.RegisterCallable(Tool("throws"), async (name, args, ct) => { await Task.Yield(); throw new InvalidOperationException("kaboom"); });
                r.RegisterCallable(Tool("throws_at_once"), (name, args, ct) => { throw new ArgumentException("before any await"); });
                r.RegisterCallable(Tool("null_task"), (name, args, ct) => null);
                r.RegisterCallable(Tool("null_text"), (name, args, ct) => Task.FromResult<string>(null));
                r.RegisterCallable(Tool("nul_text"), (name, args, ct) => Task.FromResult("a\0b"));
                r.RegisterCallable(Tool("echo_name"), (name, args, ct) => Task.FromResult(name + " " + args));
                r.RegisterCallable(Tool("sync"), (name, args) => "sync <- " + args);
                r.RegisterCallable(Tool("sync_throws"), (name, args) => { throw new ToolCallException("sync failed"); });
                r.Register(Tool("bare"));
                var ids = new[] { "ok", "tool_error", "throws", "throws_at_once", "null_task", "null_text", "nul_text", "echo_name", "sync", "sync_throws", "bare", "nope" };
                string batch = OpenAICalls(ids.SelectMany(id => new[] { id, id, "{\"n\": 1}" }).ToArray());
                var got = Contents(await r.ExecuteAsync(batch));
                Eq("fine", got["ok"], "ok");
                Eq("Error: quota exceeded", got["tool_error"], "ToolCallException");
                Eq("Error: the host function of \"throws\" panicked: kaboom", got["throws"], "another exception");
                Eq("Error: the host function of \"throws_at_once\" panicked: before any await", got["throws_at_once"], "thrown before the task");
                Eq("Error: the host function returned no result", got["null_task"], "null task");
                Eq("Error: the host function returned no result", got["null_text"], "null text");
                True(got["nul_text"].StartsWith("Error: the host function of \"nul_text\" returned unusable text: "), "NUL: " + got["nul_text"]);
                Eq("echo_name {\"n\":1}", got["echo_name"], "name and compact arguments");
                Eq("sync <- {\"n\":1}", got["sync"], "a plain function");
                Eq("Error: sync failed", got["sync_throws"], "a plain function's ToolCallException");
                True(got["bare"].Contains("has no host function"), "no function: " + got["bare"]);
                True(got["nope"].StartsWith("Error: ") && got["nope"].Contains("nope"), "unknown tool: " + got["nope"]);
                // What Execute gives for the same outcomes, where it can run them: the plain functions.
                string plainBatch = OpenAICalls("sync", "sync", "{\"n\": 1}", "sync_throws", "sync_throws", "{}", "bare", "bare", "{}", "nope", "nope", "{}");
                Eq(r.Execute(plainBatch), await r.ExecuteAsync(plainBatch), "Execute and ExecuteAsync agree");
                // Execute cannot await: it names ExecuteAsync instead of blocking.
                Eq("Error: the host function of \"ok\" is async: run this batch with ExecuteAsync", Contents(r.Execute(OpenAICalls("x", "ok", "{}")))["x"], "async function under Execute");
                // The sync fallback runs through ExecuteAsync too.
                r.SetFallback((name, args) => "fallback " + name);
                Eq("fallback bare", Contents(await r.ExecuteAsync(OpenAICalls("x", "bare", "{}")))["x"], "fallback");
                r.SetFallback(null);
                True(Contents(await r.ExecuteAsync(OpenAICalls("x", "bare", "{}")))["x"].Contains("has no host function"), "fallback removed");
            }
        }

        private static async Task Cancellation()
        {
            using (var r = new Registry(new DiscoveryOptions()))
            {
                int started = 0, sawCancel = 0;
                var twoStarted = new TaskCompletionSource<bool>(TaskCreationOptions.RunContinuationsAsynchronously);
                r.RegisterCallable(Tool("wait_forever"), async (name, args, ct) =>
                {
                    if (Interlocked.Increment(ref started) == 2)
                    {
                        twoStarted.TrySetResult(true);
                    }
                    try
                    {
                        await Task.Delay(Timeout.Infinite, ct);
                    }
                    catch (OperationCanceledException)
                    {
                        Interlocked.Increment(ref sawCancel);
                        throw;
                    }
                    return "never";
                });
                r.RegisterCallable(@"{""name"": ""send_email"", ""description"": ""Send an email to recipients."", ""metadata"": {""defer"": true}}", (name, args) => "sent");
                using (var conversation = r.StartConversation())
                using (var cts = new CancellationTokenSource())
                {
                    string batch = OpenAICalls("d", "discover_tools", "{\"query\": \"send an email\"}", "w1", "wait_forever", "{}", "w2", "wait_forever", "{}");
                    var running = conversation.ExecuteAsync(batch, cts.Token);
                    await twoStarted.Task;
                    cts.Cancel();
                    OperationCanceledException caught = null;
                    try
                    {
                        await running;
                    }
                    catch (OperationCanceledException e)
                    {
                        caught = e;
                    }
                    True(caught != null, "a cancelled ExecuteAsync throws OperationCanceledException");
                    Eq(cts.Token, caught.CancellationToken, "the exception carries the caller's token");
                    for (int i = 0; i < 100 && Volatile.Read(ref sawCancel) < 2; i++)
                    {
                        await Task.Delay(10);
                    }
                    Eq(2, Volatile.Read(ref sawCancel), "the functions saw the token cancelled");
                    Eq(0, conversation.Loaded().Count, "nothing finished: discover_tools loaded nothing");

                    // A token already cancelled runs nothing.
                    int before = Volatile.Read(ref started);
                    bool threw = false;
                    try
                    {
                        await r.ExecuteAsync(Batch("wait_forever", 2), cts.Token);
                    }
                    catch (OperationCanceledException)
                    {
                        threw = true;
                    }
                    True(threw, "a cancelled token throws");
                    Eq(before, Volatile.Read(ref started), "no function started");

                    // The same batch, allowed to finish, loads what discover_tools found.
                    r.RegisterCallable(Tool("wait_forever"), (name, args, ct) => Task.FromResult("done"));
                    await conversation.ExecuteAsync(batch);
                    Seq(new[] { "send_email" }, conversation.Loaded(), "loaded after a finished batch");
                }
                // A timeout is a cancellation like any other.
                using (var cts = new CancellationTokenSource(50))
                {
                    r.RegisterCallable(Tool("slow"), async (name, args, ct) => { await Task.Delay(Timeout.Infinite, ct); return "never"; });
                    bool threw = false;
                    try
                    {
                        await r.ExecuteAsync(Batch("slow", 2), cts.Token);
                    }
                    catch (OperationCanceledException)
                    {
                        threw = true;
                    }
                    True(threw, "timeout");
                }
            }
        }

        private static async Task CallsBack()
        {
            using (var r = new Registry())
            {
                r.RegisterCallable(Tool("inner"), (name, args) => "inner <- " + args);
                int added = 0;
                r.RegisterCallable(Tool("outer"), async (name, args, ct) =>
                {
                    string viaAsync = await r.ExecuteAsync(OpenAICalls("i", "inner", "{\"n\": 2}"), ct);
                    string viaSync = r.Execute(OpenAICalls("j", "inner", "{\"n\": 3}"));
                    r.Register(Tool("added_" + Interlocked.Increment(ref added)));
                    return Contents(viaAsync)["i"] + " | " + Contents(viaSync)["j"];
                });
                var got = Contents(await r.ExecuteAsync(OpenAICalls("o1", "outer", "{}", "o2", "outer", "{}")));
                Eq("inner <- {\"n\":2} | inner <- {\"n\":3}", got["o1"], "o1");
                Eq("inner <- {\"n\":2} | inner <- {\"n\":3}", got["o2"], "o2");
                Eq(4, r.ToolsStatus().Count, "the callbacks registered two tools");
            }
        }

        private static void BadFinishInput()
        {
            using (var r = new Registry())
            {
                r.RegisterCallable(Tool("a"), (name, args) => "a");
                string plan = r.PrepareCalls(OpenAICalls("x", "a", "{}", "y", "a", "{}"));
                var cases = new Dictionary<string, Action>
                {
                    { "missing result", () => r.FinishCalls(plan, new[] { CallResult.Content("x", "1") }) },
                    { "duplicate id", () => r.FinishCalls(plan, new[] { CallResult.Content("x", "1"), CallResult.Content("x", "2"), CallResult.Content("y", "3") }) },
                    { "unknown id", () => r.FinishCalls(plan, new[] { CallResult.Content("x", "1"), CallResult.Content("y", "2"), CallResult.Content("z", "3") }) },
                    { "malformed plan", () => r.FinishCalls("{\"toolregistry_plan\": 1, \"calls\": 7}", new[] { CallResult.Content("x", "1"), CallResult.Content("y", "2") }) },
                    { "result of no shape", () => r.FinishCalls(plan, "[{\"id\": \"x\", \"content\": \"1\"}, {\"id\": \"y\", \"output\": \"2\"}]") },
                    { "results not an array", () => r.FinishCalls(plan, "{\"id\": \"x\"}") },
                };
                foreach (var c in cases)
                {
                    var e = Throws<InvalidInputException>(c.Value, c.Key);
                    Eq(Status.InvalidArgument, e.Status, c.Key + ": status");
                }
                var e2 = Throws<InvalidInputException>(() => r.FinishCalls("{\"calls\": [", "[]"), "plan not JSON");
                True(e2.Status == Status.InvalidArgument || e2.Status == Status.InvalidJson, "plan not JSON: " + e2.Status);
                Throws<InvalidInputException>(() => HostCall.FromPlan("{\"calls\": 7"), "HostCall.FromPlan on a broken plan");
                // Nothing was applied: the plan still finishes, results in the plan's order.
                var got = JsonNode.Parse(r.FinishCalls(plan, new[] { CallResult.Content("y", "2"), CallResult.Content("x", "1") })).Items;
                Seq(new[] { "1", "2" }, got.Select(m => m["content"].Str), "results in plan order");
                // A tool unregistered between the two steps gives the unknown-tool result.
                r.Unregister("a");
                foreach (var m in JsonNode.Parse(r.FinishCalls(plan, new[] { CallResult.Content("x", "1"), CallResult.Content("y", "2") })).Items)
                {
                    True(m["content"].Str.StartsWith("Error: ") && m["content"].Str.Contains("\"a\""), "unregistered: " + m["content"].Str);
                }
            }
        }

        private static async Task IndexFollowsLibrary()
        {
            int live = HostFunctions.LiveCount;
            using (var r = new Registry())
            {
                r.RegisterCallable(Tool("t"), (name, args, ct) => Task.FromResult("async one"));
                Eq(live + 1, HostFunctions.LiveCount, "one registration held");
                r.RegisterCallable(Tool("t"), (name, args) => "plain one");
                Eq(live + 1, HostFunctions.LiveCount, "the replaced one released");
                Eq("plain one", Contents(await r.ExecuteAsync(OpenAICalls("x", "t", "{}")))["x"], "the new function runs");
                r.Register(Tool("t"));
                Eq(live, HostFunctions.LiveCount, "a definition without a function releases it");
                True(Contents(await r.ExecuteAsync(OpenAICalls("x", "t", "{}")))["x"].Contains("has no host function"), "and ExecuteAsync no longer runs it");
                r.RegisterCallable(Tool("u", ", \"namespace\": \"ns\""), (name, args, ct) => Task.FromResult("namespaced " + name));
                Eq("namespaced ns-u", Contents(await r.ExecuteAsync(OpenAICalls("x", "ns-u", "{}")))["x"], "namespace-qualified name");
            }
            Eq(live, HostFunctions.LiveCount, "all released with the registry");
        }

        private static float[] Topic(string text)
        {
            var v = new float[4];
            v[text.Contains("weather") ? 0 : text.Contains("email") ? 1 : text.Contains("stock") ? 2 : 3] = 1;
            return v;
        }

        private static Registry PullRegistry()
        {
            var r = new Registry();
            r.SetPullEmbedder(4, "toy:4");
            r.Register(@"[{""name"": ""get_weather"", ""description"": ""Current weather for a city.""},
                          {""name"": ""send_email"", ""description"": ""Send an email to recipients.""},
                          {""name"": ""stock_price"", ""description"": ""Latest stock price of a ticker.""}]");
            return r;
        }

        private static async Task PullEmbedder()
        {
            using (var r = PullRegistry())
            {
                var status = r.EmbeddingStatus();
                Eq(3, status.Pending, "pending before");
                Func<IReadOnlyList<string>, Task<float[][]>> embed = async texts =>
                {
                    await Task.Yield();
                    return texts.Select(Topic).ToArray();
                };
                Eq(3, await r.EmbedPendingAsync(embed), "texts embedded");
                status = r.EmbeddingStatus();
                Eq(3, status.Ready, "ready after");
                Eq("toy:4", status.Embedder, "identity");
                Eq(0, r.TakeEmbeddingJobs().Count, "no job left");
                using (var d = r.CreateDiscoverer(new DiscoveryOptions { Profile = DiscoveryProfile.Hybrid }))
                {
                    // No word of the query is in any tool: only the vector can rank.
                    var hits = d.Discover("quarterly figures", new DiscoverRequest { TopK = 3, QueryVector = Topic("stock") });
                    Eq("stock_price", hits.Count > 0 ? hits[0].Name : null, "ranked by the query vector");
                    hits = await d.DiscoverAsync("quarterly weather figures", texts => Task.FromResult(new[] { Topic("stock") }), new DiscoverRequest { TopK = 3 });
                    Eq("stock_price", hits.Count > 0 ? hits[0].Name : null, "DiscoverAsync embeds the query");
                    Eq("send_email", d.Discover("send an email", 3)[0].Name, "by words without a vector");
                    Eq(Status.InvalidArgument, Throws<InvalidInputException>(() => d.Discover("x", new DiscoverRequest { QueryVector = new float[] { 1, 0 } }), "short query vector").Status, "status");
                }
            }
        }

        /// <summary>Takes jobs until <paramref name="n"/> are in hand: the embedding thread queues them a moment after a change.</summary>
        private static List<EmbeddingJob> TakeAll(Registry r, int n)
        {
            var jobs = new List<EmbeddingJob>();
            var deadline = DateTime.UtcNow.AddSeconds(10);
            while (jobs.Count < n && DateTime.UtcNow < deadline)
            {
                jobs.AddRange(r.TakeEmbeddingJobs());
                Thread.Sleep(1);
            }
            Eq(n, jobs.Count, "jobs taken");
            return jobs;
        }

        private static async Task PullEmbedderFailures()
        {
            using (var r = PullRegistry())
            {
                var jobs = TakeAll(r, 3);
                foreach (var bad in new[] { new float[] { 1, 0 }, new float[4], new float[] { float.NaN, 0, 0, 1 }, new float[] { float.PositiveInfinity, 0, 0, 1 } })
                {
                    var e = Throws<InvalidInputException>(() => r.PutEmbeddings(new[] { jobs[0], jobs[1] }, new[] { Topic(jobs[0].Text), bad }), "bad vector " + string.Join(",", bad));
                    Eq(Status.InvalidArgument, e.Status, "status");
                }
                r.PutEmbeddingsJson("[{\"id\": 1099511627776, \"vector\": [1, 0, 0, 0]}]");
                var status = r.EmbeddingStatus();
                Eq(0, status.Ready, "a refused put applied nothing");
                Eq(3, status.Pending, "every job still open");
                r.PutEmbeddings(new[] { jobs[2], jobs[0], jobs[1] }, new[] { Topic(jobs[2].Text), Topic(jobs[0].Text), Topic(jobs[1].Text) });
                True(r.WaitEmbeddings(TimeSpan.FromSeconds(10)), "the good put is applied");
                Eq(3, r.EmbeddingStatus().Ready, "ready after the good put");

                // A changed tool waits again; a throwing embedder fails its batch.
                r.Register(@"{""name"": ""send_email"", ""description"": ""Send an email, now with attachments.""}");
                Eq(0, await r.EmbedPendingAsync(texts => { throw new InvalidOperationException("model crashed"); }), "a throwing embedder embeds nothing");
                status = r.EmbeddingStatus();
                Eq(2, status.Ready, "ready");
                Eq(1, status.Failed, "failed");
                Eq(0, status.Pending, "pending");
                True(status.Warnings.Any(w => w.Contains("model crashed")), "a warning names the failure: " + string.Join(" | ", status.Warnings));

                // A cancelled token takes nothing and calls nothing.
                r.Register(@"{""name"": ""stock_price"", ""description"": ""Latest stock price, delayed.""}");
                using (var cts = new CancellationTokenSource())
                {
                    cts.Cancel();
                    bool threw = false;
                    try
                    {
                        await r.EmbedPendingAsync(texts => { throw new Exception("called"); }, cts.Token);
                    }
                    catch (OperationCanceledException)
                    {
                        threw = true;
                    }
                    True(threw, "a cancelled token throws");
                }
                Eq(1, r.EmbeddingStatus().Pending, "the changed tool waits");
                Eq(1, await r.EmbedPendingAsync(texts => Task.FromResult(texts.Select(Topic).ToArray())), "then it is embedded");
            }
        }
    }
}
