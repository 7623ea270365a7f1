using System;
using System.Collections.Generic;
using System.Linq;
using System.Runtime.CompilerServices;
using System.Text;
using System.Threading;

namespace ToolRegistry.Tests
{
    /// <summary>
    /// Tool-call execution through the binding: the conformance corpus byte for byte, host
    /// functions and their failures, the fallback, handles released exactly once, re-entrancy,
    /// callbacks on library threads and a threads stress.
    /// </summary>
    internal static partial class Program
    {
        private const string Weather = @"{""name"": ""get_weather"", ""description"": ""Current weather for a city."",
            ""parameters"": {""type"": ""object"", ""properties"": {""city"": {""type"": ""string""}}, ""required"": [""city""]}}";

        private static void ExecuteTests(string corpusDir)
        {
            Test("execute: conformance corpus byte for byte", () => Corpus(corpusDir));
            Test("execute: callables, typed options, status, disable, schemas by name", Callables);
            Test("execute: fallback set, replaced, removed", Fallback);
            Test("execute: exceptions become error results", Exceptions);
            Test("execute: handles released exactly once", HandlesReleasedOnce);
            Test("execute: a registered function stays alive without other references", FunctionKeptAlive);
            Test("execute: re-entrant host function, sequential", () => Reentrant(1));
            Test("execute: re-entrant host function, parallel 4", () => Reentrant(4));
            Test("execute: parallel 4 runs callbacks at once on library threads", LibraryThreads);
            Test("execute: 8 executors and 2 mutators", ExecuteStress);
            Test("execute: no registration leaked, none released twice", NothingLeaked);
            Test("execute: finalizers release the functions of forgotten registries", FinalizersRelease);
        }

        // Every test below disposes its registries, so the binding's table of live functions must be
        // back where it started after each one.
        private static readonly int LiveAtStart = HostFunctions.LiveCount;

        private static string OpenAICalls(params string[] idNameArgs)
        {
            var sb = new StringBuilder("{\"role\": \"assistant\", \"content\": null, \"tool_calls\": [");
            for (int i = 0; i < idNameArgs.Length; i += 3)
            {
                if (i > 0)
                {
                    sb.Append(", ");
                }
                sb.Append("{\"id\": ").Append(Quote(idNameArgs[i]))
                  .Append(", \"type\": \"function\", \"function\": {\"name\": ").Append(Quote(idNameArgs[i + 1]))
                  .Append(", \"arguments\": ").Append(Quote(idNameArgs[i + 2])).Append("}}");
            }
            return sb.Append("]}").ToString();
        }

        private static string Quote(string s)
        {
            return "\"" + s.Replace("\\", "\\\\").Replace("\"", "\\\"") + "\"";
        }

        /// <summary>The content of each tool message, after checking the ids follow the calls.</summary>
        private static string[] Contents(string messagesJson, params string[] ids)
        {
            var messages = JsonNode.Parse(messagesJson).Items;
            Seq(ids, messages.Select(m => m["tool_call_id"].Str), "tool_call_id in call order");
            return messages.Select(m => m["content"].Str).ToArray();
        }

        private static string RunOne(Registry r, string name, string args, string options = null)
        {
            return Contents(r.Execute(OpenAICalls("c1", name, args), options), "c1")[0];
        }

        private static void Corpus(string corpusDir)
        {
            var cases = ExecuteCorpus.Cases(corpusDir);
            True(cases.Count >= 50, "the corpus has " + cases.Count + " cases in " + corpusDir);
            var failures = new List<string>();
            using (var r = ExecuteCorpus.Build(corpusDir))
            {
                foreach (var c in cases)
                {
                    string want = ExecuteCorpus.Expected(c.Value);
                    string got = ExecuteCorpus.Run(r, c.Value);
                    if (got != want)
                    {
                        failures.Add(c.Key + "\n  want " + want + "\n  got  " + got);
                    }
                }
            }
            True(failures.Count == 0, failures.Count + " case(s) differ:\n" + string.Join("\n", failures));
        }

