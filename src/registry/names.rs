//! Slot ids by tool name, exact and normalized (the tolerant exact-name match).

use super::Slot;
use crate::index::DocId;
use crate::tool::normalize_name;
use hashbrown::HashTable;
use std::hash::BuildHasher;

/// Slot ids keyed by their tool's name. The tables hold only slot ids: the name itself lives once,
/// in the tool, and is compared through the slots (three copies of every name cost about 0.2 KB
/// per tool).
#[derive(Debug, Default)]
pub(super) struct Names {
    exact: HashTable<DocId>,
    /// Slots whose [`normalize_name`] differs from the name itself, keyed by the normalized name
    /// (one entry per slot; several slots may share a key). The others are found in `exact`.
    normalized: HashTable<DocId>,
    hasher: foldhash::fast::RandomState,
}

impl Names {
    fn hash(&self, name: &str) -> u64 {
        self.hasher.hash_one(name)
    }

    pub(super) fn get(&self, slots: &[Option<Slot>], name: &str) -> Option<DocId> {
        self.exact
            .find(self.hash(name), |&id| name_at(slots, id) == name)
            .copied()
    }

    /// Slots whose normalized name is `normalized` and differs from their name, in no set order.
    pub(super) fn normalized<'a>(
        &'a self,
        slots: &'a [Option<Slot>],
        normalized: &'a str,
    ) -> impl Iterator<Item = DocId> + 'a {
        self.normalized
            .iter_hash(self.hash(normalized))
            .copied()
            .filter(move |&id| normalize_name(name_at(slots, id)) == normalized)
    }

    pub(super) fn insert(&mut self, slots: &[Option<Slot>], id: DocId) {
        let name = name_at(slots, id);
        let hasher = &self.hasher;
        self.exact.insert_unique(hasher.hash_one(name), id, |&i| {
            hasher.hash_one(name_at(slots, i))
        });
        let Some(normalized) = normalized_if_different(name) else {
            return;
        };
        self.normalized
            .insert_unique(hasher.hash_one(&*normalized), id, |&i| {
                hasher.hash_one(&*normalize_name(name_at(slots, i)))
            });
    }

    /// Makes room for `exact` more names, `normalized` of which may differ from their
    /// normalized form (see [`may_differ_normalized`]): a bulk registration then never rehashes
    /// (rehashing the normalized table normalized every name in it again).
    pub(super) fn reserve(&mut self, slots: &[Option<Slot>], exact: usize, normalized: usize) {
        let hasher = &self.hasher;
        self.exact
            .reserve(exact, |&i| hasher.hash_one(name_at(slots, i)));
        self.normalized.reserve(normalized, |&i| {
            hasher.hash_one(&*normalize_name(name_at(slots, i)))
        });
    }

    /// Forgets slot `id`, whose tool is still in `slots`.
    pub(super) fn remove(&mut self, slots: &[Option<Slot>], id: DocId) {
        let name = name_at(slots, id);
        if let Ok(entry) = self.exact.find_entry(self.hash(name), |&i| i == id) {
            entry.remove();
        }
        if let Some(normalized) = normalized_if_different(name) {
            if let Ok(entry) = self
                .normalized
                .find_entry(self.hash(&normalized), |&i| i == id)
            {
                entry.remove();
            }
        }
    }

    /// Renumbers slots through `map`; hashes do not change, only the ids.
    pub(super) fn renumber(&mut self, map: &[Option<DocId>]) {
        for table in [&mut self.exact, &mut self.normalized] {
            for id in table.iter_mut() {
                *id = map[*id as usize].expect("named slots are live");
            }
        }
    }
}

/// Whether [`normalize_name`] may change `name` (false: it certainly does not).
pub(super) fn may_differ_normalized(name: &str) -> bool {
    !name.is_ascii()
        || name
            .bytes()
            .any(|b| b.is_ascii_uppercase() || b == b'/' || b == b'-')
}

/// [`normalize_name`] of `name` when it is not `name` itself.
fn normalized_if_different(name: &str) -> Option<String> {
    if !may_differ_normalized(name) {
        return None;
    }
    Some(normalize_name(name)).filter(|n| n != name)
}

pub(super) fn name_at(slots: &[Option<Slot>], id: DocId) -> &str {
    slots[id as usize]
        .as_ref()
        .expect("named slot is live")
        .tool
        .name()
}
