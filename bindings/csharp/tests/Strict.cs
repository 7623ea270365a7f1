using System.Linq;

namespace ToolRegistry.Tests
{
    /// <summary>
    /// OpenAI strict mode through the binding: <see cref="Registry.GetStrictSchemas"/>,
    /// <see cref="SchemaOptions.Strict"/>, <see cref="DiscoverRequest.Strict"/> and the warnings for a
    /// schema that cannot be strict.
    /// </summary>
    internal static partial class Program
    {
        /// <summary>
        /// One tool strict mode can take (its optional body becomes required and nullable) and one it
        /// cannot (a free-form object); both deferred, so discover returns their schemas.
        /// </summary>
        private const string StrictTools = @"[
          {""name"": ""send_email"", ""description"": ""Send an email to a recipient."",
           ""parameters"": {""type"": ""object"", ""properties"": {""to"": {""type"": ""string""}, ""body"": {""type"": ""string""}}, ""required"": [""to""]},
           ""metadata"": {""defer"": true}},
          {""name"": ""set_config"", ""description"": ""Store configuration settings."",
           ""parameters"": {""type"": ""object"", ""properties"": {""settings"": {""type"": ""object""}}},
           ""metadata"": {""defer"": true}}
        ]";

        private const string SetConfigReason = "settings: an object without \"properties\" takes arbitrary keys";

        private static void StrictTests()
        {
            Test("strict: GetStrictSchemas makes what it can strict and names the rest", StrictSchemasAnswer);
            Test("strict: SchemaOptions.Strict on the raw answer, options JSON", StrictSchemasRaw);
            Test("strict: discover with Strict, warnings on hits", StrictDiscover);
            Test("strict: anthropic and gemini refuse it", StrictRefused);
        }

        private static Registry StrictRegistry()
        {
            var r = new Registry();
            r.Register(StrictTools);
            return r;
        }

        /// <summary>The function object of an OpenAI schema (chat nests it, responses does not).</summary>
        private static JsonNode Function(string schemaJson, string format)
        {
            var schema = JsonNode.Parse(schemaJson);
            return format == ApiFormat.OpenAIResponses ? schema : schema["function"];
        }

        private static void AssertStrict(JsonNode f, string what)
        {
            True(f.Has("strict") && f["strict"].Bool, what + ": \"strict\": true");
            var p = f["parameters"];
            True(p.Has("additionalProperties") && p["additionalProperties"].Kind == 'b' && !p["additionalProperties"].Bool,
                what + ": additionalProperties false");
            Seq(new[] { "to", "body" }, p["required"].Items.Select(n => n.Str), what + ": every property required");
            Seq(new[] { "string", "null" }, p["properties"]["body"]["type"].Items.Select(n => n.Str), what + ": optional body nullable");
        }

        private static void AssertNotStrict(JsonNode f, string what)
        {
            True(!f.Has("strict") || !f["strict"].Bool, what + ": not marked strict");
            True(!f["parameters"].Has("additionalProperties"), what + ": not closed");
        }

        private static void StrictSchemasAnswer()
        {
            using (var r = StrictRegistry())
            {
                foreach (var format in new[] { null, ApiFormat.OpenAIChat, ApiFormat.OpenAIResponses })
                {
                    var what = format ?? "default format";
                    var set = r.GetStrictSchemas(new SchemaOptions { ApiFormat = format });
                    Eq(2, set.ToolsJson.Count, what + ": the tool that cannot be strict is still listed");
                    AssertStrict(Function(set.ToolsJson[0], format), what + " send_email");
                    var loose = Function(set.ToolsJson[1], format);
                    Eq("set_config", loose["name"].Str, what + ": second tool");
                    AssertNotStrict(loose, what + " set_config");
                    Eq(1, set.Warnings.Count, what + ": one warning");
                    Eq("set_config", set.Warnings[0].Name, what + ": warning names the tool");
                    Eq(SetConfigReason, set.Warnings[0].Reason, what + ": warning says why");
                    Eq("set_config: " + SetConfigReason, set.Warnings[0].ToString(), what + ": ToString");
                    // The tools are the answer's own bytes.
                    var raw = JsonNode.Parse(set.Json);
                    Seq(raw["tools"].Items.Select(t => t.Raw), set.ToolsJson, what + ": raw tools");
                }
                // Null options are the defaults; the caller's options are not changed.
                var options = new SchemaOptions { IncludeDeferred = true };
                Eq(2, r.GetStrictSchemas(options).ToolsJson.Count, "with options");
                Eq(null, options.Strict, "the caller's options are left as they were");
                r.Unregister("set_config");
                var all = r.GetStrictSchemas();
                Eq(1, all.ToolsJson.Count, "one tool left");
                Eq(0, all.Warnings.Count, "no warnings is an empty list");
            }
        }

