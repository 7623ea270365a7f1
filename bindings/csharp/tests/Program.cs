using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text;
using System.Text.RegularExpressions;
using System.Threading;

namespace ToolRegistry.Tests
{
    /// <summary>
    /// The C# binding's test program: every method, the exception for each status, Dispose, threads and
    /// the golden scenarios. Prints "N passed, N failed" last and exits non-zero on any failure.
    /// Usage: mono ToolRegistry.Tests.exe [golden-dir [conformance-dir]]  (defaults ../shared/golden and
    /// tests/conformance/execute, from the repo root; the conversation corpus is its sibling
    /// directory conversation).
    /// </summary>
    internal static partial class Program
    {
        private static int passed, failed;

        private const string Tools = @"[
          {""name"": ""send_email"", ""description"": ""Send an email to a recipient. Uses SMTP."",
           ""parameters"": {""type"": ""object"", ""properties"": {""to"": {""type"": ""string""}, ""body"": {""type"": ""string""}}},
           ""metadata"": {""defer"": true, ""tags"": [""network""], ""search_hint"": ""mail message""}},
          {""name"": ""read_file"", ""description"": ""Read a file from disk."",
           ""parameters"": {""type"": ""object"", ""properties"": {""path"": {""type"": ""string""}}},
           ""metadata"": {""tags"": [""read_only"", ""file_system""]}},
          {""name"": ""delete_file"", ""description"": ""Delete a file from disk!"", ""metadata"": {""tags"": [""destructive"", ""file_system""]}},
          {""type"": ""function"", ""function"": {""name"": ""list_issues"", ""description"": ""List the issues of a repository."",
           ""parameters"": {""type"": ""object"", ""properties"": {""repo"": {""type"": ""string""}}}},
           ""namespace"": ""github"", ""metadata"": {""defer"": true}},
          {""name"": ""create_issue"", ""description"": ""Open a new issue in a repository."", ""input_schema"": {""type"": ""object""},
           ""namespace"": ""github""}
        ]";

        private static int Main(string[] args)
        {
            string goldenDir = args.Length > 0 ? args[0] : Environment.GetEnvironmentVariable("TOOLREGISTRY_GOLDEN_DIR") ?? Path.Combine("..", "shared", "golden");

            Test("library version", LibraryVersion);
            Test("register one, many, all shapes, namespaces", RegisterShapes);
            Test("register replaces in place", RegisterReplaces);
            Test("register is all or nothing", RegisterAllOrNothing);
            Test("unregister", Unregister);
            Test("set metadata typed and raw", SetMetadata);
            Test("set enabled on tools and namespaces", SetEnabled);
            Test("schemas with options", Schemas);
            Test("deferred summaries typed and raw", DeferredSummaries);
            Test("enable discovery and call discover_tools", CallDiscoverTools);
            Test("registry created with discovery options", RegistryWithDiscovery);
            Test("discoverer: typed, raw, exact match, schemas, top_k", DiscovererBasics);
            Test("discoverer follows registry changes; rebuild changes nothing", DiscovererFollows);
            Test("discovery options change ranking and are validated", DiscoveryOptionsValidated);
            Test("explain: outcomes, tokens, per-field scores agree with Discover", Explain);
            Test("ranking profiles", Profiles);
            Test("discover filters, namespace search, select:", DiscoverFilters);
            Test("non-ASCII text round-trips as UTF-8", Unicode);
            Test("status enum matches tr_status_name", StatusNames);
            Test("status NULL_ARGUMENT -> InvalidInputException", StatusNullArgument);
            Test("status INVALID_UTF8 -> InvalidInputException", StatusInvalidUtf8);
            Test("status INVALID_JSON -> InvalidInputException", StatusInvalidJson);
            Test("status INVALID_ARGUMENT -> InvalidInputException", StatusInvalidArgument);
            Test("status NOT_FOUND -> NotFoundException", StatusNotFound);
            Test("status TOO_LARGE -> InvalidInputException", StatusTooLarge);
            Test("status INTERNAL and PANIC -> ToolRegistryException", StatusInternalAndPanic);
            Test("null and NUL arguments refused before the call", NullArguments);
            Test("Dispose twice", DisposeTwice);
            Test("use after Dispose throws ObjectDisposedException", UseAfterDispose);
            Test("discoverer outlives its registry", DiscovererOutlivesRegistry);
            Test("finalizers free forgotten handles in any order", Finalizers);
            Test("threads discovering at once agree", ThreadsDiscover);
            Test("threads discovering while another registers", ThreadsDiscoverWhileRegistering);
            Test("Dispose while threads discover", DisposeWhileDiscovering);
            foreach (var name in new[] { "seed_examples", "seed_filters_off", "seed_custom_weights", "cjk", "dynamics", "bfcl_defaults" })
            {
                string path = Path.Combine(goldenDir, name + ".json");
                Test("golden " + name, () => GoldenFile(path));
            }

            string corpusDir = args.Length > 1 ? args[1] : Environment.GetEnvironmentVariable("TOOLREGISTRY_CONFORMANCE_DIR") ?? Path.Combine("tests", "conformance", "execute");
            // Conversations first: the execute tests end by leaving forgotten registries to the
            // finalizers, which would upset the exact counts of live functions here.
            StrictTests();
            BudgetTests();
            IntentsTests();
            UsageTests();
            EmbedderTests();
            ConversationTests(Path.Combine(Path.GetDirectoryName(corpusDir.TrimEnd('/', '\\')), "conversation"));
            AsyncTests(corpusDir);
            ExecuteTests(corpusDir);

            Console.WriteLine("{0} passed, {1} failed", passed, failed);
            return failed == 0 ? 0 : 1;
        }

