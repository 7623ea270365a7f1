//! What a registry keeps per slot besides the tool: whether it is disabled, and the rarely set
//! host function and disable reason. Kept beside the slots instead of in them, so a slot is only
//! its tool (104 bytes): a flag and a pointer per slot cost 1.6 MB at 100,000 tools, for data
//! that most slots never have.

use super::HostFn;
use crate::index::DocId;
use std::collections::HashMap;

/// One bit per slot: set when the tool itself is disabled (its namespace is checked apart).
#[derive(Debug, Default)]
pub(super) struct DisabledBits(Vec<u64>);

impl DisabledBits {
    /// Whether slot `id` is disabled.
    pub(super) fn get(&self, id: DocId) -> bool {
        let (word, bit) = (id as usize / 64, id % 64);
        self.0.get(word).is_some_and(|w| w >> bit & 1 == 1)
    }

    /// Marks slot `id` disabled or not.
    pub(super) fn set(&mut self, id: DocId, disabled: bool) {
        let (word, bit) = (id as usize / 64, id % 64);
        if self.0.len() <= word {
            if !disabled {
                return;
            }
            self.0.resize(word + 1, 0);
        }
        if disabled {
            self.0[word] |= 1 << bit;
        } else {
            self.0[word] &= !(1 << bit);
        }
    }

    /// Renumbers slots through `map` (old slot to new slot, order kept).
    pub(super) fn renumber(&mut self, map: &[Option<DocId>]) {
        let old = std::mem::take(&mut self.0);
        let was = |i: usize| old.get(i / 64).is_some_and(|w| w >> (i % 64) & 1 == 1);
        for (i, new) in map.iter().enumerate() {
            if let Some(new) = new {
                if was(i) {
                    self.set(*new, true);
                }
            }
        }
    }
}

/// A slot's host function and disable reason, when it has either.
#[derive(Default)]
struct Extra {
    host: Option<HostFn>,
    reason: Option<String>,
}

/// Host functions and disable reasons by slot (only slots that have one are present).
#[derive(Default)]
pub(super) struct Extras(HashMap<DocId, Extra, foldhash::fast::RandomState>);

impl std::fmt::Debug for Extras {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map()
            .entries(
                self.0
                    .iter()
                    .map(|(id, e)| (id, (e.host.is_some(), &e.reason))),
            )
            .finish()
    }
}

impl Extras {
    /// The host function of slot `id`.
    pub(super) fn host(&self, id: DocId) -> Option<&HostFn> {
        self.0.get(&id).and_then(|e| e.host.as_ref())
    }

    /// The disable reason of slot `id`.
    pub(super) fn reason(&self, id: DocId) -> Option<&str> {
        self.0.get(&id).and_then(|e| e.reason.as_deref())
    }

    /// Replaces the host function of slot `id`, giving back the old one: the caller drops it
    /// once the registry lock is released (dropping it may run host code that calls back in).
    #[must_use]
    pub(super) fn set_host(&mut self, id: DocId, host: Option<HostFn>) -> Option<HostFn> {
        let old = match host {
            Some(h) => self.0.entry(id).or_default().host.replace(h),
            None => self.0.get_mut(&id).and_then(|e| e.host.take()),
        };
        self.trim(id);
        old
    }

    /// Sets or clears the disable reason of slot `id`.
    pub(super) fn set_reason(&mut self, id: DocId, reason: Option<String>) {
        match reason {
            Some(r) => self.0.entry(id).or_default().reason = Some(r),
            None => {
                if let Some(e) = self.0.get_mut(&id) {
                    e.reason = None;
                }
            }
        }
        self.trim(id);
    }

    /// Forgets slot `id`, giving back its host function to drop after the lock (see
    /// [`set_host`](Self::set_host)).
    #[must_use]
    pub(super) fn remove(&mut self, id: DocId) -> Option<HostFn> {
        if self.0.is_empty() {
            return None;
        }
        self.0.remove(&id).and_then(|e| e.host)
    }

    /// Renumbers slots through `map` (every slot present here is live).
    pub(super) fn renumber(&mut self, map: &[Option<DocId>]) {
        if self.0.is_empty() {
            return;
        }
        let old = std::mem::take(&mut self.0);
        self.0.reserve(old.len());
        for (id, e) in old {
            let new = map[id as usize].expect("slots with a host or reason are live");
            self.0.insert(new, e);
        }
    }

    fn trim(&mut self, id: DocId) {
        if self
            .0
            .get(&id)
            .is_some_and(|e| e.host.is_none() && e.reason.is_none())
        {
            self.0.remove(&id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn disabled_bits_follow_sets_and_renumbering() {
        let mut bits = DisabledBits::default();
        assert!(!bits.get(5));
        bits.set(5, false);
        assert!(bits.0.is_empty(), "clearing an unset bit allocates nothing");
        bits.set(70, true);
        bits.set(3, true);
        assert!(bits.get(70) && bits.get(3) && !bits.get(4) && !bits.get(1000));
        bits.set(3, false);
        assert!(!bits.get(3));
        // Slots 0..=70 with 10 and 69 dropped: 70 becomes 68.
        let map: Vec<Option<DocId>> = (0..=70u32)
            .map(|i| match i {
                10 | 69 => None,
                i if i < 10 => Some(i),
                i if i < 69 => Some(i - 1),
                _ => Some(68),
            })
            .collect();
        bits.renumber(&map);
        assert!(bits.get(68) && !bits.get(70) && !bits.get(69));
    }

    #[test]
    fn extras_give_back_hosts_and_drop_empty_entries() {
        let mut extras = Extras::default();
        let host: HostFn = Arc::new(|_: &str, _: &str| Ok(String::new()));
        assert!(extras.set_host(2, Some(Arc::clone(&host))).is_none());
        extras.set_reason(2, Some("maintenance".into()));
        assert_eq!(extras.reason(2), Some("maintenance"));
        let old = extras
            .set_host(2, None)
            .expect("the old host is given back");
        assert!(Arc::ptr_eq(&old, &host));
        assert!(extras.host(2).is_none() && extras.reason(2).is_some());
        extras.set_reason(2, None);
        assert!(extras.0.is_empty(), "an entry with nothing left is dropped");
        assert!(extras.set_host(7, Some(host)).is_none());
        let map = [None, None, None, None, None, None, None, Some(1)];
        extras.renumber(&map);
        assert!(extras.host(7).is_none() && extras.host(1).is_some());
        assert!(extras.remove(1).is_some() && extras.0.is_empty());
    }
}

#[cfg(test)]
mod size_tests {
    #[test]
    fn a_slot_is_its_tool() {
        use std::mem::size_of;
        // The flag and the side data live in `DisabledBits` and `Extras`: nothing per slot but
        // the tool (104 bytes on 64-bit targets today).
        assert_eq!(
            size_of::<Option<super::super::Slot>>(),
            size_of::<crate::Tool>()
        );
    }
}
