//! Every script a README shows as a command runs as written: each `scripts/….sh` that README.md
//! or a binding's README names (`scripts/X.sh`, `./scripts/X.sh`) is executable in git (mode
//! 100755), so a user typing it gets no "Permission denied" while the suite, which runs the parts
//! through `bash`, would not notice. Libraries under `scripts/lib/` are sourced, never run.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The READMEs a user reads commands from: the top-level one and each binding's.
fn readmes() -> Vec<PathBuf> {
    let mut found = vec![root().join("README.md")];
    let mut bindings: Vec<PathBuf> = std::fs::read_dir(root().join("bindings"))
        .expect("bindings/")
        .map(|e| e.expect("bindings/ entry").path().join("README.md"))
        .filter(|p| p.is_file())
        .collect();
    bindings.sort();
    found.extend(bindings);
    found
}

/// The `scripts/….sh` paths `text` names, without a leading `./`, in order, once each.
fn named_scripts(text: &str) -> Vec<String> {
    let part = |c: char| c.is_ascii_alphanumeric() || "_.-/".contains(c);
    let mut out: Vec<String> = Vec::new();
    for (at, _) in text.match_indices("scripts/") {
        // `scripts/` starts a path of its own (`tests/scripts/x.sh` is another folder).
        let before = text[..at].chars().next_back();
        if before.is_some_and(|c| c.is_ascii_alphanumeric() || "_-".contains(c))
            || (before == Some('/') && (!text[..at].ends_with("./") || text[..at].ends_with("../")))
        {
            continue;
        }
        let len = text[at..]
            .find(|c: char| !part(c))
            .unwrap_or(text.len() - at);
        let path = text[at..at + len].trim_end_matches('.');
        if path.ends_with(".sh")
            && !path.starts_with("scripts/lib/")
            && !out.iter().any(|p| p == path)
        {
            out.push(path.to_string());
        }
    }
    out
}

/// Git's mode of `path` (`100755`, `100644`), `None` when git does not track it; `Err` when this
/// is not a git checkout (or git is missing).
fn git_mode(path: &str) -> Result<Option<String>, String> {
    let out = Command::new("git")
        .args(["ls-files", "--stage", "--", path])
        .current_dir(root())
        .output()
        .map_err(|e| format!("git: {e}"))?;
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    let text = String::from_utf8_lossy(&out.stdout);
    Ok(text.split_whitespace().next().map(str::to_string))
}

/// Whether the file on disk may be run by its owner (outside a git checkout, e.g. a source
/// archive, that is what a user has).
fn executable_on_disk(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.permissions().mode() & 0o100 != 0)
}

/// The scripts of `readme` whose mode is wrong, each with why.
fn not_runnable(readme: &Path, in_git: bool) -> (Vec<String>, Vec<String>) {
    let text = std::fs::read_to_string(readme).expect("README");
    let named = named_scripts(&text);
    let mut bad = Vec::new();
    for path in &named {
        let file = root().join(path);
        let shown = format!("{path} (named in {})", readme.display());
        if !file.is_file() {
            bad.push(format!("{shown}: no such file"));
        } else if in_git {
            match git_mode(path).expect("git ls-files") {
                Some(mode) if mode == "100755" => {}
                Some(mode) => bad.push(format!(
                    "{shown}: mode {mode} in git (fix: git update-index --chmod=+x {path})"
                )),
                None => bad.push(format!("{shown}: not in git")),
            }
        } else if !executable_on_disk(&file) {
            bad.push(format!("{shown}: not executable (fix: chmod +x {path})"));
        }
    }
    (named, bad)
}

#[test]
fn every_script_a_readme_shows_is_executable_in_git() {
    let in_git = git_mode("README.md").is_ok();
    if !in_git {
        eprintln!("not a git checkout: checking the scripts' modes on disk instead");
    }
    let mut named = Vec::new();
    let mut bad = Vec::new();
    for readme in readmes() {
        let (n, b) = not_runnable(&readme, in_git);
        named.extend(n);
        bad.extend(b);
    }
    // The check reads what it should: README's own commands are among them.
    for must in [
        "scripts/test.sh",
        "scripts/dist.sh",
        "scripts/fetch-model.sh",
    ] {
        assert!(
            named.iter().any(|p| p == must),
            "{must} not found in {named:?}"
        );
    }
    assert!(
        bad.is_empty(),
        "scripts a README shows but a user cannot run:\n{}",
        bad.join("\n")
    );
}

#[test]
fn script_paths_are_read_as_a_user_types_them() {
    let text = "Run `./scripts/test.sh`, then `bash scripts/test-parts/20-go.sh`; \
                (`scripts/dist.sh`). Source scripts/lib/setup.sh. `tests/scripts/x.sh`, ../scripts/z.sh, \
                myscripts/y.sh, scripts/cross_language.py, scripts/test-parts/, and scripts/dist.sh again.";
    assert_eq!(
        named_scripts(text),
        [
            "scripts/test.sh",
            "scripts/test-parts/20-go.sh",
            "scripts/dist.sh"
        ]
    );
}
