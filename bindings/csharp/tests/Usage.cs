using System;
using System.IO;
using System.Linq;

namespace ToolRegistry.Tests
{
    /// <summary>
    /// Usage through the binding (issue 52): <see cref="Registry.RecordUsage"/> teaches the registry a
    /// habit and a discover brings the partner in with <see cref="DiscoverResult.BroughtIn"/>; what does
    /// not count; malformed input throws and records nothing; the usage file keeps the counts across
    /// a restart.
    /// </summary>
    internal static partial class Program
    {
        private const string UsageQuery = "add an agenda item for tomorrow";
        private const string UsageReason = "used with `add_agenda` in 12 of its 15 tasks";

        private static void UsageTests()
        {
            Test("usage: a recorded habit brings the partner in, saying why", UsageBringsPartnerIn);
            Test("usage: unknown, repeated and empty names do not count; bad input throws", UsageBadInput);
            Test("usage: the usage file keeps the counts across a restart", UsageFileAcrossRestart);
        }

        /// <summary>The catalog of tests/it/usage.rs: an agenda tool whose tasks mostly start with a login step.</summary>
        private static Registry UsageRegistry()
        {
            var tools = new[]
            {
                "{\"name\": \"add_agenda\", \"description\": \"Add an agenda item to the user's schedule.\"}",
                "{\"name\": \"get_user_token\", \"description\": \"Get the user token by username and password.\"}",
                "{\"name\": \"list_files\", \"description\": \"List the files of a folder.\"}",
                "{\"name\": \"send_email\", \"description\": \"Send an email message.\"}",
            }.Concat(Enumerable.Range(0, 8).Select(i =>
                "{\"name\": \"agenda_tool_" + i + "\", \"description\": \"Agenda item helper number " + i + ": works on an agenda item.\"}"));
            var r = new Registry();
            r.Register("[" + string.Join(",", tools) + "]");
            return r;
        }

        private static void LoginHabit(Registry r)
        {
            for (int i = 0; i < 12; i++) Eq(2, r.RecordUsage(new[] { "add_agenda", "get_user_token" }), "counted");
            for (int i = 0; i < 3; i++) Eq(1, r.RecordUsage(new[] { "add_agenda" }), "counted");
            for (int i = 0; i < 10; i++) Eq(1, r.RecordUsageJson("[\"list_files\"]"), "counted");
        }

        private static string[] BroughtIn(Registry r, DiscoveryOptions options)
        {
            using (var d = r.CreateDiscoverer(options))
            {
                return d.Discover(UsageQuery, 10).Where(h => h.BroughtIn != null).Select(h => h.Name + ": " + h.BroughtIn).ToArray();
            }
        }

        private static void UsageBringsPartnerIn()
        {
            using (var r = UsageRegistry())
            {
                Eq(0, BroughtIn(r, null).Length, "nothing brought in before any usage");
                LoginHabit(r);
                Seq(new[] { "get_user_token: " + UsageReason }, BroughtIn(r, null), "brought in");
                Eq(0, BroughtIn(r, new DiscoveryOptions { Usage = false }).Length, "Usage = false");
                var s = r.UsageStatus();
                Eq(25L, s.Tasks, "tasks");
                Eq(3, s.Tools, "tools");
                Eq(false, s.Recording, "recording");
                Eq(null, s.Path, "path");
                True(s.MemoryBytes > 0, "memory");
            }
        }

        private static void UsageBadInput()
        {
            using (var r = UsageRegistry())
            {
                Eq(0, r.RecordUsage(new string[0]), "an empty task");
                Eq(0, r.RecordUsage(new[] { "no_such_tool", "", "a\0b" }), "unknown names");
                Eq(1, r.RecordUsage(new[] { "add_agenda", "add_agenda", "nope" }), "a repeated name");
                var e = Throws<InvalidInputException>(() => r.RecordUsageJson("[\"add_agenda\""), "malformed JSON");
                Eq(Status.InvalidJson, e.Status, "malformed JSON's status");
                e = Throws<InvalidInputException>(() => r.RecordUsageJson("[\"add_agenda\", 7]"), "a number");
                Eq(Status.InvalidArgument, e.Status, "a number's status");
                True(e.Message.Contains("usage[1]: expected a string, got a number"), e.Message);
                e = Throws<InvalidInputException>(() => r.RecordUsage(new[] { "add_agenda", "\ud800" }), "a lone surrogate");
                Eq(Status.InvalidUtf8, e.Status, "a lone surrogate's status");
                Throws<ArgumentNullException>(() => r.RecordUsage(null), "null names");
                Eq(1L, r.UsageStatus().Tasks, "tasks after the failures");
            }
        }

        private static void UsageFileAcrossRestart()
        {
            var dir = Path.Combine(Path.GetTempPath(), "tr-cs-usage-" + Guid.NewGuid().ToString("N"));
            Directory.CreateDirectory(dir);
            try
            {
                var path = Path.Combine(dir, "usage.json");
                using (var r = UsageRegistry())
                {
                    r.EnableUsage(path);
                    LoginHabit(r);
                    r.SaveUsage();
                    var s = r.UsageStatus();
                    True(s.Recording, "recording");
                    Eq(path, s.Path, "path");
                }
                using (var again = UsageRegistry())
                {
                    again.EnableUsage(path);
                    Eq(25L, again.UsageStatus().Tasks, "tasks loaded");
                    Seq(new[] { "get_user_token: " + UsageReason }, BroughtIn(again, null), "brought in after a restart");
                }
            }
            finally
            {
                Directory.Delete(dir, true);
            }
        }
    }
}
