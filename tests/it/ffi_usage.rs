//! Usage (co-use) through the C ABI: `tr_registry_record_usage`, `tr_registry_enable_usage`,
//! `tr_registry_save_usage` and `tr_registry_usage_status`. A recorded habit brings a partner
//! into a discover answer with its reason; bad input gets its status and records nothing; the
//! counts survive a restart through the usage file.
#![allow(unsafe_code)]

use crate::common::*;
use serde_json::Value;
use std::ffi::c_char;
use std::path::PathBuf;
use std::ptr;
use std::time::{Duration, Instant};
use toolregistry::ffi::*;

/// The habit of tests/it/usage.rs: an agenda tool whose tasks mostly start with a login step.
fn tools_json() -> String {
    let mut defs = vec![
        r#"{"name": "add_agenda", "description": "Add an agenda item to the user's schedule."}"#
            .to_string(),
        r#"{"name": "get_user_token", "description": "Get the user token by username and password."}"#
            .to_string(),
        r#"{"name": "list_files", "description": "List the files of a folder."}"#.to_string(),
        r#"{"name": "send_email", "description": "Send an email message."}"#.to_string(),
    ];
    for i in 0..8 {
        defs.push(format!(
            r#"{{"name": "agenda_tool_{i}", "description": "Agenda item helper number {i}: works on an agenda item."}}"#
        ));
    }
    format!("[{}]", defs.join(","))
}

const QUERY: &str = "add an agenda item for tomorrow";
const REASON: &str = "used with `add_agenda` in 12 of its 15 tasks";

struct Reg(*mut tr_registry);

impl Drop for Reg {
    fn drop(&mut self) {
        unsafe { tr_registry_free(self.0) }
    }
}

fn registry(options: Option<&str>) -> Reg {
    Reg(new_registry_with(options, &tools_json()).0)
}

/// Records `names_json` once; the number of names that counted, or (status name, message).
fn record(r: &Reg, names_json: &[u8]) -> Result<usize, (String, String)> {
    let mut text = names_json.to_vec();
    text.push(0);
    let (mut counted, mut err) = (usize::MAX, ptr::null_mut());
    let status =
        unsafe { tr_registry_record_usage(r.0, text.as_ptr().cast(), &mut counted, &mut err) };
    check(status, &mut err).map(|()| counted)
}

