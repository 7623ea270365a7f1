//! The command-line program as the tests run it: never with the user's folders or model.
//!
//! The program keeps vector caches under `$XDG_CACHE_HOME` (and the MCP gateway its pins under
//! `$XDG_DATA_HOME`); `TOOLREGISTRY_MODEL_DIR` would make it rank with the user's model. A test
//! that inherited them would read and write the user's state and answer differently on their
//! machine, so every run gets folders under the temporary directory and no model from the
//! environment.

use std::path::PathBuf;
use std::process::Command;

/// `toolregistry` with data and cache folders of this test process (nothing is created there
/// unless the program writes) and `TOOLREGISTRY_MODEL_DIR` removed.
pub fn toolregistry() -> Command {
    let home = folders();
    let mut command = Command::new(env!("CARGO_BIN_EXE_toolregistry"));
    command
        .env("XDG_DATA_HOME", home.join("data"))
        .env("XDG_CACHE_HOME", home.join("cache"))
        .env_remove("TOOLREGISTRY_MODEL_DIR");
    command
}

/// The per-process folder that stands in for the user's.
pub fn folders() -> PathBuf {
    std::env::temp_dir().join(format!("toolregistry-it-home-{}", std::process::id()))
}
