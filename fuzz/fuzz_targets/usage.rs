//! Usage (co-use) through the C ABI. The input's first line is recorded as it is (raw bytes to
//! `tr_registry_record_usage`: invalid UTF-8, malformed JSON, wrong types; the seeds are JSON
//! tasks); the rest is a sequence of operations (`arbitrary`): more raw records, tasks built from
//! registered names, unknown names, repeats and empty names, habits repeated up to 15 times,
//! unregistrations, set_enabled, `tr_registry_usage_status` and discovers, on a registry and a
//! twin that gets the same mutations but no usage; and `tr_registry_enable_usage` (NULL, empty,
//! invalid UTF-8, or one of three files of the fuzzer's own, which it also fills with arbitrary
//! bytes) and `tr_registry_save_usage`.
//!
//! Oracles: no call panics or reports PANIC or INTERNAL; a refused task has a one-line message
//! and records nothing; an accepted one counts exactly its distinct registered names (at most
//! 32) and is one more task when any counted; the status is JSON whose `tasks` follows that
//! count; a discover with `{"usage": false}` answers byte for byte like the twin's; every
//! default discover is a well-formed ranking whose tools brought in are enabled, each saying
//! which hit of the answer brought it in.
#![no_main]

use libfuzzer_sys::arbitrary::{self, Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use std::collections::HashSet;
use std::ffi::{CStr, CString, c_char};
use std::ptr;
use toolregistry::ffi::*;
use toolregistry_fuzz::{FIXTURE, QUERIES, assert_json};

#[derive(Arbitrary, Debug)]
enum Op {
    /// Raw bytes as `names_json`.
    RecordRaw(Vec<u8>),
    /// A task of picked names: registered ones, unknown ones, empty names, repeats.
    Record(Vec<u8>),
    /// The same task many times (a habit strong enough to bring partners in).
    Habit { names: Vec<u8>, times: u8 },
    Unregister(u8),
    SetEnabled { name: u8, enabled: bool },
    Discover(u8),
    Status,
    /// `tr_registry_enable_usage` with NULL, `""`, invalid UTF-8 or one of three files of a
    /// folder of the fuzzer's own.
    Enable(u8),
    /// Arbitrary bytes written into one of those files (a corrupt or foreign usage file).
    Corrupt { file: u8, bytes: Vec<u8> },
    /// `tr_registry_save_usage`.
    Save,
}

/// One of the three usage files this process may write: in a folder of its own under the
/// system's temporary folder, never a path taken from the input.
fn usage_file(i: u8) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("toolregistry-fuzz-usage-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("the fuzzer's folder");
    dir.join(format!("usage-{}.json", i % 3))
}

/// A refused call's status and message: never PANIC or INTERNAL, one line.
fn refused(status: tr_status, err: *mut c_char) {
    let msg = take(err);
    assert!(!msg.is_empty() && !msg.contains('\n'), "message: {msg:?}");
    assert_ne!(status, tr_status::TR_STATUS_PANIC, "{msg}");
    assert_ne!(status, tr_status::TR_STATUS_INTERNAL, "{msg}");
}

/// Names a task may hold besides the fixture's: unknown, empty, over-long.
const OTHER_NAMES: &[&str] = &["no_such_tool", "", "READ_FILE", "github-list_issues "];

fn take(p: *mut c_char) -> String {
    assert!(!p.is_null());
    let s = unsafe { CStr::from_ptr(p) }
        .to_str()
        .expect("UTF-8 out")
        .to_string();
    unsafe { tr_string_free(p) };
    s
}

fn ok(status: tr_status, err: *mut c_char) {
    if status != tr_status::TR_STATUS_OK {
        panic!("{status:?}: {}", take(err));
    }
}

/// A registry holding the fixture, and the fixture's registered names.
fn new_registry() -> (*mut tr_registry, Vec<String>) {
    let (mut r, mut err, mut names) = (ptr::null_mut(), ptr::null_mut(), ptr::null_mut());
    ok(unsafe { tr_registry_new(ptr::null(), &mut r, &mut err) }, err);
    let tools = CString::new(FIXTURE).unwrap();
    ok(
        unsafe { tr_registry_register(r, tools.as_ptr(), &mut names, &mut err) },
        err,
    );
    let names: Vec<String> = serde_json::from_str(&take(names)).unwrap();
    (r, names)
}

fn status_of(r: *mut tr_registry) -> serde_json::Value {
    let (mut out, mut err) = (ptr::null_mut(), ptr::null_mut());
    ok(unsafe { tr_registry_usage_status(r, &mut out, &mut err) }, err);
    assert_json(&take(out))
}

fn discover(r: *mut tr_registry, options: &CStr, query: &str) -> String {
    let (mut d, mut out, mut err) = (ptr::null_mut(), ptr::null_mut(), ptr::null_mut());
    ok(unsafe { tr_discoverer_new(r, options.as_ptr(), &mut d, &mut err) }, err);
    let q = CString::new(query).unwrap();
    let status = unsafe {
        tr_discoverer_discover(d, q.as_ptr(), c"{\"top_k\": 6}".as_ptr(), &mut out, &mut err)
    };
    unsafe { tr_discoverer_free(d) };
    ok(status, err);
    take(out)
}

/// Records `bytes` (NUL appended: an interior NUL ends the string early, as C would read it).
fn record(r: *mut tr_registry, bytes: &[u8]) -> Result<usize, tr_status> {
    let mut text: Vec<u8> = bytes.iter().copied().take_while(|&b| b != 0).collect();
    text.push(0);
    let (mut counted, mut err) = (usize::MAX, ptr::null_mut());
    let status =
        unsafe { tr_registry_record_usage(r, text.as_ptr().cast(), &mut counted, &mut err) };
    if status == tr_status::TR_STATUS_OK {
        assert!(err.is_null());
        assert!(counted <= 32, "counted {counted}");
        return Ok(counted);
    }
    assert_eq!(counted, usize::MAX, "a failed call wrote counted_out");
    refused(status, err);
    Err(status)
}

/// How many names of a task count: the distinct registered ones, at most 32.
fn expected_count(task: &[String], registered: &[String]) -> usize {
    let mut seen = HashSet::new();
    task.iter()
        .filter(|n| registered.contains(n))
        .filter(|n| seen.insert(n.as_str()))
        .count()
        .min(32)
}

fuzz_target!(|data: &[u8]| {
    let (first, rest) = match data.iter().position(|&b| b == b'\n') {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, &[][..]),
    };
    let mut ops = vec![Op::RecordRaw(first.to_vec())];
    ops.extend(
        Unstructured::new(rest)
            .arbitrary::<Vec<Op>>()
            .unwrap_or_default(),
    );
    let ((r, mut registered), (twin, _)) = (new_registry(), new_registry());
    let mut enabled: HashSet<String> = registered.iter().cloned().collect();
    let mut tasks = 0u64;
    let mut recording = false;
    let pick = |registered: &[String], i: u8| -> String {
        let i = i as usize % (registered.len() + OTHER_NAMES.len());
        registered
            .get(i)
            .cloned()
            .unwrap_or_else(|| OTHER_NAMES[i - registered.len()].to_string())
    };
    for op in ops.into_iter().take(48) {
        match op {
            Op::RecordRaw(bytes) => {
                let counted = record(r, &bytes);
                // An accepted input is an array of strings: its count follows the rule.
                if let Ok(n) = counted {
                    let text = String::from_utf8_lossy(&bytes);
                    let text = text.split('\0').next().unwrap_or("");
                    let task: Vec<String> = serde_json::from_str(text).expect("accepted input");
                    assert_eq!(n, expected_count(&task, &registered), "{task:?}");
                    tasks += u64::from(n > 0);
                }
            }
            Op::Record(names) | Op::Habit { names, times: _ } if names.is_empty() => {
                assert_eq!(record(r, b"[]"), Ok(0));
            }
            Op::Record(names) => {
                let task: Vec<String> = names.iter().take(40).map(|&i| pick(&registered, i)).collect();
                let json = serde_json::to_string(&task).unwrap();
                let n = record(r, json.as_bytes()).expect("a list of names is accepted");
                assert_eq!(n, expected_count(&task, &registered), "{task:?}");
                tasks += u64::from(n > 0);
            }
            Op::Habit { names, times } => {
                let task: Vec<String> = names.iter().take(4).map(|&i| pick(&registered, i)).collect();
                let json = serde_json::to_string(&task).unwrap();
                for _ in 0..(times % 16) {
                    let n = record(r, json.as_bytes()).expect("a list of names is accepted");
                    tasks += u64::from(n > 0);
                }
            }
            Op::Unregister(i) => {
                let name = pick(&registered, i);
                let c = CString::new(name.as_str()).unwrap();
                let mut err = ptr::null_mut();
                let a = unsafe { tr_registry_unregister(r, c.as_ptr(), &mut err) };
                if !err.is_null() {
                    take(err);
                    err = ptr::null_mut();
                }
                let b = unsafe { tr_registry_unregister(twin, c.as_ptr(), &mut err) };
                if !err.is_null() {
                    take(err);
                }
                assert_eq!(a, b);
                if a == tr_status::TR_STATUS_OK {
                    registered.retain(|n| *n != name);
                    enabled.remove(&name);
                }
            }
            Op::SetEnabled { name, enabled: on } => {
                let name = pick(&registered, name);
                let c = CString::new(name.as_str()).unwrap();
                let mut err = ptr::null_mut();
                let a = unsafe { tr_registry_set_enabled(r, c.as_ptr(), on, &mut err) };
                if !err.is_null() {
                    take(err);
                    err = ptr::null_mut();
                }
                let b = unsafe { tr_registry_set_enabled(twin, c.as_ptr(), on, &mut err) };
                if !err.is_null() {
                    take(err);
                }
                assert_eq!(a, b);
                if a == tr_status::TR_STATUS_OK && registered.contains(&name) {
                    if on {
                        enabled.insert(name);
                    } else {
                        enabled.remove(&name);
                    }
                }
            }
            Op::Discover(q) => {
                let query = QUERIES[q as usize % QUERIES.len()];
                let off = discover(r, c"{\"usage\": false}", query);
                assert_eq!(off, discover(twin, c"{}", query), "usage: false differs");
                let on = assert_json(&discover(r, c"{}", query));
                let hits = on.as_array().expect("an array");
                let names: Vec<&str> = hits.iter().map(|h| h["name"].as_str().unwrap()).collect();
                let distinct: HashSet<&str> = names.iter().copied().collect();
                assert_eq!(distinct.len(), names.len(), "a tool twice: {names:?}");
                for h in hits {
                    let score = h["score"].as_f64().unwrap();
                    assert!(score.is_finite() && score > 0.0, "score {score}");
                    let Some(why) = h.get("brought_in") else {
                        continue;
                    };
                    let name = h["name"].as_str().unwrap();
                    assert!(enabled.contains(name), "{name} brought in, not enabled");
                    let why = why.as_str().expect("a reason");
                    let by = why
                        .strip_prefix("used with `")
                        .and_then(|s| s.split('`').next())
                        .unwrap_or_else(|| panic!("reason {why:?}"));
                    assert!(names.contains(&by), "{why:?}: {by} not in {names:?}");
                }
            }
            Op::Status => {}
            Op::Enable(which) => {
                let mut err = ptr::null_mut();
                let status = match which % 6 {
                    0 => unsafe { tr_registry_enable_usage(r, ptr::null(), &mut err) },
                    1 => unsafe { tr_registry_enable_usage(r, c"".as_ptr(), &mut err) },
                    2 => unsafe { tr_registry_enable_usage(r, c"\xff\xfe.json".as_ptr(), &mut err) },
                    n => {
                        let path = CString::new(usage_file(n).to_str().unwrap()).unwrap();
                        unsafe { tr_registry_enable_usage(r, path.as_ptr(), &mut err) }
                    }
                };
                if status == tr_status::TR_STATUS_OK {
                    assert!(err.is_null());
                    recording = true;
                    // A file's counts replace the ones in memory (a corrupt one: an empty start).
                    tasks = status_of(r)["tasks"].as_u64().expect("tasks");
                } else {
                    assert!(which % 6 == 1 || which % 6 == 2, "{status:?}");
                    refused(status, err);
                }
            }
            Op::Corrupt { file, bytes } => {
                std::fs::write(usage_file(file), &bytes).expect("the fuzzer's file");
            }
            Op::Save => {
                let mut err = ptr::null_mut();
                let status = unsafe { tr_registry_save_usage(r, &mut err) };
                if status != tr_status::TR_STATUS_OK {
                    refused(status, err);
                }
            }
        }
        let s = status_of(r);
        assert_eq!(s["tasks"], tasks, "{s}");
        assert_eq!(s["recording"], recording);
    }
    unsafe {
        tr_registry_free(r);
        tr_registry_free(twin);
    }
});
