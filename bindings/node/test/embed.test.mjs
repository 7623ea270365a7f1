// Embeddings: a JS embedder on the pull model (the library queues texts, the binding feeds the
// async function on the event loop), and the built-in encoder from a local model folder
// (TOOLREGISTRY_TEST_MODEL_DIR; scripts/test-parts/35-node.sh fetches it).
import { test } from "node:test";
import assert from "node:assert/strict";
import { Registry } from "toolregistry";

const CATALOG = [
  { name: "crypto_quotes", description: "Live prices of cryptocurrencies." },
  { name: "get_current_weather", description: "Current conditions and the outlook for a city." },
  { name: "write_file", description: "Create or overwrite a file with the given content." },
  { name: "send_email", description: "Send an email message." },
];

// A toy "meaning": texts that mention any word of a group point the same way.
const GROUPS = [["bitcoin", "cryptocurrencies", "crypto", "prices", "worth"], ["weather", "conditions", "outlook", "rain"], ["file", "disk"], ["email", "mail"]];
function embed(texts) {
  return texts.map((t) => {
    const words = t.toLowerCase().split(/[^a-z]+/);
    const v = GROUPS.map((g) => (g.some((w) => words.includes(w)) ? 1 : 0));
    v.push(0.01);
    return v;
  });
}

test("a JS embedder: the catalog is embedded through the function, and hybrid finds by meaning", async () => {
  const r = new Registry();
  try {
    r.register(CATALOG);
    const batches = [];
    r.setEmbedder(async (texts) => { batches.push(texts.length); await new Promise((res) => setTimeout(res, 1)); return embed(texts); }, { dim: 5 });
    assert.equal(await r.waitEmbeddings(10_000), true, JSON.stringify(r.embeddingStatus()));
    const st = r.embeddingStatus();
    assert.equal(st.dim, 5);
    assert.equal(st.ready, 4);
    assert.equal(st.pending, 0);
    assert.ok(batches.reduce((a, b) => a + b, 0) >= 4);
    assert.ok(r.toolsStatus().every((t) => t.embedding === "ready"));
    const d = r.discoverer();
    const byMeaning = await d.discoverAsync("how much is bitcoin worth", { topK: 1 });
    assert.equal(byMeaning[0].name, "crypto_quotes");
    // With an explicit vector the same, without calling the function.
    const explicit = d.discover("how much is bitcoin worth", { topK: 1, queryVector: embed(["bitcoin"])[0] });
    assert.equal(explicit[0].name, "crypto_quotes");
    // A tool registered later is embedded too (the binding feeds new jobs after a change).
    r.register({ name: "rain_alerts", description: "Rain warnings for the outlook." });
    assert.equal(await r.waitEmbeddings(10_000), true, JSON.stringify(r.embeddingStatus()));
    assert.equal(r.embeddingStatus().ready, 5);
    d.close();
  } finally {
    r.close();
  }
});

test("a failing embedder or a bad vector fails its batch only: the tools stay findable by words", async () => {
  const r = new Registry();
  try {
    r.register(CATALOG);
    r.setEmbedder(async () => { throw new Error("model offline"); }, { dim: 5 });
    assert.equal(await r.waitEmbeddings(10_000), true, JSON.stringify(r.embeddingStatus()));
    let st = r.embeddingStatus();
    assert.equal(st.failed, 4);
    const d = r.discoverer();
    assert.equal(d.discover("send an email", { topK: 1 })[0].name, "send_email");
    r.setEmbedder(async (texts) => texts.map(() => [NaN, 0, 0, 0, 1]), { dim: 5 });
    assert.equal(await r.waitEmbeddings(10_000), true, JSON.stringify(r.embeddingStatus()));
    st = r.embeddingStatus();
    assert.equal(st.failed, 4);
    r.setEmbedder(async (texts) => texts.map(() => [1, 2]), { dim: 5 });
    assert.equal(await r.waitEmbeddings(10_000), true, JSON.stringify(r.embeddingStatus()));
    assert.equal(r.embeddingStatus().failed, 4);
    d.close();
  } finally {
    r.close();
  }
  assert.throws(() => new Registry().setEmbedder("nope", { dim: 3 }), TypeError);
  const r2 = new Registry();
  assert.throws(() => r2.setEmbedder(async () => [], { dim: 0 }), { status: "TR_STATUS_INVALID_ARGUMENT" });
  r2.close();
});

test("closing the registry stops the feeding; a waiting embedder never touches a freed handle", async () => {
  const r = new Registry();
  r.register(CATALOG);
  let calls = 0;
  let release;
  r.setEmbedder((texts) => { calls++; return new Promise((res) => { release = () => res(embed(texts)); }); }, { dim: 5 });
  await new Promise((res) => setTimeout(res, 20));
  assert.equal(calls, 1);
  const waiting = r.waitEmbeddings(60_000);
  r.close();
  release();
  await assert.rejects(waiting, { code: "ERR_TOOLREGISTRY_CLOSED" });
  await new Promise((res) => setTimeout(res, 20));
  assert.equal(calls, 1);
  await assert.rejects(r.waitEmbeddings(10), { code: "ERR_TOOLREGISTRY_CLOSED" });
});

const MODEL = process.env.TOOLREGISTRY_TEST_MODEL_DIR;
test("the built-in encoder from a local model folder", { skip: MODEL ? false : "TOOLREGISTRY_TEST_MODEL_DIR is not set" }, async () => {
  const r = new Registry({ embedding: { modelDir: MODEL } });
  try {
    r.register(CATALOG);
    assert.equal(await r.waitEmbeddings(120_000), true);
    assert.equal(r.embeddingStatus().ready, 4);
    const words = r.discoverer({ profile: "enhanced" });
    const hybrid = r.discoverer();
    assert.notEqual(words.discover("how much is Bitcoin worth", { topK: 1 })[0]?.name, "crypto_quotes");
    assert.equal(hybrid.discover("how much is Bitcoin worth", { topK: 1 })[0].name, "crypto_quotes");
    words.close();
    hybrid.close();
  } finally {
    r.close();
  }
});
