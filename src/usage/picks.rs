//! What a discover reads of an anchor's partners, kept between discovers.
//!
//! Judging an anchor's partners from the counts takes a lookup by name, a walk of its list and,
//! for each partner that passes, its own counts and where its owner has it: scattered reads, most
//! of the co-use step's time. The partners that pass on counts alone, with where each is, are
//! kept here by the owner's place of the anchor, and read in one piece by the next discover that
//! has the anchor among its best hits. A kept answer holds while neither the owner's version nor
//! the counts it was made from change. A task makes the answers kept for its tools again in
//! place ([`UsageStore::refresh_own`]: no lookup by name, the partners' places kept), and sets
//! their new task counts in those kept for their other partners (all those answers read of
//! them: [`UsageStore::refresh_partners`]); the rarer changes (a tool halved, forgotten or
//! renamed) drop the answers of the tool and of its partners ([`UsageStore::touch`]).

use super::{Hot, NOWHERE, UsageStore};
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

/// The kept answers by the owner's place of the anchor, all of one owner version.
#[derive(Debug, Default)]
struct ByPlace {
    version: u64,
    /// The judge the answers were made with (for making one again in place: [`UsageStore::refresh_own`]).
    judge: Option<fn(u32, u32) -> Option<f64>>,
    /// By place: the owner's places are dense, so an array (one read, no hashing).
    by_place: Vec<Kept>,
}

impl Clone for PickCache {
    /// Empty: what is kept names the original's owner's places.
    fn clone(&self) -> Self {
        Self::default()
    }
}

/// Where the store's owner had the tool of `h` at `version` (its hint), if it had it then.
fn kept_place(h: &Hot, version: u64) -> Option<u32> {
    h.place_at(version).flatten()
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
    /// For each anchor of `places` in turn (the owner's places, best first): reads its partners
    /// that `judge` passes on their counts (tasks together, the anchor's tasks: `Some(share)` to
    /// pass), each with where `locate` finds it by name (`None`: the owner has no such tool, or it
    /// may not be found), and hands them to `read` with the anchor's index and task count. `name`
    /// gives an anchor's name, asked only when nothing is kept for it; `version` is the owner's
    /// version under the lock it is read under.
    ///
    /// Each answer is kept for the next call at the same version; this assumes one `judge` and
    /// one `locate` per store (the co-use step's). When every anchor has a kept answer they are
    /// all read under one lock, looked at for all anchors before any is read: the first look is
    /// a cache miss each, and these are waited for together rather than one by one.
    pub fn with_picks_of<'n>(
        &self,
        places: &[u32],
        version: u64,
        name: impl Fn(u32) -> &'n str,
        judge: fn(u32, u32) -> Option<f64>,
        locate: impl Fn(&str) -> Option<u32>,
        mut read: impl FnMut(usize, u32, &[Pick]),
    ) {
        {
            let kept = self.picks.0.read().unwrap_or_else(PoisonError::into_inner);
            let held = |&place: &u32| {
                kept.by_place
                    .get(place as usize)
                    .is_some_and(|k| self.holds(k))
            };
            if kept.version == version && places.iter().all(held) {
                for (i, &place) in places.iter().enumerate() {
                    let k = &kept.by_place[place as usize];
                    read(i, k.tasks, &k.picks);
                }
                return;
            }
        }
        for (i, &place) in places.iter().enumerate() {
            self.with_picks(
                place,
                version,
                || name(place),
                judge,
                &locate,
                |tasks, picks| read(i, tasks, picks),
            );
        }
    }

    /// [`with_picks_of`](Self::with_picks_of) for the one anchor at `place`: its kept answer,
    /// or one made and kept.
    fn with_picks<'n, R>(
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
        kept.judge = Some(judge);
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

    /// Drops the answers kept for the tool `id` and for its partners (all of `id`'s pairs
    /// change: it is halved, forgotten or renamed). Called before the change, while the
    /// partners are still listed.
    pub(super) fn touch(&mut self, id: u32) {
        self.drop_kept(id);
        for at in 0..self.entries[id as usize].partners.len() {
            let p = self.entries[id as usize].partners[at].0;
            self.drop_kept(p);
        }
    }

    /// Drops the answer kept for the tool `id` (its own counts or partners change). A kept
    /// answer's anchor has its place stamped at the answer's version
    /// ([`make_picks`](Self::make_picks)), so the place is found without a lookup by name.
    pub(super) fn drop_kept(&mut self, id: u32) {
        let kept = self
            .picks
            .0
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(k) = kept_place(&self.hot[id as usize], kept.version)
            .and_then(|place| kept.by_place.get_mut(place as usize))
        {
            *k = Kept::default();
        }
    }

    /// Makes the answer kept for the tool `id` again in place, after a task of it changed its
    /// counts (its own task count, its pairs with the task's other tools): each partner judged
    /// again, where it is read from its place stamped at the answer's version. A partner that
    /// now passes but was never located at that version cannot be placed without the owner:
    /// then the answer is dropped, and made again by the next discover that needs it.
    pub(super) fn refresh_own(&mut self, id: u32) {
        let kept = self
            .picks
            .0
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner);
        let version = kept.version;
        let Some(place) = kept_place(&self.hot[id as usize], version) else {
            return;
        };
        let Some(k) = kept
            .by_place
            .get_mut(place as usize)
            .filter(|k| k.generation != 0 && k.id == id)
        else {
            return;
        };
        let Some(judge) = kept.judge else {
            *k = Kept::default();
            return;
        };
        let tasks = self.hot[id as usize].tasks;
        let mut picks = Vec::with_capacity(k.picks.len() + 1);
        for &(partner, together) in &self.entries[id as usize].partners {
            let Some(share) = judge(together, tasks) else {
                continue;
            };
            let h = &self.hot[partner as usize];
            match h.place_at(version) {
                None => {
                    *k = Kept::default();
                    return;
                }
                Some(None) => {}
                Some(Some(place)) => picks.push(Pick {
                    place,
                    together,
                    partner_tasks: h.tasks,
                    share,
                }),
            }
        }
        k.tasks = tasks;
        k.picks = picks.into_boxed_slice();
    }

    /// Sets the tool `id`'s new task count in the answers kept for its partners outside `task`
    /// (the task that changed it: what else those answers read, their pairs and own counts, did
    /// not change; the answers of the partners in the task were dropped).
    pub(super) fn refresh_partners(&mut self, id: u32, task: &[u32]) {
        let kept = self
            .picks
            .0
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner);
        // A partner's pick of `id` was made where `id` was located, which stamped its place.
        let Some(place) = kept_place(&self.hot[id as usize], kept.version) else {
            return;
        };
        let tasks = self.hot[id as usize].tasks;
        for &(p, _) in &self.entries[id as usize].partners {
            if task.contains(&p) {
                continue;
            }
            let Some(k) = kept_place(&self.hot[p as usize], kept.version)
                .and_then(|at| kept.by_place.get_mut(at as usize))
                .filter(|k| k.generation != 0 && k.id == p)
            else {
                continue;
            };
            for pick in k.picks.iter_mut().filter(|pick| pick.place == place) {
                pick.partner_tasks = tasks;
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