        // ---- runner and assertions -----------------------------------------------------------

        private static void Test(string name, Action body)
        {
            try
            {
                body();
                passed++;
                Console.WriteLine("ok   " + name);
            }
            catch (Exception e)
            {
                failed++;
                Console.WriteLine("FAIL " + name + ": " + e.GetType().Name + ": " + e.Message);
                Console.WriteLine(e.StackTrace);
            }
        }

        private sealed class AssertionFailed : Exception
        {
            public AssertionFailed(string message) : base(message)
            {
            }
        }

        private static void True(bool condition, string what)
        {
            if (!condition)
            {
                throw new AssertionFailed(what);
            }
        }

        private static void Eq<T>(T expected, T actual, string what)
        {
            if (!EqualityComparer<T>.Default.Equals(expected, actual))
            {
                throw new AssertionFailed(what + ": expected <" + expected + ">, got <" + actual + ">");
            }
        }

        private static void Seq<T>(IEnumerable<T> expected, IEnumerable<T> actual, string what)
        {
            if (!expected.SequenceEqual(actual))
            {
                throw new AssertionFailed(what + ": expected [" + string.Join(", ", expected) + "], got [" + string.Join(", ", actual) + "]");
            }
        }

        private static T Throws<T>(Action action, string what) where T : Exception
        {
            try
            {
                action();
            }
            catch (T e)
            {
                if (e is ToolRegistryException)
                {
                    True(e.Message.Length > 0 && e.Message.IndexOf('\n') < 0, what + ": message must be one non-empty line: " + e.Message);
                }
                return e;
            }
            catch (Exception e)
            {
                throw new AssertionFailed(what + ": expected " + typeof(T).Name + ", got " + e.GetType().Name + ": " + e.Message);
            }
            throw new AssertionFailed(what + ": expected " + typeof(T).Name + ", nothing thrown");
        }

        private static Registry Sample()
        {
            var r = new Registry();
            r.Register(Tools);
            return r;
        }

        private static string[] Names(IEnumerable<DiscoverResult> hits)
        {
            return hits.Select(h => h.Name).ToArray();
        }

        private static string[] SchemaNames(string schemasJson)
        {
            // openai-chat shape: [{"type": "function", "function": {"name": ...}}]
            return JsonNode.Parse(schemasJson).Items.Select(t => t["function"]["name"].Str).ToArray();
        }

        // ---- registry --------------------------------------------------------------------------

        private static void LibraryVersion()
        {
            True(Regex.IsMatch(Registry.LibraryVersion, @"^\d+\.\d+\.\d+"), "version looks like x.y.z: " + Registry.LibraryVersion);
        }

        private static void RegisterShapes()
        {
            using (var r = new Registry())
            {
                var names = r.Register(Tools);
                Seq(new[] { "send_email", "read_file", "delete_file", "github-list_issues", "github-create_issue" }, names, "registered names");
                Seq(new[] { "mcp_tool" }, r.Register(@"{""name"": ""mcp_tool"", ""description"": ""An MCP tool."", ""inputSchema"": {""type"": ""object""}}"), "single MCP tool");
                Seq(new[] { "responses_tool" }, r.Register(@"{""type"": ""function"", ""name"": ""responses_tool"", ""description"": ""x""}"), "OpenAI responses tool");
                Seq(new string[0], r.Register("[]"), "empty array");
                Seq(new[] { "delete_file", "github-create_issue", "github-list_issues", "mcp_tool", "read_file", "responses_tool", "send_email" },
                    SchemaNames(r.GetSchemasJson()), "schemas sorted by name");
            }
        }

        private static void RegisterReplaces()
        {
            using (var r = Sample())
            {
                r.Register(@"{""name"": ""read_file"", ""description"": ""Read bytes from a local path.""}");
                var schemas = JsonNode.Parse(r.GetSchemasJson());
                Eq(5, schemas.Items.Count, "still five tools");
                var readFile = schemas.Items.First(t => t["function"]["name"].Str == "read_file");
                Eq("Read bytes from a local path.", readFile["function"]["description"].Str, "description replaced");
            }
        }

        private static void RegisterAllOrNothing()
        {
            using (var r = Sample())
            {
                string before = r.GetSchemasJson();
                var e = Throws<InvalidInputException>(() => r.Register(@"[{""name"": ""ok_tool""}, {""description"": ""no name""}]"), "second tool has no name");
                Eq(Status.InvalidArgument, e.Status, "status");
                True(e.Message.Contains("[1]"), "message names the offending element: " + e.Message);
                Eq(before, r.GetSchemasJson(), "nothing registered");
            }
        }

        private static void Unregister()
        {
            using (var r = Sample())
            {
                r.Unregister("github-list_issues");
                True(!SchemaNames(r.GetSchemasJson()).Contains("github-list_issues"), "gone from schemas");
                Throws<NotFoundException>(() => r.Unregister("github-list_issues"), "second unregister");
                Throws<NotFoundException>(() => r.Unregister("list_issues"), "unqualified name");
            }
        }

        private static void SetMetadata()
        {
            using (var r = Sample())
            {
                r.SetMetadata("read_file", defer: true);
                Seq(new[] { "send_email", "read_file", "github-list_issues" }, r.DeferredSummaries().Select(s => s.Name), "read_file now deferred");
                r.SetMetadata("read_file", tags: new[] { "archive" });
                var tagged = r.GetSchemasJson(new SchemaOptions { Tags = new[] { "archive" } });
                Seq(new[] { "read_file" }, SchemaNames(tagged), "tags replaced");
                Seq(new[] { "read_file" }, r.DeferredSummaries().Where(s => s.Name == "read_file").Select(s => s.Name), "defer kept when only tags change");

                r.SetMetadataJson("delete_file", @"{""search_hint"": ""shred obliterate""}");
                using (var d = r.CreateDiscoverer())
                {
                    Eq("delete_file", d.Discover("obliterate").First().Name, "search hint is searched");
                }
                Throws<NotFoundException>(() => r.SetMetadata("nope", defer: true), "unknown tool");
                var e = Throws<InvalidInputException>(() => r.SetMetadataJson("read_file", @"{""colour"": ""red""}"), "unknown key");
                Eq(Status.InvalidArgument, e.Status, "unknown key status");
            }
        }