        private static void Callables()
        {
            using (var r = new Registry())
            {
                Seq(new[] { "get_weather" }, r.RegisterCallable(Weather, args => "sunny " + args), "registered name");
                Seq(new[] { "github-list_issues" }, r.RegisterCallable(
                    @"{""name"": ""list_issues"", ""description"": ""List issues."", ""namespace"": ""github"", ""metadata"": {""defer"": true, ""tags"": [""read_only""]}}",
                    (name, args) => name + " got " + args), "namespace-qualified name");
                r.Register(@"{""name"": ""plain"", ""description"": ""No function.""}");
                r.Register(@"{""name"": ""maintenance"", ""description"": ""Down.""}");

                string messages = r.Execute(OpenAICalls("a", "get_weather", "{\"city\": \"Oslo\"}", "b", "github-list_issues", "{}"));
                Seq(new[] { "sunny {\"city\":\"Oslo\"}", "github-list_issues got {}" }, Contents(messages, "a", "b"), "results in call order");

                // Typed options: the same batch with the assistant turn first, in parallel.
                var withAssistant = JsonNode.Parse(r.Execute(OpenAICalls("a", "get_weather", "{\"city\": \"Rome\"}"),
                    new ExecuteOptions { IncludeAssistant = true, Parallel = 2, ApiFormat = ApiFormat.OpenAIChat })).Items;
                Eq(2, withAssistant.Count, "assistant turn and one result");
                Eq("assistant", withAssistant[0]["role"].Str, "assistant first");
                Eq("sunny {\"city\":\"Rome\"}", withAssistant[1]["content"].Str, "result");
                Eq(r.Execute(OpenAICalls("a", "get_weather", "{\"city\": \"Rome\"}"), "{\"include_assistant\": true}"),
                    r.Execute(OpenAICalls("a", "get_weather", "{\"city\": \"Rome\"}"), new ExecuteOptions { IncludeAssistant = true }), "typed options = JSON options");

                // Whole-batch errors are exceptions; per-call problems are results.
                Throws<InvalidInputException>(() => r.Execute("{\"role\": \"assistant\"}"), "not a tool-call list");
                Throws<InvalidInputException>(() => r.Execute(OpenAICalls("a", "get_weather", "{}"), "{\"parallel\": 0}"), "parallel 0");
                Throws<ArgumentNullException>(() => r.Execute(null), "null calls");
                True(RunOne(r, "get_weather", "{}").StartsWith("Error: ", StringComparison.Ordinal), "schema violation is an error result");
                True(RunOne(r, "plain", "{}").StartsWith("Error: ", StringComparison.Ordinal), "no host function is an error result");

                r.Disable("maintenance", "under maintenance");
                r.Disable("github");
                Eq("Error: tool \"maintenance\" is disabled: under maintenance", RunOne(r, "maintenance", "{}"), "disabled with reason");
                Throws<NotFoundException>(() => r.Disable("nope", "x"), "disable unknown");

                var status = r.ToolsStatus().ToDictionary(s => s.Name);
                Seq(new[] { "get_weather", "github-list_issues", "maintenance", "plain" }, r.ToolsStatus().Select(s => s.Name), "status sorted by name");
                True(status["get_weather"].Enabled && status["get_weather"].Callable && status["get_weather"].Reason == null, "get_weather status");
                True(!status["plain"].Callable && status["plain"].Enabled, "plain status");
                True(!status["maintenance"].Enabled, "maintenance disabled");
                Eq("under maintenance", status["maintenance"].Reason, "maintenance reason");
                Eq("github", status["github-list_issues"].Namespace, "namespace");
                True(!status["github-list_issues"].Enabled && status["github-list_issues"].Deferred, "namespace disabled, deferred");
                Seq(new[] { "read_only" }, status["github-list_issues"].Tags, "tags");
                var raw = JsonNode.Parse(r.ToolsStatusJson());
                Eq(4, raw.Items.Count, "raw status");
                Eq("under maintenance", raw.Items[2]["reason"].Str, "raw reason");

                r.SetEnabled("maintenance", true);
                Eq(null, r.ToolsStatus().Single(s => s.Name == "maintenance").Reason, "enabling clears the reason");

                // Schemas by name: exactly these, in this order, disabled ones included.
                Seq(new[] { "plain", "github-list_issues", "get_weather" },
                    SchemaNames(r.GetSchemasJson(new[] { "plain", "github-list_issues", "get_weather" })), "schemas by name");
                var anthropic = JsonNode.Parse(r.GetSchemasJson(new[] { "get_weather" }, ApiFormat.Anthropic)).Items;
                Eq("get_weather", anthropic.Single()["name"].Str, "anthropic shape");
                True(anthropic[0].Has("input_schema"), "anthropic input_schema");
                var e = Throws<NotFoundException>(() => r.GetSchemasJson(new[] { "get_weather", "nope" }), "unknown name");
                True(e.Message.Contains("nope"), "message names it: " + e.Message);
            }
        }

