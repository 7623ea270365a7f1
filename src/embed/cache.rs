//! The on-disk vector cache: text hash → vector, for one embedder, so a restart with the same
//! catalog embeds nothing.
//!
//! File layout: `TRVCACHE1\n`, the embedder's identity as a length-prefixed string, the
//! dimension (u32 LE), the entry count (u64 LE), the entries (16-byte text hash, `dim` f32 LE),
//! and a SHA-256 of everything before it. A file that is not exactly that (truncated, edited,
//! written by another embedder or dimension, or holding a non-finite number) is ignored with a
//! warning and overwritten on the next save: never trusted blindly.

use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

const MAGIC: &[u8] = b"TRVCACHE1\n";

/// Vectors by text hash, loaded from and saved to one file.
#[derive(Debug)]
pub struct VectorCache {
    path: PathBuf,
    identity: String,
    dim: usize,
    entries: HashMap<u128, Box<[f32]>>,
    dirty: bool,
}

impl VectorCache {
    /// Opens the cache at `path` for this embedder. A missing file is an empty cache; an
    /// unusable one is an empty cache and a warning (returned, for the status report).
    pub fn open(path: &Path, identity: &str, dim: usize) -> (Self, Option<String>) {
        let mut cache = VectorCache {
            path: path.to_path_buf(),
            identity: identity.to_string(),
            dim,
            entries: HashMap::new(),
            dirty: false,
        };
        let warning = match std::fs::read(path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => Some(format!("cannot read {}: {e}", path.display())),
            Ok(bytes) => match cache.parse(&bytes) {
                Ok(entries) => {
                    cache.entries = entries;
                    None
                }
                Err(why) => Some(format!(
                    "ignored the embedding cache {}: {why}; it will be rewritten",
                    path.display()
                )),
            },
        };
        (cache, warning)
    }

    fn parse(&self, bytes: &[u8]) -> Result<HashMap<u128, Box<[f32]>>, String> {
        if bytes.len() < MAGIC.len() + 32 || !bytes.starts_with(MAGIC) {
            return Err("not an embedding cache".into());
        }
        let (body, sum) = bytes.split_at(bytes.len() - 32);
        if Sha256::digest(body).as_slice() != sum {
            return Err("checksum mismatch (truncated or corrupt)".into());
        }
        let mut at = MAGIC.len();
        let mut take = |n: usize| -> Result<&[u8], String> {
            let s = body.get(at..at + n).ok_or("truncated")?;
            at += n;
            Ok(s)
        };
        let id_len = u32::from_le_bytes(take(4)?.try_into().expect("4")) as usize;
        let identity = String::from_utf8_lossy(take(id_len)?).into_owned();
        if identity != self.identity {
            return Err(format!(
                "written by embedder {identity:?}, not {:?}",
                self.identity
            ));
        }
        let dim = u32::from_le_bytes(take(4)?.try_into().expect("4")) as usize;
        if dim != self.dim {
            return Err(format!("dimension {dim}, not {}", self.dim));
        }
        let count = u64::from_le_bytes(take(8)?.try_into().expect("8"));
        let entry = 16 + 4 * dim;
        let header = MAGIC.len() + 4 + id_len + 4 + 8;
        if count.checked_mul(entry as u64) != Some((body.len() - header) as u64) {
            return Err("entry count does not match the file's length".into());
        }
        let mut entries = HashMap::with_capacity(count as usize);
        for _ in 0..count {
            let hash = u128::from_le_bytes(take(16)?.try_into().expect("16"));
            let v: Box<[f32]> = take(4 * dim)?
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes(b.try_into().expect("4")))
                .collect();
            if v.iter().any(|x| !x.is_finite()) {
                return Err("a vector holds a NaN or an infinity".into());
            }
            entries.insert(hash, v);
        }
        Ok(entries)
    }

    /// The cached vector of text `hash`.
    pub fn get(&self, hash: u128) -> Option<&[f32]> {
        self.entries.get(&hash).map(|v| &v[..])
    }

    /// Keeps the vector of text `hash` (saved by the next [`save`](Self::save)).
    pub fn put(&mut self, hash: u128, vector: &[f32]) {
        if vector.len() == self.dim && !self.entries.contains_key(&hash) {
            self.entries.insert(hash, vector.into());
            self.dirty = true;
        }
    }

    /// Number of cached vectors.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the cache holds no vector.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Writes the cache if it changed: to a temporary file beside it, then renamed over it, so
    /// a reader never sees half a file.
    pub fn save(&mut self) -> Result<(), String> {
        if !self.dirty {
            return Ok(());
        }
        let mut out = Vec::with_capacity(64 + self.entries.len() * (16 + 4 * self.dim));
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&(self.identity.len() as u32).to_le_bytes());
        out.extend_from_slice(self.identity.as_bytes());
        out.extend_from_slice(&(self.dim as u32).to_le_bytes());
        out.extend_from_slice(&(self.entries.len() as u64).to_le_bytes());
        // Sorted, so the same vectors always make the same file.
        let mut keys: Vec<&u128> = self.entries.keys().collect();
        keys.sort();
        for k in keys {
            out.extend_from_slice(&k.to_le_bytes());
            for x in self.entries[k].iter() {
                out.extend_from_slice(&x.to_le_bytes());
            }
        }
        let sum = Sha256::digest(&out);
        out.extend_from_slice(&sum);
        let tmp = self
            .path
            .with_extension(format!("tmp{}", std::process::id()));
        if let Some(dir) = self.path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        std::fs::write(&tmp, &out)
            .and_then(|_| std::fs::rename(&tmp, &self.path))
            .map_err(|e| {
                let _ = std::fs::remove_file(&tmp);
                format!("cannot write {}: {e}", self.path.display())
            })?;
        self.dirty = false;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tmp(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("tr-cache-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir.join("vectors.bin")
    }

    #[test]
    fn round_trips_and_refuses_what_it_did_not_write() {
        let path = tmp("rt");
        let (mut c, w) = VectorCache::open(&path, "m", 2);
        assert!(w.is_none() && c.is_empty());
        c.put(7, &[0.6, 0.8]);
        c.save().unwrap();
        let (c2, w) = VectorCache::open(&path, "m", 2);
        assert!(w.is_none());
        assert_eq!(c2.get(7), Some(&[0.6, 0.8][..]));
        // Another embedder or dimension: ignored, with a warning.
        let (c3, w) = VectorCache::open(&path, "other", 2);
        assert!(c3.is_empty() && w.unwrap().contains("embedder"));
        let (c4, w) = VectorCache::open(&path, "m", 3);
        assert!(c4.is_empty() && w.unwrap().contains("dimension"));
        // Flipped byte, truncation, garbage.
        let mut bytes = std::fs::read(&path).unwrap();
        let n = bytes.len();
        bytes[n - 40] ^= 1;
        std::fs::write(&path, &bytes).unwrap();
        let (c5, w) = VectorCache::open(&path, "m", 2);
        assert!(c5.is_empty() && w.unwrap().contains("checksum"));
        std::fs::write(&path, &bytes[..n / 2]).unwrap();
        assert!(VectorCache::open(&path, "m", 2).1.is_some());
        std::fs::write(&path, b"hello").unwrap();
        assert!(VectorCache::open(&path, "m", 2).1.is_some());
    }
}
