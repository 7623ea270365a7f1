// Intents through the binding (issue 42): a query holding two needs gets a tool for each, each hit
// names its need, `intents: false` ranks the query as one need, and explain lists the needs and
// the tool's.
import { test, afterEach } from "node:test";
import assert from "node:assert/strict";
import { Registry } from "toolregistry";

const TWO_NEEDS = "convert 100 dollars to euros and then tell me the weather in Paris";
const CURRENCY_NEED = "convert 100 dollars to euros";
const WEATHER_NEED = "tell me the weather in Paris";
const ONE_NEED = "convert dollars to euros";

// The catalog of tests/it/intents.rs: five currency tools that crowd a whole-query ranking of
// TWO_NEEDS, one weather tool, and unrelated tools so that the query's words are rare.
const TOOLS = [
  { name: "convert_currency", description: "Convert an amount of money from one currency to another, such as dollars to euros." },
  { name: "currency_rates", description: "Exchange rates between currencies: dollars, euros, pounds and yen." },
  { name: "money_exchange", description: "Exchange money: convert dollars into euros or any currency." },
  { name: "forex_quote", description: "Live forex quote to convert currency amounts, dollars and euros." },
  { name: "currency_history", description: "Historical currency exchange rates for dollars, euros and more." },
  { name: "weather_forecast", description: "The current weather and forecast for a city." },
  ...("email file calendar invoice ticket photo song recipe contact note repository printer database " +
    "playlist package meeting document spreadsheet").split(" ").map((t) => ({
    name: `manage_${t}`,
    description: `Create, list and delete a ${t}.`,
  })),
];

const owned = [];
const own = (x) => (owned.push(x), x);
afterEach(() => {
  while (owned.length) owned.pop().close();
});

function registry(options) {
  const r = own(new Registry(options));
  r.register(TOOLS);
  return r;
}

for (const options of [undefined, { intents: true }]) {
  test(`intents: a two-need query's hits each name their need (${JSON.stringify(options)})`, () => {
    const d = own(registry().discoverer(options));
    const hits = d.discover(TWO_NEEDS, { topK: 3 });
    const weather = hits.find((h) => h.name === "weather_forecast");
    assert.ok(weather, JSON.stringify(hits));
    assert.equal(weather.intent, WEATHER_NEED);
    assert.equal(hits[0].intent, CURRENCY_NEED);
  });
}

test("intents: a one-need query's hits name none", () => {
  const d = own(registry().discoverer());
  const hits = d.discover(ONE_NEED, { topK: 5 });
  assert.equal(hits[0].name, "convert_currency");
  assert.ok(hits.every((h) => !("intent" in h)), JSON.stringify(hits));
});

test("intents: false ranks the query as one need, in a discoverer and in discover_tools", () => {
  const d = own(registry().discoverer({ intents: false }));
  const hits = d.discover(TWO_NEEDS, { topK: 3 });
  assert.ok(hits.length > 0);
  assert.ok(hits.every((h) => !("intent" in h)), JSON.stringify(hits));
  // The currency tools crowd the first places of the whole query's ranking.
  assert.ok(hits.every((h) => h.name !== "weather_forecast"), JSON.stringify(hits));
  const e = d.explain(TWO_NEEDS, "weather_forecast", { topK: 3 });
  assert.deepEqual(e.intents, []);
  assert.equal(e.tool.intent, null);
  const builtin = (r) => r.call("discover_tools", { query: TWO_NEEDS, top_k: 3 });
  assert.ok(builtin(registry({ discovery: { intents: false } })).every((h) => !("intent" in h)));
  assert.ok(builtin(registry({ discovery: true })).some((h) => h.intent === WEATHER_NEED));
});

test("intents: explain lists the needs and the tool's need", () => {
  const d = own(registry().discoverer());
  const e = d.explain(TWO_NEEDS, "weather_forecast", { topK: 3 });
  assert.deepEqual(e.intents.map((i) => i.text), [CURRENCY_NEED, WEATHER_NEED]);
  assert.equal(e.tool.intent, WEATHER_NEED);
  assert.equal(e.tool.outcome, "ranked");
  // The weather need's own ranking has the tool first; the currency need's does not hold it.
  assert.deepEqual(e.intents[1], { text: WEATHER_NEED, relative_score: 1, rank: 1 });
  assert.deepEqual(e.intents[0], { text: CURRENCY_NEED, relative_score: null, rank: null });
  const one = d.explain(ONE_NEED, "convert_currency", { topK: 5 });
  assert.deepEqual(one.intents, []);
  assert.equal(one.tool.intent, null);
});
