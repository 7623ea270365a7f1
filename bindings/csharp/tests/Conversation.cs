using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Security.Cryptography;
using System.Text;
using System.Threading;

namespace ToolRegistry.Tests
{
    /// <summary>
    /// Conversations through the binding: the conversation corpus byte for byte, typed and raw
    /// options, the tool list and its fingerprint, Reveal, a conversation outliving its registry,
    /// Dispose semantics and threads.
    /// </summary>
    internal static partial class Program
    {
        private static void ConversationTests(string corpusDir)
        {
            Test("conversation: corpus byte for byte", () => ConversationCorpusCases(corpusDir));
            Test("conversation: typed options JSON", ConversationOptionsJson);
            Test("conversation: tools, system text, fingerprint, append-only loads", ConversationToolsList);
            Test("conversation: restore loaded, raw options, bad options", ConversationOptionsErrors);
            Test("conversation: Reveal of an unknown name is NotFound and loads nothing", ConversationRevealUnknown);
            Test("conversation: outlives its registry, then releases the functions", ConversationOutlivesRegistry);
            Test("conversation: Dispose twice, use after Dispose", ConversationDispose);
            Test("conversation: threads read Tools while others load tools", ConversationThreads);
            Test("conversation: Dispose while threads use it", ConversationDisposeWhileUsed);
            Test("conversation: no function leaked by disposed conversations", () => Eq(LiveAtStart, HostFunctions.LiveCount, "live functions"));
        }

        private static void ConversationCorpusCases(string corpusDir)
        {
            var cases = ConversationCorpus.Cases(corpusDir);
            True(cases.Count >= 8, "the corpus has " + cases.Count + " cases in " + corpusDir);
            var failures = new List<string>();
            foreach (var c in cases)
            {
                string tools;
                var got = ConversationCorpus.Run(corpusDir, c.Value, out tools);
                if (File.Exists(Path.Combine(c.Value, "tools.json")))
                {
                    string wantTools = ConversationCorpus.Expected(c.Value, "tools.json");
                    if (tools != wantTools)
                    {
                        failures.Add(c.Key + " tools\n  want " + wantTools + "\n  got  " + tools);
                    }
                }
                string messages = ConversationCorpus.Expected(c.Value, "expected.json");
                string loaded = ConversationCorpus.Expected(c.Value, "loaded.json");
                if (got.Key != messages)
                {
                    failures.Add(c.Key + " messages\n  want " + messages + "\n  got  " + got.Key);
                }
                if (got.Value != loaded)
                {
                    failures.Add(c.Key + " loaded\n  want " + loaded + "\n  got  " + got.Value);
                }
            }
            True(failures.Count == 0, failures.Count + " difference(s):\n" + string.Join("\n", failures));
        }

        /// <summary>One core tool and two deferred ones, each with an echo function; reference ranking.</summary>
        private static Registry ConversationRegistry()
        {
            var r = new Registry();
            r.RegisterCallable(@"{""name"": ""get_time"", ""description"": ""Current time.""}", (name, args) => name + " <- " + args);
            r.RegisterCallable(@"{""name"": ""send_email"", ""description"": ""Send an email to recipients."", ""metadata"": {""defer"": true}}", (name, args) => name + " <- " + args);
            r.RegisterCallable(@"{""name"": ""get_weather"", ""description"": ""Current weather for a city."", ""metadata"": {""defer"": true}}", (name, args) => name + " <- " + args);
            r.EnableDiscovery(new DiscoveryOptions { Profile = DiscoveryProfile.Reference });
            return r;
        }

        private static string[] ToolNames(string toolsJson)
        {
            return JsonNode.Parse(toolsJson).Items.Select(t => t.Has("name") ? t["name"].Str : t["function"]["name"].Str).ToArray();
        }

        /// <summary>The fingerprint as documented: SHA-256 of the answer's bytes up to the fingerprint member, closed.</summary>
        private static string ExpectedFingerprint(string toolsAnswer)
        {
            int i = toolsAnswer.IndexOf(",\"fingerprint\":", StringComparison.Ordinal);
            True(i > 0, "a fingerprint member in " + toolsAnswer);
            using (var sha = SHA256.Create())
            {
                var hash = sha.ComputeHash(Encoding.UTF8.GetBytes(toolsAnswer.Substring(0, i) + "}"));
                return string.Concat(hash.Select(b => b.ToString("x2")));
            }
        }

