using System;
using System.Threading;
using System.Threading.Tasks;
using ToolRegistry;

// The README's async quickstart: an async host function, awaited by ExecuteAsync.
class AsyncQuickstart
{
    static void Main()
    {
        RunAsync().GetAwaiter().GetResult();   // mcs has no async Main
    }

    static async Task RunAsync()
    {
        using (var registry = new Registry())
        {
            registry.RegisterCallable(@"{""name"": ""get_weather"", ""description"": ""Weather for a city."",
                ""parameters"": {""type"": ""object"", ""properties"": {""city"": {""type"": ""string""}}}}",
                async (name, argsJson, ct) => { await Task.Delay(100, ct); return "sunny, args " + argsJson; });
            string reply = @"{""role"": ""assistant"", ""tool_calls"": [
                {""id"": ""a"", ""type"": ""function"", ""function"": {""name"": ""get_weather"", ""arguments"": ""{\""city\"": \""Paris\""}""}},
                {""id"": ""b"", ""type"": ""function"", ""function"": {""name"": ""get_weather"", ""arguments"": ""{\""city\"": \""Oslo\""}""}}]}";
            using (var cts = new CancellationTokenSource(TimeSpan.FromSeconds(30)))
                Console.WriteLine(await registry.ExecuteAsync(reply, cts.Token));   // both calls awaited at once
        }
    }
}