        private static void Fallback()
        {
            using (var r = new Registry())
            {
                r.Register(@"[{""name"": ""mcp_a"", ""description"": ""A.""}, {""name"": ""mcp_b"", ""description"": ""B.""}]");
                r.RegisterCallable(Weather, args => "own");
                int live = HostFunctions.LiveCount;
                r.SetFallback((name, args) => "first fallback for " + name);
                Eq(live + 1, HostFunctions.LiveCount, "fallback kept");
                True(r.ToolsStatus().All(s => s.Callable), "every tool callable with a fallback");
                Seq(new[] { "first fallback for mcp_a", "first fallback for mcp_b", "own" },
                    Contents(r.Execute(OpenAICalls("1", "mcp_a", "{}", "2", "mcp_b", "{}", "3", "get_weather", "{\"city\": \"x\"}")), "1", "2", "3"),
                    "fallback routes by name; own function wins");

                r.SetFallback((name, args) => "second " + name + " " + args);
                Eq(live + 1, HostFunctions.LiveCount, "replaced fallback released");
                Eq("second mcp_b {\"k\":1}", RunOne(r, "mcp_b", "{\"k\": 1}"), "second fallback");

                r.SetFallback(null);
                Eq(live, HostFunctions.LiveCount, "removed fallback released");
                True(!r.ToolsStatus().Single(s => s.Name == "mcp_a").Callable, "no longer callable");
                True(RunOne(r, "mcp_a", "{}").StartsWith("Error: ", StringComparison.Ordinal), "no host function again");
                r.SetFallback(null);
            }
        }

        private class QuotaExceeded : ToolCallException
        {
            public QuotaExceeded() : base("quota exceeded (429)")
            {
            }
        }

        private static void Exceptions()
        {
            using (var r = new Registry())
            {
                Func<string, string>[] hosts =
                {
                    args => { throw new ToolCallException("upstream returned 503"); },
                    args => { throw new QuotaExceeded(); },
                    args => { throw new InvalidOperationException("kaboom"); },
                    args => { string s = null; return s.Length.ToString(); },
                    args => { throw new AggregateException("several things"); },
                    args => null,
                    args => "nul\0inside",
                    args => { throw new ToolCallException("über 🎉 " + args); },
                    args => { throw new ToolCallException("bad\0message"); },
                };
                for (int i = 0; i < hosts.Length; i++)
                {
                    r.RegisterCallable("{\"name\": \"t" + i + "\", \"description\": \"Tool " + i + ".\"}", hosts[i]);
                }
                string nre;
                try
                {
                    string s = null;
                    nre = s.Length.ToString();
                }
                catch (NullReferenceException e)
                {
                    nre = e.Message;
                }
                var expected = new[]
                {
                    "Error: upstream returned 503",
                    "Error: quota exceeded (429)",
                    "Error: the host function of \"t2\" panicked: kaboom",
                    "Error: the host function of \"t3\" panicked: " + nre,
                    "Error: the host function of \"t4\" panicked: several things",
                    "Error: the host function returned no result",
                    "Error: the host function of \"t6\" returned unusable text: the result contains a NUL character",
                    "Error: über 🎉 {\"x\":\"ß\"}",
                    "Error: bad\uFFFDmessage",
                };
                foreach (var options in new[] { null, "{\"parallel\": 4}" })
                {
                    var parts = new List<string>();
                    var ids = new List<string>();
                    for (int i = 0; i < hosts.Length; i++)
                    {
                        parts.AddRange(new[] { "id" + i, "t" + i, i == 7 ? "{\"x\": \"ß\"}" : "{}" });
                        ids.Add("id" + i);
                    }
                    Seq(expected, Contents(r.Execute(OpenAICalls(parts.ToArray()), options), ids.ToArray()), "error results, options " + options);
                }
                // Anthropic marks them is_error.
                string anthropic = r.Execute(@"{""role"": ""assistant"", ""content"": [{""type"": ""tool_use"", ""id"": ""u1"", ""name"": ""t2"", ""input"": {}}]}");
                var block = JsonNode.Parse(anthropic).Items.Single()["content"].Items.Single();
                True(block["is_error"].Bool, "is_error");
                Eq("Error: the host function of \"t2\" panicked: kaboom", block["content"].Str, "anthropic content");
            }
        }

