using System;
using System.IO;
using System.Text;
using ToolRegistry.Tests;

/// <summary>
/// Runs the conversation conformance corpus through the C# binding and prints, for every case
/// sorted by name, one line "case TAB messages JSON TAB loaded JSON", both exactly as returned,
/// for comparing languages side by side. Each case: a fresh fixture registry, a conversation with
/// the case's options, the registry disposed (the conversation outlives it), the calls executed.
/// Usage: mono ConversationCli.exe CORPUS_DIR [--steps]   (tests/conformance/conversation); with
/// --steps the hosts are async functions and the calls run through ExecuteAsync (the two-step loop).
/// Built with bindings/csharp/tests/ConversationCorpus.cs, ExecuteCorpus.cs and MiniJson.cs.
/// </summary>
static class ConversationCli
{
    static int Main(string[] args)
    {
        bool steps = args.Length == 2 && args[1] == "--steps";
        if (args.Length != 1 && !steps)
        {
            Console.Error.WriteLine("usage: ConversationCli CORPUS_DIR [--steps]");
            return 2;
        }
        try
        {
            // UTF-8 without a BOM and "\n" line ends, whatever the locale says.
            using (var stdout = new StreamWriter(Console.OpenStandardOutput(), new UTF8Encoding(false)))
            {
                stdout.NewLine = "\n";
                var cases = ConversationCorpus.Cases(args[0]);
                if (cases.Count == 0)
                {
                    throw new InvalidDataException(args[0] + ": no cases");
                }
                foreach (var c in cases)
                {
                    string tools;
                    // --steps: async hosts awaited by ExecuteAsync (prepare, the calls, finish).
                    var result = steps
                        ? ConversationCorpus.Run(args[0], c.Value, out tools, (conversation, calls) => conversation.ExecuteAsync(calls).GetAwaiter().GetResult(), true)
                        : ConversationCorpus.Run(args[0], c.Value);
                    stdout.WriteLine(c.Key + "\t" + result.Key + "\t" + result.Value);
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
