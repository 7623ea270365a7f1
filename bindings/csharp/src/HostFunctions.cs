using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Runtime.InteropServices;
using System.Threading;
using System.Threading.Tasks;

namespace ToolRegistry
{
    /// <summary>
    /// The failure path of a host function: throw it and the model gets an error result whose text
    /// is exactly <see cref="Exception.Message"/> (shown as "Error: " and the message). The batch goes on.
    /// </summary>
    /// <remarks>
    /// Any other exception thrown by a host function is a bug in the host, not an answer: the model
    /// then reads <c>the host function of "NAME" panicked: MESSAGE</c>, the same text every binding
    /// of this library gives for a panic, a throw or a crash caught in a host function.
    /// </remarks>
    public class ToolCallException : Exception
    {
        /// <summary>Fails the current tool call with <paramref name="message"/> as the model's error text.</summary>
        public ToolCallException(string message) : base(message)
        {
        }

        /// <summary>Same, keeping the exception that caused the failure.</summary>
        public ToolCallException(string message, Exception innerException) : base(message, innerException)
        {
        }
    }

    /// <summary>
    /// Marks a static method that native code calls through a function pointer. Mono's AOT compilers
    /// (iOS, WebAssembly) recognise the attribute by name and generate the reverse wrapper for it;
    /// JIT runtimes ignore it.
    /// </summary>
    [AttributeUsage(AttributeTargets.Method)]
    internal sealed class MonoPInvokeCallbackAttribute : Attribute
    {
        public MonoPInvokeCallbackAttribute(Type delegateType)
        {
            DelegateType = delegateType;
        }

        public Type DelegateType { get; private set; }
    }

    /// <summary>
    /// The bridge between managed host functions and <c>tr_tool_fn</c>/<c>tr_free_fn</c>.
    /// </summary>
    /// <remarks>
    /// One static trampoline serves every registration: its delegate lives in a static field, so the
    /// function pointer the library keeps is never collected. Each registration is a number (passed
    /// as <c>user_data</c>) in a static table that holds the managed function; the library's
    /// <c>free_user_data</c> (exactly once per registration: unregister, replace, registry freed,
    /// failed registration) removes it. So the function stays alive exactly as long as the library
    /// can call it, and a number the library never hands back costs nothing but a table slot. A
    /// number is used rather than a <see cref="GCHandle"/> so that a library bug (a second free, a
    /// call after the free) is counted and reported instead of corrupting the managed heap.
    /// The trampoline catches every exception: nothing managed unwinds into native code.
    /// </remarks>
    internal static class HostFunctions
    {
        private static readonly ConcurrentDictionary<long, HostEntry> Live =
            new ConcurrentDictionary<long, HostEntry>();

        private static long lastId;
        private static long released;
        private static long unknownReleases;

        // The delegates behind the function pointers: static, so they outlive every registration.
        private static readonly Native.ToolFn InvokeDelegate = Invoke;
        private static readonly Native.FreeFn ReleaseDelegate = Release;

        /// <summary>The <c>tr_tool_fn</c> every registration uses.</summary>
        internal static readonly IntPtr InvokePointer = Marshal.GetFunctionPointerForDelegate(InvokeDelegate);

        /// <summary>The <c>tr_free_fn</c> every registration uses.</summary>
        internal static readonly IntPtr ReleasePointer = Marshal.GetFunctionPointerForDelegate(ReleaseDelegate);

        /// <summary>How many registrations the library still holds (functions kept alive).</summary>
        internal static int LiveCount
        {
            get { return Live.Count; }
        }

        /// <summary>How many registrations the library has released so far.</summary>
        internal static long ReleasedCount
        {
            get { return Interlocked.Read(ref released); }
        }

        /// <summary>Releases of a number that was not live (a second free): always 0 unless the library is broken.</summary>
        internal static long UnknownReleaseCount
        {
            get { return Interlocked.Read(ref unknownReleases); }
        }

        /// <summary>
        /// Keeps <paramref name="fn"/> alive under a new number, to pass as <c>user_data</c>. The
        /// caller must hand the number to the library (which then releases it) or call
        /// <see cref="Forget"/> if the native call never happened.
        /// </summary>
        internal static IntPtr Add(Func<string, string, string> fn)
        {
            return Add(new HostEntry(fn, null, null));
        }

        /// <summary>Like <see cref="Add(Func{string, string, string})"/>, for an entry a registry indexes.</summary>
        internal static IntPtr Add(HostEntry entry)
        {
            long id = Interlocked.Increment(ref lastId);
            Live[id] = entry;
            return new IntPtr(id);
        }

        /// <summary>Drops a number the library never received (the P/Invoke itself threw).</summary>
        internal static void Forget(IntPtr userData)
        {
            HostEntry ignored;
            Live.TryRemove(userData.ToInt64(), out ignored);
        }

        /// <summary>The text the model reads when a host function throws anything but <see cref="ToolCallException"/>.</summary>
        internal static string PanicMessage(string toolName, Exception e)
        {
            return "the host function of \"" + toolName + "\" panicked: " + e.Message;
        }

