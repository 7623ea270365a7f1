//! The hybrid profile and the embedding layer through the Rust API, with a deterministic fake
//! embedder: words map to concepts (so "temperature" and "forecast" are near), which is what a
//! sentence encoder gives and word matching cannot.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use toolregistry::embed::store::VectorState;
use toolregistry::embed::{Embedder, HostEmbedFn, HostEmbedder};
use toolregistry::{DiscoverRequest, DiscoveryOptions, Error, Profile, Registry};

const DIM: usize = 8;

/// Concepts by word; any other word lands on a hash dimension of its own.
fn concept(word: &str) -> usize {
    match word {
        "weather" | "forecast" | "temperature" | "rain" | "climate" => 0,
        "bitcoin" | "crypto" | "cryptocurrency" | "coin" | "ethereum" => 1,
        "email" | "mail" | "message" | "inbox" => 2,
        "file" | "disk" | "save" | "write" | "notes" => 3,
        _ => {
            4 + word
                .bytes()
                .fold(0usize, |h, b| h.wrapping_mul(31) + b as usize)
                % 4
        }
    }
}

fn fake_vector(text: &str) -> Vec<f32> {
    let mut v = vec![0f32; DIM];
    for w in text
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        v[concept(&w.to_ascii_lowercase())] += 1.0;
    }
    if v.iter().all(|x| *x == 0.0) {
        v[7] = 1.0;
    }
    v
}

/// A fake embedder that counts what it embeds.
#[derive(Default)]
struct Counting {
    texts: Mutex<HashMap<String, usize>>,
    calls: AtomicUsize,
}

impl Counting {
    fn embedder(self: &Arc<Self>) -> Arc<dyn Embedder> {
        let me = Arc::clone(self);
        let f: HostEmbedFn = Arc::new(move |texts: &[&str]| {
            me.calls.fetch_add(1, Ordering::SeqCst);
            let mut seen = me.texts.lock().unwrap();
            let mut out = Vec::new();
            for t in texts {
                *seen.entry(t.to_string()).or_default() += 1;
                out.extend(fake_vector(t));
            }
            Ok(out)
        });
        Arc::new(HostEmbedder::new(DIM, "fake", f).unwrap())
    }

    fn times(&self, needle: &str) -> usize {
        self.texts
            .lock()
            .unwrap()
            .iter()
            .filter(|(t, _)| t.contains(needle))
            .map(|(_, n)| n)
            .sum()
    }
}

const CATALOG: &str = r#"[
  {"name": "get_forecast", "description": "Forecast for a city.", "metadata": {"defer": true}},
  {"name": "price_feed", "description": "Latest coin prices.", "metadata": {"defer": true}},
  {"name": "send_message", "description": "Send a message to someone.", "namespace": "mail", "metadata": {"defer": true}},
  {"name": "write_file", "description": "Write text to a path.", "namespace": "fs"},
  {"name": "list_users", "description": "List the users of a team."}
]"#;

fn names(hits: &[toolregistry::Hit]) -> Vec<&str> {
    hits.iter().map(|h| h.name.as_str()).collect()
}

fn ready(registry: &Registry) {
    assert!(registry.wait_embeddings(Duration::from_secs(20)).unwrap());
}

fn with_fake() -> (Registry, Arc<Counting>) {
    let registry = Registry::new();
    registry.register_json(CATALOG).unwrap();
    let fake = Arc::new(Counting::default());
    registry.set_embedder(fake.embedder(), None).unwrap();
    ready(&registry);
    (registry, fake)
}

