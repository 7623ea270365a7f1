using System;
using System.Globalization;
using System.IO;
using ToolRegistry;

/// <summary>
/// Prints one discovery answer as "rank<TAB>name<TAB>score" lines (score round-trippable), for
/// comparing languages side by side. Usage: mono DiscoverCli.exe CATALOG.json QUERY [TOP_K] [PROFILE]
/// where CATALOG is a JSON array of tools in any accepted shape.
/// </summary>
static class DiscoverCli
{
    static int Main(string[] args)
    {
        if (args.Length < 2)
        {
            Console.Error.WriteLine("usage: DiscoverCli CATALOG.json QUERY [TOP_K] [PROFILE]");
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
                int rank = 0;
                foreach (var hit in discoverer.Discover(args[1], topK))
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
}
