using System;
using System.Collections.Generic;

namespace ToolRegistry
{
    // Tool-call execution: host functions, running a model's tool calls, disable reasons, status.
    public sealed partial class Registry
    {
        /// <summary>
        /// Registers one tool with the function that runs its calls. A tool of the same name is
        /// replaced, with its function.
        /// </summary>
        /// <param name="toolJson">One tool in any shape <see cref="Register"/> takes (not an array of several).</param>
        /// <param name="fn">
        /// Gets the call's arguments (compact JSON of an object, already checked against the tool's
        /// schema) and returns the text the model sees. Throw <see cref="ToolCallException"/> to give
        /// the model an error result with your message; any other exception becomes
        /// <c>the host function of "NAME" panicked: MESSAGE</c>. Returning null gives
        /// "the host function returned no result". It may run on library threads (parallel
        /// execution), several at once, and may call this registry (register, discover) itself.
        /// </param>
        /// <returns>The registered name, in a list of one (namespace-qualified: "github-list_issues").</returns>
        /// <remarks>
        /// The registry keeps <paramref name="fn"/> (and what it captures) alive until the tool is
        /// unregistered or replaced or the registry is disposed; if it fails, nothing is kept.
        /// A function that captures its own registry keeps it alive until <see cref="Dispose"/>.
        /// </remarks>
        /// <exception cref="InvalidInputException">Malformed JSON, not exactly one tool, a reserved name; nothing changed.</exception>
        public IReadOnlyList<string> RegisterCallable(string toolJson, Func<string, string> fn)
        {
            if (fn == null)
            {
                throw new ArgumentNullException("fn");
            }
            return RegisterCallable(toolJson, (name, args) => fn(args));
        }

        /// <summary>
        /// Like <see cref="RegisterCallable(string, Func{string, string})"/>, for a function that also
        /// gets the tool's registered name first: <c>fn(name, argsJson)</c>.
        /// </summary>
        /// <exception cref="InvalidInputException">Malformed JSON, not exactly one tool, a reserved name; nothing changed.</exception>
        public IReadOnlyList<string> RegisterCallable(string toolJson, Func<string, string, string> fn)
        {
            if (fn == null)
            {
                throw new ArgumentNullException("fn");
            }
            return RegisterHost(toolJson, new HostEntry(fn, null, hosts));
        }

        /// <summary>Registers one tool with a host function entry and indexes it under the registered name.</summary>
        private IReadOnlyList<string> RegisterHost(string toolJson, HostEntry entry)
        {
            var tool = Utf8.EncodeRequired(toolJson, "toolJson");
            var h = Handle;
            IntPtr names, err;
            var status = Status.Ok;
            // From here the library owns the number (and releases it, even on failure) once the call
            // is made; if the P/Invoke itself throws (registry disposed meanwhile), it never got it.
            IntPtr userData = HostFunctions.Add(entry);
            bool called = false;
            try
            {
                status = Native.tr_registry_register_callable(h, tool, HostFunctions.InvokePointer, userData, HostFunctions.ReleasePointer, out names, out err);
                called = true;
            }
            finally
            {
                if (!called)
                {
                    HostFunctions.Forget(userData);
                }
            }
            Native.Check(status, err);
            var registered = JsonReader.Deserialize<string[]>(Utf8.Take(names));
            if (registered.Length == 1)
            {
                hosts.Add(entry, registered[0]);
            }
            return registered;
        }

        /// <summary>
        /// Sets the fallback function: it runs calls of registered tools that have no function of
        /// their own (e.g. a gateway that registers definitions only and routes by name). Null
        /// removes it. The previous fallback is released once no call of it is running.
        /// </summary>
        /// <param name="fn">
        /// <c>fn(toolName, argsJson)</c>, with the same rules as the function of
        /// <see cref="RegisterCallable(string, Func{string, string, string})"/>.
        /// </param>
        public void SetFallback(Func<string, string, string> fn)
        {
            var h = Handle;
            IntPtr err;
            if (fn == null)
            {
                Native.Check(Native.tr_registry_set_fallback(h, IntPtr.Zero, IntPtr.Zero, IntPtr.Zero, out err), err);
                return;
            }
            var status = Status.Ok;
            var entry = new HostEntry(fn, null, hosts);
            IntPtr userData = HostFunctions.Add(entry);
            bool called = false;
            try
            {
                status = Native.tr_registry_set_fallback(h, HostFunctions.InvokePointer, userData, HostFunctions.ReleasePointer, out err);
                called = true;
            }
            finally
            {
                if (!called)
                {
                    HostFunctions.Forget(userData);
                }
            }
            Native.Check(status, err);
            hosts.Add(entry, null);
        }

