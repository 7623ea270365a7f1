//! The benchmark workload: deterministic synthetic tool catalogs and queries.
//!
//! One generator feeds every measurement (the criterion benches, the peak-memory program and, through
//! the files `bench_gen` writes, `bench/compare.py`), so all engines see byte-identical input. It is
//! shared by `#[path]` inclusion rather than living in the library: it is test data, not product.
//!
//! Shape (issue 5): names of 2–4 snake_case words (a verb, then Zipf-distributed nouns out of 3,000);
//! descriptions of 8–40 words from a Zipf vocabulary of about 4,600 words whose head is common English;
//! 0–6 parameters with short descriptions; about 30% with 1–3 tags, 20% with a search hint, 50% deferred,
//! 40% in one of 60 namespaces. 500 queries of 2–6 words, mostly words of a target tool plus noise words, 10% exact
//! names. 20 extra tools per catalog, not in it, each with a query of its first three name words, for
//! the register-one / unregister-one measures. Catalog sizes 100 to 100,000 are 64 KB to 62 MB of
//! compact JSON. Everything derives from [`SEED`]; the random source is SplitMix64, so output is identical on
//! every platform and in every run.

#![allow(dead_code)]

use serde_json::{Map, Value, json};
use std::collections::HashSet;

/// A `/proc/self/status` figure in kB (`"VmRSS:"`, `"VmHWM:"`), 0 where there is none: for the
/// programs that report memory beside their timings.
pub fn status_kb(key: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| {
            l.strip_prefix(key)?
                .trim()
                .strip_suffix("kB")?
                .trim()
                .parse()
                .ok()
        })
        .unwrap_or(0)
}

/// Catalog sizes measured.
pub const SIZES: [usize; 4] = [100, 1_000, 10_000, 100_000];
/// Queries per catalog.
pub const QUERY_COUNT: usize = 500;
/// Extra tools per catalog for the register-one-then-discover measure.
pub const EXTRA_COUNT: usize = 20;
/// The fixed seed every catalog derives from.
pub const SEED: u64 = 0x7001_5EED_2026_0005;

/// SplitMix64: tiny, fast, and identical everywhere (no dependency on a crate's version).
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + (self.next_u64() % (hi - lo + 1) as u64) as usize
    }

    pub fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }
}

/// Samples ranks 0..n with probability proportional to 1 / (rank + 1)^s.
pub struct Zipf {
    cdf: Vec<f64>,
}

impl Zipf {
    pub fn new(n: usize, s: f64) -> Self {
        let mut cdf = Vec::with_capacity(n);
        let mut total = 0.0;
        for r in 0..n {
            total += 1.0 / ((r + 1) as f64).powf(s);
            cdf.push(total);
        }
        for c in &mut cdf {
            *c /= total;
        }
        Zipf { cdf }
    }

    pub fn sample(&self, rng: &mut Rng) -> usize {
        let u = rng.unit();
        self.cdf
            .partition_point(|&c| c <= u)
            .min(self.cdf.len() - 1)
    }
}

const VERBS: &[&str] = &[
    "get",
    "list",
    "create",
    "update",
    "delete",
    "search",
    "find",
    "send",
    "fetch",
    "read",
    "write",
    "set",
    "add",
    "remove",
    "check",
    "convert",
    "calculate",
    "generate",
    "validate",
    "export",
    "import",
    "upload",
    "download",
    "schedule",
    "cancel",
    "book",
    "query",
    "parse",
    "format",
    "translate",
    "summarize",
    "analyze",
    "compare",
    "merge",
    "split",
    "sync",
    "archive",
    "restore",
    "publish",
    "subscribe",
    "notify",
    "resolve",
    "assign",
    "approve",
    "reject",
    "start",
    "stop",
    "pause",
    "resume",
    "scan",
    "monitor",
    "track",
    "estimate",
    "predict",
    "render",
    "compress",
    "extract",
    "encrypt",
    "decrypt",
    "sign",
    "verify",
    "lookup",
    "count",
    "sort",
    "filter",
    "rank",
    "tag",
    "label",
    "move",
    "copy",
    "rename",
    "share",
    "invite",
    "lock",
    "unlock",
    "open",
    "close",
    "post",
    "reply",
    "forward",
    "transfer",
    "refund",
    "charge",
    "deploy",
    "build",
    "test",
    "measure",
    "plot",
    "resize",
    "crop",
    "transcribe",
    "detect",
    "classify",
    "recommend",
];