        private static void ConversationOptionsJson()
        {
            Eq("{}", new ConversationOptions().ToJson(), "no options");
            Eq("{\"api_format\":\"anthropic\",\"mode\":\"auto\",\"search\":\"server\",\"loaded\":[\"a\"],\"strict\":false," +
               "\"defer_threshold_tokens\":0,\"summary_max_tokens\":0,\"discovery\":{\"profile\":\"reference\"},\"top_k\":3,\"max_tokens\":500," +
               "\"namespaces\":[\"gh\"],\"tags\":[\"net\"]}",
               new ConversationOptions
               {
                   ApiFormat = ApiFormat.Anthropic, Mode = ConversationMode.Auto, Search = ConversationSearch.Server,
                   Loaded = new[] { "a" }, Strict = false, DeferThresholdTokens = 0, SummaryMaxTokens = 0,
                   Discovery = new DiscoveryOptions { Profile = DiscoveryProfile.Reference },
                   TopK = 3, MaxTokens = 500, Namespaces = new[] { "gh" }, Tags = new[] { "net" },
               }.ToJson(), "every option");
        }

        private static void ConversationToolsList()
        {
            using (var r = ConversationRegistry())
            using (var c = r.StartConversation(new ConversationOptions { Mode = ConversationMode.Stable }))
            {
                string raw = c.ToolsJson();
                var tools = c.Tools();
                Seq(new[] { "get_time", "discover_tools", "call_deferred" }, ToolNames(tools.ToolsJson), "stable tool list");
                True(tools.SystemText.Contains("send_email") && tools.SystemText.Contains("get_weather"), "system text lists the deferred tools: " + tools.SystemText);
                True(raw.StartsWith("{\"tools\":" + tools.ToolsJson + ",", StringComparison.Ordinal), "ToolsJson is the library's text: " + raw);
                Eq(ExpectedFingerprint(raw), tools.Fingerprint, "fingerprint is the SHA-256 of tools and system_text");
                Eq(64, tools.Fingerprint.Length, "64 hex digits");

                c.Reveal("get_weather");
                var after = c.Tools();
                True(after.ToolsJson.StartsWith(tools.ToolsJson.Substring(0, tools.ToolsJson.Length - 1), StringComparison.Ordinal),
                    "loading only appends: " + after.ToolsJson);
                Eq("get_weather", ToolNames(after.ToolsJson).Last(), "the loaded tool is last");
                True(after.Fingerprint != tools.Fingerprint, "the fingerprint changed with the bytes");
                Eq(tools.SystemText, after.SystemText, "system text unchanged");
                Eq(c.ToolsJson(), c.ToolsJson(), "no change, same bytes");
                using (var cut = r.StartConversation(new ConversationOptions { Mode = ConversationMode.Stable, SummaryMaxTokens = 0 }))
                {
                    string text = cut.Tools().SystemText;
                    True(text.EndsWith("\n- ... and 2 more (call discover_tools to find them)", StringComparison.Ordinal) && !text.Contains("send_email"),
                        "summary_max_tokens 0 leaves only the count: " + text);
                }

                // Registering another deferred tool changes only the system text in stable mode.
                r.Register(@"{""name"": ""book_flight"", ""description"": ""Book a flight."", ""metadata"": {""defer"": true}}");
                var more = c.Tools();
                Eq(after.ToolsJson, more.ToolsJson, "tools bytes unchanged by a new deferred tool");
                True(more.SystemText.Contains("book_flight") && more.Fingerprint != after.Fingerprint, "system text and fingerprint changed");
            }
        }

