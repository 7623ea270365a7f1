using System.Linq;
using System.Text;

namespace ToolRegistry.Tests
{
    /// <summary>
    /// The discover token budget (<see cref="DiscoverRequest.MaxTokens"/>) through the binding, and
    /// strict schemas asked for by name.
    /// </summary>
    internal static partial class Program
    {
        private static readonly string[] BudgetVerbs = { "Send", "Reply to", "Forward", "Draft", "Archive", "Search", "Label", "Schedule" };

        private const string BudgetQuery = "email message";

        private static void BudgetTests()
        {
            Test("max_tokens: every budget within n*4 bytes, top hit kept, full hits before cut ones", BudgetSweep);
            Test("max_tokens: the top hit comes cut when its schema alone is too big", BudgetTopHitCut);
            Test("max_tokens: a generous budget gives the same hits as none", BudgetGenerous);
            Test("max_tokens: options JSON and a budget below 1 refused", BudgetOptions);
            Test("strict: GetStrictSchemas by Names keeps their order, warnings too", StrictSchemasByName);
        }

        /// <summary>
        /// Eight deferred mail tools (so every hit carries its schema), each described in two sentences
        /// so that a hit cut to name + summary is told apart by its description.
        /// </summary>
        private static Registry BudgetRegistry()
        {
            var tools = BudgetVerbs.Select(v =>
                "{\"name\": \"" + v.Replace(" to", "").ToLowerInvariant() + "_email\", \"description\": \"" + v +
                " an email message. The mail account configured for the agent is used, and the answer says what the server did.\"," +
                " \"parameters\": {\"type\": \"object\", \"properties\": {" +
                "\"to\": {\"type\": \"string\", \"description\": \"Address of the recipient of the message\"}," +
                "\"subject\": {\"type\": \"string\", \"description\": \"Subject line of the message\"}," +
                "\"body\": {\"type\": \"string\", \"description\": \"Text of the message, plain or Markdown\"}," +
                "\"cc\": {\"type\": \"array\", \"items\": {\"type\": \"string\"}, \"description\": \"Addresses to copy\"}}, \"required\": [\"to\"]}," +
                " \"metadata\": {\"defer\": true}}");
            var r = new Registry();
            r.Register("[" + string.Join(",", tools) + "]");
            return r;
        }

        private static string FirstSentence(string description)
        {
            return description.Substring(0, description.IndexOf(". ") + 1);
        }

        private static void BudgetSweep()
        {
            using (var r = BudgetRegistry())
            using (var d = r.CreateDiscoverer())
            {
                var full = d.DiscoverJson(BudgetQuery, new DiscoverRequest());
                var all = d.Discover(BudgetQuery, new DiscoverRequest());
                True(all.Count >= 4, "at least 4 hits without a budget, got " + all.Count);
                True(all.All(h => h.SchemaJson != null), "without a budget every deferred hit has its schema");
                int whole = (Encoding.UTF8.GetByteCount(full) + 3) / 4;
                bool sawMixed = false;
                for (int n = 1; n <= whole; n++)
                {
                    var what = "max_tokens " + n;
                    var request = new DiscoverRequest { MaxTokens = n };
                    var answer = d.DiscoverJson(BudgetQuery, request);
                    var hits = d.Discover(BudgetQuery, request);
                    Eq(all[0].Name, hits[0].Name, what + ": the top hit");
                    int bytes = Encoding.UTF8.GetByteCount(answer);
                    True(bytes <= 4 * n || (hits.Count == 1 && hits[0].SchemaJson == null),
                        what + ": " + bytes + " bytes, over " + 4 * n + " with more than the top hit cut");
                    Seq(all.Take(hits.Count).Select(h => h.Name), hits.Select(h => h.Name), what + ": a prefix of the unbudgeted answer");
                    int withSchema = hits.TakeWhile(h => h.SchemaJson != null).Count();
                    True(hits.Skip(withSchema).All(h => h.SchemaJson == null), what + ": no schema after a cut hit");
                    for (int i = 0; i < hits.Count; i++)
                    {
                        if (i < withSchema)
                        {
                            Eq(all[i].SchemaJson, hits[i].SchemaJson, what + ": full hit " + hits[i].Name + " schema");
                            Eq(all[i].Description, hits[i].Description, what + ": full hit " + hits[i].Name + " description");
                        }
                        else
                        {
                            Eq(FirstSentence(all[i].Description), hits[i].Description, what + ": cut hit " + hits[i].Name + " description");
                        }
                    }
                    sawMixed |= withSchema > 0 && withSchema < hits.Count;
                    if (n == whole)
                    {
                        Eq(full, answer, what + " (the whole answer): the unbudgeted answer");
                    }
                }
                True(sawMixed, "some budget gives full hits followed by cut ones");
            }
        }

