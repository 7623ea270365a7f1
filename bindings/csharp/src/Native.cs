using System;
using System.Runtime.InteropServices;
using System.Text;

namespace ToolRegistry
{
    /// <summary>
    /// Every entry point of libtoolregistry (include/toolregistry.h), in one place.
    /// </summary>
    /// <remarks>
    /// Strings go in as NUL-terminated UTF-8 byte arrays (see <see cref="Utf8"/>). Strings the library
    /// allocates come back as <see cref="IntPtr"/> and are copied and freed by <see cref="Utf8.Take"/>:
    /// declaring them as <c>string</c> would make the runtime free Rust memory with its own allocator.
    /// <c>tr_status</c> is an <c>int32_t</c>, marshalled as <see cref="Status"/>; C <c>bool</c> is one byte.
    /// </remarks>
    internal static class Native
    {
        private const string Lib = "toolregistry";

        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)]
        internal static extern IntPtr tr_version();

        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)]
        internal static extern IntPtr tr_status_name(int status);

        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)]
        internal static extern void tr_string_free(IntPtr s);

        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Status tr_registry_new(byte[] optionsJson, out RegistryHandle registry, out IntPtr errOut);

        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)]
        internal static extern void tr_registry_free(IntPtr registry);

        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Status tr_registry_register(RegistryHandle registry, byte[] toolsJson, out IntPtr namesJsonOut, out IntPtr errOut);

        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Status tr_registry_unregister(RegistryHandle registry, byte[] name, out IntPtr errOut);

        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Status tr_registry_set_metadata(RegistryHandle registry, byte[] name, byte[] metadataJson, out IntPtr errOut);

        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Status tr_registry_set_enabled(RegistryHandle registry, byte[] name, [MarshalAs(UnmanagedType.U1)] bool enabled, out IntPtr errOut);

        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Status tr_registry_get_schemas(RegistryHandle registry, byte[] optionsJson, out IntPtr jsonOut, out IntPtr errOut);

        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Status tr_registry_deferred_summaries(RegistryHandle registry, out IntPtr jsonOut, out IntPtr errOut);

        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Status tr_registry_enable_discovery(RegistryHandle registry, byte[] optionsJson, out IntPtr errOut);

        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Status tr_registry_call(RegistryHandle registry, byte[] toolName, byte[] argsJson, out IntPtr jsonOut, out IntPtr errOut);

        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Status tr_discoverer_new(RegistryHandle registry, byte[] optionsJson, out DiscovererHandle discoverer, out IntPtr errOut);

        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Status tr_discoverer_discover(DiscovererHandle discoverer, byte[] query, byte[] optionsJson, out IntPtr jsonOut, out IntPtr errOut);

        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Status tr_discoverer_explain(DiscovererHandle discoverer, byte[] query, byte[] toolName, byte[] optionsJson, out IntPtr jsonOut, out IntPtr errOut);

        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Status tr_discoverer_rebuild_index(DiscovererHandle discoverer, out IntPtr errOut);

        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)]
        internal static extern void tr_discoverer_free(IntPtr discoverer);

        // ---- tool-call execution (see HostFunctions.cs for the callbacks) ----

        /// <summary><c>tr_tool_fn</c>: the library calls it, on any thread, to run one tool call.</summary>
        [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
        internal delegate void ToolFn(IntPtr userData, IntPtr toolName, IntPtr argsJson, IntPtr call);

        /// <summary><c>tr_free_fn</c>: the library calls it exactly once per registration, on any thread.</summary>
        [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
        internal delegate void FreeFn(IntPtr userData);

        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Status tr_call_return(IntPtr call, byte[] content);

        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Status tr_call_fail(IntPtr call, byte[] message);

        // fn and free_user_data are passed as raw function pointers (IntPtr) so that IntPtr.Zero can
        // remove a fallback; the delegates behind them live in static fields (HostFunctions).
        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Status tr_registry_register_callable(RegistryHandle registry, byte[] toolJson, IntPtr fn, IntPtr userData, IntPtr freeUserData, out IntPtr namesJsonOut, out IntPtr errOut);

        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Status tr_registry_set_fallback(RegistryHandle registry, IntPtr fn, IntPtr userData, IntPtr freeUserData, out IntPtr errOut);

        /// <summary><c>tr_embed_fn</c>: the library calls it, on its embedding thread or a discovering one, to embed a batch.</summary>
        [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
        internal delegate int EmbedFn(IntPtr userData, IntPtr texts, UIntPtr count, IntPtr vectors, UIntPtr dim, IntPtr error, UIntPtr errorCap);

        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Status tr_registry_set_embedder(RegistryHandle registry, byte[] optionsJson, IntPtr fn, IntPtr userData, IntPtr freeUserData, out IntPtr errOut);

        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Status tr_registry_wait_embeddings(RegistryHandle registry, ulong timeoutMs, [MarshalAs(UnmanagedType.U1)] out bool doneOut, out IntPtr errOut);

        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Status tr_registry_embedding_status(RegistryHandle registry, out IntPtr jsonOut, out IntPtr errOut);

        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Status tr_registry_execute(RegistryHandle registry, byte[] callsJson, byte[] optionsJson, out IntPtr messagesJsonOut, out IntPtr errOut);

        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Status tr_registry_disable(RegistryHandle registry, byte[] name, byte[] reason, out IntPtr errOut);

        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Status tr_registry_tools_status(RegistryHandle registry, out IntPtr jsonOut, out IntPtr errOut);

        // ---- usage (RegistryUsage.cs) ----

        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Status tr_registry_enable_usage(RegistryHandle registry, byte[] path, out IntPtr errOut);

        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Status tr_registry_record_usage(RegistryHandle registry, byte[] namesJson, out UIntPtr countedOut, out IntPtr errOut);

        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Status tr_registry_save_usage(RegistryHandle registry, out IntPtr errOut);

        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Status tr_registry_usage_status(RegistryHandle registry, out IntPtr jsonOut, out IntPtr errOut);

        // ---- conversations (Conversation.cs) ----

        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Status tr_conversation_new(RegistryHandle registry, byte[] optionsJson, out ConversationHandle conversation, out IntPtr errOut);

        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Status tr_conversation_tools(ConversationHandle conversation, out IntPtr jsonOut, out IntPtr errOut);

        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Status tr_conversation_execute(ConversationHandle conversation, byte[] callsJson, byte[] optionsJson, out IntPtr messagesJsonOut, out IntPtr errOut);

        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Status tr_registry_prepare_calls(RegistryHandle registry, byte[] callsJson, byte[] optionsJson, out IntPtr planJsonOut, out IntPtr errOut);

        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Status tr_registry_finish_calls(RegistryHandle registry, byte[] planJson, byte[] resultsJson, out IntPtr messagesJsonOut, out IntPtr errOut);

        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Status tr_conversation_prepare_calls(ConversationHandle conversation, byte[] callsJson, byte[] optionsJson, out IntPtr planJsonOut, out IntPtr errOut);

        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Status tr_conversation_finish_calls(ConversationHandle conversation, byte[] planJson, byte[] resultsJson, out IntPtr messagesJsonOut, out IntPtr errOut);

        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Status tr_registry_take_embedding_jobs(RegistryHandle registry, UIntPtr max, out IntPtr jobsJsonOut, out IntPtr errOut);

        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Status tr_registry_put_embeddings(RegistryHandle registry, byte[] resultsJson, out IntPtr errOut);

        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Status tr_conversation_reveal(ConversationHandle conversation, byte[] namesJson, out IntPtr errOut);

        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Status tr_conversation_loaded(ConversationHandle conversation, out IntPtr jsonOut, out IntPtr errOut);

        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)]
        internal static extern void tr_conversation_free(IntPtr conversation);

        /// <summary>
        /// The one place a status becomes an exception. Frees <paramref name="err"/> whatever the status,
        /// so no path can leak or double-free an error string.
        /// </summary>
        internal static void Check(Status status, IntPtr err)
        {
            string message = Utf8.Take(err);
            if (status == Status.Ok)
            {
                return;
            }
            if (string.IsNullOrEmpty(message))
            {
                message = StatusName(status);
            }
            throw ToolRegistryException.For(status, message);
        }

        /// <summary>The library's name for a status, e.g. "TR_STATUS_NOT_FOUND" (a static string: not freed).</summary>
        internal static string StatusName(Status status)
        {
            return Utf8.Copy(tr_status_name((int)status));
        }
    }

    /// <summary>UTF-8 in both directions across the boundary.</summary>
    internal static class Utf8
    {
        // Strict: a lone surrogate is refused instead of being silently replaced by U+FFFD.
        private static readonly UTF8Encoding Strict = new UTF8Encoding(false, true);

        /// <summary>
        /// The NUL-terminated UTF-8 bytes of <paramref name="s"/>; null stays null (the C side treats
        /// NULL as "default" where it allows it).
        /// </summary>
        internal static byte[] Encode(string s, string parameterName)
        {
            if (s == null)
            {
                return null;
            }
            if (s.IndexOf('\0') >= 0)
            {
                // A C string would end at the NUL and silently lose the rest.
                throw new InvalidInputException(Status.InvalidArgument, parameterName + " contains a NUL character");
            }
            int length;
            try
            {
                length = Strict.GetByteCount(s);
            }
            catch (EncoderFallbackException)
            {
                throw new InvalidInputException(Status.InvalidUtf8, parameterName + " is not valid Unicode (lone surrogate)");
            }
            var bytes = new byte[length + 1];
            Strict.GetBytes(s, 0, s.Length, bytes, 0);
            return bytes;
        }

        /// <summary>Like <see cref="Encode"/> but refuses null with <see cref="ArgumentNullException"/>.</summary>
        internal static byte[] EncodeRequired(string s, string parameterName)
        {
            if (s == null)
            {
                throw new ArgumentNullException(parameterName);
            }
            return Encode(s, parameterName);
        }

        /// <summary>Copies a NUL-terminated UTF-8 string the caller does not own (static strings).</summary>
        internal static unsafe string Copy(IntPtr p)
        {
            if (p == IntPtr.Zero)
            {
                return null;
            }
            byte* bytes = (byte*)p;
            int length = 0;
            while (bytes[length] != 0)
            {
                length++;
            }
            return Encoding.UTF8.GetString(bytes, length);
        }

        /// <summary>Copies a library-owned string and frees it with tr_string_free.</summary>
        internal static string Take(IntPtr p)
        {
            if (p == IntPtr.Zero)
            {
                return null;
            }
            try
            {
                return Copy(p);
            }
            finally
            {
                Native.tr_string_free(p);
            }
        }
    }
}
