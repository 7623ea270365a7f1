//! Co-use: which tools were called together, learned from the tasks a host runs.
//!
//! A task is the set of tools used for one piece of work: the calls of one model reply
//! (`execute`, prepare and finish), a conversation's recent calls, a gateway's client session,
//! or what a host passes to [`Registry::record_usage`](crate::Registry::record_usage). Only
//! names and counts are kept, never arguments or results, in bounded memory: each tool keeps at
//! most [`MAX_PARTNERS`] partners, a task counts at most its first [`MAX_TASK_TOOLS`] distinct
//! names, and a tool's counts halve when its task count reaches [`MAX_COUNT`] (old habits fade
//! as new ones come). Pair counts are kept symmetrically (a pair is in both tools' lists or in
//! neither), so forgetting or renaming a tool touches only its own partners.
//!
//! This module knows nothing of the registry: the registry decides which names count (only
//! registered tools) and discovery reads the counts (`discovery::usage`).

mod file;
mod picks;

pub use file::{MAX_USAGE_FILE_BYTES, USAGE_FORMAT};
pub use picks::Pick;

use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

/// Most partners one tool keeps. A tool's strong partners are few (a login step, the next step
/// of a routine); a full list lets a newcomer in only in place of a one-off pair.
pub const MAX_PARTNERS: usize = 32;
/// Most distinct tools of one task that count (its first ones): a task's pairs grow with the
/// square of its tools, and a task of thousands of tools says nothing about any two of them.
pub const MAX_TASK_TOOLS: usize = 32;
/// A tool's task count at which its counts (and its pairs') are halved.
pub const MAX_COUNT: u32 = 1 << 20;
/// Most tools the store tracks; tasks naming further new tools count only the known ones.
pub const MAX_TOOLS: usize = 1 << 20;

/// One tool's use: its name and partners (what a discover reads of a tool's counts and where
/// it is are in [`Hot`]).
#[derive(Debug, Clone, Default)]
struct Entry {
    name: Box<str>,
    /// (partner id, tasks used together), at most [`MAX_PARTNERS`].
    partners: Vec<(u32, u32)>,
}

/// What a discover reads of each partner it judges, 16 bytes a tool in one array apart from
/// the names and lists (160 KB at 10,000 tools, which stays in cache where the entries would
/// not): its task count, and where the store's owner last found it by its name, stamped with
/// the owner's version then (a lookup by name was most of the co-use step's time). The place is
/// kept under the store's read lock by atomics; every writer at one version writes the same
/// place, so a reader that sees the version sees its place.
#[derive(Debug, Default)]
struct Hot {
    /// Tasks the tool was used in.
    tasks: u32,
    /// The place, or [`NOWHERE`].
    slot: AtomicU32,
    /// The version plus one (0: never stamped).
    version: AtomicU64,
}

/// A hint's place for a name its owner does not have.
const NOWHERE: u32 = u32::MAX;

impl Hot {
    /// Where the owner found the tool when its version was `version`: `Some(place)` (`None`
    /// inside: it had no such tool), or `None` when no place was kept at that version.
    fn place_at(&self, version: u64) -> Option<Option<u32>> {
        if self.version.load(Ordering::Acquire) != version.wrapping_add(1) {
            return None;
        }
        let slot = self.slot.load(Ordering::Relaxed);
        Some((slot != NOWHERE).then_some(slot))
    }

    /// Drops the kept place (the next discover looks the name up again).
    fn forget_place(&mut self) {
        *self.version.get_mut() = 0;
    }
}

impl Clone for Hot {
    /// The counts; not the place, which is the original's owner's.
    fn clone(&self) -> Self {
        Self {
            tasks: self.tasks,
            ..Self::default()
        }
    }
}

/// The co-use counts: tools by name, each with its task count and its partners.
#[derive(Debug, Clone, Default)]
pub struct UsageStore {
    /// Ids by name (foldhash: every discover looks its best hits up here).
    ids: HashMap<Box<str>, u32, foldhash::fast::RandomState>,
    /// By id; a forgotten tool's entry is empty (no name) until its id is reused.
    entries: Vec<Entry>,
    /// By id, beside `entries`.
    hot: Vec<Hot>,
    free: Vec<u32>,
    /// Tasks recorded (saturating).
    tasks: u64,
    /// Counts one for every change to the counts (what a kept answer for a tool without counts
    /// is checked against).
    generation: u64,
    /// What discovers read of their anchors' partners, kept between them.
    picks: picks::PickCache,
}

/// A partner of a tool, as discovery reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Partner {
    /// The partner's name.
    pub name: String,
    /// Tasks the two were used in together.
    pub together: u32,
    /// Tasks the partner was used in.
    pub tasks: u32,
}

