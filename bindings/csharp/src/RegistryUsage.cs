using System;
using System.Collections.Generic;
using System.Runtime.Serialization;
using System.Text;

// The private [DataMember] fields are written by DataContractJsonSerializer through reflection,
// which the compiler cannot see (CS0649 "never assigned").
#pragma warning disable 0649

namespace ToolRegistry
{
    public sealed partial class Registry
    {
        /// <summary>
        /// Turns usage (co-use learning) on: the tool calls the library runs (Execute, the two steps,
        /// conversations) are recorded as tasks, and discovers let their best hits bring in the tools
        /// they are used with (<see cref="DiscoverResult.BroughtIn"/>). With a path the counts are
        /// loaded from that file and written back to it atomically (at most every 5 seconds while
        /// tasks come, on <see cref="SaveUsage"/>, and on Dispose); a missing or corrupt file is an
        /// empty start (a corrupt one's warning is in <see cref="UsageStatus"/>). Null: no file.
        /// </summary>
        public void EnableUsage(string path = null)
        {
            if (path != null && path.Length == 0)
            {
                throw new ArgumentException("an empty path; pass null for no file", "path");
            }
            var p = Utf8.Encode(path, "path");
            IntPtr err;
            var status = Native.tr_registry_enable_usage(Handle, p, out err);
            Native.Check(status, err);
        }

        /// <summary>
        /// Records one task: these tools were used together (for hosts that run tools themselves; it
        /// records whether or not usage is enabled). Names of no registered tool, repeats and empty
        /// names do not count, nor names past the first 32.
        /// </summary>
        /// <returns>How many names counted (0: nothing was recorded).</returns>
        public int RecordUsage(IEnumerable<string> names)
        {
            if (names == null)
            {
                throw new ArgumentNullException("names");
            }
            var sb = new StringBuilder("[");
            foreach (var name in names)
            {
                if (name == null)
                {
                    throw new ArgumentNullException("names", "a null name");
                }
                if (sb.Length > 1)
                {
                    sb.Append(',');
                }
                JsonObjectWriter.WriteString(sb, name);
            }
            return RecordUsageJson(sb.Append(']').ToString());
        }

        /// <summary>
        /// <see cref="RecordUsage"/> with the names as a JSON array (<c>["get_user_token", "add_agenda"]</c>).
        /// </summary>
        /// <exception cref="InvalidInputException">Malformed JSON, or not an array of strings (the
        /// message names the first bad element); nothing is recorded.</exception>
        public int RecordUsageJson(string namesJson)
        {
            var names = Utf8.EncodeRequired(namesJson, "namesJson");
            UIntPtr counted;
            IntPtr err;
            var status = Native.tr_registry_record_usage(Handle, names, out counted, out err);
            Native.Check(status, err);
            return (int)counted.ToUInt32();
        }

        /// <summary>
        /// Writes the usage file now, if there is one and something is unsaved.
        /// </summary>
        /// <exception cref="ToolRegistryException">Status Internal: it cannot be written (the counts stay in memory).</exception>
        public void SaveUsage()
        {
            IntPtr err;
            var status = Native.tr_registry_save_usage(Handle, out err);
            Native.Check(status, err);
        }

        /// <summary>What usage holds: recording, the file, tasks, tools, memory, the last warning.</summary>
        public UsageStatus UsageStatus()
        {
            return JsonReader.Deserialize<UsageStatus>(UsageStatusJson());
        }

        /// <summary>
        /// The usage status as raw JSON: <c>{"recording", "path", "tasks", "tools", "memory_bytes", "warning"}</c>.
        /// </summary>
        public string UsageStatusJson()
        {
            IntPtr json, err;
            var status = Native.tr_registry_usage_status(Handle, out json, out err);
            Native.Check(status, err);
            return Utf8.Take(json);
        }
    }

    /// <summary>What a registry's usage (co-use) holds, from <see cref="Registry.UsageStatus"/>.</summary>
    [DataContract]
    public sealed class UsageStatus
    {
        [DataMember(Name = "recording")] private bool recording;
        [DataMember(Name = "path")] private string path;
        [DataMember(Name = "tasks")] private long tasks;
        [DataMember(Name = "tools")] private int tools;
        [DataMember(Name = "memory_bytes")] private long memoryBytes;
        [DataMember(Name = "warning")] private string warning;

        /// <summary>Whether the calls the library runs are recorded (<see cref="Registry.EnableUsage"/>).</summary>
        public bool Recording { get { return recording; } }

        /// <summary>The usage file, or null.</summary>
        public string Path { get { return path; } }

        /// <summary>Tasks recorded, loaded ones included.</summary>
        public long Tasks { get { return tasks; } }

        /// <summary>Tools with counts.</summary>
        public int Tools { get { return tools; } }

        /// <summary>Bytes the counts take in memory, about.</summary>
        public long MemoryBytes { get { return memoryBytes; } }

        /// <summary>Why the file was ignored at start (an empty start) or the last write failed; null otherwise.</summary>
        public string Warning { get { return warning; } }
    }
}
