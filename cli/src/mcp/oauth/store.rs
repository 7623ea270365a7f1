//! The token file: every server's tokens and registered clients in one JSON file beside the
//! pins' state (`mcp-oauth.json` in the `--state` file's folder), mode 0600, written atomically.
//! Keyed by the server's URL; each entry records the issuer its tokens came from, and the
//! clients registered with each issuer. Nothing here is ever printed.

use crate::mcp::files;
use rmcp::transport::auth::{AuthError, AuthorizationMetadata, CredentialStore, StoredCredentials};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The file's name, beside the pins' state file.
pub const FILE_NAME: &str = "mcp-oauth.json";

/// One read-modify-write at a time within the process (the gateway's servers sign in
/// concurrently); the write itself is atomic (a rename), so a reader never sees half a file.
static LOCK: Mutex<()> = Mutex::new(());

/// A client registered with (or configured for) an authorization server.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Client {
    pub client_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<String>,
}

/// What is kept for one server URL.
#[derive(Serialize, Deserialize, Clone, Default)]
pub struct Entry {
    /// The tokens (with the issuer they came from), when signed in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub credentials: Option<StoredCredentials>,
    /// The authorization server's metadata found at sign-in: a refresh needs its token
    /// endpoint, and the protected-resource metadata may be findable only from a 401.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<AuthorizationMetadata>,
    /// Clients by issuer: the one the tokens were issued to is needed to refresh them.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub clients: BTreeMap<String, Client>,
}

#[derive(Serialize, Deserialize, Default)]
struct Contents {
    #[serde(default)]
    servers: BTreeMap<String, Entry>,
}

/// The token file at a path.
#[derive(Clone, Debug)]
pub struct TokenFile {
    path: PathBuf,
}

impl TokenFile {
    /// The token file beside `state` (the pins' state file).
    pub fn beside(state: &Path) -> TokenFile {
        let dir = state.parent().filter(|p| !p.as_os_str().is_empty());
        TokenFile {
            path: dir.map_or_else(|| PathBuf::from(FILE_NAME), |d| d.join(FILE_NAME)),
        }
    }

    /// Where it is.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn read(&self) -> Result<Contents, String> {
        match std::fs::read(&self.path) {
            Ok(bytes) => serde_json::from_slice(&bytes)
                .map_err(|e| format!("{}: not a token file ({e})", self.path.display())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Contents::default()),
            Err(e) => Err(format!("{}: {e}", self.path.display())),
        }
    }

    fn write(&self, contents: &Contents) -> Result<(), String> {
        if let Some(dir) = self.path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        let bytes = serde_json::to_vec_pretty(contents).map_err(|e| e.to_string())?;
        files::write_atomic(&self.path, &bytes, Some(0o600))
            .map_err(|e| format!("{}: {e}", self.path.display()))
    }

    /// The entry for server `url`.
    pub fn entry(&self, url: &str) -> Result<Entry, String> {
        let _held = LOCK
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        Ok(self.read()?.servers.remove(url).unwrap_or_default())
    }

    /// Changes the entry of server `url` (an entry left empty is removed).
    pub fn update(&self, url: &str, change: impl FnOnce(&mut Entry)) -> Result<(), String> {
        let _held = LOCK
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut contents = self.read()?;
        let entry = contents.servers.entry(url.to_string()).or_default();
        change(entry);
        if entry.credentials.is_none() && entry.clients.is_empty() {
            // Metadata alone is no sign-in.
            contents.servers.remove(url);
        }
        self.write(&contents)
    }

    /// Forgets server `url`: tokens and clients. Whether there was anything.
    pub fn forget(&self, url: &str) -> Result<bool, String> {
        let _held = LOCK
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut contents = self.read()?;
        let had = contents.servers.remove(url).is_some();
        if had {
            self.write(&contents)?;
        }
        Ok(had)
    }
}

/// rmcp's credential store for one server: its tokens in the token file.
pub struct ServerStore {
    pub file: TokenFile,
    pub url: String,
}

fn store_error(e: String) -> AuthError {
    AuthError::CredentialStoreError(e)
}

#[async_trait::async_trait]
impl CredentialStore for ServerStore {
    async fn load(&self) -> Result<Option<StoredCredentials>, AuthError> {
        Ok(self.file.entry(&self.url).map_err(store_error)?.credentials)
    }

    async fn save(&self, credentials: StoredCredentials) -> Result<(), AuthError> {
        self.file
            .update(&self.url, |e| e.credentials = Some(credentials))
            .map_err(store_error)
    }

    async fn clear(&self) -> Result<(), AuthError> {
        self.file
            .update(&self.url, |e| e.credentials = None)
            .map_err(store_error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_kept_per_url_with_mode_0600_and_forgotten() {
        let dir = std::env::temp_dir().join(format!("tr-oauth-store-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let file = TokenFile::beside(&dir.join("mcp-state.json"));
        assert_eq!(file.path(), dir.join(FILE_NAME));
        let client = Client {
            client_id: "id-1".into(),
            client_secret: Some("s3cret".into()),
        };
        file.update("http://a/mcp", |e| {
            e.clients.insert("http://as".into(), client.clone());
        })
        .unwrap();
        file.update("http://b/mcp", |e| {
            e.clients.insert("http://as".into(), client.clone());
        })
        .unwrap();
        assert_eq!(
            file.entry("http://a/mcp").unwrap().clients["http://as"],
            client
        );
        #[cfg(unix)]
        assert_eq!(files::mode_of(file.path()), Some(0o600));
        assert!(file.forget("http://a/mcp").unwrap());
        assert!(!file.forget("http://a/mcp").unwrap());
        assert!(file.entry("http://a/mcp").unwrap().clients.is_empty());
        assert_eq!(file.entry("http://b/mcp").unwrap().clients.len(), 1);
        std::fs::write(file.path(), b"not json").unwrap();
        assert!(
            file.entry("http://b/mcp")
                .err()
                .unwrap_or_default()
                .contains("not a token file")
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
