using System;
using System.Globalization;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text;
using ToolRegistry;

/// <summary>
/// Prints one discovery answer as "rank<TAB>name<TAB>score" lines (score round-trippable), or with
/// --json as one line [{"name", "score", "namespace", "deferred", "intent"?, "brought_in"?}] like the
/// Go binding's trdiscover, for comparing languages side by side.
/// Usage: mono DiscoverCli.exe [--json] CATALOG.json QUERY [TOP_K] [PROFILE [USAGE]]
/// where USAGE holds tasks recorded before the query, one JSON array of tool names a line,
/// where CATALOG is a JSON array of tools in any accepted shape.
/// </summary>
static class DiscoverCli
{
    static int Main(string[] args)
    {
        bool json = args.Length > 0 && args[0] == "--json";
        if (json)
        {
            args = args.Skip(1).ToArray();
        }
        if (args.Length < 2)
        {
            Console.Error.WriteLine("usage: DiscoverCli [--json] CATALOG.json QUERY [TOP_K] [PROFILE [USAGE]]");
            return 2;
        }
        int topK = args.Length > 2 ? int.Parse(args[2], CultureInfo.InvariantCulture) : 10;
        var options = new DiscoveryOptions { Profile = args.Length > 3 ? args[3] : null };
        try
        {
            using (var registry = new Registry())
            {
                registry.Register(File.ReadAllText(args[0]));
                if (options.Profile == DiscoveryProfile.Hybrid)
                {
                    registry.SetEmbedder(64, FakeEmbed);
                    if (!registry.WaitEmbeddings(TimeSpan.FromMinutes(2)))
                    {
                        Console.Error.WriteLine("error: embedding the catalog timed out");
                        return 1;
                    }
                }
                // USAGE: tasks recorded before the query, one JSON array of tool names a line.
                foreach (var task in (args.Length > 4 ? args[4] : "").Split('\n'))
                {
                    if (task.Length > 0)
                    {
                        registry.RecordUsageJson(task);
                    }
                }
                using (var discoverer = registry.CreateDiscoverer(options))
                {
                    var hits = discoverer.Discover(args[1], topK);
                    if (json)
                    {
                        Console.WriteLine(ToJson(hits));
                        return 0;
                    }
                    int rank = 0;
                    foreach (var hit in hits)
                    {
                        Console.WriteLine("{0}\t{1}\t{2}", ++rank, hit.Name, hit.Score.ToString("R", CultureInfo.InvariantCulture));
                    }
                }
            }
            return 0;
        }
        catch (ToolRegistryException e)
        {
            Console.Error.WriteLine("error: {0} ({1})", e.Message, e.Status);
            return 1;
        }
    }

    /// <summary>
    /// The fake embedder every language of the cross-language check implements alike: dim 64; words
    /// split on non-alphanumeric ASCII, lowercased, FNV-1a 32-bit, 1.0 at hash % 64; all zeros -> [1, 0, ...].
    /// </summary>
    static float[][] FakeEmbed(IReadOnlyList<string> texts)
    {
        var result = new float[texts.Count][];
        for (int t = 0; t < texts.Count; t++)
        {
            var v = new float[64];
            uint h = 2166136261;
            bool inWord = false, any = false;
            byte[] bytes = Encoding.UTF8.GetBytes(texts[t] + " ");
            foreach (byte raw in bytes)
            {
                byte c = raw >= (byte)'A' && raw <= (byte)'Z' ? (byte)(raw + 32) : raw;
                if (c >= (byte)'a' && c <= (byte)'z' || c >= (byte)'0' && c <= (byte)'9')
                {
                    h = unchecked((h ^ c) * 16777619);
                    inWord = true;
                }
                else if (inWord)
                {
                    v[h % 64] += 1f;
                    any = true;
                    inWord = false;
                    h = 2166136261;
                }
            }
            if (!any)
            {
                v[0] = 1f;
            }
            result[t] = v;
        }
        return result;
    }

    static string ToJson(IEnumerable<DiscoverResult> hits)
    {
        return "[" + string.Join(",", hits.Select(h =>
            "{\"name\":" + Quote(h.Name) +
            ",\"score\":" + h.Score.ToString("R", CultureInfo.InvariantCulture) +
            (h.Namespace == null ? "" : ",\"namespace\":" + Quote(h.Namespace)) +
            ",\"deferred\":" + (h.Deferred ? "true" : "false") +
            (h.Intent == null ? "" : ",\"intent\":" + Quote(h.Intent)) +
            (h.BroughtIn == null ? "" : ",\"brought_in\":" + Quote(h.BroughtIn)) + "}")) + "]";
    }

    static string Quote(string s)
    {
        var sb = new StringBuilder("\"");
        foreach (char c in s)
        {
            if (c == '"' || c == '\\') sb.Append('\\').Append(c);
            else if (c < 0x20) sb.Append("\\u").Append(((int)c).ToString("x4"));
            else sb.Append(c);
        }
        return sb.Append('"').ToString();
    }
}