        /// <summary>
        /// Runs a batch of the model's tool calls and returns the messages of the next turn, as JSON
        /// text in the same provider's shape (one result per call, in call order).
        /// </summary>
        /// <param name="callsJson">
        /// What the provider returned: an OpenAI chat assistant message (or its <c>tool_calls</c>),
        /// an OpenAI Responses response (or its <c>output</c> items), an Anthropic assistant message
        /// (or its content), a Gemini <c>Content</c> (or its parts, or a whole response).
        /// </param>
        /// <param name="optionsJson">
        /// Null or <c>{"api_format"?: str, "include_assistant"?: bool, "parallel"?: 1..64}</c>
        /// (see <see cref="ExecuteOptions"/>).
        /// </param>
        /// <remarks>
        /// One bad call never fails the batch: bad arguments, an unknown or disabled tool, a tool
        /// without a function, a <see cref="ToolCallException"/> or any other exception each become
        /// an error result ("Error: ..."). With <c>"parallel": N</c> host functions run on library
        /// threads, up to N at once; results keep call order.
        /// </remarks>
        /// <exception cref="InvalidInputException">
        /// <paramref name="callsJson"/> is no provider's tool-call list (the message has the JSON
        /// path), or the options are bad.
        /// </exception>
        public string Execute(string callsJson, string optionsJson = null)
        {
            var calls = Utf8.EncodeRequired(callsJson, "callsJson");
            var options = Utf8.Encode(optionsJson, "optionsJson");
            IntPtr messages, err;
            var status = Native.tr_registry_execute(Handle, calls, options, out messages, out err);
            Native.Check(status, err);
            return Utf8.Take(messages);
        }

        /// <summary>Runs a batch of tool calls with typed options (see <see cref="Execute(string, string)"/>).</summary>
        public string Execute(string callsJson, ExecuteOptions options)
        {
            return Execute(callsJson, options == null ? null : options.ToJson());
        }

        /// <summary>
        /// Disables a tool or a namespace, recording why: a model that calls it gets
        /// <c>tool "NAME" is disabled: REASON</c>, and <see cref="ToolsStatus"/> shows the reason.
        /// <see cref="SetEnabled"/> with true enables it again and clears the reason.
        /// </summary>
        /// <exception cref="NotFoundException">Neither a tool nor a namespace.</exception>
        public void Disable(string name, string reason = null)
        {
            var n = Utf8.EncodeRequired(name, "name");
            var r = Utf8.Encode(reason, "reason");
            IntPtr err;
            var status = Native.tr_registry_disable(Handle, n, r, out err);
            Native.Check(status, err);
        }

        /// <summary>The status of every registered tool, disabled ones included, sorted by name.</summary>
        public IReadOnlyList<ToolStatus> ToolsStatus()
        {
            return ToolStatus.ParseList(ToolsStatusJson());
        }

        /// <summary>
        /// The tools' status as raw JSON: <c>[{"name", "namespace", "enabled", "reason", "deferred",
        /// "tags", "callable"}]</c>.
        /// </summary>
        public string ToolsStatusJson()
        {
            IntPtr json, err;
            var status = Native.tr_registry_tools_status(Handle, out json, out err);
            Native.Check(status, err);
            return Utf8.Take(json);
        }

        /// <summary>
        /// The schemas of exactly these tools, in this order, disabled ones included (e.g. the tools a
        /// model found with discover_tools, to add to its tool list).
        /// </summary>
        /// <exception cref="NotFoundException">A name that is not registered (the message names it).</exception>
        public string GetSchemasJson(IEnumerable<string> names, string apiFormat = null)
        {
            if (names == null)
            {
                throw new ArgumentNullException("names");
            }
            return GetSchemasJson(new SchemaOptions { Names = names, ApiFormat = apiFormat });
        }
    }
}
