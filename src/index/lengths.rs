//! Field lengths per document slot, two bytes per field: a length of 65,534 tokens or more (a
//! tool near the 1 MB text limit) moves the document's lengths to a side map. Half the size of
//! `Option<[u32; F]>` (1.6 MB less at 100,000 tools with the enhanced profile's six fields).

use super::DocId;
use std::collections::HashMap;

/// First field of a slot that is not indexed.
const ABSENT: u16 = u16::MAX;
/// First field of a slot whose lengths are in the side map.
const LARGE: u16 = u16::MAX - 1;

/// Field lengths by document slot.
#[derive(Debug, Clone, Default)]
pub(super) struct DocLengths<const F: usize> {
    small: Vec<[u16; F]>,
    large: HashMap<DocId, [u32; F]>,
}

impl<const F: usize> DocLengths<F> {
    /// Number of slots the table covers (indexed or not).
    pub(super) fn len(&self) -> usize {
        self.small.len()
    }

    /// The lengths of `doc`, if indexed.
    #[inline]
    pub(super) fn get(&self, doc: DocId) -> Option<[u32; F]> {
        let small = self.small.get(doc as usize)?;
        match small[0] {
            ABSENT => None,
            LARGE => self.large.get(&doc).copied(),
            _ => Some(small.map(u32::from)),
        }
    }

    /// The lengths of an indexed document (postings only point at indexed documents).
    #[inline]
    pub(super) fn of(&self, doc: DocId) -> [u32; F] {
        // The scoring loop's path: one load, one compare.
        let small = &self.small[doc as usize];
        if small[0] < LARGE {
            return small.map(u32::from);
        }
        *self
            .large
            .get(&doc)
            .expect("postings point at indexed documents")
    }

    /// Sets or clears the lengths of `doc`.
    pub(super) fn set(&mut self, doc: DocId, lengths: Option<[u32; F]>) {
        let slot = doc as usize;
        if self.small.len() <= slot {
            if lengths.is_none() {
                return;
            }
            self.small.resize(slot + 1, [ABSENT; F]);
        }
        if self.small[slot][0] == LARGE {
            self.large.remove(&doc);
        }
        self.small[slot] = match lengths {
            None => [ABSENT; F],
            Some(l) if l.iter().all(|&n| n < u32::from(LARGE)) => l.map(|n| n as u16),
            Some(l) => {
                self.large.insert(doc, l);
                let mut small = [0; F];
                small[0] = LARGE;
                small
            }
        };
    }

    /// Indexed documents and their lengths, in slot order.
    pub(super) fn iter(&self) -> impl Iterator<Item = (DocId, [u32; F])> + '_ {
        (0..self.small.len() as DocId).filter_map(|d| self.get(d).map(|l| (d, l)))
    }

    /// Gives back spare room beyond [`super::with_room`].
    pub(super) fn shrink_to_room(&mut self) {
        self.small.shrink_to(super::with_room(self.small.len()));
    }

    /// Renumbers slots through `map` (old slot to new slot, order kept).
    pub(super) fn renumber(&mut self, map: &[Option<DocId>]) {
        let mut out = DocLengths::default();
        for (old, lengths) in self.iter() {
            if let Some(Some(new)) = map.get(old as usize) {
                out.set(*new, Some(lengths));
            }
        }
        *self = out;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_and_large_lengths_round_trip() {
        let mut l = DocLengths::<3>::default();
        assert_eq!(l.get(0), None);
        l.set(4, Some([1, 0, 65_533]));
        l.set(2, Some([70_000, 2, 3]));
        l.set(7, Some([0, 65_534, 0]));
        assert_eq!(l.get(4), Some([1, 0, 65_533]));
        assert_eq!(l.get(2), Some([70_000, 2, 3]));
        assert_eq!(l.get(7), Some([0, 65_534, 0]));
        assert_eq!(l.get(3), None);
        assert_eq!(l.large.len(), 2);
        l.set(2, Some([5, 5, 5]));
        assert_eq!((l.get(2), l.large.len()), (Some([5, 5, 5]), 1));
        l.set(7, None);
        assert_eq!((l.get(7), l.large.len()), (None, 0));
        l.set(7, Some([u32::MAX, 0, 0]));
        let map: Vec<Option<DocId>> = vec![None, None, Some(0), None, Some(1), None, None, Some(2)];
        l.renumber(&map);
        let all: Vec<_> = l.iter().collect();
        assert_eq!(
            all,
            [(0, [5, 5, 5]), (1, [1, 0, 65_533]), (2, [u32::MAX, 0, 0])]
        );
    }
}
