using System.Linq;

namespace ToolRegistry.Tests
{
    /// <summary>
    /// Intents through the binding (issue 42): a query holding two needs gets a tool for each, each hit
    /// names its need, <see cref="DiscoveryOptions.Intents"/> false ranks the query as one need, and
    /// <see cref="Discoverer.Explain"/> lists the needs and the tool's.
    /// </summary>
    internal static partial class Program
    {
        private const string TwoNeedQuery = "convert 100 dollars to euros and then tell me the weather in Paris";
        private const string CurrencyNeed = "convert 100 dollars to euros";
        private const string WeatherNeed = "tell me the weather in Paris";
        private const string OneNeedQuery = "convert dollars to euros";

        private static void IntentsTests()
        {
            Test("intents: a two-need query's hits each name their need", IntentsTwoNeeds);
            Test("intents: a one-need query's hits name none", IntentsOneNeed);
            Test("intents: Intents = false ranks the query as one need", IntentsOff);
            Test("intents: explain lists the needs and the tool's need", IntentsExplain);
        }

        /// <summary>
        /// The catalog of tests/it/intents.rs: five currency tools that crowd a whole-query ranking of
        /// the two-need query, one weather tool, and unrelated tools so the query's words are rare.
        /// </summary>
        private static Registry IntentsRegistry()
        {
            var tools = new[]
            {
                "{\"name\": \"convert_currency\", \"description\": \"Convert an amount of money from one currency to another, such as dollars to euros.\"}",
                "{\"name\": \"currency_rates\", \"description\": \"Exchange rates between currencies: dollars, euros, pounds and yen.\"}",
                "{\"name\": \"money_exchange\", \"description\": \"Exchange money: convert dollars into euros or any currency.\"}",
                "{\"name\": \"forex_quote\", \"description\": \"Live forex quote to convert currency amounts, dollars and euros.\"}",
                "{\"name\": \"currency_history\", \"description\": \"Historical currency exchange rates for dollars, euros and more.\"}",
                "{\"name\": \"weather_forecast\", \"description\": \"The current weather and forecast for a city.\"}",
            }.Concat(new[]
            {
                "email", "file", "calendar", "invoice", "ticket", "photo", "song", "recipe", "contact", "note",
                "repository", "printer", "database", "playlist", "package", "meeting", "document", "spreadsheet",
            }.Select(t => "{\"name\": \"manage_" + t + "\", \"description\": \"Create, list and delete a " + t + ".\"}"));
            var r = new Registry();
            r.Register("[" + string.Join(",", tools) + "]");
            return r;
        }

        private static void IntentsTwoNeeds()
        {
            using (var r = IntentsRegistry())
            {
                foreach (var options in new[] { null, new DiscoveryOptions { Intents = true } })
                {
                    using (var d = r.CreateDiscoverer(options))
                    {
                        var hits = d.Discover(TwoNeedQuery, 3);
                        var weather = hits.FirstOrDefault(h => h.Name == "weather_forecast");
                        True(weather != null, "weather_forecast in the first 3: " + string.Join(", ", hits));
                        Eq(WeatherNeed, weather.Intent, "the weather tool's need");
                        Eq(CurrencyNeed, hits[0].Intent, "the first hit's need");
                    }
                }
            }
        }

        private static void IntentsOneNeed()
        {
            using (var r = IntentsRegistry())
            using (var d = r.CreateDiscoverer())
            {
                var hits = d.Discover(OneNeedQuery, 5);
                Eq("convert_currency", hits[0].Name, "best hit");
                True(hits.All(h => h.Intent == null), "no hit names a need");
            }
        }

        private static void IntentsOff()
        {
            var off = new DiscoveryOptions { Intents = false };
            Eq("{\"intents\":false}", off.ToJson(), "options JSON");
            using (var r = IntentsRegistry())
            using (var d = r.CreateDiscoverer(off))
            {
                var hits = d.Discover(TwoNeedQuery, 3);
                True(hits.Count > 0, "hits");
                True(hits.All(h => h.Intent == null), "no hit names a need");
                True(hits.All(h => h.Name != "weather_forecast"), "the currency tools crowd the first places: " + string.Join(", ", hits));
                var ex = d.Explain(TwoNeedQuery, "weather_forecast", 3);
                Eq(0, ex.Intents.Count, "explain lists no needs");
                Eq(null, ex.Tool.Intent, "the tool names no need");
            }
        }

        private static void IntentsExplain()
        {
            using (var r = IntentsRegistry())
            using (var d = r.CreateDiscoverer())
            {
                var ex = d.Explain(TwoNeedQuery, "weather_forecast", 3);
                Seq(new[] { CurrencyNeed, WeatherNeed }, ex.Intents.Select(i => i.Text), "the needs, in query order");
                Eq(WeatherNeed, ex.Tool.Intent, "the tool's need");
                Eq(ExplainOutcome.Ranked, ex.Tool.Outcome, "ranked");
                // The weather need's own ranking has the tool first; the currency need's does not hold it.
                Eq(1, ex.Intents[1].Rank, "rank in the weather need's ranking");
                Eq(1.0, ex.Intents[1].RelativeScore, "relative score in the weather need's ranking");
                Eq(null, ex.Intents[0].Rank, "not in the currency need's ranking");
                Eq(null, ex.Intents[0].RelativeScore, "no relative score in the currency need's ranking");
                var one = d.Explain(OneNeedQuery, "convert_currency", 5);
                Eq(0, one.Intents.Count, "a one-need query lists no needs");
                Eq(null, one.Tool.Intent, "a one-need query's tool names no need");
            }
        }
    }
}