        private static void StrictSchemasRaw()
        {
            Eq("{\"strict\":true}", new SchemaOptions { Strict = true }.ToJson(), "SchemaOptions JSON");
            Eq("{}", new SchemaOptions().ToJson(), "unset Strict is left out");
            using (var r = StrictRegistry())
            {
                var raw = JsonNode.Parse(r.GetSchemasJson(new SchemaOptions { Strict = true }));
                Eq('o', raw.Kind, "with Strict the answer is an object");
                Eq(2, raw["tools"].Items.Count, "tools");
                Eq("set_config", raw["warnings"].Items.Single()["name"].Str, "warnings");
                var plain = JsonNode.Parse(r.GetSchemasJson(new SchemaOptions { Strict = false }));
                Eq('a', plain.Kind, "without it, the array");
                Seq(new[] { "to" }, plain.Items[0]["function"]["parameters"]["required"].Items.Select(n => n.Str), "nothing made strict");
            }
        }

        private static void StrictDiscover()
        {
            using (var r = StrictRegistry())
            using (var d = r.CreateDiscoverer())
            {
                foreach (var format in new[] { ApiFormat.OpenAIChat, ApiFormat.OpenAIResponses })
                {
                    var hit = d.Discover("send_email", new DiscoverRequest { ApiFormat = format, Strict = true }).Single();
                    AssertStrict(Function(hit.SchemaJson, format), format + " send_email hit");
                    Eq(null, hit.Warning, format + ": a strict hit has no warning");

                    hit = d.Discover("set_config", new DiscoverRequest { ApiFormat = format, Strict = true }).Single();
                    Eq(SetConfigReason, hit.Warning, format + ": warning on the hit");
                    AssertNotStrict(Function(hit.SchemaJson, format), format + " set_config hit");
                }
                var plain = d.Discover("set_config", new DiscoverRequest()).Single();
                Eq(null, plain.Warning, "no warning without strict");
                var email = d.Discover("send_email", new DiscoverRequest { Strict = false }).Single();
                Seq(new[] { "to" }, Function(email.SchemaJson, ApiFormat.OpenAIChat)["parameters"]["required"].Items.Select(n => n.Str),
                    "nothing made strict without it");
            }
        }

        private static void StrictRefused()
        {
            using (var r = StrictRegistry())
            using (var d = r.CreateDiscoverer())
            {
                foreach (var format in new[] { ApiFormat.Anthropic, ApiFormat.Gemini })
                {
                    var e = Throws<InvalidInputException>(() => r.GetStrictSchemas(new SchemaOptions { ApiFormat = format }), format + " schemas");
                    Eq(Status.InvalidArgument, e.Status, format + ": schemas status");
                    True(e.Message.Contains("strict"), format + ": the message names the option: " + e.Message);
                    e = Throws<InvalidInputException>(() => d.Discover("send email", new DiscoverRequest { ApiFormat = format, Strict = true }), format + " discover");
                    Eq(Status.InvalidArgument, e.Status, format + ": discover status");
                    True(d.Discover("send email", new DiscoverRequest { ApiFormat = format }).Count > 0, format + ": fine without strict");
                }
            }
        }
    }
}