#[test]
fn finds_by_meaning_what_words_miss() {
    let (registry, _) = with_fake();
    let enhanced = registry.discoverer(DiscoveryOptions::enhanced());
    let hybrid = registry.discoverer(DiscoveryOptions::default());
    assert_eq!(hybrid.profile().unwrap(), Profile::Hybrid);
    let q = "temperature tomorrow";
    let req = DiscoverRequest::default();
    assert!(names(&enhanced.discover(q, &req).unwrap()).is_empty());
    let hits = hybrid.discover(q, &req).unwrap();
    assert_eq!(hits[0].name, "get_forecast");
    assert_eq!(hits[0].score, 1.0);
    assert!(hits[0].schema.is_some(), "deferred hits carry their schema");
    // The other profiles' contract holds: exact name alone with 1.0, select:, filters, top_k.
    let exact = hybrid.discover("mail-send_message", &req).unwrap();
    assert_eq!(
        (names(&exact), exact[0].score),
        (vec!["mail-send_message"], 1.0)
    );
    let sel = hybrid
        .discover("select:fs-write_file,price_feed", &req)
        .unwrap();
    assert_eq!(names(&sel), ["fs-write_file", "price_feed"]);
    let filtered = DiscoverRequest {
        namespaces: vec!["mail".into()],
        ..Default::default()
    };
    assert_eq!(
        names(&hybrid.discover(q, &filtered).unwrap()),
        ["mail-send_message"]
    );
    let one = DiscoverRequest {
        top_k: 1,
        ..Default::default()
    };
    assert_eq!(hybrid.discover("bitcoin", &one).unwrap().len(), 1);
    assert_eq!(
        hybrid.discover("bitcoin", &one).unwrap()[0].name,
        "price_feed"
    );
    // A disabled tool, or one of a disabled namespace, is not found by meaning either.
    registry.set_enabled("get_forecast", false).unwrap();
    assert!(!names(&hybrid.discover(q, &req).unwrap()).contains(&"get_forecast"));
    registry.set_enabled("get_forecast", true).unwrap();
    registry.set_enabled("mail", false).unwrap();
    assert!(!names(&hybrid.discover(q, &req).unwrap()).contains(&"mail-send_message"));
    registry.set_enabled("mail", true).unwrap();
    assert_eq!(names(&hybrid.discover(q, &req).unwrap())[0], "get_forecast");
    // JSON answers agree with the typed ones.
    let json: serde_json::Value =
        serde_json::from_str(&hybrid.discover_json(q, &req).unwrap()).unwrap();
    assert_eq!(json[0]["name"], "get_forecast");
    // CJK queries are answered (the fake gives them a vector of their own).
    hybrid.discover("天气预报", &req).unwrap();
}

