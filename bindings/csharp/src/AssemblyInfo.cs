using System.Runtime.CompilerServices;

// The Mono test program reaches Native directly to produce statuses the safe API cannot
// (NULL pointers, invalid UTF-8 bytes).
[assembly: InternalsVisibleTo("ToolRegistry.Tests")]
