use super::*;

fn task(store: &mut UsageStore, names: &[&str]) {
    store.record(names.iter().copied());
}

#[test]
fn counts_tasks_and_pairs_once_per_task() {
    let mut s = UsageStore::new();
    task(&mut s, &["a", "b", "a", "", "b"]);
    task(&mut s, &["a", "c"]);
    task(&mut s, &[]);
    assert_eq!(s.task_count(), 2);
    assert_eq!(s.tasks_of("a"), 2);
    assert_eq!(s.tasks_of("b"), 1);
    assert_eq!(s.together("a", "b"), 1);
    assert_eq!(s.together("b", "a"), 1);
    assert_eq!(s.together("b", "c"), 0);
    let p = s.partners("a");
    assert_eq!(p.len(), 2);
    s.unrecord(["a", "c"]);
    assert_eq!(s.tasks_of("a"), 1);
    assert_eq!(s.together("a", "c"), 0);
    assert_eq!(s.tasks_of("c"), 0);
}

#[test]
fn a_task_counts_its_first_tools_only() {
    let mut s = UsageStore::new();
    let names: Vec<String> = (0..10_000).map(|i| format!("t{i}")).collect();
    s.record(names.iter().map(String::as_str));
    assert_eq!(s.tool_count(), MAX_TASK_TOOLS);
    assert_eq!(s.partners("t0").len(), MAX_TASK_TOOLS - 1);
    assert_eq!(s.tasks_of("t40"), 0);
}

#[test]
fn partners_are_bounded_and_a_strong_pair_is_never_pushed_out() {
    let mut s = UsageStore::new();
    for _ in 0..3 {
        task(&mut s, &["hub", "strong"]);
    }
    for i in 0..200 {
        let other = format!("o{i}");
        task(&mut s, &["hub", &other]);
    }
    let p = s.partners("hub");
    assert!(p.len() <= MAX_PARTNERS, "{}", p.len());
    assert_eq!(p[0].name, "strong");
    assert_eq!(p[0].together, 3);
    // Symmetric: every partner lists the hub back.
    for q in &p {
        assert_eq!(s.together(&q.name, "hub"), q.together);
    }
}

#[test]
fn counts_halve_at_the_cap() {
    let mut s = UsageStore::new();
    task(&mut s, &["a", "b"]);
    let id = s.ids["a"];
    s.hot[id as usize].tasks = MAX_COUNT;
    task(&mut s, &["a"]);
    assert_eq!(s.tasks_of("a"), MAX_COUNT / 2 + 1);
    // The pair's 1 halved to 0: gone on both sides.
    assert_eq!(s.together("a", "b"), 0);
    assert!(s.partners("b").is_empty());
}

#[test]
fn forget_and_rename_keep_both_sides_in_step() {
    let mut s = UsageStore::new();
    task(&mut s, &["a", "b", "c"]);
    s.forget("b");
    assert_eq!(s.tasks_of("b"), 0);
    assert!(s.partners("a").iter().all(|p| p.name != "b"));
    // A new tool takes the forgotten id: no stale pair points at it.
    task(&mut s, &["d"]);
    assert!(
        s.partners("a").iter().all(|p| p.name != "d"),
        "{:?}",
        s.partners("a")
    );
    s.rename("c", "c2");
    assert_eq!(s.together("a", "c2"), 1);
    assert_eq!(s.tasks_of("c"), 0);
    assert_eq!(s.partners("a")[0].name, "c2");
}

#[test]
fn round_trips_through_its_file() {
    let mut s = UsageStore::new();
    task(&mut s, &["a", "b", "c"]);
    task(&mut s, &["a", "b"]);
    task(&mut s, &["x"]);
    s.forget("c");
    let bytes = s.to_bytes();
    let back = UsageStore::from_bytes(&bytes).unwrap();
    assert_eq!(back.task_count(), 3);
    assert_eq!(back.tasks_of("a"), 2);
    assert_eq!(back.together("a", "b"), 2);
    assert_eq!(back.tasks_of("x"), 1);
    assert_eq!(back.to_bytes(), bytes);
}

