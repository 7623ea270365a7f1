//! Files the proxy writes for the user (the pins' state, a gateway config, a client's config):
//! replaced atomically, with the permissions the caller asks for.

use std::io::Write;
use std::path::{Path, PathBuf};

/// Writes `bytes` to `path` atomically: a temporary file beside it (created with `mode` on Unix,
/// 0600 when none is given, so a secret is never readable by others even for a moment), synced,
/// renamed over `path`, then the folder synced. A crash leaves the old file or the new one, never
/// half of one. `mode` is set exactly (the umask does not narrow it).
pub fn write_atomic(path: &Path, bytes: &[u8], mode: Option<u32>) -> std::io::Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let name = path
        .file_name()
        .map_or("file".into(), |n| n.to_string_lossy());
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let written = (|| {
        let mut file = create_new(&tmp, mode.unwrap_or(0o600))?;
        file.write_all(bytes)?;
        file.sync_all()?;
        drop(file);
        std::fs::rename(&tmp, path)?;
        // The rename itself is durable once the folder is synced (where folders can be opened).
        if let Ok(d) = std::fs::File::open(dir) {
            let _ = d.sync_all();
        }
        Ok(())
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

/// The permission bits of an existing file (Unix), to give its replacement the same.
pub fn mode_of(path: &Path) -> Option<u32> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(path)
            .ok()
            .map(|m| m.permissions().mode() & 0o7777)
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        None
    }
}

/// Copies `path` to the first free name of `NAME.bak`, `NAME.bak.2`, `NAME.bak.3`, ... beside it
/// (never over an existing file: an earlier backup, the original of a first run, is kept), with
/// the same permissions. Returns the backup's path.
pub fn backup(path: &Path) -> std::io::Result<PathBuf> {
    let bytes = std::fs::read(path)?;
    let mode = mode_of(path).unwrap_or(0o600);
    let name = path
        .file_name()
        .map_or("file".into(), |n| n.to_string_lossy().into_owned());
    for n in 1..1000 {
        let candidate = match n {
            1 => path.with_file_name(format!("{name}.bak")),
            n => path.with_file_name(format!("{name}.bak.{n}")),
        };
        match create_new(&candidate, mode) {
            Ok(mut file) => {
                let done = file.write_all(&bytes).and_then(|()| file.sync_all());
                if let Err(e) = done {
                    let _ = std::fs::remove_file(&candidate);
                    return Err(e);
                }
                return Ok(candidate);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(std::io::Error::other(
        "no free backup name (NAME.bak .. NAME.bak.999)",
    ))
}

/// Creates a file that must not exist yet, with exactly `mode` on Unix.
fn create_new(path: &Path, mode: u32) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
        options.mode(mode);
        let file = options.open(path)?;
        file.set_permissions(std::fs::Permissions::from_mode(mode))?;
        Ok(file)
    }
    #[cfg(not(unix))]
    {
        let _ = mode;
        options.open(path)
    }
}
