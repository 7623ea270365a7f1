using System;
using System.Globalization;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text;
using ToolRegistry;

/// <summary>
/// Prints one discovery answer as "rank<TAB>name<TAB>score" lines (score round-trippable), or with
/// --json as one line [{"name", "score", "namespace", "deferred"}] like the Go binding's trdiscover,
/// for comparing languages side by side.
/// Usage: mono DiscoverCli.exe [--json] CATALOG.json QUERY [TOP_K] [PROFILE]
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
            Console.Error.WriteLine("usage: DiscoverCli [--json] CATALOG.json QUERY [TOP_K] [PROFILE]");
            return 2;
        }
        int topK = args.Length > 2 ? int.Parse(args[2], CultureInfo.InvariantCulture) : 10;
        var options = new DiscoveryOptions { Profile = args.Length > 3 ? args[3] : null };
        try
        {
            using (var registry = new Registry())
            using (var discoverer = registry.CreateDiscoverer(options))
            {
                registry.Register(File.ReadAllText(args[0]));
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
            return 0;
        }
        catch (ToolRegistryException e)
        {
            Console.Error.WriteLine("error: {0} ({1})", e.Message, e.Status);
            return 1;
        }
    }

    static string ToJson(IEnumerable<DiscoverResult> hits)
    {
        return "[" + string.Join(",", hits.Select(h =>
            "{\"name\":" + Quote(h.Name) +
            ",\"score\":" + h.Score.ToString("R", CultureInfo.InvariantCulture) +
            (h.Namespace == null ? "" : ",\"namespace\":" + Quote(h.Namespace)) +
            ",\"deferred\":" + (h.Deferred ? "true" : "false") + "}")) + "]";
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
