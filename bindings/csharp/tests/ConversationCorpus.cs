using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;

namespace ToolRegistry.Tests
{
    /// <summary>
    /// The conversation conformance corpus (tests/conformance/conversation) through the C# binding:
    /// per case a fresh fixture registry (built as <see cref="ExecuteCorpus.Build"/> does), a
    /// conversation with the case's options (typed), the registry disposed (the conversation
    /// outlives it), the calls executed once, then the loaded tools. Shared by the test program
    /// (Conversation.cs) and ConversationCli.
    /// </summary>
    internal static class ConversationCorpus
    {
        /// <summary>Every case as (name, directory), sorted by name (ordinal).</summary>
        internal static List<KeyValuePair<string, string>> Cases(string corpusDir)
        {
            return Directory.GetDirectories(corpusDir)
                .Select(d => new KeyValuePair<string, string>(Path.GetFileName(d), d))
                .OrderBy(c => c.Key, StringComparer.Ordinal)
                .ToList();
        }

        /// <summary>options.json as typed options; a key not mapped here is an error, not ignored.</summary>
        internal static ConversationOptions Options(string caseDir)
        {
            var node = JsonNode.Parse(File.ReadAllText(Path.Combine(caseDir, "options.json")));
            var options = new ConversationOptions();
            foreach (var member in node.Members)
            {
                var v = member.Value;
                switch (member.Key)
                {
                    case "api_format": options.ApiFormat = v.Str; break;
                    case "mode": options.Mode = v.Str; break;
                    case "search": options.Search = v.Str; break;
                    case "strict": options.Strict = v.Bool; break;
                    case "loaded": options.Loaded = v.Items.Select(i => i.Str).ToList(); break;
                    case "top_k": options.TopK = (int)v.Num; break;
                    case "max_tokens": options.MaxTokens = (int)v.Num; break;
                    case "defer_threshold_tokens": options.DeferThresholdTokens = (int)v.Num; break;
                    default:
                        throw new FormatException(caseDir + ": conversation option " + member.Key + " is not mapped here");
                }
            }
            return options;
        }

        /// <summary>Runs one case: (messages JSON, loaded JSON), both exactly as returned.</summary>
        internal static KeyValuePair<string, string> Run(string corpusDir, string caseDir)
        {
            string tools;
            return Run(corpusDir, caseDir, out tools);
        }

        /// <summary>Runs one case: (messages JSON, loaded JSON), and the tools answer afterwards in
        /// <paramref name="tools"/>, all exactly as returned.</summary>
        internal static KeyValuePair<string, string> Run(string corpusDir, string caseDir, out string tools)
        {
            return Run(corpusDir, caseDir, out tools, (conversation, calls) => conversation.Execute(calls));
        }

        /// <summary>Like <see cref="Run(string, string, out string)"/>, the calls run by <paramref name="execute"/>
        /// (ExecuteAsync, say) over a registry whose hosts are async with <paramref name="asyncHosts"/>.</summary>
        internal static KeyValuePair<string, string> Run(string corpusDir, string caseDir, out string tools, Func<Conversation, string, string> execute, bool asyncHosts = false)
        {
            Conversation conversation;
            using (var registry = ExecuteCorpus.Build(corpusDir, asyncHosts))
            {
                conversation = registry.StartConversation(Options(caseDir));
            }
            using (conversation)
            {
                string messages = execute(conversation, File.ReadAllText(Path.Combine(caseDir, "calls.json")));
                string loaded = conversation.LoadedJson();
                tools = conversation.ToolsJson();
                return new KeyValuePair<string, string>(messages, loaded);
            }
        }

        /// <summary>A file of the case, final newline trimmed.</summary>
        internal static string Expected(string caseDir, string file)
        {
            return File.ReadAllText(Path.Combine(caseDir, file)).TrimEnd('\n', '\r');
        }
    }
}
