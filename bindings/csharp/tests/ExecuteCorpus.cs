using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;

namespace ToolRegistry.Tests
{
    /// <summary>
    /// The tool-call conformance corpus (tests/conformance/execute, see its README) through the C#
    /// binding: the fixture's registry built with C# host functions, and each case's calls run.
    /// Shared by the test program (Execute.cs) and the cross-language ExecuteCli.
    /// </summary>
    internal static class ExecuteCorpus
    {
        /// <summary>The scripted host function of a fixture kind, as a C# function would be written.</summary>
        internal static Func<string, string, string> Host(string kind)
        {
            switch (kind)
            {
                case "echo":
                    return (name, args) => name + " <- " + args;
                case "fail":
                    return (name, args) => { throw new ToolCallException("upstream returned 503"); };
                case "panic":
                    return (name, args) => { throw new InvalidOperationException("kaboom"); };
                default:
                    throw new FormatException("fixture: unknown host kind " + kind);
            }
        }

        /// <summary>The scripted host function of a fixture kind written as an async function: it awaits before answering.</summary>
        internal static Func<string, string, CancellationToken, Task<string>> AsyncHost(string kind)
        {
            switch (kind)
            {
                case "echo":
                    return async (name, args, ct) => { await Task.Yield(); return name + " <- " + args; };
                case "fail":
                    return async (name, args, ct) => { await Task.Yield(); throw new ToolCallException("upstream returned 503"); };
                case "panic":
                    return async (name, args, ct) => { await Task.Yield(); throw new InvalidOperationException("kaboom"); };
                default:
                    throw new FormatException("fixture: unknown host kind " + kind);
            }
        }

        /// <summary>The fixture's registry: its tools (with hosts), the disabled tool, discovery on.</summary>
        internal static Registry Build(string corpusDir)
        {
            return Build(corpusDir, false);
        }

        /// <summary>Like <see cref="Build(string)"/>; with <paramref name="asyncHosts"/> the hosts are <see cref="AsyncHost"/>s.</summary>
        internal static Registry Build(string corpusDir, bool asyncHosts)
        {
            var fixture = JsonNode.Parse(File.ReadAllText(Path.Combine(corpusDir, "fixture.json")));
            var registry = new Registry();
            try
            {
                foreach (var entry in fixture["tools"].Items)
                {
                    var host = entry["host"];
                    if (host == null || host.Kind == 'z')
                    {
                        registry.Register(entry["tool"].Raw);
                    }
                    else if (asyncHosts)
                    {
                        registry.RegisterCallable(entry["tool"].Raw, AsyncHost(host.Str));
                    }
                    else
                    {
                        registry.RegisterCallable(entry["tool"].Raw, Host(host.Str));
                    }
                }
                foreach (var d in fixture["disable"].Items)
                {
                    var reason = d["reason"];
                    registry.Disable(d["name"].Str, reason == null || reason.Kind == 'z' ? null : reason.Str);
                }
                registry.EnableDiscovery(Discovery(fixture["discovery"]));
                return registry;
            }
            catch
            {
                registry.Dispose();
                throw;
            }
        }

        private static DiscoveryOptions Discovery(JsonNode node)
        {
            if (node == null)
            {
                return null;
            }
            var options = new DiscoveryOptions();
            foreach (var member in node.Members)
            {
                if (member.Key == "profile")
                {
                    options.Profile = member.Value.Str;
                }
                else
                {
                    // Say so rather than run the corpus with other options than the fixture's.
                    throw new FormatException("fixture: discovery option " + member.Key + " is not mapped here");
                }
            }
            return options;
        }

        /// <summary>Every case as ("provider/case", directory), sorted by name (ordinal).</summary>
        internal static List<KeyValuePair<string, string>> Cases(string corpusDir)
        {
            var cases = new List<KeyValuePair<string, string>>();
            foreach (var provider in Directory.GetDirectories(corpusDir))
            {
                foreach (var dir in Directory.GetDirectories(provider))
                {
                    cases.Add(new KeyValuePair<string, string>(Path.GetFileName(provider) + "/" + Path.GetFileName(dir), dir));
                }
            }
            return cases.OrderBy(c => c.Key, StringComparer.Ordinal).ToList();
        }

        /// <summary>The case's calls run through <paramref name="registry"/>: the messages JSON as returned.</summary>
        internal static string Run(Registry registry, string caseDir)
        {
            string calls = File.ReadAllText(Path.Combine(caseDir, "calls.json"));
            string optionsPath = Path.Combine(caseDir, "options.json");
            string options = File.Exists(optionsPath) ? File.ReadAllText(optionsPath) : null;
            return registry.Execute(calls, options);
        }

        /// <summary>The case's calls.json.</summary>
        internal static string Calls(string caseDir)
        {
            return File.ReadAllText(Path.Combine(caseDir, "calls.json"));
        }

        /// <summary>The case's options.json as typed options (null without one); a key not mapped here is an error.</summary>
        internal static ExecuteOptions Options(string caseDir)
        {
            string path = Path.Combine(caseDir, "options.json");
            if (!File.Exists(path))
            {
                return null;
            }
            var options = new ExecuteOptions();
            foreach (var member in JsonNode.Parse(File.ReadAllText(path)).Members)
            {
                switch (member.Key)
                {
                    case "api_format": options.ApiFormat = member.Value.Str; break;
                    case "include_assistant": options.IncludeAssistant = member.Value.Bool; break;
                    case "parallel": options.Parallel = (int)member.Value.Num; break;
                    default:
                        throw new FormatException(caseDir + ": execute option " + member.Key + " is not mapped here");
                }
            }
            return options;
        }

        /// <summary>The case's expected messages, final newline trimmed.</summary>
        internal static string Expected(string caseDir)
        {
            return File.ReadAllText(Path.Combine(caseDir, "expected.json")).TrimEnd('\n', '\r');
        }
    }
}