/// Common English words: the head of the description vocabulary, so the most frequent description
/// words behave like real ones (and the query filter meets words that occur in most tools).
const COMMON: &[&str] = &[
    "the",
    "a",
    "of",
    "to",
    "and",
    "for",
    "in",
    "with",
    "from",
    "on",
    "by",
    "is",
    "or",
    "an",
    "this",
    "that",
    "returns",
    "given",
    "specified",
    "user",
    "data",
    "value",
    "list",
    "new",
    "current",
    "all",
    "each",
    "information",
    "details",
    "using",
    "into",
    "based",
    "if",
    "be",
    "are",
    "as",
    "at",
    "it",
    "its",
    "not",
    "can",
    "will",
    "provided",
    "optional",
    "default",
    "name",
    "id",
    "number",
    "string",
    "type",
    "time",
    "date",
    "file",
    "account",
    "request",
    "response",
    "result",
    "results",
    "item",
    "items",
];

const SYLLABLES_C: &[&str] = &[
    "b", "c", "d", "f", "g", "h", "j", "k", "l", "m", "n", "p", "r", "s", "t", "v", "w", "z", "br",
    "cl", "dr", "fl", "gr", "pl", "pr", "st", "tr", "sh", "ch", "th",
];
const SYLLABLES_V: &[&str] = &["a", "e", "i", "o", "u", "ai", "ea", "io", "ou"];
const CODAS: &[&str] = &["", "", "", "n", "r", "s", "t", "l", "m", "x", "nd", "st"];

const TAGS: &[&str] = &[
    "read_only",
    "destructive",
    "network",
    "file_system",
    "slow",
    "privileged",
    "billing",
    "analytics",
    "admin",
    "beta",
    "internal",
    "media",
    "storage",
    "finance",
    "social",
    "devops",
    "geo",
    "security",
    "messaging",
    "calendar",
];

const PARAM_TYPES: &[&str] = &["string", "integer", "number", "boolean", "array", "object"];

/// The word lists, built once from a fixed seed.
pub struct Vocabulary {
    pub nouns: Vec<String>,
    pub words: Vec<String>,
    pub namespaces: Vec<String>,
    verb_zipf: Zipf,
    noun_zipf: Zipf,
    word_zipf: Zipf,
    ns_zipf: Zipf,
}

fn pseudo_words(rng: &mut Rng, count: usize, taken: &mut HashSet<String>) -> Vec<String> {
    let mut out = Vec::with_capacity(count);
    while out.len() < count {
        let syllables = rng.range(2, 3);
        let mut w = String::new();
        for _ in 0..syllables {
            w.push_str(SYLLABLES_C[rng.range(0, SYLLABLES_C.len() - 1)]);
            w.push_str(SYLLABLES_V[rng.range(0, SYLLABLES_V.len() - 1)]);
        }
        w.push_str(CODAS[rng.range(0, CODAS.len() - 1)]);
        if taken.insert(w.clone()) {
            out.push(w);
        }
    }
    out
}

impl Vocabulary {
    pub fn new() -> Self {
        let mut rng = Rng::new(SEED ^ 0xB0CA_B0CA);
        let mut taken: HashSet<String> =
            VERBS.iter().chain(COMMON).map(|s| s.to_string()).collect();
        let nouns = pseudo_words(&mut rng, 3_000, &mut taken);
        let others = pseudo_words(&mut rng, 1_500, &mut taken);
        let namespaces = pseudo_words(&mut rng, 60, &mut taken);
        // Description vocabulary: common English first (most frequent), then nouns and other words
        // interleaved so nouns are neither all frequent nor all rare.
        let mut words: Vec<String> = COMMON.iter().map(|s| s.to_string()).collect();
        let mut pool: Vec<String> = nouns.iter().chain(&others).cloned().collect();
        for i in (1..pool.len()).rev() {
            pool.swap(i, rng.range(0, i));
        }
        words.extend(pool);
        Vocabulary {
            verb_zipf: Zipf::new(VERBS.len(), 1.0),
            noun_zipf: Zipf::new(nouns.len(), 1.0),
            word_zipf: Zipf::new(words.len(), 1.0),
            ns_zipf: Zipf::new(namespaces.len(), 1.0),
            nouns,
            words,
            namespaces,
        }
    }