        private static void SetEnabled()
        {
            using (var r = Sample())
            using (var d = r.CreateDiscoverer())
            {
                r.SetEnabled("read_file", false);
                True(!SchemaNames(r.GetSchemasJson()).Contains("read_file"), "disabled tool left out of schemas");
                True(!Names(d.Discover("read file disk")).Contains("read_file"), "disabled tool left out of discovery");
                r.SetEnabled("read_file", true);
                Eq("read_file", d.Discover("read_file").Single().Name, "re-enabled");

                r.SetEnabled("github", false);
                Seq(new[] { "delete_file", "read_file", "send_email" }, SchemaNames(r.GetSchemasJson()), "namespace disabled");
                Seq(new[] { "send_email" }, r.DeferredSummaries().Select(s => s.Name), "summaries without the namespace");
                r.SetEnabled("github", true);
                Eq(5, SchemaNames(r.GetSchemasJson()).Length, "namespace enabled again");
                Throws<NotFoundException>(() => r.SetEnabled("gitlab", false), "unknown namespace");
            }
        }

        private static void Schemas()
        {
            using (var r = Sample())
            {
                Seq(new[] { "delete_file", "github-create_issue", "read_file" },
                    SchemaNames(r.GetSchemasJson(new SchemaOptions { IncludeDeferred = false })), "without deferred");
                Seq(new[] { "delete_file", "read_file" },
                    SchemaNames(r.GetSchemasJson(new SchemaOptions { Tags = new[] { "file_system" } })), "tags");
                Seq(new[] { "github-create_issue", "github-list_issues", "read_file", "send_email" },
                    SchemaNames(r.GetSchemasJson(new SchemaOptions { ExcludeTags = new[] { "destructive" } })), "exclude_tags");
                var anthropic = JsonNode.Parse(r.GetSchemasJson(new SchemaOptions { ApiFormat = ApiFormat.Anthropic }));
                True(anthropic.Items.All(t => t.Has("input_schema") && t.Has("name")), "anthropic shape");
                var responses = JsonNode.Parse(r.GetSchemasJson(new SchemaOptions { ApiFormat = ApiFormat.OpenAIResponses }));
                True(responses.Items.All(t => t["type"].Str == "function" && t.Has("name") && t.Has("parameters")), "responses shape");
                JsonNode.Parse(r.GetSchemasJson(new SchemaOptions { ApiFormat = ApiFormat.Gemini }));
                var e = Throws<InvalidInputException>(() => r.GetSchemasJson(new SchemaOptions { ApiFormat = "cobol" }), "unknown format");
                Eq(Status.InvalidArgument, e.Status, "unknown format status");
            }
        }

        private static void DeferredSummaries()
        {
            using (var r = Sample())
            {
                var summaries = r.DeferredSummaries();
                Seq(new[] { "send_email", "github-list_issues" }, summaries.Select(s => s.Name), "deferred tools in registration order");
                Eq("Send an email to a recipient.", summaries[0].Description, "first sentence");
                Eq(null, summaries[0].Namespace, "no namespace");
                Eq("github", summaries[1].Namespace, "namespace");
                Eq("- send_email: Send an email to a recipient.", summaries[0].ToString(), "ToString");
                var raw = JsonNode.Parse(r.DeferredSummariesJson());
                Seq(summaries.Select(s => s.Name), raw.Items.Select(s => s["name"].Str), "raw JSON agrees");
                Eq('z', raw.Items[0]["namespace"].Kind, "raw null namespace");
            }
        }

        private static void CallDiscoverTools()
        {
            using (var r = Sample())
            {
                Throws<NotFoundException>(() => r.Call("discover_tools", @"{""query"": ""email""}"), "discovery not enabled yet");
                Throws<NotFoundException>(() => r.DiscoverTools("email"), "typed, discovery not enabled yet");
                r.EnableDiscovery();
                True(SchemaNames(r.GetSchemasJson()).Contains("discover_tools"), "discover_tools registered");
                var raw = JsonNode.Parse(r.Call("discover_tools", @"{""query"": ""send an email"", ""top_k"": 3}"));
                Eq("send_email", raw.Items[0]["name"].Str, "raw call answer");
                var hits = r.DiscoverTools("send an email", 3);
                Eq("send_email", hits[0].Name, "typed answer");
                Eq(raw.Items[0]["score"].Num, hits[0].Score, "typed and raw scores agree");
                True(hits[0].Deferred && hits[0].SchemaJson != null, "deferred hit carries its schema");
                var anthropic = r.DiscoverTools("send_email", 1, ApiFormat.Anthropic).Single();
                True(JsonNode.Parse(anthropic.SchemaJson).Has("input_schema"), "schema in the requested format");
                Throws<NotFoundException>(() => r.Call("no_such_builtin", "{}"), "unknown built-in");
                Throws<InvalidInputException>(() => r.Call("discover_tools", @"{""top_k"": 3}"), "query missing");
                Eq(Status.InvalidJson, Throws<InvalidInputException>(() => r.Call("discover_tools", "{"), "malformed").Status, "malformed args status");
                r.Unregister("discover_tools");
                Throws<NotFoundException>(() => r.DiscoverTools("email"), "unregistering discover_tools turns discovery off");
            }
        }

