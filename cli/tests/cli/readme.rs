//! The first thing a newcomer runs is the main job README.md shows, `cargo run --release --
//! discover …`, and README shows what it prints. That answer changes whenever ranking does, so
//! this test runs the command README names and compares its output with the block README shows
//! under it, byte for byte.

/// The words of a shell command line: blanks split, `"…"` and `'…'` quote (no escapes: README's
/// commands need none).
fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut quote: Option<char> = None;
    for c in line.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.get_or_insert_with(String::new).push(c),
            (None, '"' | '\'') => {
                quote = Some(c);
                word.get_or_insert_with(String::new);
            }
            (None, c) if c.is_whitespace() => words.extend(word.take()),
            (None, c) => word.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(word);
    words
}

/// README's first `cargo run --release -- ARGS` command and the fenced block that follows the
/// block it is in: (the program's arguments, the output README shows).
fn main_job(readme: &str) -> Option<(Vec<String>, String)> {
    let mut blocks: Vec<Vec<&str>> = Vec::new();
    let mut open: Option<Vec<&str>> = None;
    for line in readme.lines() {
        if line.trim_start().starts_with("```") {
            match open.take() {
                Some(block) => blocks.push(block),
                None => open = Some(Vec::new()),
            }
        } else if let Some(block) = open.as_mut() {
            block.push(line);
        }
    }
    let at = blocks.iter().position(|b| {
        b.iter()
            .any(|l| l.trim_start().starts_with("cargo run --release -- "))
    })?;
    let line = blocks[at]
        .iter()
        .find(|l| l.trim_start().starts_with("cargo run --release -- "))?;
    let args = shell_words(line.trim_start().strip_prefix("cargo run --release -- ")?);
    let shown = blocks.get(at + 1)?.join("\n");
    Some((args, shown))
}

#[test]
fn shell_words_split_like_a_shell() {
    assert_eq!(
        shell_words(r#"discover "convert currency" -k 3 'a b'"#),
        ["discover", "convert currency", "-k", "3", "a b"]
    );
    assert_eq!(shell_words(r#"x "" y"#), ["x", "", "y"]);
}

#[test]
fn main_job_finds_the_command_and_the_block_after_it() {
    let text =
        "intro\n```sh\ncargo run --release -- discover \"a b\"\n```\n\n```\nrank 1\nrank 2\n```\n";
    let (args, shown) = main_job(text).unwrap();
    assert_eq!(args, ["discover", "a b"]);
    assert_eq!(shown, "rank 1\nrank 2");
    assert!(main_job("```sh\ncargo build\n```\n```\nx\n```\n").is_none());
}

#[test]
fn readme_shows_what_the_main_job_prints() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../README.md");
    let readme = std::fs::read_to_string(&path).unwrap();
    let (args, shown) =
        main_job(&readme).expect("README.md shows `cargo run --release -- …` and its output");
    let out = crate::program::toolregistry().args(&args).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let printed = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        printed.trim_end(),
        shown.trim_end(),
        "README.md shows another answer than `cargo run --release -- {}` prints: paste the output above into README",
        args.join(" ")
    );
}