        private static void HandlesReleasedOnce()
        {
            int live = HostFunctions.LiveCount;
            long released = HostFunctions.ReleasedCount;
            long unknown = HostFunctions.UnknownReleaseCount;
            Func<string, string> fn = args => "ok";

            var r = new Registry();
            r.RegisterCallable(Weather, fn);
            Eq(live + 1, HostFunctions.LiveCount, "registered");

            // Replace: the old function is released, the new one kept.
            r.RegisterCallable(Weather, args => "replaced");
            Eq(live + 1, HostFunctions.LiveCount, "replace keeps one");
            Eq(released + 1, HostFunctions.ReleasedCount, "replace releases the old one");
            Eq("replaced", RunOne(r, "get_weather", "{\"city\": \"x\"}"), "new function runs");

            // Unregister.
            r.Unregister("get_weather");
            Eq(live, HostFunctions.LiveCount, "unregister releases");
            Eq(released + 2, HostFunctions.ReleasedCount, "released count after unregister");

            // Failed registrations: the library releases the function before returning.
            Throws<InvalidInputException>(() => r.RegisterCallable("{not json", fn), "bad JSON");
            Throws<InvalidInputException>(() => r.RegisterCallable("[" + Weather + ", {\"name\": \"b\"}]", fn), "two tools");
            Throws<InvalidInputException>(() => r.RegisterCallable("{\"description\": \"no name\"}", fn), "no name");
            Eq(live, HostFunctions.LiveCount, "failed registrations keep nothing");
            Eq(released + 5, HostFunctions.ReleasedCount, "each failed registration released once");
            // Refused before the native call: nothing was added in the first place.
            Throws<InvalidInputException>(() => r.RegisterCallable("{\"name\": \"a\0b\"}", fn), "NUL in JSON");
            Throws<ArgumentNullException>(() => r.RegisterCallable(Weather, (Func<string, string>)null), "null function");
            Eq(live, HostFunctions.LiveCount, "refused registrations keep nothing");

            // Fallback replace and remove.
            r.SetFallback((n, a) => "f1");
            r.SetFallback((n, a) => "f2");
            Eq(live + 1, HostFunctions.LiveCount, "one fallback");
            r.SetFallback(null);
            Eq(live, HostFunctions.LiveCount, "no fallback");
            Eq(released + 7, HostFunctions.ReleasedCount, "fallbacks released once each");

            // Dispose releases every function still registered, and the fallback.
            for (int i = 0; i < 3; i++)
            {
                r.RegisterCallable("{\"name\": \"d" + i + "\", \"description\": \"D.\"}", fn);
            }
            r.SetFallback((n, a) => "f3");
            Eq(live + 4, HostFunctions.LiveCount, "three tools and a fallback");
            r.Dispose();
            Eq(live, HostFunctions.LiveCount, "Dispose releases them");
            Eq(released + 11, HostFunctions.ReleasedCount, "released once each");
            r.Dispose();
            Throws<ObjectDisposedException>(() => r.RegisterCallable(Weather, fn), "register after Dispose");
            Throws<ObjectDisposedException>(() => r.SetFallback((n, a) => "x"), "fallback after Dispose");
            Eq(live, HostFunctions.LiveCount, "nothing kept after Dispose");

            // A discoverer keeps the registry state (and so its functions) alive until it goes too.
            var r2 = new Registry();
            var d = r2.CreateDiscoverer();
            r2.RegisterCallable(Weather, fn);
            r2.Dispose();
            d.Dispose();
            Eq(live, HostFunctions.LiveCount, "released once registry and discoverer are gone");
            Eq(released + 12, HostFunctions.ReleasedCount, "released once");
            Eq(unknown, HostFunctions.UnknownReleaseCount, "no second release");
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static void RegisterClosure(Registry r, int salt)
        {
            var state = new StringBuilder("salt " + salt);
            r.RegisterCallable(Weather, args => state + " " + args);
        }

        private static void FunctionKeptAlive()
        {
            using (var r = new Registry())
            {
                RegisterClosure(r, 42);
                for (int i = 0; i < 3; i++)
                {
                    GC.Collect();
                    GC.WaitForPendingFinalizers();
                }
                Eq("salt 42 {\"city\":\"x\"}", RunOne(r, "get_weather", "{\"city\": \"x\"}", "{\"parallel\": 2}"), "closure alive");
            }
        }

        /// <summary>Runs <paramref name="body"/> on a thread and fails (instead of hanging) after 60 s.</summary>
        private static void WithinDeadline(string what, Action body)
        {
            Exception error = null;
            var thread = new Thread(() =>
            {
                try
                {
                    body();
                }
                catch (Exception e)
                {
                    error = e;
                }
            });
            thread.IsBackground = true;
            thread.Start();
            if (!thread.Join(TimeSpan.FromSeconds(60)))
            {
                throw new AssertionFailed(what + ": no answer after 60 s (deadlock?)");
            }
            if (error != null)
            {
                throw new AssertionFailed(what + ": " + error);
            }
        }

        private static void Reentrant(int parallel)
        {
            using (var r = new Registry())
            {
                r.EnableDiscovery();
                r.Register(@"[{""name"": ""read_file"", ""description"": ""Read a file from disk.""},
                    {""name"": ""write_file"", ""description"": ""Write a file to disk.""},
                    {""name"": ""send_email"", ""description"": ""Send an email.""},
                    {""name"": ""list_issues"", ""description"": ""List the issues of a repository.""},
                    {""name"": ""get_weather"", ""description"": ""Current weather for a city.""}]");
                // The host function registers a new deferred tool (with its own function) on the same
                // registry and discovers it at once.
                r.RegisterCallable(@"{""name"": ""spawn"", ""description"": ""Make a tool."",
                    ""parameters"": {""type"": ""object"", ""properties"": {""n"": {""type"": ""string""}}}}", args =>
                {
                    string n = JsonNode.Parse(args)["n"].Str;
                    string name = "made_" + n;
                    r.RegisterCallable("{\"name\": \"" + name + "\", \"description\": \"Compute the frobnicated value " + n + ".\", \"metadata\": {\"defer\": true}}",
                        a => "I am " + name);
                    var hits = r.DiscoverTools(name);
                    return string.Join(",", hits.Select(h => h.Name));
                });
                var ids = Enumerable.Range(0, 4).Select(i => "p" + parallel + "x" + i).ToArray();
                var parts = ids.SelectMany(id => new[] { id, "spawn", "{\"n\": \"" + id + "\"}" }).ToArray();
                string messages = null;
                WithinDeadline("execute with re-entrant hosts", () => messages = r.Execute(OpenAICalls(parts), "{\"parallel\": " + parallel + "}"));
                Seq(ids.Select(id => "made_" + id), Contents(messages, ids), "each host found its new tool");
                foreach (var id in ids)
                {
                    Eq("made_" + id, r.DiscoverTools("made_" + id).Single().Name, "found after");
                    Eq("I am made_" + id, RunOne(r, "made_" + id, "{}"), "the new tool runs");
                }
                // A query finds the four (fillers above keep "frobnicated" under max_df_ratio).
                Seq(ids.Select(id => "made_" + id).OrderBy(n => n, StringComparer.Ordinal),
                    r.DiscoverTools("frobnicated value").Select(h => h.Name).OrderBy(n => n, StringComparer.Ordinal), "all four by query");
            }
        }