fn with_login_habit(r: &Reg) {
    for _ in 0..12 {
        assert_eq!(record(r, br#"["add_agenda", "get_user_token"]"#), Ok(2));
    }
    for _ in 0..3 {
        assert_eq!(record(r, br#"["add_agenda"]"#), Ok(1));
    }
    for _ in 0..10 {
        assert_eq!(record(r, br#"["list_files"]"#), Ok(1));
    }
}

fn status(r: &Reg) -> Value {
    let (mut out, mut err) = (ptr::null_mut(), ptr::null_mut());
    check(
        unsafe { tr_registry_usage_status(r.0, &mut out, &mut err) },
        &mut err,
    )
    .unwrap();
    serde_json::from_str(&take(out)).unwrap()
}

fn discover(r: &Reg, options: Option<&str>) -> Vec<Value> {
    let (mut d, mut out, mut err) = (ptr::null_mut(), ptr::null_mut(), ptr::null_mut());
    let options = options.map(cstr);
    let options_ptr = options.as_ref().map_or(ptr::null(), |o| o.as_ptr());
    check(
        unsafe { tr_discoverer_new(r.0, options_ptr, &mut d, &mut err) },
        &mut err,
    )
    .unwrap();
    let status = unsafe {
        tr_discoverer_discover(
            d,
            cstr(QUERY).as_ptr(),
            c"{\"top_k\": 10}".as_ptr(),
            &mut out,
            &mut err,
        )
    };
    unsafe { tr_discoverer_free(d) };
    check(status, &mut err).unwrap();
    serde_json::from_str::<Value>(&take(out))
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

fn brought_in(hits: &[Value]) -> Vec<(String, String)> {
    hits.iter()
        .filter_map(|h| {
            Some((
                h["name"].as_str()?.to_string(),
                h.get("brought_in")?.as_str()?.to_string(),
            ))
        })
        .collect()
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tr-ffi-usage-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn a_recorded_habit_brings_the_partner_in_with_its_reason() {
    let r = registry(None);
    let before = discover(&r, None);
    assert!(brought_in(&before).is_empty(), "{before:?}");
    assert!(!before.iter().any(|h| h["name"] == "get_user_token"));
    with_login_habit(&r);
    let after = discover(&r, None);
    assert_eq!(
        brought_in(&after),
        vec![("get_user_token".to_string(), REASON.to_string())]
    );
    assert_eq!(after[0]["name"], "add_agenda");
    // "usage": false in the discovery options ranks as if nothing were recorded.
    assert_eq!(discover(&r, Some(r#"{"usage": false}"#)), before);
    let s = status(&r);
    assert_eq!(s["tasks"], 25);
    assert_eq!(s["tools"], 3);
    assert_eq!(s["recording"], false);
    assert_eq!(s["path"], Value::Null);
    assert!(s["memory_bytes"].as_u64().unwrap() > 0);
}

#[test]
fn what_does_not_count() {
    let r = registry(None);
    assert_eq!(record(&r, b"[]"), Ok(0));
    assert_eq!(record(&r, br#"["no_such_tool", "", "x"]"#), Ok(0));
    assert_eq!(status(&r)["tasks"], 0, "a task where nothing counted");
    assert_eq!(
        record(&r, br#"["add_agenda", "add_agenda", "nope", "add_agenda"]"#),
        Ok(1)
    );
    assert_eq!(status(&r)["tasks"], 1);
    // counted_out may be NULL.
    let mut err = ptr::null_mut();
    check(
        unsafe {
            tr_registry_record_usage(r.0, c"[\"list_files\"]".as_ptr(), ptr::null_mut(), &mut err)
        },
        &mut err,
    )
    .unwrap();
    assert_eq!(status(&r)["tasks"], 2);
}

#[test]
fn a_task_of_ten_thousand_names_is_bounded() {
    let r = registry(None);
    let mut names: Vec<String> = (0..10_000).map(|i| format!("tool_{i}")).collect();
    for (i, slot) in names.iter_mut().step_by(997).enumerate() {
        *slot = if i % 2 == 0 {
            "add_agenda".into()
        } else {
            format!("agenda_tool_{}", i % 8)
        };
    }
    names.extend((0..8).map(|i| format!("agenda_tool_{i}")));
    let json = serde_json::to_string(&names).unwrap();
    let start = Instant::now();
    let counted = record(&r, json.as_bytes()).unwrap();
    assert!(
        start.elapsed() < Duration::from_secs(2),
        "{:?}",
        start.elapsed()
    );
    // add_agenda and the eight agenda tools, each once.
    assert_eq!(counted, 9);
    // Past 32 distinct registered names, the rest do not count.
    let many = tools_json();
    let r2 = Reg(new_registry_with(None, &many).0);
    let extra: Vec<String> = (0..100)
        .map(|i| format!(r#"{{"name": "extra_{i}", "description": "Extra."}}"#))
        .collect();
    let (mut out, mut err) = (ptr::null_mut(), ptr::null_mut());
    check(
        unsafe {
            tr_registry_register(
                r2.0,
                cstr(&format!("[{}]", extra.join(","))).as_ptr(),
                &mut out,
                &mut err,
            )
        },
        &mut err,
    )
    .unwrap();
    take(out);
    let task: Vec<String> = (0..100).map(|i| format!("extra_{i}")).collect();
    assert_eq!(
        record(&r2, serde_json::to_string(&task).unwrap().as_bytes()),
        Ok(32)
    );
}

#[test]
fn bad_input_gets_its_status_and_records_nothing() {
    let r = registry(None);
    let cases: [(&[u8], &str, &str); 8] = [
        (b"\xff\xfe[]", "TR_STATUS_INVALID_UTF8", "names_json"),
        (b"[\"add_agenda\"", "TR_STATUS_INVALID_JSON", "line 1"),
        (b"", "TR_STATUS_INVALID_JSON", ""),
        (b"null", "TR_STATUS_INVALID_ARGUMENT", "null"),
        (
            br#"{"tools": ["add_agenda"]}"#,
            "TR_STATUS_INVALID_ARGUMENT",
            "expected an array",
        ),
        (
            br#"["add_agenda", 3]"#,
            "TR_STATUS_INVALID_ARGUMENT",
            "usage[1]: expected a string, got a number",
        ),
        (
            br#"[["add_agenda"]]"#,
            "TR_STATUS_INVALID_ARGUMENT",
            "usage[0]",
        ),
        (
            b"\"add_agenda\"",
            "TR_STATUS_INVALID_ARGUMENT",
            "got a string",
        ),
    ];
    for (input, want, needle) in cases {
        let (name, message) = record(&r, input).expect_err(want);
        assert_eq!(name, want, "{message}");
        assert!(message.contains(needle), "{message:?} lacks {needle:?}");
    }
    let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
    assert_eq!(
        record(&r, deep.as_bytes()).unwrap_err().0,
        "TR_STATUS_INVALID_JSON"
    );
    assert_eq!(status(&r)["tasks"], 0);
}

#[test]
fn null_arguments() {
    let r = registry(None);
    let (mut out, mut err, mut counted): (*mut c_char, _, usize) =
        (ptr::null_mut(), ptr::null_mut(), 7);
    let nul = "TR_STATUS_NULL_ARGUMENT";
    let expect = |status, err: &mut *mut c_char, needle: &str| {
        let (name, message) = check(status, err).unwrap_err();
        assert_eq!(name, nul);
        assert!(message.contains(needle), "{message:?} lacks {needle:?}");
    };
    unsafe {
        expect(
            tr_registry_record_usage(ptr::null_mut(), c"[]".as_ptr(), &mut counted, &mut err),
            &mut err,
            "registry",
        );
        expect(
            tr_registry_record_usage(r.0, ptr::null(), &mut counted, &mut err),
            &mut err,
            "names_json",
        );
        expect(
            tr_registry_enable_usage(ptr::null_mut(), ptr::null(), &mut err),
            &mut err,
            "registry",
        );
        expect(
            tr_registry_save_usage(ptr::null(), &mut err),
            &mut err,
            "registry",
        );
        expect(
            tr_registry_usage_status(ptr::null(), &mut out, &mut err),
            &mut err,
            "registry",
        );
        expect(
            tr_registry_usage_status(r.0, ptr::null_mut(), &mut err),
            &mut err,
            "json_out",
        );
        // err_out NULL: the status alone.
        assert_eq!(
            tr_registry_record_usage(r.0, c"[1]".as_ptr(), &mut counted, ptr::null_mut()),
            tr_status::TR_STATUS_INVALID_ARGUMENT
        );
        let (name, message) = check(
            tr_registry_enable_usage(r.0, c"".as_ptr(), &mut err),
            &mut err,
        )
        .unwrap_err();
        assert_eq!(name, "TR_STATUS_INVALID_ARGUMENT", "{message}");
        assert_eq!(
            tr_registry_enable_usage(r.0, c"\xff".as_ptr(), ptr::null_mut()),
            tr_status::TR_STATUS_INVALID_UTF8
        );
    }
    assert_eq!(counted, 7, "a failed call leaves counted_out alone");
    assert!(out.is_null());
    assert_eq!(status(&r)["recording"], false);
}

#[test]
fn the_counts_survive_a_restart_through_the_usage_file() {
    let dir = temp_dir("restart");
    let path = dir.join("usage.json");
    let options = serde_json::json!({"usage": {"path": path}}).to_string();
    {
        let r = registry(Some(&options));
        let s = status(&r);
        assert_eq!(s["recording"], true);
        assert_eq!(s["path"], path.to_str().unwrap());
        assert_eq!(s["tasks"], 0);
        with_login_habit(&r);
        let mut err = ptr::null_mut();
        check(unsafe { tr_registry_save_usage(r.0, &mut err) }, &mut err).unwrap();
        assert!(path.is_file());
    }
    // A registry turned on later with tr_registry_enable_usage reads the same file.
    let r = registry(None);
    assert!(brought_in(&discover(&r, None)).is_empty());
    let mut err = ptr::null_mut();
    let c_path = cstr(path.to_str().unwrap());
    check(
        unsafe { tr_registry_enable_usage(r.0, c_path.as_ptr(), &mut err) },
        &mut err,
    )
    .unwrap();
    assert_eq!(status(&r)["tasks"], 25);
    assert_eq!(
        brought_in(&discover(&r, None)),
        vec![("get_user_token".to_string(), REASON.to_string())]
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_corrupt_usage_file_is_an_empty_start_with_a_warning() {
    let dir = temp_dir("corrupt");
    let path = dir.join("usage.json");
    std::fs::write(&path, b"{\"toolregistry_usage\": 1, \"tasks\": \xff").unwrap();
    let r = registry(None);
    let mut err = ptr::null_mut();
    let c_path = cstr(path.to_str().unwrap());
    check(
        unsafe { tr_registry_enable_usage(r.0, c_path.as_ptr(), &mut err) },
        &mut err,
    )
    .unwrap();
    let s = status(&r);
    assert_eq!(s["tasks"], 0);
    assert!(
        s["warning"]
            .as_str()
            .unwrap()
            .contains("ignored the usage file"),
        "{s}"
    );
    // The next write replaces it with a good file.
    with_login_habit(&r);
    check(unsafe { tr_registry_save_usage(r.0, &mut err) }, &mut err).unwrap();
    assert_eq!(status(&r)["warning"], Value::Null);
    let again = registry(Some(
        &serde_json::json!({"usage": {"path": path}}).to_string(),
    ));
    assert_eq!(status(&again)["tasks"], 25);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_write_that_fails_is_internal_with_the_reason() {
    let dir = temp_dir("unwritable");
    // The usage file's folder is a file: no write can succeed.
    let blocker = dir.join("not_a_dir");
    std::fs::write(&blocker, b"x").unwrap();
    let path = blocker.join("usage.json");
    let r = registry(Some(
        &serde_json::json!({"usage": {"path": path}}).to_string(),
    ));
    assert_eq!(record(&r, br#"["add_agenda", "list_files"]"#), Ok(2));
    let mut err = ptr::null_mut();
    let (name, message) =
        check(unsafe { tr_registry_save_usage(r.0, &mut err) }, &mut err).unwrap_err();
    assert_eq!(name, "TR_STATUS_INTERNAL", "{message}");
    assert!(message.contains("not_a_dir"), "{message}");
    // The counts stay in memory.
    assert_eq!(status(&r)["tasks"], 1);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn tasks_recorded_from_many_threads_while_others_discover_all_count() {
    let r = registry(None);
    // The handle is shared by the threads; the registry outlives them (scoped threads).
    let handle = r.0 as usize;
    std::thread::scope(|scope| {
        for t in 0..4 {
            scope.spawn(move || {
                let r = handle as *mut tr_registry;
                let task = cstr(if t % 2 == 0 {
                    r#"["add_agenda", "get_user_token"]"#
                } else {
                    r#"["list_files", "send_email"]"#
                });
                for _ in 0..200 {
                    let (mut counted, mut err) = (0usize, ptr::null_mut());
                    let status = unsafe {
                        tr_registry_record_usage(r, task.as_ptr(), &mut counted, &mut err)
                    };
                    check(status, &mut err).unwrap();
                    assert_eq!(counted, 2);
                }
            });
        }
        scope.spawn(move || {
            // A second view of the same handle, never freed through (the test's `r` frees it).
            let view = std::mem::ManuallyDrop::new(Reg(handle as *mut tr_registry));
            for _ in 0..50 {
                assert!(!discover(&view, None).is_empty());
                status(&view);
            }
        });
    });
    let s = status(&r);
    assert_eq!(s["tasks"], 800, "{s}");
    assert_eq!(
        brought_in(&discover(&r, None)),
        vec![(
            "get_user_token".to_string(),
            "used with `add_agenda` in 400 of its 400 tasks".to_string()
        )]
    );
}
