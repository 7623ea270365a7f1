using System;
using System.Collections.Generic;
using System.Text;
using System.Threading;
using System.Threading.Tasks;

namespace ToolRegistry
{
    // The two-step tool loop and ExecuteAsync. PrepareCalls reads the model's calls and answers a
    // plan (plain JSON); the host runs the plan's host calls however it likes and hands their
    // results to FinishCalls, which answers the next turn's messages, byte for byte what Execute
    // gives for the same outcomes. ExecuteAsync is those two steps with the registry's functions
    // awaited concurrently in between.

    /// <summary>
    /// One call of a plan that the host must run (<see cref="FromPlan"/>): the registered tool name
    /// (call_deferred already resolved) and the arguments, already checked against the schema.
    /// </summary>
    public sealed class HostCall
    {
        private HostCall(string id, string name, string argumentsJson, bool concurrencySafe)
        {
            Id = id;
            Name = name;
            ArgumentsJson = argumentsJson;
            ConcurrencySafe = concurrencySafe;
        }

        /// <summary>The call's id, unique within the plan: each result names it.</summary>
        public string Id { get; private set; }

        /// <summary>The registered tool name.</summary>
        public string Name { get; private set; }

        /// <summary>The arguments, compact JSON of an object.</summary>
        public string ArgumentsJson { get; private set; }

        /// <summary>
        /// False: run this call alone, after the earlier host calls finished and before later ones
        /// start. Others may run concurrently.
        /// </summary>
        public bool ConcurrencySafe { get; private set; }

        /// <summary>The calls of a plan from PrepareCalls that the host must run, in call order.</summary>
        /// <exception cref="InvalidInputException">Not a plan.</exception>
        public static IReadOnlyList<HostCall> FromPlan(string planJson)
        {
            if (planJson == null)
            {
                throw new ArgumentNullException("planJson");
            }
            var result = new List<HostCall>();
            try
            {
                string calls = JsonReader.RawMembers("[" + planJson + "]", "calls")[0];
                if (calls == null)
                {
                    throw new FormatException("the plan has no calls");
                }
                var run = JsonReader.RawMembers(calls, "run");
                var ids = JsonReader.RawMembers(calls, "id");
                var names = JsonReader.RawMembers(calls, "name");
                var arguments = JsonReader.RawMembers(calls, "arguments");
                var safe = JsonReader.RawMembers(calls, "concurrency_safe");
                for (int i = 0; i < run.Count; i++)
                {
                    if (run[i] != "\"host\"")
                    {
                        continue;
                    }
                    if (ids[i] == null || names[i] == null || arguments[i] == null)
                    {
                        throw new FormatException("calls[" + i + "] lacks its id, name or arguments");
                    }
                    result.Add(new HostCall(JsonReader.Unquote(ids[i]), JsonReader.Unquote(names[i]), arguments[i], safe[i] != "false"));
                }
            }
            catch (Exception e) when (e is FormatException || e is IndexOutOfRangeException || e is ArgumentOutOfRangeException)
            {
                throw new InvalidInputException(Status.InvalidArgument, "plan: " + e.Message);
            }
            return result;
        }
    }

    /// <summary>
    /// The host's answer to one <see cref="HostCall"/>, for FinishCalls: content (what the model
    /// reads), an error (the model reads "Error: " and the message), or unhandled (no function for
    /// that name: the model gets the library's "has no host function" error, as from Execute).
    /// </summary>
    public sealed class CallResult
    {
        private readonly string json;

        private CallResult(string json)
        {
            this.json = json;
        }

        /// <summary>A successful call's text.</summary>
        public static CallResult Content(string id, string content)
        {
            return new CallResult(new JsonObjectWriter().Add("id", Required(id, "id")).Add("content", Required(content, "content")).ToString());
        }

        /// <summary>A failed call: the model reads "Error: " + <paramref name="message"/>.</summary>
        public static CallResult Error(string id, string message)
        {
            return new CallResult(new JsonObjectWriter().Add("id", Required(id, "id")).Add("error", HostFunctions.Sanitize(message ?? string.Empty)).ToString());
        }

        /// <summary>The host has no function for the call's tool.</summary>
        public static CallResult Unhandled(string id)
        {
            return new CallResult(new JsonObjectWriter().Add("id", Required(id, "id")).Add("unhandled", true).ToString());
        }

        /// <summary>The JSON object FinishCalls reads.</summary>
        public string ToJson()
        {
            return json;
        }

