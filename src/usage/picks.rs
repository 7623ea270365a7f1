//! What a discover reads of an anchor's partners, kept between discovers.
//!
//! Judging an anchor's partners from the counts takes a lookup by name, a walk of its list and,
//! for each partner that passes, its own counts and where its owner has it: scattered reads that
//! cost a quarter of a discover. The partners that pass on counts alone, with where each is, are
//! kept here by the owner's place of the anchor, and read in one piece by the next discover that
//! has the anchor among its best hits. A kept answer holds while neither the owner's version nor
//! the counts it was made from change: every change to a tool's counts drops the answers kept
//! for it and for its partners (they read its counts: [`UsageStore::touch`]), so an agent's next
//! task makes stale only the few answers it changed.

use super::{NOWHERE, UsageStore};
use std::sync::atomic::Ordering;
use std::sync::{PoisonError, RwLock};

/// One partner of an anchor that passes on counts alone, and where its owner has it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pick {
    /// Where the owner has the partner (its slot).
    pub place: u32,
    /// Tasks the two were used in together.
    pub together: u32,
    /// Tasks the partner was used in.
    pub partner_tasks: u32,
    /// What the judge made of the pair (a share of the anchor's tasks).
    pub share: f64,
}

/// An anchor's kept answer.
#[derive(Debug, Default)]
struct Kept {
    /// The anchor's id in the store, or [`NOWHERE`] when the store had no counts for it.
    id: u32,
    /// The store's generation when it was made, plus one (0: nothing kept).
    generation: u64,
    /// Tasks the anchor was used in.
    tasks: u32,
    picks: Box<[Pick]>,
}

/// The kept answers (under their own lock: discovers keep them under the store's read lock).
#[derive(Debug, Default)]
pub(super) struct PickCache(RwLock<ByPlace>);

#[derive(Debug, Default)]
/// The kept answers by the owner's place of the anchor, all of one owner version.
struct ByPlace {
    version: u64,
    /// By place: the owner's places are dense, so an array (one read, no hashing).
    by_place: Vec<Kept>,
}

impl Clone for PickCache {
    /// Empty: what is kept names the original's owner's places.
    fn clone(&self) -> Self {
        Self::default()
    }
}

impl PickCache {
    /// Bytes the kept answers take, about.
    pub(super) fn memory_bytes(&self) -> usize {
        let kept = self.0.read().unwrap_or_else(PoisonError::into_inner);
        kept.by_place.capacity() * size_of::<Kept>()
            + kept
                .by_place
                .iter()
                .map(|k| k.picks.len() * size_of::<Pick>())
                .sum::<usize>()
    }
}

impl UsageStore {
    /// Reads the partners of the anchor the owner has at `place` (named `name`, asked only when
    /// nothing is kept for it) that `judge` passes on their counts (tasks together, the anchor's
    /// tasks: `Some(share)` to pass), each with where `locate` finds it by name (`None`: the
    /// owner has no such tool, or it may not be found), and hands them to `read` with the
    /// anchor's task count. `version` is the owner's version under the lock it is read under.
    ///
    /// The answer is kept for the next call at the same version. It assumes one `judge` and one
    /// `locate` per store: the co-use step's.
    pub fn with_picks<'n, R>(
        &self,
        place: u32,
        version: u64,
        name: impl FnOnce() -> &'n str,
        judge: fn(u32, u32) -> Option<f64>,
        locate: impl Fn(&str) -> Option<u32>,
        read: impl FnOnce(u32, &[Pick]) -> R,
    ) -> R {
        {
            let kept = self.picks.0.read().unwrap_or_else(PoisonError::into_inner);
            if kept.version == version {
                if let Some(k) = kept.by_place.get(place as usize).filter(|k| self.holds(k)) {
                    return read(k.tasks, &k.picks);
                }
            }
        }
        let made = self.make_picks(place, name(), version, judge, locate);
        let out = read(made.tasks, &made.picks);
        let mut kept = self.picks.0.write().unwrap_or_else(PoisonError::into_inner);
        if kept.version != version {
            kept.by_place.clear();
            kept.version = version;
        }
        let at = place as usize;
        if kept.by_place.len() <= at {
            kept.by_place.resize_with(at + 1, Kept::default);
        }
        kept.by_place[at] = made;
        out
    }

    /// Whether a kept answer still holds. One with counts is dropped when they change
    /// ([`touch`](Self::touch)); one without holds until anything is recorded.
    fn holds(&self, k: &Kept) -> bool {
        k.generation != 0 && (k.id != NOWHERE || self.generation + 1 == k.generation)
    }

    /// Drops the answers kept for the tool `id` and for its partners: what is kept of a tool's
    /// partners reads their counts. Called before the counts change, so that partners a change
    /// removes are reached too (partners it adds are in the same task, and touched themselves).
    /// A kept answer's anchor has its place stamped at the answer's version
    /// ([`make_picks`](Self::make_picks)), so the place is found without a lookup by name.
    pub(super) fn touch(&mut self, id: u32) {
        let kept = self
            .picks
            .0
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner);
        if kept.by_place.is_empty() {
            return;
        }
        let stamp = kept.version.wrapping_add(1);
        let partners = self.entries[id as usize].partners.iter().map(|&(p, _)| p);
        for x in std::iter::once(id).chain(partners) {
            let h = &self.hot[x as usize];
            if h.version.load(Ordering::Relaxed) == stamp {
                let place = h.slot.load(Ordering::Relaxed);
                if let Some(k) = kept.by_place.get_mut(place as usize) {
                    *k = Kept::default();
                }
            }
        }
    }

    fn make_picks(
        &self,
        place: u32,
        name: &str,
        version: u64,
        judge: fn(u32, u32) -> Option<f64>,
        locate: impl Fn(&str) -> Option<u32>,
    ) -> Kept {
        let Some(&id) = self.ids.get(name) else {
            return Kept {
                id: NOWHERE,
                generation: self.generation + 1,
                tasks: 0,
                picks: Box::default(),
            };
        };
        // Where the anchor is, for dropping this answer when its counts change (`touch`).
        self.set_hint(id, version, Some(place));
        let tasks = self.hot[id as usize].tasks;
        let picks = self.entries[id as usize]
            .partners
            .iter()
            .filter_map(|&(partner, together)| {
                let share = judge(together, tasks)?;
                let place = self.hint(partner, version).unwrap_or_else(|| {
                    let place = locate(self.name_at(partner));
                    self.set_hint(partner, version, place);
                    place
                })?;
                Some(Pick {
                    place,
                    together,
                    partner_tasks: self.hot[partner as usize].tasks,
                    share,
                })
            })
            .collect();
        Kept {
            id,
            generation: self.generation + 1,
            tasks,
            picks,
        }
    }
}