        [MonoPInvokeCallback(typeof(Native.ToolFn))]
        private static void Invoke(IntPtr userData, IntPtr toolName, IntPtr argsJson, IntPtr call)
        {
            try
            {
                string name = Utf8.Copy(toolName) ?? string.Empty;
                HostEntry entry;
                if (!Live.TryGetValue(userData.ToInt64(), out entry))
                {
                    // Cannot happen while the library keeps its contract (no call after the free).
                    Fail(call, "the host function of \"" + name + "\" was already released");
                    return;
                }
                string result;
                try
                {
                    result = entry.Sync(name, Utf8.Copy(argsJson));
                }
                catch (ToolCallException e)
                {
                    Fail(call, e.Message);
                    return;
                }
                catch (Exception e)
                {
                    Fail(call, PanicMessage(name, e));
                    return;
                }
                if (result == null)
                {
                    // No answer: the library tells the model "the host function returned no result".
                    return;
                }
                byte[] content;
                try
                {
                    content = Utf8.Encode(result, "the result");
                }
                catch (InvalidInputException e)
                {
                    Fail(call, "the host function of \"" + name + "\" returned unusable text: " + e.Message);
                    return;
                }
                Native.tr_call_return(call, content);
            }
            catch (Exception)
            {
                // Last line: nothing may unwind into native code. The call stays unanswered, which
                // the library reports to the model as "the host function returned no result".
            }
        }

        private static void Fail(IntPtr call, string text)
        {
            byte[] bytes;
            try
            {
                bytes = Utf8.Encode(text ?? string.Empty, "message");
            }
            catch (InvalidInputException)
            {
                // A message with a NUL or a lone surrogate: keep what can be said safely.
                bytes = Utf8.Encode(Sanitize(text), "message");
            }
            Native.tr_call_fail(call, bytes);
        }

        /// <summary>The text with NULs and lone surrogates (which C cannot take) replaced by U+FFFD.</summary>
        internal static string Sanitize(string text)
        {
            var chars = text.ToCharArray();
            for (int i = 0; i < chars.Length; i++)
            {
                bool pairedHigh = char.IsHighSurrogate(chars[i]) && i + 1 < chars.Length && char.IsLowSurrogate(chars[i + 1]);
                if (pairedHigh)
                {
                    i++;
                }
                else if (chars[i] == '\0' || char.IsSurrogate(chars[i]))
                {
                    chars[i] = '\uFFFD';
                }
            }
            return new string(chars);
        }

        [MonoPInvokeCallback(typeof(Native.FreeFn))]
        private static void Release(IntPtr userData)
        {
            try
            {
                HostEntry entry;
                if (Live.TryRemove(userData.ToInt64(), out entry))
                {
                    if (entry.Index != null)
                    {
                        entry.Index.Forget(entry);
                    }
                    Interlocked.Increment(ref released);
                }
                else
                {
                    Interlocked.Increment(ref unknownReleases);
                }
            }
            catch (Exception)
            {
                // Nothing may unwind into native code.
            }
        }
    }

    /// <summary>
    /// One host function the library holds: the function <c>Execute</c> runs through the
    /// trampoline, the async function <c>ExecuteAsync</c> awaits (null for a plain function), and
    /// the index of its registry.
    /// </summary>
    internal sealed class HostEntry
    {
        internal HostEntry(Func<string, string, string> sync, Func<string, string, CancellationToken, Task<string>> async, HostIndex index)
        {
            Sync = sync;
            Async = async;
            Index = index;
        }

        internal Func<string, string, string> Sync { get; private set; }

        internal Func<string, string, CancellationToken, Task<string>> Async { get; private set; }

        internal HostIndex Index { get; private set; }

        // Guarded by the index's lock.
        internal string Name;
        internal bool Released;
    }

    /// <summary>
    /// A registry's live host functions by registered name, for <c>ExecuteAsync</c>, which runs a
    /// plan's calls itself. An entry is added once the library accepted the registration and removed
    /// when the library releases the function (unregistered, replaced, registry freed): the index
    /// never names a function the library no longer holds. Its own object, so that the static table
    /// of host functions never keeps a Registry reachable.
    /// </summary>
    internal sealed class HostIndex
    {
        private readonly object gate = new object();
        private readonly Dictionary<string, HostEntry> byName = new Dictionary<string, HostEntry>();
        private HostEntry fallback;

        /// <summary>Records <paramref name="entry"/> under <paramref name="name"/> (null: as the fallback), unless already released.</summary>
        internal void Add(HostEntry entry, string name)
        {
            lock (gate)
            {
                if (entry.Released)
                {
                    return;
                }
                if (name == null)
                {
                    fallback = entry;
                    return;
                }
                entry.Name = name;
                byName[name] = entry;
            }
        }

        internal void Forget(HostEntry entry)
        {
            lock (gate)
            {
                entry.Released = true;
                HostEntry current;
                if (entry.Name != null && byName.TryGetValue(entry.Name, out current) && current == entry)
                {
                    byName.Remove(entry.Name);
                }
                if (fallback == entry)
                {
                    fallback = null;
                }
            }
        }

        /// <summary>The function that runs calls of <paramref name="name"/>: its own, else the fallback; null when none.</summary>
        internal HostEntry Lookup(string name)
        {
            lock (gate)
            {
                HostEntry entry;
                return byName.TryGetValue(name, out entry) ? entry : fallback;
            }
        }
    }
}