    fn verb(&self, rng: &mut Rng) -> &str {
        VERBS[self.verb_zipf.sample(rng)]
    }

    fn noun(&self, rng: &mut Rng) -> &str {
        &self.nouns[self.noun_zipf.sample(rng)]
    }

    fn word(&self, rng: &mut Rng) -> &str {
        &self.words[self.word_zipf.sample(rng)]
    }

    fn sentence(&self, rng: &mut Rng, lo: usize, hi: usize, own: &[String]) -> String {
        let n = rng.range(lo, hi);
        let mut words = Vec::with_capacity(n);
        for _ in 0..n {
            // Real descriptions repeat their tool's own name words.
            if !own.is_empty() && rng.chance(0.1) {
                words.push(own[rng.range(0, own.len() - 1)].clone());
            } else {
                words.push(self.word(rng).to_string());
            }
        }
        let mut s = words.join(" ");
        if let Some(first) = s.get_mut(0..1) {
            first.make_ascii_uppercase();
        }
        s.push('.');
        s
    }
}

impl Default for Vocabulary {
    fn default() -> Self {
        Self::new()
    }
}

/// One generated tool: its JSON definition, registered name and searchable words.
pub struct GenTool {
    pub json: Value,
    pub registered_name: String,
    pub words: Vec<String>,
}

/// Generates tools whose registered names are unique among `taken`.
pub struct ToolGen<'v> {
    vocab: &'v Vocabulary,
    rng: Rng,
    taken: HashSet<String>,
}

impl<'v> ToolGen<'v> {
    pub fn new(vocab: &'v Vocabulary, seed: u64) -> Self {
        ToolGen {
            vocab,
            rng: Rng::new(seed),
            taken: HashSet::new(),
        }
    }

    pub fn tool(&mut self) -> GenTool {
        let v = self.vocab;
        let rng = &mut self.rng;
        let namespace = rng
            .chance(0.4)
            .then(|| v.namespaces[v.ns_zipf.sample(rng)].clone());
        let (name, registered_name, name_words) = loop {
            let mut parts = vec![v.verb(rng).to_string()];
            for _ in 0..rng.range(1, 3) {
                let noun = v.noun(rng).to_string();
                if !parts.contains(&noun) {
                    parts.push(noun);
                }
            }
            let name = parts.join("_");
            let registered = match &namespace {
                Some(ns) => format!("{ns}-{name}"),
                None => name.clone(),
            };
            if self.taken.insert(registered.clone()) {
                break (name, registered, parts);
            }
        };
        let description = v.sentence(rng, 8, 40, &name_words);
        let mut properties = Map::new();
        let mut required = Vec::new();
        let mut words: Vec<String> = name_words.clone();
        for i in 0..rng.range(0, 6) {
            let pname = if rng.chance(0.5) {
                v.noun(rng).to_string()
            } else {
                format!("{}_{}", v.noun(rng), v.word(rng))
            };
            if properties.contains_key(&pname) {
                continue;
            }
            let ptype = PARAM_TYPES[rng.range(0, PARAM_TYPES.len() - 1)];
            let pdesc = v.sentence(rng, 3, 10, &[]);
            properties.insert(pname.clone(), json!({"type": ptype, "description": pdesc}));
            if i % 2 == 0 {
                required.push(Value::String(pname.clone()));
            }
            words.extend(pname.split('_').map(str::to_string));
        }
        let mut metadata = Map::new();
        metadata.insert("defer".into(), Value::Bool(rng.chance(0.5)));
        if rng.chance(0.3) {
            let mut tags: Vec<Value> = Vec::new();
            for _ in 0..rng.range(1, 3) {
                let t = Value::String(TAGS[rng.range(0, TAGS.len() - 1)].to_string());
                if !tags.contains(&t) {
                    tags.push(t);
                }
            }
            metadata.insert("tags".into(), Value::Array(tags));
        }
        if rng.chance(0.2) {
            let n = rng.range(3, 8);
            let hint: Vec<&str> = (0..n).map(|_| v.word(rng)).collect();
            metadata.insert("search_hint".into(), Value::String(hint.join(" ")));
        }
        words.extend(
            description
                .trim_end_matches('.')
                .split(' ')
                .map(str::to_ascii_lowercase),
        );
        // Distinct words, first occurrence kept: a query picks any of them alike.
        let mut seen = HashSet::new();
        words.retain(|w| seen.insert(w.clone()));
        let mut tool = Map::new();
        tool.insert("name".into(), Value::String(name));
        tool.insert("description".into(), Value::String(description));
        tool.insert(
            "parameters".into(),
            json!({"type": "object", "properties": properties, "required": required}),
        );
        if let Some(ns) = namespace {
            tool.insert("namespace".into(), Value::String(ns));
        }
        tool.insert("metadata".into(), Value::Object(metadata));
        GenTool {
            json: Value::Object(tool),
            registered_name,
            words,
        }
    }
}