        private static void RegistryWithDiscovery()
        {
            using (var r = new Registry(new DiscoveryOptions { MinScoreRatio = 0, MaxDfRatio = 0 }))
            {
                r.Register(Tools);
                var hits = r.DiscoverTools("file");
                Seq(new[] { "delete_file", "read_file" }, Names(hits), "discover_tools enabled at creation (shorter document first)");
            }
            var e = Throws<InvalidInputException>(() => new Registry(new DiscoveryOptions { MinScoreRatio = 2 }), "ratio out of range");
            Eq(Status.InvalidArgument, e.Status, "bad option status");
        }

        private static void DiscoverFilters()
        {
            using (var r = Sample())
            using (var d = r.CreateDiscoverer())
            {
                var hits = d.Discover("issues repository", new DiscoverRequest { Namespaces = new[] { "GitHub" } });
                True(hits.Count > 0 && hits.All(h => h.Namespace == "github"), "namespace filter");
                hits = d.Discover("file disk", new DiscoverRequest { Tags = new[] { "destructive" } });
                Seq(new[] { "delete_file" }, Names(hits), "tag filter");
                hits = d.Discover("issue", new DiscoverRequest { Deferred = false, TopK = 1 });
                Seq(new[] { "github-create_issue" }, Names(hits), "deferred filter and top_k");
                Eq("github-list_issues", d.Discover("github list").First().Name, "namespace searchable (enhanced default)");
                hits = d.Discover("select:read_file,nope,GitHub-List_Issues", new DiscoverRequest());
                Seq(new[] { "read_file", "github-list_issues" }, Names(hits), "select: in order, unknown skipped");
                True(hits.All(h => h.Score == 1.0 && h.SchemaJson != null), "select: score 1.0 with schemas");
                var e = Throws<InvalidInputException>(() => d.Discover("x", new DiscoverRequest { TopK = 0 }), "top_k 0");
                Eq(Status.InvalidArgument, e.Status, "bad request status");
            }
        }

        private static void DiscovererBasics()
        {
            using (var r = Sample())
            using (var d = r.CreateDiscoverer())
            {
                var exact = d.Discover("github-list_issues").Single();
                Eq(1.0, exact.Score, "exact match score");
                Eq("github", exact.Namespace, "exact match namespace");
                True(exact.Deferred, "exact match deferred");
                True(JsonNode.Parse(exact.SchemaJson)["function"]["name"].Str == "github-list_issues", "exact match schema");
                Eq("github-list_issues", d.Discover("GITHUB/LIST_ISSUES").Single().Name, "normalized exact match");
                var nonDeferred = d.Discover("read_file").Single();
                True(nonDeferred.SchemaJson != null && !nonDeferred.Deferred, "exact match always has a schema");

                var hits = d.Discover("delete a file from disk");
                Eq("delete_file", hits[0].Name, "best hit");
                True(hits.All(h => h.Deferred == (h.SchemaJson != null)), "fuzzy hits carry a schema exactly when deferred");
                True(hits.Zip(hits.Skip(1), (a, b) => a.Score >= b.Score).All(x => x), "best first");

                var raw = JsonNode.Parse(d.DiscoverJson("delete a file from disk"));
                Seq(Names(hits), raw.Items.Select(h => h["name"].Str), "raw names");
                Seq(hits.Select(h => h.Score), raw.Items.Select(h => h["score"].Num), "raw scores");
                Seq(hits.Select(h => h.Description), raw.Items.Select(h => h["description"].Str), "raw descriptions");

                Eq(1, d.Discover("file", 1).Count, "top_k");
                var gemini = d.Discover("send_email", 1, ApiFormat.Gemini).Single();
                True(gemini.SchemaJson != null && !JsonNode.Parse(gemini.SchemaJson).Has("function"), "gemini schema shape");
                Eq(0, d.Discover("zebra").Count, "no match is an empty list");
                Eq("send_email (1)", d.Discover("send_email").Single().ToString(), "ToString");
            }
        }

        private static void DiscovererFollows()
        {
            using (var r = Sample())
            using (var d = r.CreateDiscoverer())
            {
                string before = d.DiscoverJson("issue in a repository");
                d.RebuildIndex();
                Eq(before, d.DiscoverJson("issue in a repository"), "rebuild changes nothing");
                r.Register(@"{""name"": ""translate_text"", ""description"": ""Translate text between languages.""}");
                Eq("translate_text", d.Discover("translate some text").First().Name, "sees a tool registered after it was created");
                r.Unregister("translate_text");
                Eq(0, d.Discover("translate").Count, "sees the unregister");
            }
        }

