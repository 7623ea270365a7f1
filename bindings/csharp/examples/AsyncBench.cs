using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Linq;
using System.Text;
using System.Threading.Tasks;
using ToolRegistry;

/// <summary>
/// Benchmarks of ExecuteAsync (BENCHMARKS.md): a batch of 8 calls whose async functions each await
/// 100 ms (Task.Delay standing for an HTTP call), timed per batch; and the library's own cost of a
/// batch of 10 instant calls, Execute against prepare + finish by hand, alternated in one run.
/// Usage: mono AsyncBench.exe [BATCHES]   (default 20)
/// </summary>
static class AsyncBench
{
    static string Batch(int n, string tool)
    {
        var calls = Enumerable.Range(0, n).Select(i =>
            "{\"id\": \"c" + i + "\", \"type\": \"function\", \"function\": {\"name\": \"" + tool + "\", \"arguments\": \"{}\"}}");
        return "[" + string.Join(", ", calls) + "]";
    }

    static double Percentile(List<double> sorted, double p)
    {
        return sorted[Math.Min(sorted.Count - 1, (int)Math.Round(p * (sorted.Count - 1)))];
    }

    static int Main(string[] args)
    {
        int batches = args.Length > 0 ? int.Parse(args[0]) : 20;
        using (var r = new Registry())
        {
            r.RegisterCallable("{\"name\": \"slow\", \"description\": \"Waits 100 ms.\"}", async (name, a, ct) =>
            {
                await Task.Delay(100, ct).ConfigureAwait(false);
                return "ok";
            });
            r.RegisterCallable("{\"name\": \"fast\", \"description\": \"Returns at once.\"}", (name, a) => "ok");
            string slow = Batch(8, "slow");
            string fast = Batch(10, "fast");
            string check = r.ExecuteAsync(slow).GetAwaiter().GetResult();
            if (check.Split(new[] { "\"content\":\"ok\"" }, StringSplitOptions.None).Length != 9)
            {
                Console.Error.WriteLine("unexpected answer: " + check);
                return 1;
            }
            var times = new List<double>();
            for (int i = 0; i < batches; i++)
            {
                var sw = Stopwatch.StartNew();
                r.ExecuteAsync(slow).GetAwaiter().GetResult();
                times.Add(sw.Elapsed.TotalMilliseconds);
            }
            times.Sort();
            Console.WriteLine("ExecuteAsync, 8 calls awaiting 100 ms each: {0} batches, median {1:F1} ms, p90 {2:F1} ms, max {3:F1} ms",
                batches, Percentile(times, 0.5), Percentile(times, 0.9), times[times.Count - 1]);

            // The library's own cost: Execute (plain functions through the trampoline) against
            // prepare + finish with the results written by hand, alternated in rounds.
            const int perRound = 2000;
            double execute = 0, twoStep = 0;
            var results = Enumerable.Range(0, 10).Select(i => CallResult.Content("c" + i, "ok")).ToList();
            for (int round = 0; round < 5; round++)
            {
                var sw = Stopwatch.StartNew();
                for (int i = 0; i < perRound; i++)
                {
                    r.Execute(fast);
                }
                execute += sw.Elapsed.TotalMilliseconds;
                sw = Stopwatch.StartNew();
                for (int i = 0; i < perRound; i++)
                {
                    string plan = r.PrepareCalls(fast);
                    r.FinishCalls(plan, results);
                }
                twoStep += sw.Elapsed.TotalMilliseconds;
            }
            Console.WriteLine("10 instant calls: Execute {0:F2} us/call, prepare + finish {1:F2} us/call (ratio {2:F2})",
                execute * 1000 / (5.0 * perRound * 10), twoStep * 1000 / (5.0 * perRound * 10), twoStep / execute);
        }
        return 0;
    }
}