        internal static string ArrayJson(IEnumerable<CallResult> results)
        {
            if (results == null)
            {
                throw new ArgumentNullException("results");
            }
            var sb = new StringBuilder("[");
            foreach (var r in results)
            {
                if (r == null)
                {
                    throw new ArgumentException("results contains null");
                }
                if (sb.Length > 1)
                {
                    sb.Append(',');
                }
                sb.Append(r.json);
            }
            return sb.Append(']').ToString();
        }

        private static string Required(string s, string name)
        {
            if (s == null)
            {
                throw new ArgumentNullException(name);
            }
            return s;
        }
    }

    /// <summary>Runs a plan's host calls with a registry's functions; the heart of ExecuteAsync.</summary>
    internal static class PlanRunner
    {
        /// <summary>
        /// One result per host call of <paramref name="planJson"/>, as FinishCalls reads them.
        /// Consecutive concurrency-safe calls run together; an unsafe call waits for those before it
        /// and holds back those after it. Throws <see cref="OperationCanceledException"/> as soon as
        /// <paramref name="ct"/> is cancelled, without waiting for functions still running.
        /// </summary>
        internal static async Task<string> RunAsync(HostIndex hosts, string planJson, CancellationToken ct)
        {
            var calls = HostCall.FromPlan(planJson);
            var results = new CallResult[calls.Count];
            var running = new List<Task>();
            for (int i = 0; i < calls.Count; i++)
            {
                var call = calls[i];
                if (!call.ConcurrencySafe)
                {
                    await WhenAll(running, ct).ConfigureAwait(false);
                }
                ct.ThrowIfCancellationRequested();
                running.Add(RunIntoAsync(results, i, hosts, call, ct));
                if (!call.ConcurrencySafe)
                {
                    await WhenAll(running, ct).ConfigureAwait(false);
                }
            }
            await WhenAll(running, ct).ConfigureAwait(false);
            ct.ThrowIfCancellationRequested();
            return CallResult.ArrayJson(results);
        }

        /// <summary>Prepare, the plan's calls run by the functions of <paramref name="hosts"/>, then finish; nothing finished once cancelled.</summary>
        internal static async Task<string> ExecuteAsync(Func<string> prepare, Func<string, string, string> finish, HostIndex hosts, CancellationToken ct)
        {
            ct.ThrowIfCancellationRequested();
            string plan = prepare();
            string results = await RunAsync(hosts, plan, ct).ConfigureAwait(false);
            return finish(plan, results);
        }

        /// <summary>Waits for every task (none of them faults), or throws once <paramref name="ct"/> is cancelled.</summary>
        private static async Task WhenAll(List<Task> running, CancellationToken ct)
        {
            var all = Task.WhenAll(running);
            running.Clear();
            if (ct.CanBeCanceled)
            {
                var cancelled = new TaskCompletionSource<bool>(TaskCreationOptions.RunContinuationsAsynchronously);
                using (ct.Register(() => cancelled.TrySetResult(true)))
                {
                    await Task.WhenAny(all, cancelled.Task).ConfigureAwait(false);
                }
                ct.ThrowIfCancellationRequested();
            }
            await all.ConfigureAwait(false);
        }

        /// <summary>Runs one call into its slot of <paramref name="results"/>; never faults.</summary>
        private static async Task RunIntoAsync(CallResult[] results, int slot, HostIndex hosts, HostCall call, CancellationToken ct)
        {
            results[slot] = await RunOneAsync(hosts, call, ct).ConfigureAwait(false);
        }

        /// <summary>
        /// Runs one call as Execute would and never throws: the same error texts for an exception,
        /// no result, or text C cannot take. An async function is awaited; a plain one runs on the
        /// thread pool so it never blocks the caller.
        /// </summary>
        private static async Task<CallResult> RunOneAsync(HostIndex hosts, HostCall call, CancellationToken ct)
        {
            var entry = hosts.Lookup(call.Name);
            if (entry == null)
            {
                return CallResult.Unhandled(call.Id);
            }
            string content;
            try
            {
                if (entry.Async != null)
                {
                    var task = entry.Async(call.Name, call.ArgumentsJson, ct);
                    content = task == null ? null : await task.ConfigureAwait(false);
                }
                else
                {
                    content = await Task.Run(() => entry.Sync(call.Name, call.ArgumentsJson)).ConfigureAwait(false);
                }
            }
            catch (ToolCallException e)
            {
                return CallResult.Error(call.Id, e.Message);
            }
            catch (Exception e)
            {
                return CallResult.Error(call.Id, HostFunctions.PanicMessage(call.Name, e));
            }
            if (content == null)
            {
                return CallResult.Error(call.Id, "the host function returned no result");
            }
            try
            {
                Utf8.Encode(content, "the result");
            }
            catch (InvalidInputException e)
            {
                return CallResult.Error(call.Id, "the host function of \"" + call.Name + "\" returned unusable text: " + e.Message);
            }
            return CallResult.Content(call.Id, content);
        }