/// A generated benchmark workload for one catalog size.
pub struct Workload {
    pub n: usize,
    /// The catalog: a JSON array of `n` tool definitions (flat shape with namespace and metadata).
    pub catalog_json: String,
    /// The same tools, one JSON object each.
    pub tools_json: Vec<String>,
    /// Registered names, in catalog order.
    pub names: Vec<String>,
    /// `QUERY_COUNT` queries.
    pub queries: Vec<String>,
    /// `EXTRA_COUNT` tools not in the catalog, each with a query made of its name words.
    pub extras: Vec<(String, String)>,
}

impl Workload {
    /// The workload of size `n`; identical for equal `n`.
    pub fn generate(vocab: &Vocabulary, n: usize) -> Self {
        let mut gen_ = ToolGen::new(vocab, SEED ^ (n as u64).wrapping_mul(0x9E37_79B9));
        let tools: Vec<GenTool> = (0..n).map(|_| gen_.tool()).collect();
        let mut rng = Rng::new(SEED ^ 0x51E5 ^ n as u64);
        let mut queries = Vec::with_capacity(QUERY_COUNT);
        for _ in 0..QUERY_COUNT {
            let t = &tools[rng.range(0, n - 1)];
            if rng.chance(0.1) {
                queries.push(t.registered_name.clone());
                continue;
            }
            let len = rng.range(2, 6);
            let words: Vec<String> = (0..len)
                .map(|_| {
                    if rng.chance(0.75) {
                        t.words[rng.range(0, t.words.len() - 1)].clone()
                    } else {
                        vocab.word(&mut rng).to_string()
                    }
                })
                .collect();
            queries.push(words.join(" "));
        }
        let extras = (0..EXTRA_COUNT)
            .map(|_| {
                let t = gen_.tool();
                let name_words = t.words[..t.words.len().min(3)].join(" ");
                (t.json.to_string(), name_words)
            })
            .collect();
        let tools_json: Vec<String> = tools.iter().map(|t| t.json.to_string()).collect();
        let catalog_json = format!("[{}]", tools_json.join(","));
        Workload {
            n,
            catalog_json,
            tools_json,
            names: tools.into_iter().map(|t| t.registered_name).collect(),
            queries,
            extras,
        }
    }
}

/// The real catalog at `../shared/eval/bfcl` (1,998 tools, 3,000 queries), if present.
pub fn bfcl(root: &std::path::Path) -> Option<(String, Vec<String>)> {
    let dir = root.join("../shared/eval/bfcl");
    let catalog = std::fs::read_to_string(dir.join("catalog.json")).ok()?;
    let queries = std::fs::read_to_string(dir.join("queries.jsonl"))
        .ok()?
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter_map(|v| v.get("query")?.as_str().map(str::to_string))
        .collect();
    Some((catalog, queries))
}