        private static void DiscoveryOptionsValidated()
        {
            using (var r = Sample())
            {
                using (var plain = r.CreateDiscoverer(new DiscoveryOptions { Profile = DiscoveryProfile.Reference, MinScoreRatio = 0, MaxDfRatio = 0 }))
                using (var nameOnly = r.CreateDiscoverer(new DiscoveryOptions
                {
                    Profile = DiscoveryProfile.Reference, MinScoreRatio = 0, MaxDfRatio = 0, K1 = 1.2, B = 0.5, Delta = 0.5,
                    FieldWeights = new Dictionary<string, double> { { "description", 0 }, { "search_hint", 0 }, { "tags", 0 }, { "params", 0 } },
                }))
                {
                    // "repository" is only in descriptions: with weight 0 only the BM25+ delta term is left.
                    var withDescription = plain.Discover("repository");
                    var withoutDescription = nameOnly.Discover("repository");
                    Eq(2, withDescription.Count, "description matches with default weights");
                    Eq(2, withoutDescription.Count, "still matched through delta");
                    True(withoutDescription[0].Score < withDescription[0].Score, "zero description weight lowers the score");
                    True(Math.Abs(plain.Discover("file")[0].Score - nameOnly.Discover("file")[0].Score) > 1e-6, "options change scores");
                }
                Eq(Status.InvalidArgument, Throws<InvalidInputException>(() => r.CreateDiscoverer(new DiscoveryOptions { FieldWeights = new Dictionary<string, double> { { "colour", 1 } } }), "unknown field").Status, "unknown field status");
                Eq(Status.InvalidArgument, Throws<InvalidInputException>(() => r.EnableDiscovery(new DiscoveryOptions { MaxDfRatio = -0.5 }), "negative ratio").Status, "negative ratio status");
                Throws<ArgumentOutOfRangeException>(() => r.EnableDiscovery(new DiscoveryOptions { K1 = double.NaN }), "NaN refused before the call");
            }
        }

        private static void Close(double expected, double actual, string what)
        {
            if (Math.Abs(expected - actual) > 1e-9 * Math.Max(1.0, Math.Abs(expected)))
            {
                throw new AssertionFailed(what + ": expected " + expected.ToString("R") + ", got " + actual.ToString("R"));
            }
        }

        private static void Explain()
        {
            using (var r = Sample())
            using (var d = r.CreateDiscoverer(new DiscoveryOptions { Profile = DiscoveryProfile.Reference }))
            {
                const string query = "delete a file from disk";
                var hits = d.Discover(query);
                var ex = d.Explain(query, "delete_file");
                Eq(query, ex.Query, "query");
                Eq("reference", ex.Profile, "profile");
                Eq(null, ex.ExactMatch, "no exact match");
                Eq(10, ex.TopK, "top_k");
                Eq(hits.Count, ex.ResultCount, "result count agrees with Discover");
                Close(hits[0].Score, ex.BestScore.Value, "best score agrees with Discover");
                True(ex.ScoreFloor.HasValue && ex.ScoreFloor.Value < ex.BestScore.Value, "score floor below the best");
                Seq(new[] { "delete", "a", "file", "from", "disk" }, ex.Tokens.Select(t => t.Token), "analyzed tokens");
                Seq(ex.Tokens.Where(t => t.Kept).Select(t => t.Token), ex.ScoredTokens, "scored tokens are the kept ones");
                True(ex.Tokens.All(t => t.Kept || t.Reason != null), "a dropped token says why");
                var tool = ex.Tool;
                Eq("delete_file", tool.Name, "tool name");
                Eq(ExplainOutcome.Ranked, tool.Outcome, "outcome");
                Eq(1, tool.Rank, "rank");
                True(tool.Indexed, "indexed");
                Close(hits[0].Score, tool.Score.Value, "score agrees with Discover");
                Close(tool.Score.Value, tool.Terms.Sum(t => t.Score), "terms add up to the score");
                foreach (var term in tool.Terms)
                {
                    Close(term.Score, term.Idf * term.QueryWeight * term.TfNorm, "term score = idf * query_weight * tf_norm for " + term.Token);
                    Eq(1.0, term.QueryWeight, "a token given once weighs 1: " + term.Token);
                    True(term.Idf > 0 && term.CatalogIdf == term.Idf, "reference: the catalog's IDF as it is for " + term.Token);
                    Close(term.WeightedTf, term.Fields.Sum(f => f.Weight * f.Tf), "weighted tf of " + term.Token);
                    Close(term.Score, term.Fields.Sum(f => f.Score), "fields add up for " + term.Token);
                }
                Eq("name", tool.Terms.First(t => t.Token == "delete").Fields.First().Field, "delete is in the name");
                var raw = JsonNode.Parse(d.ExplainJson(query, "delete_file"));
                Eq(tool.OutcomeName, raw["tool"]["outcome"].Str, "raw JSON agrees");
                Eq(ex.Json, d.ExplainJson(query, "delete_file"), "Json keeps the raw text");

                Eq(ExplainOutcome.ExactMatch, d.Explain("read_file", "read_file").Tool.Outcome, "exact match");
                Eq(1.0, d.Explain("read_file", "read_file").Tool.Score, "exact match score");
                var other = d.Explain("read_file", "delete_file");
                Eq(ExplainOutcome.OtherExactMatch, other.Tool.Outcome, "another tool's name");
                Eq("read_file", other.ExactMatch, "names the exact match");
                Eq(ExplainOutcome.NoCommonToken, d.Explain("email", "read_file").Tool.Outcome, "no common token");
                var below = d.Explain("file", "read_file", 1);
                Eq(ExplainOutcome.BelowTopK, below.Tool.Outcome, "below top_k");
                Eq(2, below.Tool.Rank, "rank beyond top_k");
                r.SetEnabled("read_file", false);
                var disabled = d.Explain("read file", "read_file");
                Eq(ExplainOutcome.Disabled, disabled.Tool.Outcome, "disabled");
                True(!disabled.Tool.Indexed && disabled.Tool.Score == null && disabled.Tool.Rank == null, "not indexed, no score");

                Throws<NotFoundException>(() => d.Explain("file", "nope"), "unknown tool");
                Eq(Status.InvalidArgument, Throws<InvalidInputException>(() => d.Explain(" ", "delete_file"), "blank query").Status, "blank query");
                Eq(Status.InvalidArgument, Throws<InvalidInputException>(() => d.Explain("file", "delete_file", 0), "top_k 0").Status, "top_k 0");
                Throws<ArgumentNullException>(() => d.Explain("file", null), "null tool name");
            }
        }

