//! Usage (co-use) counts as a store: kept between runs, a corrupt file, kept in step with
//! the registry, and bounded against bad tasks and huge files.

use super::usage::{QUERY, names, registry, request, tools, with_login_habit};
use serde_json::json;
use std::path::PathBuf;
use toolregistry::{DiscoveryOptions, Registry};

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tr-usage-it-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn usage_persists_across_a_restart() {
    let dir = temp("restart");
    let path = dir.join("usage.json");
    let options = json!({"usage": {"path": path}}).to_string();
    {
        let r = Registry::from_options_json(Some(&options)).unwrap();
        r.register(tools()).unwrap();
        with_login_habit(&r);
        assert!(r.usage_status().unwrap().recording);
    }
    // The last handle wrote it.
    assert!(path.exists());
    let r = Registry::from_options_json(Some(&options)).unwrap();
    r.register(tools()).unwrap();
    let status = r.usage_status().unwrap();
    assert_eq!(status.tasks, 25, "{status:?}");
    assert_eq!(status.warning, None);
    let hits = r
        .discoverer(DiscoveryOptions::default())
        .discover(QUERY, &request(10))
        .unwrap();
    assert!(
        names(&hits).contains(&"get_user_token"),
        "{:?}",
        names(&hits)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_corrupt_file_is_a_warning_and_an_empty_start() {
    let dir = temp("corrupt");
    let path = dir.join("usage.json");
    for bad in [
        &b"{\"toolregistry_usage\":1,\"tasks\":3,\"tools\":[[\"a\",1]"[..],
        b"\xff\xfe\x00garbage",
        b"{\"toolregistry_usage\":99,\"tasks\":0,\"tools\":[],\"pairs\":[]}",
    ] {
        std::fs::write(&path, bad).unwrap();
        let r = registry();
        let warning = r.enable_usage(Some(&path)).unwrap().expect("a warning");
        assert!(warning.contains("usage.json"), "{warning}");
        let status = r.usage_status().unwrap();
        assert_eq!((status.tasks, status.tools), (0, 0));
        assert_eq!(status.warning.as_deref(), Some(warning.as_str()));
        // Overwritten whole by the next write.
        with_login_habit(&r);
        r.save_usage().unwrap();
        let again = registry();
        assert_eq!(again.enable_usage(Some(&path)).unwrap(), None);
        assert_eq!(again.usage_status().unwrap().tasks, 25);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn unregister_and_rename_keep_usage_in_step() {
    let r = registry();
    with_login_habit(&r);
    r.rename_usage("get_user_token", "login").unwrap();
    assert_eq!(r.usage_partners("add_agenda").unwrap()[0].name, "login");
    r.unregister("add_agenda").unwrap();
    assert!(r.usage_partners("login").unwrap().is_empty());
    assert!(r.usage_partners("add_agenda").unwrap().is_empty());
}

#[test]
fn bad_tasks_are_bounded_and_counted_right() {
    let r = registry();
    assert_eq!(r.record_usage(&[]).unwrap(), 0);
    assert_eq!(r.record_usage(&["", "nope", "gone"]).unwrap(), 0);
    assert_eq!(r.usage_status().unwrap().tasks, 0);
    assert_eq!(
        r.record_usage(&["add_agenda", "add_agenda", "nope", "list_files"])
            .unwrap(),
        2
    );
    // A task of 10,000 names counts its first registered ones only.
    let huge: Vec<String> = (0..10_000)
        .map(|i| format!("agenda_tool_{}", i % 8))
        .collect();
    let huge: Vec<&str> = huge.iter().map(String::as_str).collect();
    assert_eq!(r.record_usage(&huge).unwrap(), 8);
    assert!(r.record_usage_json(r#"{"tools": ["a"]}"#).is_err());
    assert!(r.record_usage_json(r#"["add_agenda", 3]"#).is_err());
    assert_eq!(
        r.record_usage_json(r#"["add_agenda", "list_files"]"#)
            .unwrap(),
        2
    );
    // A million tasks: bounded memory, bounded partners.
    let start = std::time::Instant::now();
    for i in 0..1_000_000u32 {
        let a = format!("agenda_tool_{}", i % 8);
        r.record_usage(&[&a, "send_email"]).unwrap();
    }
    let status = r.usage_status().unwrap();
    assert_eq!(status.tasks, 1_000_003);
    assert!(status.memory_bytes < 64 * 1024, "{status:?}");
    assert!(start.elapsed().as_secs() < 60);
}

/// Lines of a usage file, made as they are read: a file of any size without holding it.
struct Lines<F: FnMut(u64) -> Option<String>> {
    next: F,
    line: u64,
    buffer: Vec<u8>,
    at: usize,
}

impl<F: FnMut(u64) -> Option<String>> std::io::Read for Lines<F> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        if self.at == self.buffer.len() {
            match (self.next)(self.line) {
                Some(text) => {
                    self.line += 1;
                    self.buffer = text.into_bytes();
                    self.at = 0;
                }
                None => return Ok(0),
            }
        }
        let n = out.len().min(self.buffer.len() - self.at);
        out[..n].copy_from_slice(&self.buffer[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

fn lines<F: FnMut(u64) -> Option<String>>(next: F) -> std::io::BufReader<Lines<F>> {
    std::io::BufReader::new(Lines {
        next,
        line: 0,
        buffer: Vec::new(),
        at: 0,
    })
}

/// `eval --usage FILE`'s reader: a million tasks streamed (memory is one line and the counts),
/// tasks of 10,000 names, names no longer registered, repeats, empty tasks, and the bad lines it
/// stops at, each named.
#[test]
fn a_usage_file_of_a_million_tasks_and_bad_lines() {
    use toolregistry::eval::{MAX_USAGE_LINE_BYTES, read_usage};
    let r = registry();
    let record = |names: &[&str]| r.record_usage(names).map(|_| ());
    let read = read_usage(
        lines(|i| {
            (i < 1_000_000).then(|| {
                format!(
                    "{{\"tools\": [\"agenda_tool_{}\", \"send_email\", \"gone_{i}\", \"send_email\"]}}\n",
                    i % 8
                )
            })
        }),
        record,
    )
    .unwrap();
    assert_eq!(read, 1_000_000);
    let status = r.usage_status().unwrap();
    assert_eq!(status.tasks, 1_000_000);
    // Names no longer registered are not counted: only the 9 registered tools are tracked.
    assert_eq!(status.tools, 9, "{status:?}");
    assert!(status.memory_bytes < 64 * 1024, "{status:?}");
    assert_eq!(r.usage_status().unwrap().tools, 9);
    // Repeated names count once per task.
    assert_eq!(r.usage_partners("send_email").unwrap().len(), 8);
    assert_eq!(
        r.usage_partners("agenda_tool_0").unwrap()[0].together,
        125_000
    );

    // A task of 10,000 names: its first MAX_TASK_TOOLS registered ones; an empty task and blank
    // lines: nothing recorded, not an error.
    let r = registry();
    let huge: Vec<String> = (0..10_000)
        .map(|i| format!("\"agenda_tool_{}\"", i % 8))
        .collect();
    let text = format!(
        "{{\"tools\": [{}]}}\n{{\"tools\": []}}\n\n   \n",
        huge.join(",")
    );
    let record = |names: &[&str]| r.record_usage(names).map(|_| ());
    assert_eq!(read_usage(text.as_bytes(), record).unwrap(), 2);
    assert_eq!(r.usage_status().unwrap().tasks, 1);
    assert_eq!(r.usage_partners("agenda_tool_0").unwrap().len(), 7);

    // Bad lines: an error naming the line; what came before it was read.
    let long = format!(
        "{{\"tools\": [\"{}\"]}}\n",
        "x".repeat(MAX_USAGE_LINE_BYTES)
    );
    for (text, needle) in [
        (
            &b"{\"tools\": [\"add_agenda\"]}\n{\"tools\": 3}\n"[..],
            "usage line 2: expected",
        ),
        (
            b"{\"tools\": [\"add_agenda\"]}\n{\"tools\": [\"\xff\"]}\n",
            "usage line 2: not UTF-8",
        ),
        (b"[\"add_agenda\"]\n", "usage line 1: expected"),
        (b"{\"tools\": [\"a\", 3]}\n", "usage line 1"),
        (b"{\"tools\": [\"a\"]", "usage line 1"),
        (long.as_bytes(), "usage line 1: longer than"),
    ] {
        let r = registry();
        let record = |names: &[&str]| r.record_usage(names).map(|_| ());
        let err = read_usage(text, record).unwrap_err().to_string();
        assert!(err.contains(needle), "{err}");
    }
    // A line of 10,000 long names fits under the line limit.
    let names: Vec<String> = (0..10_000)
        .map(|i| format!("\"{}{i:05}\"", "n".repeat(80)))
        .collect();
    let line = format!("{{\"tools\": [{}]}}", names.join(","));
    assert!(line.len() < MAX_USAGE_LINE_BYTES);
}

/// A usage file (`usage_path`) of a million recorded tasks over 10,000 tools, most with full
/// partner lists: loaded whole and checked, its counts as they were.
#[test]
fn a_usage_path_of_a_million_tasks_loads() {
    use toolregistry::usage::{MAX_PARTNERS, UsageStore};
    let dir = temp("million");
    let path = dir.join("usage.json");
    let mut store = UsageStore::new();
    let names: Vec<String> = (0..10_000).map(|i| format!("tool_{i}")).collect();
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = |n: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n as u64) as usize
    };
    for i in 0..1_000_000usize {
        // Routines of three tools (repeated pairs) and a one-off fourth.
        let base = (i % 4_000) * 2;
        let task = [
            names[base].as_str(),
            names[base + 1].as_str(),
            names[(base + 7) % 10_000].as_str(),
            names[next(10_000)].as_str(),
        ];
        store.record(task);
    }
    store.save(&path).unwrap();
    let size = std::fs::metadata(&path).unwrap().len();
    assert!(size < toolregistry::usage::MAX_USAGE_FILE_BYTES, "{size}");
    let r = Registry::new();
    assert_eq!(r.enable_usage(Some(&path)).unwrap(), None);
    let status = r.usage_status().unwrap();
    assert_eq!(status.tasks, 1_000_000);
    assert_eq!(status.tools, store.tool_count());
    // Counts of tools not registered are kept for tools registered later.
    assert_eq!(
        r.usage_partners("tool_0").unwrap(),
        store.partners("tool_0")
    );
    assert!(store.partners("tool_0").len() <= MAX_PARTNERS);
    assert_eq!(store.together("tool_0", "tool_1"), 250);
    std::fs::remove_dir_all(&dir).unwrap();
}