        private static void ConversationOptionsErrors()
        {
            using (var r = ConversationRegistry())
            {
                using (var c = r.StartConversation(new ConversationOptions { ApiFormat = ApiFormat.OpenAIResponses, Mode = ConversationMode.Native, Loaded = new[] { "send_email" } }))
                {
                    Seq(new[] { "send_email" }, c.Loaded(), "restored loaded tools");
                    Eq("[\"send_email\"]", c.LoadedJson(), "raw loaded");
                }
                using (var c = r.StartConversation("{\"api_format\": \"anthropic\", \"mode\": \"native\"}"))
                {
                    Eq(0, c.Loaded().Count, "raw options");
                    Eq("discover_tools", ToolNames(c.Tools().ToolsJson)[0], "native Anthropic: the search tool first");
                }
                using (var c = r.StartConversation())
                {
                    Seq(new[] { "get_time", "discover_tools", "call_deferred" }, ToolNames(c.Tools().ToolsJson), "defaults: summaries, openai-chat");
                    Throws<InvalidInputException>(() => c.Execute("{\"not\": \"calls\"}"), "not a call list");
                    Throws<InvalidInputException>(() => c.Execute("[]", new ExecuteOptions { ApiFormat = ApiFormat.Gemini }), "another provider's format");
                    Throws<ArgumentNullException>(() => c.Execute(null), "null calls");
                }
                Throws<InvalidInputException>(() => r.StartConversation(new ConversationOptions { Mode = ConversationMode.Native, ApiFormat = ApiFormat.Gemini }), "native with gemini");
                Throws<InvalidInputException>(() => r.StartConversation("{\"mode\": 1"), "malformed JSON");
                Throws<InvalidInputException>(() => r.StartConversation("{\"colour\": \"red\"}"), "unknown option");
            }
        }

        private static void ConversationRevealUnknown()
        {
            using (var r = ConversationRegistry())
            using (var c = r.StartConversation(new ConversationOptions { Mode = ConversationMode.Stable }))
            {
                string before = c.ToolsJson();
                var e = Throws<NotFoundException>(() => c.Reveal("get_weather", "no_such_tool"), "unknown name");
                True(e.Message.Contains("no_such_tool"), "the message names it: " + e.Message);
                Eq(0, c.Loaded().Count, "nothing loaded, not even the known name");
                Eq(before, c.ToolsJson(), "tools unchanged");
                c.Reveal();
                Throws<ArgumentNullException>(() => c.Reveal((IEnumerable<string>)null), "null names");
                Throws<ArgumentException>(() => c.Reveal("get_weather", null), "a null name");
                c.Reveal(new List<string> { "send_email", "get_weather" });
                Seq(new[] { "send_email", "get_weather" }, c.Loaded(), "loaded in order");
            }
        }

        private static void ConversationOutlivesRegistry()
        {
            int live = HostFunctions.LiveCount;
            Conversation c;
            using (var r = ConversationRegistry())
            {
                Eq(live + 3, HostFunctions.LiveCount, "three functions registered");
                c = r.StartConversation(new ConversationOptions { ApiFormat = ApiFormat.Anthropic, Mode = ConversationMode.Native });
            }
            using (c)
            {
                Eq(live + 3, HostFunctions.LiveCount, "the conversation keeps the functions alive");
                string messages = c.Execute(@"{""role"": ""assistant"", ""content"": [
                    {""type"": ""tool_use"", ""id"": ""t1"", ""name"": ""discover_tools"", ""input"": {""query"": ""get_weather""}},
                    {""type"": ""tool_use"", ""id"": ""t2"", ""name"": ""send_email"", ""input"": {}}]}");
                Eq("[{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"t1\",\"content\":[{\"type\":\"tool_reference\",\"tool_name\":\"get_weather\"}]}," +
                   "{\"type\":\"tool_result\",\"tool_use_id\":\"t2\",\"content\":\"send_email <- {}\"}]}]", messages, "messages after the registry's Dispose");
                Seq(new[] { "get_weather", "send_email" }, c.Loaded(), "loaded");
            }
            Eq(live, HostFunctions.LiveCount, "functions released with the conversation");
        }

        private static void ConversationDispose()
        {
            using (var r = ConversationRegistry())
            {
                var c = r.StartConversation();
                c.Dispose();
                c.Dispose();
                Throws<ObjectDisposedException>(() => c.Tools(), "Tools");
                Throws<ObjectDisposedException>(() => c.ToolsJson(), "ToolsJson");
                Throws<ObjectDisposedException>(() => c.Execute("[]"), "Execute");
                Throws<ObjectDisposedException>(() => c.Reveal("send_email"), "Reveal");
                Throws<ObjectDisposedException>(() => c.Loaded(), "Loaded");
                Throws<ObjectDisposedException>(() => c.LoadedJson(), "LoadedJson");
                Eq(3, r.ToolsStatus().Count, "the registry is not affected");

                // A host function may dispose the conversation running it: the call finishes first.
                Conversation self = null;
                r.RegisterCallable(@"{""name"": ""hang_up"", ""description"": ""Ends the conversation.""}", args => { self.Dispose(); return "bye"; });
                self = r.StartConversation();
                string messages = self.Execute(OpenAICalls("c1", "hang_up", "{}"));
                Seq(new[] { "bye" }, Contents(messages, "c1"), "the call completed");
                Throws<ObjectDisposedException>(() => self.Tools(), "disposed by its host function");
                r.Dispose();
                Throws<ObjectDisposedException>(() => r.StartConversation(), "StartConversation on a disposed registry");
            }
        }