        private static void Profiles()
        {
            using (var r = Sample())
            using (var reference = r.CreateDiscoverer(new DiscoveryOptions { Profile = DiscoveryProfile.Reference }))
            using (var enhanced = r.CreateDiscoverer(new DiscoveryOptions { Profile = DiscoveryProfile.Enhanced }))
            {
                Eq(0, reference.Discover("deleting files").Count, "reference: no stemming");
                Eq("delete_file", enhanced.Discover("deleting files").First().Name, "enhanced: stems");
                Eq("enhanced", enhanced.Explain("deleting files", "delete_file").Profile, "explain names the profile");
                using (var byDefault = r.CreateDiscoverer())
                {
                    Eq("enhanced", byDefault.Explain("deleting files", "delete_file").Profile, "enhanced is the default profile");
                }
                var e = Throws<InvalidInputException>(() => r.CreateDiscoverer(new DiscoveryOptions { Profile = "bogus" }), "unknown profile");
                Eq(Status.InvalidArgument, e.Status, "unknown profile status");
            }
            using (var r = new Registry(new DiscoveryOptions { Profile = DiscoveryProfile.Enhanced }))
            {
                r.Register(Tools);
                Eq("delete_file", r.DiscoverTools("deleting files").First().Name, "discover_tools with the enhanced profile");
            }
        }

        private static void Unicode()
        {
            using (var r = new Registry())
            {
                r.Register(@"{""name"": ""天气查询"", ""description"": ""查询城市的天气预报 — “quoted” 😀."", ""metadata"": {""defer"": true}}");
                r.Register("{\"name\": \"escaped\", \"description\": \"line\\nbreak \\\"q\\\" \\u00e9\"}");
                using (var d = r.CreateDiscoverer())
                {
                    var hit = d.Discover("天气").Single();
                    Eq("天气查询", hit.Name, "CJK name");
                    Eq("查询城市的天气预报 — “quoted” 😀.", hit.Description, "description with non-BMP character");
                    Eq("天气查询", JsonNode.Parse(hit.SchemaJson)["function"]["name"].Str, "schema text decoded");
                    Eq("line\nbreak \"q\" é", d.Discover("escaped").Single().Description, "escapes decoded");
                    Eq("查询城市的天气预报 — “quoted” 😀.", r.DeferredSummaries().Single().Description, "summary");
                }
            }
        }

        // ---- statuses and exceptions -----------------------------------------------------------

        private static void StatusNames()
        {
            foreach (Status s in Enum.GetValues(typeof(Status)))
            {
                string expected = "TR_STATUS_" + Regex.Replace(s.ToString(), "(?<=[a-z0-9])(?=[A-Z])", "_").ToUpperInvariant();
                Eq(expected, Native.StatusName(s), "name of " + (int)s);
            }
            Eq("TR_STATUS_UNKNOWN", Native.StatusName((Status)99), "unknown status");
        }

        private static void StatusNullArgument()
        {
            using (var r = new Registry())
            {
                IntPtr names, err;
                var status = Native.tr_registry_register(r.NativeHandle, null, out names, out err);
                var e = Throws<InvalidInputException>(() => Native.Check(status, err), "NULL tools_json");
                Eq(Status.NullArgument, e.Status, "status");
            }
        }

        private static void StatusInvalidUtf8()
        {
            using (var r = new Registry())
            {
                IntPtr names, err;
                var status = Native.tr_registry_register(r.NativeHandle, new byte[] { (byte)'"', 0xff, 0xfe, (byte)'"', 0 }, out names, out err);
                Eq(Status.InvalidUtf8, Throws<InvalidInputException>(() => Native.Check(status, err), "invalid bytes").Status, "native status");
                // A lone surrogate cannot become UTF-8: refused on this side with the same status.
                Eq(Status.InvalidUtf8, Throws<InvalidInputException>(() => r.Unregister("bad\ud800"), "lone surrogate").Status, "managed status");
            }
        }

        private static void StatusInvalidJson()
        {
            using (var r = new Registry())
            {
                Eq(Status.InvalidJson, Throws<InvalidInputException>(() => r.Register(@"{""name"": "), "truncated JSON").Status, "register");
                r.Register(Tools);
                Eq(Status.InvalidJson, Throws<InvalidInputException>(() => r.SetMetadataJson("read_file", "{defer: true}"), "unquoted key").Status, "set_metadata");
                string deep = new string('[', 200) + new string(']', 200);
                Eq(Status.InvalidJson, Throws<InvalidInputException>(() => r.Register(deep), "nested too deeply").Status, "depth");
            }
        }

        private static void StatusInvalidArgument()
        {
            using (var r = Sample())
            using (var d = r.CreateDiscoverer())
            {
                Eq(Status.InvalidArgument, Throws<InvalidInputException>(() => d.Discover("   "), "blank query").Status, "blank query");
                Eq(Status.InvalidArgument, Throws<InvalidInputException>(() => d.Discover(""), "empty query").Status, "empty query");
                Eq(Status.InvalidArgument, Throws<InvalidInputException>(() => d.Discover("file", 0), "top_k 0").Status, "top_k 0");
                Eq(Status.InvalidArgument, Throws<InvalidInputException>(() => r.Register(@"{""name"": ""has space""}"), "bad name").Status, "bad name");
                Eq(Status.InvalidArgument, Throws<InvalidInputException>(() => r.Register(@"{""name"": 42}"), "wrong type").Status, "wrong type");
                Eq(Status.InvalidArgument, Throws<InvalidInputException>(() => r.Register(@"{""name"": ""discover_tools""}"), "reserved").Status, "reserved name");
            }
        }

