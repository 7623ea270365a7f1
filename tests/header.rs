//! The committed C header must be what cbindgen generates from the current source.
//! `TOOLREGISTRY_BLESS=1 cargo test --test header` rewrites it.

use std::path::PathBuf;
use toolregistry::limits;

#[test]
fn committed_header_is_up_to_date() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut config = cbindgen::Config::from_file(root.join("cbindgen.toml")).unwrap();
    let (major, minor, patch) = (
        env!("CARGO_PKG_VERSION_MAJOR"),
        env!("CARGO_PKG_VERSION_MINOR"),
        env!("CARGO_PKG_VERSION_PATCH"),
    );
    config.after_includes = Some(format!(
        "\n#define TOOLREGISTRY_VERSION \"{major}.{minor}.{patch}\"\n\
         #define TOOLREGISTRY_VERSION_MAJOR {major}\n\
         #define TOOLREGISTRY_VERSION_MINOR {minor}\n\
         #define TOOLREGISTRY_VERSION_PATCH {patch}\n\n\
         /** Largest JSON input accepted by any function, in bytes (64 MiB); larger is TR_STATUS_TOO_LARGE. */\n\
         #define TR_MAX_INPUT_BYTES {}\n\
         /** JSON nested this many levels deep or deeper is TR_STATUS_INVALID_JSON (127 levels are accepted). */\n\
         #define TR_MAX_JSON_DEPTH {}\n\
         /** Longest tool name or namespace, in bytes; longer is TR_STATUS_TOO_LARGE. */\n\
         #define TR_MAX_NAME_BYTES {}\n\
         /** Longest query, in bytes; longer is TR_STATUS_TOO_LARGE. */\n\
         #define TR_MAX_QUERY_BYTES {}\n\
         /** Most analyzed query tokens that are used; a longer query is answered from its first this many. */\n\
         #define TR_MAX_QUERY_TOKENS {}\n\
         /** Most searchable text per tool (description, search hint, tags, parameter names), in bytes; more is TR_STATUS_TOO_LARGE. */\n\
         #define TR_MAX_TOOL_TEXT_BYTES {}\n",
        limits::MAX_INPUT_BYTES,
        limits::MAX_JSON_DEPTH,
        limits::MAX_NAME_BYTES,
        limits::MAX_QUERY_BYTES,
        limits::MAX_QUERY_TOKENS,
        limits::MAX_TOOL_TEXT_BYTES,
    ));
    let mut generated = Vec::new();
    cbindgen::Builder::new()
        .with_crate(&root)
        .with_config(config)
        .generate()
        .expect("cbindgen generates the header")
        .write(&mut generated);
    let generated = String::from_utf8(generated).unwrap();
    let path = root.join("include/toolregistry.h");
    if std::env::var_os("TOOLREGISTRY_BLESS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &generated).unwrap();
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    if committed != generated {
        let first = committed
            .lines()
            .zip(generated.lines())
            .position(|(a, b)| a != b);
        panic!(
            "include/toolregistry.h is stale (first differing line: {:?}); run TOOLREGISTRY_BLESS=1 cargo test --test header",
            first.map(|i| i + 1)
        );
    }
}
