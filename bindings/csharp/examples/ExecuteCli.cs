using System;
using System.IO;
using System.Text;
using ToolRegistry;
using ToolRegistry.Tests;

/// <summary>
/// Runs the tool-call conformance corpus through the C# binding and prints, for every case sorted
/// by provider/case, one line "provider/case TAB messages JSON exactly as returned", for comparing
/// languages side by side (scripts/cross_language.py).
/// Usage: mono ExecuteCli.exe CORPUS_DIR [--steps]   (tests/conformance/execute); with --steps the
/// hosts are async functions and the calls run through ExecuteAsync (the two-step loop).
/// Built with bindings/csharp/tests/ExecuteCorpus.cs and MiniJson.cs (the fixture's registry).
/// </summary>
static class ExecuteCli
{
    static int Main(string[] args)
    {
        bool steps = args.Length == 2 && args[1] == "--steps";
        if (args.Length != 1 && !steps)
        {
            Console.Error.WriteLine("usage: ExecuteCli CORPUS_DIR [--steps]");
            return 2;
        }
        try
        {
            // UTF-8 without a BOM and "\n" line ends, whatever the locale says.
            using (var stdout = new StreamWriter(Console.OpenStandardOutput(), new UTF8Encoding(false)))
            using (var registry = ExecuteCorpus.Build(args[0], steps))
            {
                stdout.NewLine = "\n";
                foreach (var c in ExecuteCorpus.Cases(args[0]))
                {
                    // --steps: async hosts awaited by ExecuteAsync (prepare, the calls, finish).
                    string messages = steps
                        ? registry.ExecuteAsync(ExecuteCorpus.Calls(c.Value), ExecuteCorpus.Options(c.Value)).GetAwaiter().GetResult()
                        : ExecuteCorpus.Run(registry, c.Value);
                    stdout.WriteLine(c.Key + "\t" + messages);
                }
            }
            return 0;
        }
        catch (Exception e)
        {
            Console.Error.WriteLine(e.GetType().Name + ": " + e.Message);
            return 1;
        }
    }
}