        /// <summary>The function Execute runs for an async host function: it cannot await, so it says where to go.</summary>
        internal static Func<string, string, string> RefuseSync()
        {
            return (name, args) =>
            {
                throw new ToolCallException("the host function of \"" + name + "\" is async: run this batch with ExecuteAsync");
            };
        }
    }

    public sealed partial class Registry
    {
        internal HostIndex Hosts
        {
            get { return hosts; }
        }

        /// <summary>
        /// Registers one tool with an async function that runs its calls through
        /// <see cref="ExecuteAsync(string, ExecuteOptions, CancellationToken)"/>: <c>fn(name, argsJson,
        /// cancellationToken)</c>, awaited concurrently with the batch's other calls. A tool of the same
        /// name is replaced, with its function.
        /// </summary>
        /// <param name="toolJson">One tool in any shape <see cref="Register"/> takes.</param>
        /// <param name="fn">
        /// Gets the registered name, the arguments (compact JSON of an object, already checked against
        /// the schema) and the token of ExecuteAsync; its task's text is what the model reads. A
        /// <see cref="ToolCallException"/> gives the model an error result with its message; any other
        /// exception (a cancellation too) becomes <c>the host function of "NAME" panicked: MESSAGE</c>.
        /// The synchronous <see cref="Execute(string, string)"/> cannot await it and gives the model
        /// an error naming ExecuteAsync.
        /// </param>
        /// <returns>The registered name, in a list of one.</returns>
        /// <exception cref="InvalidInputException">Malformed JSON, not exactly one tool, a reserved name; nothing changed.</exception>
        public IReadOnlyList<string> RegisterCallable(string toolJson, Func<string, string, CancellationToken, Task<string>> fn)
        {
            if (fn == null)
            {
                throw new ArgumentNullException("fn");
            }
            return RegisterHost(toolJson, new HostEntry(PlanRunner.RefuseSync(), fn, hosts));
        }

        /// <summary>
        /// The first step of the two-step tool loop: reads the model's calls as
        /// <see cref="Execute(string, string)"/> does (any provider shape; <c>parallel</c> is ignored)
        /// and returns the plan, JSON to hand back to <see cref="FinishCalls(string, string)"/>
        /// unchanged, from any thread or process. <see cref="HostCall.FromPlan"/> lists the calls the
        /// host must run.
        /// </summary>
        /// <exception cref="InvalidInputException">No provider's tool-call list, or bad options.</exception>
        public string PrepareCalls(string callsJson, ExecuteOptions options = null)
        {
            var calls = Utf8.EncodeRequired(callsJson, "callsJson");
            var o = Utf8.Encode(options == null ? null : options.ToJson(), "options");
            IntPtr plan, err;
            var status = Native.tr_registry_prepare_calls(Handle, calls, o, out plan, out err);
            Native.Check(status, err);
            return Utf8.Take(plan);
        }

        /// <summary>
        /// The second step: the plan and exactly one result per host call, in any order, as a JSON
        /// array of <c>{"id", "content"}</c>, <c>{"id", "error"}</c> or <c>{"id", "unhandled": true}</c>;
        /// returns the next turn's messages, byte for byte what Execute gives for the same outcomes.
        /// </summary>
        /// <exception cref="InvalidInputException">
        /// A malformed plan, a missing result, a duplicated or unknown id, a result of none of the three
        /// shapes (status InvalidArgument); nothing was applied.
        /// </exception>
        public string FinishCalls(string planJson, string resultsJson)
        {
            var plan = Utf8.EncodeRequired(planJson, "planJson");
            var results = Utf8.EncodeRequired(resultsJson, "resultsJson");
            IntPtr messages, err;
            var status = Native.tr_registry_finish_calls(Handle, plan, results, out messages, out err);
            Native.Check(status, err);
            return Utf8.Take(messages);
        }

