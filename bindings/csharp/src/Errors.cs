using System;

namespace ToolRegistry
{
    /// <summary>The outcome of a native call (<c>tr_status</c>); values match the C header.</summary>
    public enum Status
    {
        /// <summary>Success.</summary>
        Ok = 0,
        /// <summary>A required pointer argument was NULL.</summary>
        NullArgument = 1,
        /// <summary>A string argument was not valid UTF-8 (or, on this side, not valid Unicode).</summary>
        InvalidUtf8 = 2,
        /// <summary>A JSON argument was malformed or nested too deeply.</summary>
        InvalidJson = 3,
        /// <summary>Well-formed input with wrong content: a missing name, a wrong type, an empty query, top_k 0.</summary>
        InvalidArgument = 4,
        /// <summary>An unknown tool, namespace or built-in name.</summary>
        NotFound = 5,
        /// <summary>An input over a documented size limit (64 MiB JSON, 64 KiB query, 1 KiB name).</summary>
        TooLarge = 6,
        /// <summary>A broken invariant inside the library.</summary>
        Internal = 7,
        /// <summary>A panic inside the library, caught at the boundary.</summary>
        Panic = 8,
    }

    /// <summary>
    /// A call into libtoolregistry failed. <see cref="Status"/> says how; <see cref="Exception.Message"/>
    /// is the library's one-line explanation (with the JSON path of the offending field when there is one).
    /// </summary>
    /// <remarks>
    /// Catch <see cref="NotFoundException"/> for unknown names and <see cref="InvalidInputException"/>
    /// for bad input; anything else (Internal, Panic) is a bug in the library.
    /// </remarks>
    public class ToolRegistryException : Exception
    {
        /// <summary>Creates an exception for a failed call.</summary>
        public ToolRegistryException(Status status, string message) : base(message)
        {
            Status = status;
        }

        /// <summary>The native status code of the failed call.</summary>
        public Status Status { get; private set; }

        internal static ToolRegistryException For(Status status, string message)
        {
            switch (status)
            {
                case Status.NotFound:
                    return new NotFoundException(message);
                case Status.NullArgument:
                case Status.InvalidUtf8:
                case Status.InvalidJson:
                case Status.InvalidArgument:
                case Status.TooLarge:
                    return new InvalidInputException(status, message);
                default:
                    return new ToolRegistryException(status, message);
            }
        }
    }

    /// <summary>An unknown tool, namespace or built-in name (<see cref="Status.NotFound"/>).</summary>
    public class NotFoundException : ToolRegistryException
    {
        /// <summary>Creates a not-found exception.</summary>
        public NotFoundException(string message) : base(Status.NotFound, message)
        {
        }
    }

    /// <summary>
    /// The input was refused: malformed JSON, wrong content, invalid text or over a size limit
    /// (<see cref="Status.InvalidJson"/>, <see cref="Status.InvalidArgument"/>, <see cref="Status.InvalidUtf8"/>,
    /// <see cref="Status.TooLarge"/>, <see cref="Status.NullArgument"/>). Nothing was changed.
    /// </summary>
    public class InvalidInputException : ToolRegistryException
    {
        /// <summary>Creates an invalid-input exception with the given status.</summary>
        public InvalidInputException(Status status, string message) : base(status, message)
        {
        }
    }
}
