using System;
using Microsoft.Win32.SafeHandles;

namespace ToolRegistry
{
    /// <summary>Owns a <c>tr_registry*</c>; freed once, by Dispose or by the finalizer.</summary>
    /// <remarks>
    /// Passing the SafeHandle (not its IntPtr) to P/Invoke makes the runtime add a reference for the
    /// duration of each call, so a Dispose on another thread waits for calls in flight to return.
    /// </remarks>
    internal sealed class RegistryHandle : SafeHandleZeroOrMinusOneIsInvalid
    {
        private RegistryHandle() : base(true)
        {
        }

        protected override bool ReleaseHandle()
        {
            Native.tr_registry_free(handle);
            return true;
        }
    }

    /// <summary>Owns a <c>tr_discoverer*</c>; freed once, by Dispose or by the finalizer.</summary>
    /// <remarks>
    /// The native discoverer keeps the registry state alive, so it may be released before or after
    /// its registry: finalizers run in no fixed order.
    /// </remarks>
    internal sealed class DiscovererHandle : SafeHandleZeroOrMinusOneIsInvalid
    {
        private DiscovererHandle() : base(true)
        {
        }

        protected override bool ReleaseHandle()
        {
            Native.tr_discoverer_free(handle);
            return true;
        }
    }
}