        /// <summary>Like <see cref="FinishCalls(string, string)"/>, with typed results.</summary>
        public string FinishCalls(string planJson, IEnumerable<CallResult> results)
        {
            return FinishCalls(planJson, CallResult.ArrayJson(results));
        }

        /// <summary>Runs a batch of tool calls asynchronously with default options (see <see cref="ExecuteAsync(string, ExecuteOptions, CancellationToken)"/>).</summary>
        public Task<string> ExecuteAsync(string callsJson, CancellationToken cancellationToken = default(CancellationToken))
        {
            return ExecuteAsync(callsJson, null, cancellationToken);
        }

        /// <summary>
        /// Runs a batch of the model's tool calls and returns the next turn's messages, byte for byte
        /// what <see cref="Execute(string, ExecuteOptions)"/> gives for the same outcomes, awaiting the
        /// host functions concurrently (<c>Task.WhenAll</c>): async functions
        /// (<see cref="RegisterCallable(string, Func{string, string, CancellationToken, Task{string}})"/>)
        /// get <paramref name="cancellationToken"/>; plain ones and the fallback run on the thread
        /// pool. A tool with metadata <c>"concurrency_safe": false</c> runs alone. It is
        /// <see cref="PrepareCalls"/>, the functions, then <see cref="FinishCalls(string, string)"/>;
        /// nothing blocks a thread while the functions run.
        /// </summary>
        /// <exception cref="OperationCanceledException">
        /// The token was cancelled before the results were in: thrown at once, the batch is dropped
        /// (not finished); functions still running see the token cancelled.
        /// </exception>
        /// <exception cref="InvalidInputException">No provider's tool-call list, or bad options.</exception>
        public Task<string> ExecuteAsync(string callsJson, ExecuteOptions options, CancellationToken cancellationToken = default(CancellationToken))
        {
            return PlanRunner.ExecuteAsync(() => PrepareCalls(callsJson, options), FinishCalls, hosts, cancellationToken);
        }
    }

    public sealed partial class Conversation
    {
        /// <summary>Like <see cref="Registry.PrepareCalls"/>, in the conversation's format.</summary>
        public string PrepareCalls(string callsJson, ExecuteOptions options = null)
        {
            var calls = Utf8.EncodeRequired(callsJson, "callsJson");
            var o = Utf8.Encode(options == null ? null : options.ToJson(), "options");
            IntPtr plan, err;
            var status = Native.tr_conversation_prepare_calls(Handle, calls, o, out plan, out err);
            Native.Check(status, err);
            return Utf8.Take(plan);
        }

        /// <summary>
        /// Like <see cref="Registry.FinishCalls(string, string)"/>; also loads what the calls revealed
        /// (tools found by discover_tools or tool_search, deferred tools called), as Execute does.
        /// </summary>
        public string FinishCalls(string planJson, string resultsJson)
        {
            var plan = Utf8.EncodeRequired(planJson, "planJson");
            var results = Utf8.EncodeRequired(resultsJson, "resultsJson");
            IntPtr messages, err;
            var status = Native.tr_conversation_finish_calls(Handle, plan, results, out messages, out err);
            Native.Check(status, err);
            return Utf8.Take(messages);
        }

        /// <summary>Like <see cref="FinishCalls(string, string)"/>, with typed results.</summary>
        public string FinishCalls(string planJson, IEnumerable<CallResult> results)
        {
            return FinishCalls(planJson, CallResult.ArrayJson(results));
        }

        /// <summary>Runs the model's tool calls asynchronously with default options (see <see cref="ExecuteAsync(string, ExecuteOptions, CancellationToken)"/>).</summary>
        public Task<string> ExecuteAsync(string callsJson, CancellationToken cancellationToken = default(CancellationToken))
        {
            return ExecuteAsync(callsJson, null, cancellationToken);
        }

        /// <summary>
        /// Like <see cref="Registry.ExecuteAsync(string, ExecuteOptions, CancellationToken)"/> on the
        /// conversation: the registry's functions awaited concurrently, then what the calls revealed is
        /// loaded as <see cref="Execute(string, string)"/> would. A cancelled batch loads nothing.
        /// </summary>
        public Task<string> ExecuteAsync(string callsJson, ExecuteOptions options, CancellationToken cancellationToken = default(CancellationToken))
        {
            return PlanRunner.ExecuteAsync(() => PrepareCalls(callsJson, options), FinishCalls, hosts, cancellationToken);
        }
    }
}