#[test]
fn hybrid_needs_an_embedder_and_a_named_profile_wins() {
    let registry = Registry::new();
    registry.register_json(CATALOG).unwrap();
    let opts = DiscoveryOptions::from_json(Some(r#"{"profile": "hybrid"}"#)).unwrap();
    let err = registry.try_discoverer(opts).unwrap_err();
    assert!(
        matches!(err, Error::InvalidArgument(ref m) if m.contains("embedder")),
        "{err}"
    );
    assert!(registry.enable_discovery(opts).is_err());
    // Without an embedder the default is enhanced, as before.
    assert_eq!(
        registry
            .discoverer(DiscoveryOptions::default())
            .profile()
            .unwrap(),
        Profile::Enhanced
    );
    let fake = Arc::new(Counting::default());
    registry.set_embedder(fake.embedder(), None).unwrap();
    ready(&registry);
    assert!(registry.try_discoverer(opts).is_ok());
    let named = DiscoveryOptions::from_json(Some(r#"{"profile": "enhanced"}"#)).unwrap();
    let d = registry.discoverer(named);
    assert_eq!(d.profile().unwrap(), Profile::Enhanced);
    assert!(
        d.discover("temperature tomorrow", &Default::default())
            .unwrap()
            .is_empty()
    );
    // discover_tools follows the same rule.
    registry
        .enable_discovery(DiscoveryOptions::default())
        .unwrap();
    let answer = registry
        .discover_json("temperature tomorrow", &Default::default())
        .unwrap();
    assert!(answer.contains("get_forecast"), "{answer}");
}

#[test]
fn only_changed_text_is_embedded_again() {
    let (registry, fake) = with_fake();
    assert_eq!(fake.times("get forecast"), 1);
    let status = registry.embedding_status().unwrap().unwrap();
    assert_eq!(
        (status.ready, status.pending, status.failed, status.embedded),
        (5, 0, 0, 5)
    );
    // Disable and enable, a namespace off and on: same text, no new vector.
    registry.set_enabled("get_forecast", false).unwrap();
    let status = registry.embedding_status().unwrap().unwrap();
    assert_eq!(
        (status.ready, status.pending),
        (4, 0),
        "the status counts enabled tools"
    );
    registry.set_enabled("get_forecast", true).unwrap();
    registry.set_enabled("mail", false).unwrap();
    registry.set_enabled("mail", true).unwrap();
    ready(&registry);
    assert_eq!(fake.times("get forecast"), 1);
    assert_eq!(fake.times("send message"), 1);
    // A tag is part of the text: that tool, and only it, is embedded again.
    registry
        .set_metadata_json("get_forecast", r#"{"tags": ["climate"]}"#)
        .unwrap();
    ready(&registry);
    assert_eq!(fake.times("get forecast"), 2);
    assert_eq!(fake.times("price feed"), 1);
    // A replaced definition with a new description, and a new tool.
    registry
        .register_json(r#"{"name": "price_feed", "description": "Ethereum quotes."}"#)
        .unwrap();
    registry
        .register_json(r#"{"name": "rain_radar", "description": "Radar images."}"#)
        .unwrap();
    ready(&registry);
    assert_eq!(fake.times("Ethereum quotes"), 1);
    assert_eq!(fake.times("rain radar"), 1);
    assert_eq!(fake.times("list users"), 1);
    registry.unregister("rain_radar").unwrap();
    let status = registry.embedding_status().unwrap().unwrap();
    assert_eq!((status.ready, status.pending), (5, 0));
}

#[test]
fn the_cache_spares_a_restart_all_embedding_and_refuses_what_it_did_not_write() {
    let dir = std::env::temp_dir().join(format!("tr-hybrid-cache-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let path = dir.join("vectors.bin");
    let start = |fake: &Arc<Counting>| {
        let registry = Registry::new();
        registry.register_json(CATALOG).unwrap();
        registry.set_embedder(fake.embedder(), Some(&path)).unwrap();
        ready(&registry);
        registry.embedding_status().unwrap().unwrap()
    };
    let first = Arc::new(Counting::default());
    assert_eq!(start(&first).embedded, 5);
    let again = Arc::new(Counting::default());
    let s = start(&again);
    assert_eq!(
        (s.embedded, s.ready),
        (0, 5),
        "a restart with the cache embeds nothing"
    );
    assert_eq!(again.calls.load(Ordering::SeqCst), 0);
    // A corrupt cache is ignored with a warning, and every tool is embedded again.
    let mut bytes = std::fs::read(&path).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0x55;
    std::fs::write(&path, &bytes).unwrap();
    let s = start(&Arc::new(Counting::default()));
    assert_eq!(s.embedded, 5);
    assert!(
        s.warnings.iter().any(|w| w.contains("ignored")),
        "{:?}",
        s.warnings
    );
    // The rewritten cache is good again.
    assert_eq!(start(&Arc::new(Counting::default())).embedded, 0);
    let _ = std::fs::remove_dir_all(&dir);
}

fn failing(answer: fn(&[&str]) -> Result<Vec<f32>, String>) -> Registry {
    let registry = Registry::new();
    registry.register_json(CATALOG).unwrap();
    let f: HostEmbedFn = Arc::new(move |t: &[&str]| answer(t));
    registry
        .set_embedder(Arc::new(HostEmbedder::new(DIM, "bad", f).unwrap()), None)
        .unwrap();
    ready(&registry);
    registry
}

#[test]
fn a_failing_embedder_leaves_tools_findable_by_words() {
    type Answer = fn(&[&str]) -> Result<Vec<f32>, String>;
    let cases: [(&str, Answer); 5] = [
        ("error", |_| Err("quota exceeded".into())),
        ("panic", |_| panic!("embedder bug")),
        ("too few", |t| Ok(vec![1.0; DIM * (t.len() - 1).max(1) - 1])),
        ("NaN", |t| Ok(vec![f32::NAN; DIM * t.len()])),
        ("zeros", |t| Ok(vec![0.0; DIM * t.len()])),
    ];
    for (what, answer) in cases {
        let registry = failing(answer);
        let s = registry.embedding_status().unwrap().unwrap();
        assert_eq!((s.failed, s.ready, s.pending), (5, 0, 0), "{what}");
        assert!(!s.warnings.is_empty(), "{what}: a warning says why");
        let status = registry.tools_status().unwrap();
        assert!(
            status
                .iter()
                .all(|t| t.embedding == Some(VectorState::Failed)),
            "{what}"
        );
        // Discovers still answer, by words: the query's embedding fails too.
        let d = registry.discoverer(DiscoveryOptions::default());
        let hits = d.discover("send a message", &Default::default()).unwrap();
        assert_eq!(hits[0].name, "mail-send_message", "{what}");
        let e = d
            .explain("send a message", "mail-send_message", &Default::default())
            .unwrap();
        assert!(
            e.hybrid
                .as_ref()
                .unwrap()
                .note
                .as_deref()
                .unwrap_or("")
                .contains("words"),
            "{what}: {:?}",
            e.hybrid
        );
    }
}

#[test]
fn discovers_never_wait_for_the_embedder_and_it_may_call_back() {
    let registry = Arc::new(Registry::new());
    registry.register_json(CATALOG).unwrap();
    let gate = Arc::new((Mutex::new(false), std::sync::Condvar::new()));
    let (g, r) = (Arc::clone(&gate), Arc::clone(&registry));
    let f: HostEmbedFn = Arc::new(move |texts: &[&str]| {
        // Calls back into the registry: no lock is held while an embedder runs.
        r.tools_status().map_err(|e| e.to_string())?;
        if texts.len() > 1 {
            let (lock, cv) = &*g;
            let mut open = lock.lock().unwrap();
            while !*open {
                open = cv.wait(open).unwrap();
            }
        }
        Ok(texts.iter().flat_map(|t| fake_vector(t)).collect())
    });
    registry
        .set_embedder(Arc::new(HostEmbedder::new(DIM, "slow", f).unwrap()), None)
        .unwrap();
    // The catalog's batch is blocked: discovers answer by words meanwhile, from many threads.
    assert!(!registry.wait_embeddings(Duration::from_millis(50)).unwrap());
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let r = Arc::clone(&registry);
            std::thread::spawn(move || {
                let d = r.discoverer(DiscoveryOptions::default());
                for _ in 0..20 {
                    let hits = d.discover("send a message", &Default::default()).unwrap();
                    assert_eq!(hits[0].name, "mail-send_message");
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let status = registry.tools_status().unwrap();
    assert!(
        status
            .iter()
            .all(|t| t.embedding == Some(VectorState::Pending))
    );
    let d = registry.discoverer(DiscoveryOptions::default());
    assert!(
        d.discover("temperature tomorrow", &Default::default())
            .unwrap()
            .is_empty()
    );
    let (lock, cv) = &*gate;
    *lock.lock().unwrap() = true;
    cv.notify_all();
    ready(&registry);
    let hits = d
        .discover("temperature tomorrow", &Default::default())
        .unwrap();
    assert_eq!(hits[0].name, "get_forecast");
}

#[test]
fn vectors_follow_slot_compaction() {
    let registry = Registry::new();
    let many: Vec<String> = (0..2500)
        .map(|i| format!(r#"{{"name": "filler_{i}", "description": "Item number {i}."}}"#))
        .collect();
    registry
        .register_json(&format!("[{}]", many.join(",")))
        .unwrap();
    registry.register_json(CATALOG).unwrap();
    let fake = Arc::new(Counting::default());
    registry.set_embedder(fake.embedder(), None).unwrap();
    ready(&registry);
    for i in 0..2500 {
        registry.unregister(&format!("filler_{i}")).unwrap();
    }
    let d = registry.discoverer(DiscoveryOptions::default());
    let hits = d.discover("bitcoin", &Default::default()).unwrap();
    assert_eq!(hits[0].name, "price_feed");
    let hits = d.discover("temperature", &Default::default()).unwrap();
    assert_eq!(hits[0].name, "get_forecast");
    assert_eq!(registry.embedding_status().unwrap().unwrap().ready, 5);
}

#[test]
fn explain_shows_both_sides_and_the_fusion() {
    let (registry, _) = with_fake();
    let d = registry.discoverer(DiscoveryOptions::default());
    let e = d
        .explain("temperature tomorrow", "get_forecast", &Default::default())
        .unwrap();
    assert_eq!(e.profile, Profile::Hybrid);
    let h = e.hybrid.clone().unwrap();
    assert_eq!(h.lexical, None, "no word in common");
    assert_eq!(h.cosine.map(|c| c.1), Some(1));
    assert_eq!(h.fused.map(|f| f.1), Some(1));
    assert_eq!(e.tool.rank, Some(1));
    let v: serde_json::Value = serde_json::from_str(&e.to_json()).unwrap();
    assert_eq!(v["hybrid"]["semantic_rank"], 1);
    assert_eq!(v["profile"], "hybrid");
    let far = d
        .explain("temperature tomorrow", "list_users", &Default::default())
        .unwrap();
    assert_ne!(far.tool.rank, Some(1));
    // An exact name and `select:` are answered alike by every profile, but the explanation
    // names the profile the discoverer ranks with.
    for q in ["list_users", "select:list_users"] {
        let e = d.explain(q, "list_users", &Default::default()).unwrap();
        assert_eq!((e.profile, e.tool.rank), (Profile::Hybrid, Some(1)), "{q}");
    }
}

#[test]
fn fusion_options_parse_and_rank() {
    let (registry, _) = with_fake();
    for f in ["zscore", "minmax", "rrf", "semantic"] {
        let o = DiscoveryOptions::from_json(Some(&format!(r#"{{"fusion": "{f}"}}"#))).unwrap();
        let hits = registry
            .discoverer(o)
            .discover("temperature tomorrow", &Default::default())
            .unwrap();
        assert_eq!(hits[0].name, "get_forecast", "{f}");
    }
    let lexical = DiscoveryOptions::from_json(Some(r#"{"fusion": "lexical"}"#)).unwrap();
    assert!(
        registry
            .discoverer(lexical)
            .discover("temperature tomorrow", &Default::default())
            .unwrap()
            .is_empty()
    );
    assert!(DiscoveryOptions::from_json(Some(r#"{"fusion": "best"}"#)).is_err());
}

#[test]
fn registry_options_name_the_model_and_a_bad_one_is_a_clear_error() {
    let err = Registry::from_options_json(Some(
        r#"{"embedding": {"model_dir": "/nonexistent/model"}}"#,
    ))
    .unwrap_err();
    assert!(err.to_string().contains("not a directory"), "{err}");
    let dir = std::env::temp_dir().join(format!("tr-bad-model-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("config.json"), "{not json").unwrap();
    let err = Registry::from_options_json(Some(&format!(
        r#"{{"embedding": {{"model_dir": {:?}}}}}"#,
        dir.to_str().unwrap()
    )))
    .unwrap_err();
    assert!(err.to_string().contains("config.json"), "{err}");
    for bad in [
        r#"{"embedding": {"model_dir": 3}}"#,
        r#"{"embedding": {"model_dir": "x", "colour": 1}}"#,
        r#"{"embedding": {"threads": 0, "model_dir": "x"}}"#,
        r#"{"embeddings": {}}"#,
    ] {
        assert!(Registry::from_options_json(Some(bad)).is_err(), "{bad}");
    }
    // Opting out works whatever the environment says.
    assert!(Registry::from_options_json(Some(r#"{"embedding": null}"#)).is_ok());
    let _ = std::fs::remove_dir_all(&dir);
}

/// An embedder that counts when it is let go.
struct DropCounted(Arc<AtomicUsize>);

impl Drop for DropCounted {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

impl Embedder for DropCounted {
    fn dim(&self) -> usize {
        8
    }
    fn identity(&self) -> String {
        "drop-counted".into()
    }
    fn embed(&self, texts: &[&str]) -> toolregistry::Result<Vec<f32>> {
        Ok(texts
            .iter()
            .flat_map(|t| fake_vector(t)[..8].to_vec())
            .map(|x| x + 0.1)
            .collect())
    }
}

#[test]
fn dropping_the_last_handle_lets_the_embedder_go_before_it_returns() {
    // Whenever the registry goes (the embedding thread busy, between batches, or holding the
    // state to take or install work), its embedder is dropped before the drop returns, on the
    // caller's thread, never later on the embedding thread; a discoverer keeps it alive.
    let tools: Vec<String> = (0..300)
        .map(|i| {
            format!(r#"{{"name": "tool_{i}", "description": "Tool number {i} does things."}}"#)
        })
        .collect();
    let catalog = format!("[{}]", tools.join(","));
    for round in 0..200u64 {
        let dropped = Arc::new(AtomicUsize::new(0));
        let registry = Registry::new();
        registry.register_json(&catalog).unwrap();
        let d = (round % 5 == 0).then(|| registry.discoverer(DiscoveryOptions::default()));
        registry
            .set_embedder(Arc::new(DropCounted(dropped.clone())), None)
            .unwrap();
        std::thread::sleep(Duration::from_micros(round % 7 * 150));
        drop(registry);
        if let Some(d) = d {
            assert_eq!(dropped.load(Ordering::SeqCst), 0, "a discoverer keeps it");
            drop(d);
        }
        assert_eq!(dropped.load(Ordering::SeqCst), 1, "round {round}");
    }
}

/// The pull model: the host takes the texts and gives their vectors back whenever it has them;
/// the catalog is then found by meaning as with a callback, and a query needs its own vector.
#[test]
fn a_pulled_embedder_gets_its_vectors_from_the_host() {
    let registry = Registry::new();
    registry.register_json(CATALOG).unwrap();
    let pulled = toolregistry::embed::PullEmbedder::new(DIM, "fake").unwrap();
    registry.set_embedder(Arc::new(pulled), None).unwrap();
    let hybrid = registry.discoverer(DiscoveryOptions::default());
    let q = "temperature tomorrow";
    // Nothing embedded yet: found by words only (nothing here), no waiting on the host.
    assert!(!registry.wait_embeddings(Duration::from_millis(50)).unwrap());
    assert!(names(&hybrid.discover(q, &DiscoverRequest::default()).unwrap()).is_empty());
    let mut answered = 0;
    while answered < 5 {
        let jobs: serde_json::Value =
            serde_json::from_str(&registry.take_embedding_jobs_json(2).unwrap()).unwrap();
        let jobs = jobs.as_array().unwrap();
        assert!(jobs.len() <= 2);
        if jobs.is_empty() {
            std::thread::sleep(Duration::from_millis(5));
            continue;
        }
        // A bad vector is refused whole; then the right ones, in reverse order.
        let bad: Vec<_> = jobs
            .iter()
            .map(|j| serde_json::json!({"id": j["id"], "vector": vec![0.0; DIM]}))
            .collect();
        let err = registry
            .put_embeddings_json(&serde_json::Value::Array(bad).to_string())
            .unwrap_err();
        assert!(matches!(err, Error::InvalidArgument(_)), "{err}");
        let good: Vec<_> = jobs
            .iter()
            .rev()
            .map(|j| serde_json::json!({"id": j["id"], "vector": fake_vector(j["text"].as_str().unwrap())}))
            .collect();
        assert_eq!(
            registry
                .put_embeddings_json(&serde_json::Value::Array(good).to_string())
                .unwrap(),
            jobs.len()
        );
        answered += jobs.len();
    }
    ready(&registry);
    // Without a query vector the query is ranked by words; with one, by meaning too.
    assert!(names(&hybrid.discover(q, &DiscoverRequest::default()).unwrap()).is_empty());
    let with_vector = DiscoverRequest {
        query_vector: Some(toolregistry::discovery::QueryEmbedding(
            fake_vector(q).into(),
        )),
        ..Default::default()
    };
    assert_eq!(
        hybrid.discover(q, &with_vector).unwrap()[0].name,
        "get_forecast"
    );
    let short = DiscoverRequest {
        query_vector: Some(toolregistry::discovery::QueryEmbedding(vec![1.0; 3].into())),
        ..Default::default()
    };
    assert!(
        hybrid.discover(q, &short).is_err(),
        "a vector of the wrong length is refused"
    );
    // A registry without a pulled embedder says so.
    let plain = Registry::new();
    assert!(plain.take_embedding_jobs_json(8).is_err());
    // Replacing the embedder while a batch waits on the host lets the batch go.
    registry
        .register_json(r#"[{"name": "late_tool", "description": "Rain gauge."}]"#)
        .unwrap();
    let fake = Arc::new(Counting::default());
    registry.set_embedder(fake.embedder(), None).unwrap();
    ready(&registry);
}

#[test]
fn a_host_embedder_gets_batches_of_at_most_64_texts() {
    // The header's promise to a host embedder, whatever the local encoder does with its batches.
    let sizes = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&sizes);
    let f: HostEmbedFn = Arc::new(move |texts: &[&str]| {
        seen.lock().unwrap().push(texts.len());
        Ok(texts.iter().flat_map(|t| fake_vector(t)).collect())
    });
    let registry = Registry::new();
    let many: Vec<String> = (0..300)
        .map(|i| format!(r#"{{"name": "tool_{i}", "description": "Thing {i}."}}"#))
        .collect();
    registry
        .register_json(&format!("[{}]", many.join(",")))
        .unwrap();
    registry
        .set_embedder(Arc::new(HostEmbedder::new(DIM, "fake", f).unwrap()), None)
        .unwrap();
    ready(&registry);
    let sizes = sizes.lock().unwrap().clone();
    assert_eq!(sizes.iter().sum::<usize>(), 300, "{sizes:?}");
    assert!(sizes.iter().all(|&n| n <= 64), "{sizes:?}");
    assert!(sizes.contains(&64), "full batches: {sizes:?}");
}

#[test]
fn words_side_by_side_as_in_the_query_rank_first() {
    // The same words in two tools and one vector for every text: only the order of the words
    // tells them apart. `enhanced` ties them (the earlier slot first); `hybrid` ranks the tool with
    // the query's phrase first. (A third tool sharing one word gives the words scores a spread; the rest keep
    // "rate" under the filler filter's share.)
    let registry = Registry::new();
    registry
        .register_json(
            r#"[
  {"name": "report_b", "description": "Rate data with sales exchange report."},
  {"name": "report_a", "description": "Sales report with exchange rate data."},
  {"name": "limits", "description": "The rate limits of an API."},
  {"name": "weather", "description": "Tomorrow's weather."},
  {"name": "send_mail", "description": "Send an email."},
  {"name": "read_file", "description": "Read a file."},
  {"name": "list_users", "description": "List the users of a team."},
  {"name": "get_time", "description": "The time in a city."},
  {"name": "translate", "description": "Translate a text."}
]"#,
        )
        .unwrap();
    let same: HostEmbedFn = Arc::new(|texts: &[&str]| Ok(vec![1.0; DIM * texts.len()]));
    registry
        .set_embedder(
            Arc::new(HostEmbedder::new(DIM, "same", same).unwrap()),
            None,
        )
        .unwrap();
    ready(&registry);
    let req = DiscoverRequest::default();
    let q = "what is the exchange rate today";
    let enhanced = registry.discoverer(DiscoveryOptions::enhanced());
    let words = enhanced.discover(q, &req).unwrap();
    assert_eq!(names(&words)[..2], ["report_b", "report_a"]);
    assert_eq!(words[0].score, words[1].score);
    let hybrid = registry.discoverer(DiscoveryOptions::default());
    assert_eq!(
        names(&hybrid.discover(q, &req).unwrap())[..2],
        ["report_a", "report_b"]
    );
    // The words the other way round are not the phrase.
    let reversed = hybrid.discover("rate exchange", &req).unwrap();
    assert_eq!(names(&reversed)[0], "report_b");
    // explain says what the phrase added, and only where there is one.
    let phrase = |tool: &str| {
        let e = hybrid.explain(q, tool, &req).unwrap();
        let v: serde_json::Value = serde_json::from_str(&e.to_json()).unwrap();
        assert_eq!(
            v["hybrid"]["phrase_score"].as_f64(),
            e.hybrid.unwrap().phrase
        );
        v["hybrid"]["phrase_score"].as_f64()
    };
    assert!(phrase("report_a").is_some_and(|p| p > 0.0));
    assert_eq!(phrase("report_b"), None);
}