        private static void StatusNotFound()
        {
            using (var r = Sample())
            {
                var e = Throws<NotFoundException>(() => r.Unregister("nope"), "unknown tool");
                Eq(Status.NotFound, e.Status, "status");
                True(e is ToolRegistryException, "a ToolRegistryException");
                True(e.Message.Contains("nope"), "message names the tool: " + e.Message);
                Throws<NotFoundException>(() => r.SetMetadataJson("nope", "{}"), "set_metadata");
                Throws<NotFoundException>(() => r.SetEnabled("nope", true), "set_enabled");
            }
        }

        private static void StatusTooLarge()
        {
            using (var r = Sample())
            using (var d = r.CreateDiscoverer())
            {
                Eq(Status.TooLarge, Throws<InvalidInputException>(() => d.Discover(new string('a', 70000)), "query over 64 KiB").Status, "long query");
                // More tokens than TR_MAX_QUERY_TOKENS within 64 KiB: answered from the first ones.
                Eq("send_email", d.Discover("email " + string.Join(" ", Enumerable.Repeat("w", 1100))).First().Name, "many tokens answered");
                Eq(Status.TooLarge, Throws<InvalidInputException>(() => r.Register("{\"name\": \"" + new string('n', 2000) + "\"}"), "name over 1 KiB").Status, "long name");
            }
        }

        private static void StatusInternalAndPanic()
        {
            // Neither status can be provoked from outside, so feed Check a real library-owned error
            // string (which it must free) with each status and look at the exception it builds.
            foreach (var status in new[] { Status.Internal, Status.Panic, (Status)42 })
            {
                using (var r = new Registry())
                {
                    IntPtr err;
                    var real = Native.tr_registry_unregister(r.NativeHandle, Utf8.Encode("ghost", "name"), out err);
                    Eq(Status.NotFound, real, "a real failure to borrow the message from");
                    var e = Throws<ToolRegistryException>(() => Native.Check(status, err), status.ToString());
                    Eq(typeof(ToolRegistryException), e.GetType(), "base type for " + status);
                    Eq(status, e.Status, "status kept");
                    True(e.Message.Contains("ghost"), "native message kept");
                }
            }
            Eq("TR_STATUS_PANIC", Throws<ToolRegistryException>(() => Native.Check(Status.Panic, IntPtr.Zero), "no message").Message, "falls back to the status name");
            Native.Check(Status.Ok, IntPtr.Zero);
        }

        private static void NullArguments()
        {
            using (var r = Sample())
            using (var d = r.CreateDiscoverer())
            {
                Throws<ArgumentNullException>(() => r.Register(null), "Register");
                Throws<ArgumentNullException>(() => r.Unregister(null), "Unregister");
                Throws<ArgumentNullException>(() => r.SetMetadataJson("read_file", null), "SetMetadataJson");
                Throws<ArgumentNullException>(() => r.SetEnabled(null, true), "SetEnabled");
                Throws<ArgumentNullException>(() => r.Call(null, "{}"), "Call");
                Throws<ArgumentNullException>(() => d.Discover(null), "Discover");
                var e = Throws<InvalidInputException>(() => r.Unregister("read_file\0junk"), "embedded NUL");
                Eq(Status.InvalidArgument, e.Status, "NUL status");
                True(SchemaNames(r.GetSchemasJson()).Contains("read_file"), "read_file not unregistered by truncation");
            }
        }

        // ---- lifetime --------------------------------------------------------------------------

        private static void DisposeTwice()
        {
            var r = Sample();
            var d = r.CreateDiscoverer();
            d.Dispose();
            d.Dispose();
            r.Dispose();
            r.Dispose();
        }

        private static void UseAfterDispose()
        {
            var r = Sample();
            var d = r.CreateDiscoverer();
            r.Dispose();
            var calls = new Dictionary<string, Action>
            {
                { "Register", () => r.Register(Tools) },
                { "Unregister", () => r.Unregister("read_file") },
                { "SetMetadata", () => r.SetMetadata("read_file", defer: true) },
                { "SetMetadataJson", () => r.SetMetadataJson("read_file", "{}") },
                { "SetEnabled", () => r.SetEnabled("read_file", false) },
                { "GetSchemasJson", () => r.GetSchemasJson() },
                { "DeferredSummaries", () => r.DeferredSummaries() },
                { "DeferredSummariesJson", () => r.DeferredSummariesJson() },
                { "EnableDiscovery", () => r.EnableDiscovery() },
                { "Call", () => r.Call("discover_tools", @"{""query"": ""x""}") },
                { "DiscoverTools", () => r.DiscoverTools("x") },
                { "CreateDiscoverer", () => r.CreateDiscoverer() },
            };
            foreach (var call in calls)
            {
                Throws<ObjectDisposedException>(call.Value, "Registry." + call.Key);
            }
            Eq("read_file", d.Discover("read_file").Single().Name, "discoverer still works");
            d.Dispose();
            Throws<ObjectDisposedException>(() => d.Discover("file"), "Discoverer.Discover");
            Throws<ObjectDisposedException>(() => d.DiscoverJson("file"), "Discoverer.DiscoverJson");
            Throws<ObjectDisposedException>(() => d.RebuildIndex(), "Discoverer.RebuildIndex");
            Throws<ObjectDisposedException>(() => d.Explain("file", "read_file"), "Discoverer.Explain");
            Throws<ObjectDisposedException>(() => d.ExplainJson("file", "read_file"), "Discoverer.ExplainJson");
        }

