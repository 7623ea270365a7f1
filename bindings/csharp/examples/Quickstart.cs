using System;
using ToolRegistry;

class Quickstart
{
    static void Main()
    {
        using (var registry = new Registry(new DiscoveryOptions()))   // discover_tools enabled
        {
            registry.Register(@"[
              {""name"": ""send_email"", ""description"": ""Send an email."", ""metadata"": {""defer"": true}},
              {""name"": ""read_file"", ""description"": ""Read a file from disk.""}]");
            foreach (var s in registry.DeferredSummaries()) Console.WriteLine(s);   // - send_email: Send an email.
            using (var discoverer = registry.CreateDiscoverer())
                foreach (var hit in discoverer.Discover("email someone", topK: 5))
                    Console.WriteLine("{0} {1:F3} {2}", hit.Name, hit.Score, hit.SchemaJson);
            string forTheModel = registry.GetSchemasJson(new SchemaOptions { IncludeDeferred = false });
            string toolResult = registry.Call("discover_tools", @"{""query"": ""email someone""}");  // the model's call
            if (!forTheModel.Contains("read_file") || !toolResult.Contains("send_email")) throw new Exception("unexpected");
            try { registry.Unregister("nope"); }
            catch (NotFoundException e) { Console.WriteLine("{0}: {1}", e.Status, e.Message); }
        }
    }
}
