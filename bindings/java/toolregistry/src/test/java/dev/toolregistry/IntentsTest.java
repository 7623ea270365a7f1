package dev.toolregistry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Intents through the binding (issue 42): a query holding two needs gets a tool for each, each hit
 * names its need, {@code intents(false)} ranks the query as one need, and explain lists the needs
 * and the tool's.
 */
class IntentsTest {
    static final String TWO_NEEDS = "convert 100 dollars to euros and then tell me the weather in Paris";
    static final String CURRENCY_NEED = "convert 100 dollars to euros";
    static final String WEATHER_NEED = "tell me the weather in Paris";
    static final String ONE_NEED = "convert dollars to euros";

    /**
     * The catalog of tests/it/intents.rs: five currency tools that crowd a whole-query ranking of
     * TWO_NEEDS, one weather tool, and unrelated tools so that the query's words are rare.
     */
    static String tools() {
        List<String> tools = new ArrayList<>(List.of(
                "{\"name\": \"convert_currency\", \"description\": \"Convert an amount of money from one currency to another, such as dollars to euros.\"}",
                "{\"name\": \"currency_rates\", \"description\": \"Exchange rates between currencies: dollars, euros, pounds and yen.\"}",
                "{\"name\": \"money_exchange\", \"description\": \"Exchange money: convert dollars into euros or any currency.\"}",
                "{\"name\": \"forex_quote\", \"description\": \"Live forex quote to convert currency amounts, dollars and euros.\"}",
                "{\"name\": \"currency_history\", \"description\": \"Historical currency exchange rates for dollars, euros and more.\"}",
                "{\"name\": \"weather_forecast\", \"description\": \"The current weather and forecast for a city.\"}"));
        for (String t : ("email file calendar invoice ticket photo song recipe contact note repository printer database"
                + " playlist package meeting document spreadsheet").split(" ")) {
            tools.add("{\"name\": \"manage_" + t + "\", \"description\": \"Create, list and delete a " + t + ".\"}");
        }
        return "[" + String.join(",", tools) + "]";
    }

    static Registry registry(RegistryOptions options) {
        Registry r = options == null ? new Registry() : new Registry(options);
        r.register(tools());
        return r;
    }

    @Test
    void aTwoNeedQuerysHitsEachNameTheirNeed() {
        try (Registry r = registry(null)) {
            for (DiscoveryOptions options : List.of(new DiscoveryOptions(), new DiscoveryOptions().intents(true))) {
                try (Discoverer d = r.discoverer(options)) {
                    List<Hit> hits = d.discover(TWO_NEEDS, 3);
                    Hit weather = hits.stream().filter(h -> h.name().equals("weather_forecast")).findFirst().orElse(null);
                    assertNotNull(weather, hits.toString());
                    assertEquals(WEATHER_NEED, weather.intent());
                    assertEquals(CURRENCY_NEED, hits.get(0).intent(), hits.toString());
                }
            }
        }
    }

    @Test
    void aOneNeedQuerysHitsNameNone() {
        try (Registry r = registry(null); Discoverer d = r.discoverer()) {
            List<Hit> hits = d.discover(ONE_NEED, 5);
            assertEquals("convert_currency", hits.get(0).name());
            assertTrue(hits.stream().allMatch(h -> h.intent() == null), hits.toString());
        }
    }

    @Test
    void intentsFalseRanksTheQueryAsOneNeed() {
        DiscoveryOptions off = new DiscoveryOptions().intents(false);
        assertEquals("{\"intents\":false}", off.toJson());
        try (Registry r = registry(null); Discoverer d = r.discoverer(off)) {
            List<Hit> hits = d.discover(TWO_NEEDS, 3);
            assertFalse(hits.isEmpty());
            assertTrue(hits.stream().allMatch(h -> h.intent() == null), hits.toString());
            // The currency tools crowd the first places of the whole query's ranking.
            assertTrue(hits.stream().noneMatch(h -> h.name().equals("weather_forecast")), hits.toString());
            Explanation e = d.explain(TWO_NEEDS, "weather_forecast", 3);
            assertEquals(List.of(), e.intents());
            assertNull(e.tool().intent());
        }
        String args = "{\"query\": \"" + TWO_NEEDS + "\", \"top_k\": 3}";
        try (Registry r = registry(new RegistryOptions().discovery(off))) {
            String answer = r.call("discover_tools", args);
            assertFalse(answer.contains("\"intent\""), answer);
            r.enableDiscovery(new DiscoveryOptions());
            answer = r.call("discover_tools", args);
            assertTrue(answer.contains("\"intent\":\"" + WEATHER_NEED + "\""), answer);
        }
    }

    @Test
    void explainListsTheNeedsAndTheToolsNeed() {
        try (Registry r = registry(null); Discoverer d = r.discoverer()) {
            Explanation e = d.explain(TWO_NEEDS, "weather_forecast", 3);
            assertEquals(List.of(CURRENCY_NEED, WEATHER_NEED), e.intents().stream().map(Explanation.IntentExplanation::text).toList());
            assertEquals(WEATHER_NEED, e.tool().intent());
            assertEquals("ranked", e.tool().outcome());
            // The weather need's own ranking has the tool first; the currency need's does not hold it.
            assertEquals(new Explanation.IntentExplanation(WEATHER_NEED, 1.0, 1), e.intents().get(1));
            assertEquals(new Explanation.IntentExplanation(CURRENCY_NEED, null, null), e.intents().get(0));
            Explanation one = d.explain(ONE_NEED, "convert_currency", 5);
            assertEquals(List.of(), one.intents());
            assertNull(one.tool().intent());
        }
    }
}