        private static void ConversationThreads()
        {
            using (var r = ConversationRegistry())
            {
                for (int i = 0; i < 20; i++)
                {
                    r.RegisterCallable("{\"name\": \"extra_" + i + "\", \"description\": \"Extra tool.\", \"metadata\": {\"defer\": true}}", args => "ok");
                }
                using (var c = r.StartConversation(new ConversationOptions { Mode = ConversationMode.Stable }))
                {
                    var errors = new List<string>();
                    var threads = new List<Thread>();
                    for (int t = 0; t < 6; t++)
                    {
                        threads.Add(new Thread(() =>
                        {
                            try
                            {
                                int last = 0;
                                for (int i = 0; i < 100; i++)
                                {
                                    string raw = c.ToolsJson();
                                    var tools = ConversationTools.Parse(raw);
                                    if (tools.Fingerprint != ExpectedFingerprint(raw))
                                    {
                                        throw new Exception("fingerprint does not match " + raw);
                                    }
                                    int n = ToolNames(tools.ToolsJson).Length;
                                    if (n < last)
                                    {
                                        throw new Exception("tool list shrank from " + last + " to " + n);
                                    }
                                    last = n;
                                }
                            }
                            catch (Exception e)
                            {
                                lock (errors) { errors.Add(e.Message); }
                            }
                        }));
                    }
                    for (int t = 0; t < 2; t++)
                    {
                        int start = t;
                        threads.Add(new Thread(() =>
                        {
                            try
                            {
                                for (int i = start; i < 20; i += 2)
                                {
                                    string name = "extra_" + i;
                                    if (i % 4 < 2)
                                    {
                                        string messages = c.Execute(OpenAICalls("c" + i, name, "{}"));
                                        if (Contents(messages, "c" + i)[0] != "ok")
                                        {
                                            throw new Exception("call of " + name + ": " + messages);
                                        }
                                    }
                                    else
                                    {
                                        c.Reveal(name);
                                    }
                                }
                            }
                            catch (Exception e)
                            {
                                lock (errors) { errors.Add(e.Message); }
                            }
                        }));
                    }
                    threads.ForEach(th => th.Start());
                    threads.ForEach(th => th.Join());
                    True(errors.Count == 0, string.Join("\n", errors));
                    Eq(20, c.Loaded().Count, "every load landed");
                    Eq(23, ToolNames(c.Tools().ToolsJson).Length, "core, two built-ins and 20 loaded tools");
                }
            }
        }

        private static void ConversationDisposeWhileUsed()
        {
            using (var r = ConversationRegistry())
            {
                for (int round = 0; round < 10; round++)
                {
                    var c = r.StartConversation();
                    var errors = new List<string>();
                    var threads = Enumerable.Range(0, 4).Select(t => new Thread(() =>
                    {
                        for (int i = 0; i < 30; i++)
                        {
                            try
                            {
                                switch ((t + i) % 3)
                                {
                                    case 0: c.Tools(); break;
                                    case 1: c.Execute(OpenAICalls("c", "get_time", "{}")); break;
                                    default: c.Reveal("send_email"); break;
                                }
                            }
                            catch (ObjectDisposedException)
                            {
                            }
                            catch (Exception e)
                            {
                                lock (errors) { errors.Add(e.GetType().Name + ": " + e.Message); }
                            }
                        }
                    })).ToList();
                    threads.ForEach(th => th.Start());
                    c.Dispose();
                    threads.ForEach(th => th.Join());
                    True(errors.Count == 0, "round " + round + ": " + string.Join("\n", errors));
                }
            }
        }
    }
}