impl UsageStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether nothing is recorded.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Tasks recorded so far.
    pub fn task_count(&self) -> u64 {
        self.tasks
    }

    /// Tools tracked.
    pub fn tool_count(&self) -> usize {
        self.ids.len()
    }

    /// Tasks `name` was used in (0 when unknown).
    pub fn tasks_of(&self, name: &str) -> u32 {
        self.ids
            .get(name)
            .map_or(0, |&id| self.hot[id as usize].tasks)
    }

    /// Tasks `a` and `b` were used in together.
    pub fn together(&self, a: &str, b: &str) -> u32 {
        let (Some(&x), Some(&y)) = (self.ids.get(a), self.ids.get(b)) else {
            return 0;
        };
        self.pair(x, y)
    }

    /// `name`'s partners, most used together first (ties by name).
    pub fn partners(&self, name: &str) -> Vec<Partner> {
        let Some(&id) = self.ids.get(name) else {
            return Vec::new();
        };
        let mut out: Vec<Partner> = self.entries[id as usize]
            .partners
            .iter()
            .map(|&(p, c)| Partner {
                name: self.entries[p as usize].name.to_string(),
                together: c,
                tasks: self.hot[p as usize].tasks,
            })
            .collect();
        out.sort_by(|a, b| b.together.cmp(&a.together).then(a.name.cmp(&b.name)));
        out
    }

    /// The name of the tool of id `id`.
    fn name_at(&self, id: u32) -> &str {
        &self.entries[id as usize].name
    }

    /// Where the owner found the tool of id `id` when its version was `version`: `Some(place)`
    /// (`None` inside: it had no such tool), or `None` when no place was kept at that version.
    fn hint(&self, id: u32, version: u64) -> Option<Option<u32>> {
        self.hot[id as usize].place_at(version)
    }

    /// Keeps where the owner found the tool of id `id` at its version `version` (see
    /// [`hint`](Self::hint)). The owner calls it while its version cannot change.
    fn set_hint(&self, id: u32, version: u64, slot: Option<u32>) {
        let h = &self.hot[id as usize];
        h.slot.store(slot.unwrap_or(NOWHERE), Ordering::Relaxed);
        h.version.store(version.wrapping_add(1), Ordering::Release);
    }

    /// Bytes the store holds, about (names, entries, partner lists, the name table, and what
    /// discovers keep of each anchor's partners).
    pub fn memory_bytes(&self) -> usize {
        let entries: usize = self
            .entries
            .iter()
            .map(|e| {
                std::mem::size_of::<Entry>()
                    + std::mem::size_of::<Hot>()
                    + e.name.len()
                    + e.partners.capacity() * 8
            })
            .sum();
        // The name table: a key (16 bytes and the name again), an id and hashing overhead.
        let table: usize = self.ids.keys().map(|k| k.len() + 32).sum();
        entries + table + self.free.capacity() * 4 + self.picks.memory_bytes()
    }

    /// Records one task: the distinct names of `names` (the first [`MAX_TASK_TOOLS`]; empty
    /// names skipped) each count one task, and each two of them one task together. A task of
    /// fewer than one name records nothing.
    pub fn record<'a>(&mut self, names: impl IntoIterator<Item = &'a str>) {
        let mut ids: Vec<u32> = Vec::new();
        for name in names {
            if ids.len() == MAX_TASK_TOOLS {
                break;
            }
            if name.is_empty() || name.len() > crate::limits::MAX_NAME_BYTES {
                continue;
            }
            let Some(id) = self.intern(name) else {
                continue;
            };
            if !ids.contains(&id) {
                ids.push(id);
            }
        }
        if ids.is_empty() {
            return;
        }
        self.tasks = self.tasks.saturating_add(1);
        self.generation += 1;
        for &id in &ids {
            if self.hot[id as usize].tasks >= MAX_COUNT {
                self.touch(id);
                self.halve(id);
            }
            self.hot[id as usize].tasks += 1;
        }
        for (i, &a) in ids.iter().enumerate() {
            for &b in &ids[i + 1..] {
                self.add_pair(a, b, 1);
            }
        }
        for &id in &ids {
            self.refresh_own(id);
            self.refresh_partners(id, &ids);
        }
    }

    /// Takes one task back (what [`record`](Self::record) added, where it is still there): for
    /// measuring with every task but one (`toolregistry eval --usage leave-one-out`).
    pub fn unrecord<'a>(&mut self, names: impl IntoIterator<Item = &'a str>) {
        let mut ids: Vec<u32> = Vec::new();
        for name in names {
            if ids.len() == MAX_TASK_TOOLS {
                break;
            }
            if let Some(&id) = self.ids.get(name) {
                if !ids.contains(&id) {
                    ids.push(id);
                }
            }
        }
        if ids.is_empty() {
            return;
        }
        self.tasks = self.tasks.saturating_sub(1);
        self.generation += 1;
        for (i, &a) in ids.iter().enumerate() {
            for &b in &ids[i + 1..] {
                let c = self.pair(a, b);
                self.set_pair(a, b, c.saturating_sub(1));
            }
        }
        for &id in &ids {
            let tasks = &mut self.hot[id as usize].tasks;
            *tasks = tasks.saturating_sub(1);
            if *tasks == 0 && self.entries[id as usize].partners.is_empty() {
                self.forget_id(id);
            }
        }
        for &id in &ids {
            self.refresh_own(id);
            self.refresh_partners(id, &ids);
        }
    }

    /// Forgets a tool (it was unregistered): its counts and its pairs.
    pub fn forget(&mut self, name: &str) {
        if let Some(&id) = self.ids.get(name) {
            self.forget_id(id);
        }
    }

    /// Keeps a tool's counts under its new name (it was renamed). When `to` has counts of its
    /// own, they are kept and `from`'s are dropped: two histories are not merged.
    pub fn rename(&mut self, from: &str, to: &str) {
        if from == to || self.ids.contains_key(to) || to.is_empty() {
            self.forget(from);
            return;
        }
        let Some(id) = self.ids.remove(from) else {
            return;
        };
        // What its partners' kept answers say of where it is no longer holds.
        self.generation += 1;
        self.touch(id);
        let name: Box<str> = to.into();
        self.entries[id as usize].name = name.clone();
        // Where the old name was is not where the new one is.
        self.hot[id as usize].forget_place();
        self.ids.insert(name, id);
    }

    /// Keeps only the tools `keep` says yes to (the registered ones, after a load).
    pub fn retain(&mut self, mut keep: impl FnMut(&str) -> bool) {
        let gone: Vec<u32> = self
            .ids
            .iter()
            .filter(|(name, _)| !keep(name))
            .map(|(_, &id)| id)
            .collect();
        for id in gone {
            self.forget_id(id);
        }
    }

    fn forget_id(&mut self, id: u32) {
        self.generation += 1;
        self.touch(id);
        let entry = std::mem::take(&mut self.entries[id as usize]);
        self.hot[id as usize] = Hot::default();
        for &(p, _) in &entry.partners {
            self.entries[p as usize].partners.retain(|&(q, _)| q != id);
        }
        self.ids.remove(&entry.name);
        self.free.push(id);
    }

    /// The id of `name`, a new one when it is new and there is room.
    fn intern(&mut self, name: &str) -> Option<u32> {
        if let Some(&id) = self.ids.get(name) {
            return Some(id);
        }
        if self.ids.len() >= MAX_TOOLS {
            return None;
        }
        let entry = Entry {
            name: name.into(),
            ..Entry::default()
        };
        let id = match self.free.pop() {
            Some(id) => {
                self.entries[id as usize] = entry;
                self.hot[id as usize] = Hot::default();
                id
            }
            None => {
                self.entries.push(entry);
                self.hot.push(Hot::default());
                (self.entries.len() - 1) as u32
            }
        };
        self.ids.insert(name.into(), id);
        Some(id)
    }

    fn pair(&self, a: u32, b: u32) -> u32 {
        self.entries[a as usize]
            .partners
            .iter()
            .find(|&&(p, _)| p == b)
            .map_or(0, |&(_, c)| c)
    }

    /// Adds `n` to the pair's count; a new pair enters both lists, in place of a one-off pair
    /// when a list is full, or not at all when a full list holds no one-off.
    fn add_pair(&mut self, a: u32, b: u32, n: u32) {
        let c = self.pair(a, b);
        if c > 0 {
            self.set_pair(a, b, c.saturating_add(n).min(MAX_COUNT));
            return;
        }
        if !self.make_room(a) || !self.make_room(b) {
            return;
        }
        self.entries[a as usize].partners.push((b, n));
        self.entries[b as usize].partners.push((a, n));
    }

    /// Room for one more partner of `id`: there is, or a one-off pair gives way.
    fn make_room(&mut self, id: u32) -> bool {
        let partners = &self.entries[id as usize].partners;
        if partners.len() < MAX_PARTNERS {
            return true;
        }
        let Some(&(weakest, c)) = partners.iter().min_by_key(|&&(p, c)| (c, p)) else {
            return false;
        };
        if c > 1 {
            return false;
        }
        // The pair leaves the other's list too: what is kept for it read the pair.
        self.drop_kept(weakest);
        self.set_pair(id, weakest, 0);
        true
    }

    /// Sets a pair's count on both sides; 0 removes the pair.
    fn set_pair(&mut self, a: u32, b: u32, c: u32) {
        for (x, y) in [(a, b), (b, a)] {
            let list = &mut self.entries[x as usize].partners;
            if let Some(at) = list.iter().position(|&(p, _)| p == y) {
                if c == 0 {
                    list.swap_remove(at);
                } else {
                    list[at].1 = c;
                }
            }
        }
    }

    /// Halves a tool's task count and its pairs' counts (a pair's count never exceeds either
    /// tool's task count: halving both keeps that).
    fn halve(&mut self, id: u32) {
        self.hot[id as usize].tasks /= 2;
        let pairs = self.entries[id as usize].partners.clone();
        for (p, c) in pairs {
            self.set_pair(id, p, c / 2);
        }
    }

    /// Every tool with its counts and every pair once (`a < b` by id), for writing out.
    fn pairs(&self) -> impl Iterator<Item = (u32, u32, u32)> + '_ {
        self.entries.iter().enumerate().flat_map(|(a, e)| {
            e.partners
                .iter()
                .filter(move |&&(b, _)| (a as u32) < b)
                .map(move |&(b, c)| (a as u32, b, c))
        })
    }
}

#[cfg(test)]
mod tests;