        private static void DiscovererOutlivesRegistry()
        {
            Discoverer d;
            using (var r = Sample())
            {
                d = r.CreateDiscoverer();
            }
            GC.Collect();
            GC.WaitForPendingFinalizers();
            using (d)
            {
                Eq("delete_file", d.Discover("delete a file").First().Name, "discovers after the registry is disposed");
                d.RebuildIndex();
                Eq("delete_file", d.Discover("delete a file").First().Name, "and after a rebuild");
            }
        }

        private static void Forget(int count)
        {
            for (int i = 0; i < count; i++)
            {
                var r = Sample();
                var d = r.CreateDiscoverer();
                d.Discover("file");
                if (i % 2 == 0)
                {
                    d.Dispose();   // some discoverers go first, some registries do
                }
            }
        }

        private static void Finalizers()
        {
            Forget(200);
            GC.Collect();
            GC.WaitForPendingFinalizers();
            GC.Collect();
            GC.WaitForPendingFinalizers();
            using (var r = Sample())
            {
                Eq("read_file", r.CreateDiscoverer().Discover("read_file").Single().Name, "library still healthy");
            }
        }

        // ---- threads ---------------------------------------------------------------------------

        private static void RunThreads(int count, Action<int> body)
        {
            var errors = new List<Exception>();
            var threads = Enumerable.Range(0, count).Select(i => new Thread(() =>
            {
                try
                {
                    body(i);
                }
                catch (Exception e)
                {
                    lock (errors)
                    {
                        errors.Add(e);
                    }
                }
            })).ToList();
            threads.ForEach(t => t.Start());
            threads.ForEach(t => t.Join());
            if (errors.Count > 0)
            {
                throw new AssertionFailed(errors.Count + " thread(s) failed; first: " + errors[0]);
            }
        }

        private static void ThreadsDiscover()
        {
            var queries = new[] { "delete a file", "send mail", "issue in a repository", "read_file", "github-create_issue", "disk" };
            using (var r = Sample())
            using (var d = r.CreateDiscoverer())
            {
                r.EnableDiscovery();
                var expected = queries.ToDictionary(q => q, q => d.DiscoverJson(q));
                RunThreads(8, t =>
                {
                    for (int i = 0; i < 150; i++)
                    {
                        string q = queries[(t + i) % queries.Length];
                        string got = i % 2 == 0 ? d.DiscoverJson(q) : r.Call("discover_tools", "{\"query\": \"" + q + "\"}");
                        if (got != expected[q])
                        {
                            throw new AssertionFailed("thread " + t + " query " + q + ": " + got + " != " + expected[q]);
                        }
                    }
                });
            }
        }

        private static void ThreadsDiscoverWhileRegistering()
        {
            using (var r = Sample())
            using (var d = r.CreateDiscoverer())
            {
                int writing = 1;
                RunThreads(5, t =>
                {
                    if (t == 0)
                    {
                        for (int i = 0; i < 300; i++)
                        {
                            r.Register("{\"name\": \"temp_" + i + "\", \"description\": \"A temporary file tool " + i + ".\", \"metadata\": {\"defer\": true}}");
                            if (i % 3 == 0)
                            {
                                r.Unregister("temp_" + i);
                            }
                            r.SetEnabled("read_file", i % 2 == 0);
                        }
                        r.SetEnabled("read_file", true);
                        Interlocked.Exchange(ref writing, 0);
                        return;
                    }
                    int rounds = 0;
                    while (Interlocked.CompareExchange(ref writing, 0, 0) == 1 || rounds < 50)
                    {
                        rounds++;
                        var exact = d.Discover("send_email");
                        if (exact.Count != 1 || exact[0].Score != 1.0)
                        {
                            throw new AssertionFailed("exact match disturbed by writers");
                        }
                        foreach (var hit in d.Discover("temporary file", 50))
                        {
                            if (hit.Score <= 0 || hit.Name == null)
                            {
                                throw new AssertionFailed("bad hit " + hit);
                            }
                        }
                    }
                });
                Eq(200, d.Discover("temporary", 1000).Count(h => h.Name.StartsWith("temp_", StringComparison.Ordinal)), "writer's final state visible");
            }
        }

        private static void DisposeWhileDiscovering()
        {
            var r = Sample();
            var d = r.CreateDiscoverer();
            var started = new CountdownEvent(6);
            var outcomes = new string[6];
            var threads = Enumerable.Range(0, 6).Select(t => new Thread(() =>
            {
                started.Signal();
                try
                {
                    while (true)
                    {
                        if (t % 2 == 0)
                        {
                            d.Discover("delete a file");
                        }
                        else
                        {
                            r.DeferredSummaries();
                        }
                    }
                }
                catch (ObjectDisposedException)
                {
                    outcomes[t] = "disposed";
                }
                catch (Exception e)
                {
                    outcomes[t] = e.ToString();
                }
            })).ToList();
            threads.ForEach(th => th.Start());
            started.Wait();
            Thread.Sleep(100);
            d.Dispose();
            r.Dispose();
            threads.ForEach(th => th.Join());
            for (int t = 0; t < 6; t++)
            {
                Eq("disposed", outcomes[t], "thread " + t + " outcome");
            }
        }

        // ---- golden ----------------------------------------------------------------------------

        private static void GoldenFile(string path)
        {
            True(File.Exists(path), "golden file exists: " + Path.GetFullPath(path));
            var failures = new List<string>();
            int count = Golden.Replay(path, failures);
            True(count > 0, "the file has discover steps");
            if (failures.Count > 0)
            {
                throw new AssertionFailed(failures.Count + " of " + (2 * count) + " checks (" + count + " answers, two paths each) differ; first: " + failures[0]);
            }
            Console.WriteLine("     {0}: {1} discover answers equal via discover_tools and Discoverer", Path.GetFileName(path), count);
        }
    }
}