        private static void BudgetTopHitCut()
        {
            using (var r = BudgetRegistry())
            using (var d = r.CreateDiscoverer())
            {
                var top = d.Discover(BudgetQuery, new DiscoverRequest())[0];
                var hit = d.Discover(BudgetQuery, new DiscoverRequest { MaxTokens = 1 }).Single();
                Eq(top.Name, hit.Name, "the top hit");
                Eq(FirstSentence(top.Description), hit.Description, "cut to its summary");
                Eq(null, hit.SchemaJson, "without its schema");
                Eq(top.Score, hit.Score, "same score");
                True(hit.Deferred, "still deferred");
                Eq(null, hit.Namespace, "no namespace");
                var exact = d.Discover("send_email", new DiscoverRequest { MaxTokens = 10 }).Single();
                Eq("send_email", exact.Name, "an exact match is the top hit");
                Eq(null, exact.SchemaJson, "cut under 10 tokens");
            }
        }

        private static void BudgetGenerous()
        {
            using (var r = BudgetRegistry())
            using (var d = r.CreateDiscoverer())
            {
                foreach (var format in new[] { null, ApiFormat.OpenAIResponses, ApiFormat.Anthropic })
                {
                    var none = d.DiscoverJson(BudgetQuery, new DiscoverRequest { ApiFormat = format });
                    var big = d.DiscoverJson(BudgetQuery, new DiscoverRequest { ApiFormat = format, MaxTokens = 1000000 });
                    Eq(none, big, (format ?? "default") + ": same answer");
                    var typed = d.Discover(BudgetQuery, new DiscoverRequest { ApiFormat = format, MaxTokens = 1000000 });
                    Seq(d.Discover(BudgetQuery, new DiscoverRequest { ApiFormat = format }).Select(h => h.Name + " " + h.SchemaJson),
                        typed.Select(h => h.Name + " " + h.SchemaJson), (format ?? "default") + ": same typed hits");
                }
                var strictNone = d.DiscoverJson(BudgetQuery, new DiscoverRequest { Strict = true, TopK = 3 });
                Eq(strictNone, d.DiscoverJson(BudgetQuery, new DiscoverRequest { Strict = true, TopK = 3, MaxTokens = 1000000 }), "strict, top_k 3");
            }
        }

        private static void BudgetOptions()
        {
            using (var r = BudgetRegistry())
            using (var d = r.CreateDiscoverer())
            {
                foreach (var n in new[] { 0, -1 })
                {
                    var e = Throws<InvalidInputException>(() => d.Discover(BudgetQuery, new DiscoverRequest { MaxTokens = n }), "max_tokens " + n);
                    Eq(Status.InvalidArgument, e.Status, "max_tokens " + n + ": status");
                    True(e.Message.Contains("max_tokens"), "the message names the option: " + e.Message);
                }
                // Null (the default) is no cap: the whole answer.
                Eq(d.DiscoverJson(BudgetQuery, 10, null), d.DiscoverJson(BudgetQuery, new DiscoverRequest { MaxTokens = null }), "null is no cap");
            }
        }

        private static void StrictSchemasByName()
        {
            using (var r = StrictRegistry())
            {
                r.Register(@"{""name"": ""store_blob"", ""description"": ""Store a value of any kind."",
                              ""parameters"": {""type"": ""object"", ""properties"": {""data"": {}}}}");
                r.SetEnabled("send_email", false);
                var order = new[] { "store_blob", "send_email", "set_config" };
                foreach (var format in new[] { null, ApiFormat.OpenAIChat, ApiFormat.OpenAIResponses })
                {
                    var what = format ?? "default format";
                    var set = r.GetStrictSchemas(new SchemaOptions { ApiFormat = format, Names = order });
                    Seq(order, set.ToolsJson.Select(t => Function(t, format)["name"].Str), what + ": the tools in the order asked, the disabled one too");
                    AssertStrict(Function(set.ToolsJson[1], format), what + " send_email");
                    AssertNotStrict(Function(set.ToolsJson[0], format), what + " store_blob");
                    AssertNotStrict(Function(set.ToolsJson[2], format), what + " set_config");
                    Seq(new[] { "store_blob", "set_config" }, set.Warnings.Select(w => w.Name), what + ": warnings in the order asked");
                    Eq(SetConfigReason, set.Warnings[1].Reason, what + ": set_config's reason");
                }
                var e = Throws<NotFoundException>(() => r.GetStrictSchemas(new SchemaOptions { Names = new[] { "send_email", "nope" } }), "unknown name");
                True(e.Message.Contains("nope"), "the message names it: " + e.Message);
            }
        }
    }
}
