using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text;

namespace ToolRegistry.Tests
{
    /// <summary>
    /// Replays a golden scenario from ../shared/golden (see its README.md) through the binding, checking
    /// every discover answer both via the built-in discover_tools and via a standalone Discoverer.
    /// </summary>
    internal static class Golden
    {
        /// <summary>A golden tool (defer/tags/search_hint at top level) in the registration shape.</summary>
        public static string ToolJson(JsonNode tool)
        {
            var sb = new StringBuilder("{");
            sb.Append("\"name\":").Append(tool["name"].Raw);
            sb.Append(",\"description\":").Append(tool["description"].Raw);
            sb.Append(",\"parameters\":").Append(tool["parameters"].Raw);
            if (tool.Has("namespace"))
            {
                sb.Append(",\"namespace\":").Append(tool["namespace"].Raw);
            }
            var meta = new List<string>();
            foreach (var key in new[] { "defer", "tags", "search_hint" })
            {
                if (tool.Has(key))
                {
                    meta.Add("\"" + key + "\":" + tool[key].Raw);
                }
            }
            if (meta.Count > 0)
            {
                sb.Append(",\"metadata\":{").Append(string.Join(",", meta)).Append('}');
            }
            return sb.Append('}').ToString();
        }

        /// <summary>The options of an enable_discovery step, through the typed DiscoveryOptions.</summary>
        public static DiscoveryOptions Options(JsonNode step)
        {
            // The golden vectors are the reference's answers; the default profile is enhanced.
            var o = new DiscoveryOptions { Profile = DiscoveryProfile.Reference };
            if (step.Has("field_weights"))
            {
                o.FieldWeights = step["field_weights"].Members.ToDictionary(kv => kv.Key, kv => kv.Value.Num);
            }
            if (step.Has("min_score_ratio"))
            {
                o.MinScoreRatio = step["min_score_ratio"].Num;
            }
            if (step.Has("max_df_ratio"))
            {
                o.MaxDfRatio = step["max_df_ratio"].Num;
            }
            return o;
        }

        /// <summary>Null when equal, else the first difference.</summary>
        public static string Compare(JsonNode expect, IReadOnlyList<DiscoverResult> got)
        {
            var names = string.Join(", ", got.Select(r => r.Name));
            var expectNames = string.Join(", ", expect.Items.Select(e => e["name"].Str));
            if (expect.Items.Count != got.Count)
            {
                return "length " + got.Count + " != " + expect.Items.Count + ": expected [" + expectNames + "], got [" + names + "]";
            }
            for (int i = 0; i < got.Count; i++)
            {
                var e = expect.Items[i];
                var g = got[i];
                if (e["name"].Str != g.Name)
                {
                    return "rank " + i + ": expected [" + expectNames + "], got [" + names + "]";
                }
                double es = e["score"].Num, gs = g.Score;
                if (Math.Abs(es - gs) > 1e-9 * Math.Max(Math.Abs(es), Math.Abs(gs)))
                {
                    return "rank " + i + " " + g.Name + ": score " + gs.ToString("R") + " != " + es.ToString("R");
                }
                string ens = e["namespace"].Kind == 'z' ? null : e["namespace"].Str;
                if (ens != g.Namespace || e["deferred"].Bool != g.Deferred)
                {
                    return "rank " + i + " " + g.Name + ": namespace/deferred differ";
                }
                if (e["has_schema"].Bool != (g.SchemaJson != null))
                {
                    return "rank " + i + " " + g.Name + ": schema presence differs";
                }
                if (g.SchemaJson != null)
                {
                    // The raw schema text must be a complete JSON object.
                    var schema = JsonNode.Parse(g.SchemaJson);
                    if (schema.Kind != 'o')
                    {
                        return "rank " + i + " " + g.Name + ": schema is not an object";
                    }
                }
            }
            return null;
        }

        /// <summary>Replays one file; returns the number of discovers checked and the failures.</summary>
        public static int Replay(string path, List<string> failures)
        {
            var doc = JsonNode.Parse(File.ReadAllText(path));
            int checkedCount = 0;
            Discoverer discoverer = null;
            var registry = new Registry();
            try
            {
                int index = -1;
                foreach (var step in doc["steps"].Items)
                {
                    index++;
                    switch (step["op"].Str)
                    {
                        case "register":
                            registry.Register(ToolJson(step["tool"]));
                            break;
                        case "unregister":
                            registry.Unregister(step["name"].Str);
                            break;
                        case "disable":
                            registry.SetEnabled(step["name"].Str, false);
                            break;
                        case "enable":
                            registry.SetEnabled(step["name"].Str, true);
                            break;
                        case "set_metadata":
                            registry.SetMetadataJson(step["name"].Str, step["metadata"].Raw);
                            break;
                        case "enable_discovery":
                            var options = Options(step);
                            registry.EnableDiscovery(options);
                            if (discoverer != null)
                            {
                                discoverer.Dispose();
                            }
                            discoverer = registry.CreateDiscoverer(options);
                            break;
                        case "discover":
                            checkedCount++;
                            string query = step["query"].Str;
                            int topK = (int)step["top_k"].Num;
                            string where = Path.GetFileName(path) + " step " + index + " query \"" + query + "\"";
                            foreach (var via in new[] { "discover_tools", "Discoverer" })
                            {
                                string why;
                                try
                                {
                                    var got = via == "Discoverer" ? discoverer.Discover(query, topK) : registry.DiscoverTools(query, topK);
                                    why = step.Has("expect") ? Compare(step["expect"], got) : "expected an error, got " + got.Count + " hits";
                                }
                                catch (InvalidInputException e)
                                {
                                    why = step.Has("expect") || e.Status != Status.InvalidArgument ? "failed with " + e.Status + ": " + e.Message : null;
                                }
                                if (why != null)
                                {
                                    failures.Add(where + " via " + via + ": " + why);
                                }
                            }
                            break;
                        default:
                            throw new InvalidDataException("unknown op " + step["op"].Str);
                    }
                }
            }
            finally
            {
                // Registry first: the discoverer must keep the native state alive on its own.
                registry.Dispose();
                if (discoverer != null)
                {
                    discoverer.Dispose();
                }
            }
            return checkedCount;
        }
    }
}
