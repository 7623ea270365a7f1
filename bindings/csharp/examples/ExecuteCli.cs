using System;
using System.IO;
using System.Text;
using ToolRegistry;
using ToolRegistry.Tests;

/// <summary>
/// Runs the tool-call conformance corpus through the C# binding and prints, for every case sorted
/// by provider/case, one line "provider/case TAB messages JSON exactly as returned", for comparing
/// languages side by side (scripts/cross_language.py).
/// Usage: mono ExecuteCli.exe CORPUS_DIR   (tests/conformance/execute)
/// Built with bindings/csharp/tests/ExecuteCorpus.cs and MiniJson.cs (the fixture's registry).
/// </summary>
static class ExecuteCli
{
    static int Main(string[] args)
    {
        if (args.Length != 1)
        {
            Console.Error.WriteLine("usage: ExecuteCli CORPUS_DIR");
            return 2;
        }
        try
        {
            // UTF-8 without a BOM and "\n" line ends, whatever the locale says.
            using (var stdout = new StreamWriter(Console.OpenStandardOutput(), new UTF8Encoding(false)))
            using (var registry = ExecuteCorpus.Build(args[0]))
            {
                stdout.NewLine = "\n";
                foreach (var c in ExecuteCorpus.Cases(args[0]))
                {
                    stdout.WriteLine(c.Key + "\t" + ExecuteCorpus.Run(registry, c.Value));
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