        private static void LibraryThreads()
        {
            using (var r = new Registry())
            {
                var together = new CountdownEvent(4);
                var threads = new int[4];
                var pooled = new bool[4];
                r.RegisterCallable(@"{""name"": ""meet"", ""description"": ""Wait for the others."",
                    ""parameters"": {""type"": ""object"", ""properties"": {""i"": {""type"": ""integer""}}}}", args =>
                {
                    int i = (int)JsonNode.Parse(args)["i"].Num;
                    threads[i] = Thread.CurrentThread.ManagedThreadId;
                    pooled[i] = Thread.CurrentThread.IsThreadPoolThread;
                    together.Signal();
                    if (!together.Wait(TimeSpan.FromSeconds(20)))
                    {
                        throw new ToolCallException("the four calls did not run at once");
                    }
                    if (i == 3)
                    {
                        throw new InvalidOperationException("thrown on a library thread");
                    }
                    return "met " + i;
                });
                var parts = Enumerable.Range(0, 4).SelectMany(i => new[] { "m" + i, "meet", "{\"i\": " + i + "}" }).ToArray();
                string[] contents = null;
                WithinDeadline("parallel execute", () => contents = Contents(r.Execute(OpenAICalls(parts), "{\"parallel\": 4}"), "m0", "m1", "m2", "m3"));
                Seq(new[] { "met 0", "met 1", "met 2", "Error: the host function of \"meet\" panicked: thrown on a library thread" }, contents, "all four met");
                int caller = Thread.CurrentThread.ManagedThreadId;
                Eq(4, threads.Distinct().Count(), "four different threads");
                True(threads.All(t => t != caller), "none of them the caller's");
                True(pooled.All(m => !m), "none of them a thread-pool thread");
            }
        }

        private static void ExecuteStress()
        {
            using (var r = new Registry())
            {
                Func<string, string, string> echo = (name, args) => name + " <- " + args;
                r.RegisterCallable(Weather, echo);
                int live = HostFunctions.LiveCount;
                int mutating = 2;
                long batches = 0;
                RunThreads(10, t =>
                {
                    if (t >= 8)
                    {
                        // Mutators: temporary tools come and go, and get_weather is replaced (with the
                        // same behaviour) while its calls are in flight.
                        try
                        {
                            for (int i = 0; i < 150; i++)
                            {
                                string name = "tmp_" + t + "_" + i;
                                r.RegisterCallable("{\"name\": \"" + name + "\", \"description\": \"Temporary.\"}", echo);
                                if (i % 2 == 0)
                                {
                                    r.Unregister(name);
                                }
                                else if (t == 9)
                                {
                                    r.Disable(name, "churn");
                                }
                                if (t == 8)
                                {
                                    r.RegisterCallable(Weather, (n, a) => n + " <- " + a);
                                }
                            }
                        }
                        finally
                        {
                            Interlocked.Decrement(ref mutating);
                        }
                        return;
                    }
                    int b = 0;
                    while (b < 20 || Interlocked.CompareExchange(ref mutating, 0, 0) > 0)
                    {
                        var ids = Enumerable.Range(0, 6).Select(k => "t" + t + "b" + b + "c" + k).ToArray();
                        var parts = ids.SelectMany(id => new[] { id, "get_weather", "{\"city\": \"" + id + "\"}" }).ToArray();
                        var contents = Contents(r.Execute(OpenAICalls(parts), "{\"parallel\": 4}"), ids);
                        for (int k = 0; k < ids.Length; k++)
                        {
                            string want = "get_weather <- {\"city\":\"" + ids[k] + "\"}";
                            if (contents[k] != want)
                            {
                                throw new AssertionFailed("result of " + ids[k] + " is " + contents[k]);
                            }
                        }
                        b++;
                        Interlocked.Increment(ref batches);
                    }
                });
                True(batches >= 160, "batches run: " + batches);
                Eq(live + 150, HostFunctions.LiveCount, "get_weather plus the 150 temporary tools left");
                Eq(150, r.ToolsStatus().Count(s => s.Name.StartsWith("tmp_", StringComparison.Ordinal)), "tools left");
            }
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static void ForgetRegistriesWithFunctions(int count)
        {
            for (int i = 0; i < count; i++)
            {
                var r = new Registry();
                r.RegisterCallable(Weather, args => "forgotten");
                r.SetFallback((n, a) => "forgotten fallback");
                RunOne(r, "get_weather", "{\"city\": \"x\"}", "{\"parallel\": 2}");
            }
        }

        private static void FinalizersRelease()
        {
            int live = HostFunctions.LiveCount;
            long released = HostFunctions.ReleasedCount;
            // (Collections may already run during the loop.)
            ForgetRegistriesWithFunctions(50);
            for (int i = 0; i < 3; i++)
            {
                GC.Collect();
                GC.WaitForPendingFinalizers();
            }
            // Mono scans stacks conservatively: a stale slot may keep a registry or two alive, so
            // this asks for most, not all (the exact counts are checked with Dispose above).
            int left = HostFunctions.LiveCount - live;
            True(left <= 10, left + " functions of forgotten registries still kept after GC");
            Eq(100L - left, HostFunctions.ReleasedCount - released, "released by the finalizers");
            Eq(0L, HostFunctions.UnknownReleaseCount, "second releases");
        }

        private static void NothingLeaked()
        {
            Eq(LiveAtStart, HostFunctions.LiveCount, "live functions after every registry was disposed");
            Eq(0L, HostFunctions.UnknownReleaseCount, "second releases");
        }
    }
}