#[test]
fn a_bad_file_is_refused_whole() {
    let good = {
        let mut s = UsageStore::new();
        task(&mut s, &["a", "b"]);
        s.to_bytes()
    };
    let text = String::from_utf8(good.clone()).unwrap();
    let bad: Vec<Vec<u8>> = vec![
        Vec::new(),
        b"\xff\xfe not utf-8".to_vec(),
        good[..good.len() / 2].to_vec(),
        text.replace("\"toolregistry_usage\":1", "\"toolregistry_usage\":2")
            .into_bytes(),
        br#"{"toolregistry_usage":1,"tasks":1,"tools":[["a",1],["a",1]],"pairs":[]}"#.to_vec(),
        br#"{"toolregistry_usage":1,"tasks":1,"tools":[["a",1],["b",1]],"pairs":[[0,1,5]]}"#
            .to_vec(),
        br#"{"toolregistry_usage":1,"tasks":1,"tools":[["a",1],["b",1]],"pairs":[[0,7,1]]}"#
            .to_vec(),
        br#"{"toolregistry_usage":1,"tasks":1,"tools":[["a",0]],"pairs":[]}"#.to_vec(),
        br#"{"toolregistry_usage":1,"tasks":1,"tools":[],"pairs":[],"extra":1}"#.to_vec(),
        br#"{"vectors": [1, 2, 3]}"#.to_vec(),
    ];
    for b in bad {
        assert!(
            UsageStore::from_bytes(&b).is_err(),
            "{:?}",
            String::from_utf8_lossy(&b)
        );
    }
}

#[test]
fn a_missing_or_oversized_file_is_no_start_or_an_error() {
    let dir = std::env::temp_dir().join(format!("tr-usage-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let missing = dir.join("missing.json");
    assert!(matches!(UsageStore::load(&missing), Ok(None)));
    let big = dir.join("big.json");
    let f = std::fs::File::create(&big).unwrap();
    f.set_len(MAX_USAGE_FILE_BYTES + 1).unwrap();
    let err = UsageStore::load(&big).unwrap_err();
    assert!(err.contains("limit"), "{err}");
    let saved = dir.join("sub").join("usage.json");
    let mut s = UsageStore::new();
    task(&mut s, &["a", "b"]);
    s.save(&saved).unwrap();
    assert_eq!(
        UsageStore::load(&saved)
            .unwrap()
            .unwrap()
            .together("a", "b"),
        1
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_hint_holds_only_at_its_version_and_for_its_name() {
    let mut s = UsageStore::new();
    s.record(["a", "b"]);
    let (a, b) = (s.ids["a"], s.ids["b"]);
    assert_eq!(s.hint(b, 7), None);
    s.set_hint(b, 7, Some(3));
    assert_eq!(s.hint(b, 7), Some(Some(3)));
    assert_eq!(s.hint(b, 8), None);
    s.set_hint(a, 7, None);
    assert_eq!(s.hint(a, 7), Some(None));
    // A new name for the id, or the id reused for another tool: nothing kept.
    s.rename("b", "c");
    assert_eq!(s.hint(b, 7), None);
    assert_eq!(s.hot[b as usize].tasks, 1);
    s.set_hint(b, 7, Some(3));
    s.forget("c");
    s.record(["a", "d"]);
    let d = s.ids["d"];
    assert_eq!(s.entries[a as usize].partners[0].0, d);
    assert_eq!(s.name_at(d), "d");
    assert_eq!(s.hint(d, 7), None);
    // A copy keeps the counts, not the places.
    s.set_hint(d, 7, Some(5));
    let copy = s.clone();
    assert_eq!(copy.hint(d, 7), None);
    assert_eq!(copy.hot[d as usize].tasks, 1);
}
