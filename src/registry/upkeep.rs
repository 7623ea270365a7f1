//! Index upkeep: each profile's index built on first use and kept in step with every change
//! (a tool indexed when registered or enabled, unindexed when removed or disabled).

use super::*;

impl State {
    /// The reference index, if built.
    pub(crate) fn index(&self) -> Option<&Index<5>> {
        self.index.as_ref()
    }

    /// Number of indexed (enabled) tools, from whichever index is built (0 when none is).
    pub(crate) fn indexed_count(&self) -> usize {
        match (&self.index, &self.enhanced) {
            (Some(index), _) => index.doc_count(),
            (None, Some(e)) => e.index.doc_count(),
            (None, None) => 0,
        }
    }

    /// Builds the index `profile` ranks with if it does not exist yet (once; from then on every
    /// change keeps it in step).
    pub(crate) fn ensure_index(&mut self, profile: Profile) {
        match profile {
            Profile::Reference => self.ensure_reference(),
            Profile::Enhanced | Profile::Hybrid => self.ensure_enhanced(),
        }
    }

    /// Builds the reference index if it does not exist yet.
    pub(crate) fn ensure_reference(&mut self) {
        if self.index.is_none() {
            let index = Index::build(self.enabled_slots(), self.live, |tool, sink| {
                reference_each(tool, &mut |f, t| sink.token(f, t))
            });
            self.index = Some(index);
        }
    }

    /// The enhanced index and its analysis, if built.
    pub(crate) fn enhanced(&self) -> Option<(&EnhancedAnalysis, &Index<6>)> {
        self.enhanced.as_ref().map(|e| (&e.analysis, &e.index))
    }

    /// [`index`](Self::index), or the internal error a search meets when the caller did not
    /// build it first ([`ensure_index`](Self::ensure_index)).
    pub(crate) fn reference_index(&self) -> crate::error::Result<&Index<5>> {
        self.index().ok_or_else(|| {
            crate::error::Error::Internal(
                "the reference index was not built for this registry".into(),
            )
        })
    }

    /// [`enhanced`](Self::enhanced), or the internal error a search meets when the caller did not
    /// build it first.
    pub(crate) fn enhanced_index(&self) -> crate::error::Result<(&EnhancedAnalysis, &Index<6>)> {
        self.enhanced().ok_or_else(|| {
            crate::error::Error::Internal(
                "the enhanced index was not built for this registry".into(),
            )
        })
    }

    /// Builds the enhanced index if it does not exist yet.
    pub(crate) fn ensure_enhanced(&mut self) {
        if self.enhanced.is_none() {
            self.build_enhanced(EnhancedAnalysis::default());
        }
    }

    pub(super) fn build_enhanced(&mut self, analysis: EnhancedAnalysis) {
        let index = Index::build(self.enabled_slots(), self.live, |tool, sink| {
            enhanced_each(tool, &analysis, &mut |f, t| sink.token(f, t))
        });
        self.enhanced = Some(EnhancedIndex { analysis, index });
    }

    /// The enabled tools with their slots, in slot order.
    fn enabled_slots(&self) -> impl Iterator<Item = (DocId, &Tool)> + Send {
        self.live_slots()
            .filter(|&(id, slot)| self.is_enabled(id, slot))
            .map(|(id, slot)| (id, &slot.tool))
    }

    /// Whether `slot` is live and currently indexed (it is, exactly when it is enabled). Asked of
    /// every tool by a hybrid search and the embedding status: a built index's own slot table
    /// answers without reaching into the tool (a cache miss apiece at 10,000 tools).
    pub(crate) fn is_indexed(&self, slot: DocId) -> bool {
        match (&self.index, &self.enhanced) {
            (Some(index), _) => index.contains(slot),
            (None, Some(e)) => e.index.contains(slot),
            (None, None) => self.enabled_at(slot),
        }
    }

    /// Brings the index in line with the slot's current enabled state and fields.
    pub(super) fn index_slot(&mut self, id: DocId) {
        let Some(slot) = self.slots[id as usize].as_ref() else {
            return;
        };
        if self.is_enabled(id, slot) {
            if let Some(index) = self.index.as_mut() {
                index.add_with(id, |d| reference_each(&slot.tool, &mut |f, t| d.push(f, t)));
            }
            if let Some(e) = self.enhanced.as_mut() {
                let analysis = e.analysis;
                e.index.add_with(id, |d| {
                    enhanced_each(&slot.tool, &analysis, &mut |f, t| d.push(f, t))
                });
            }
            // Only a changed text waits for a new vector: a tag or namespace change, or a tool
            // enabled again, keeps the one it has.
            self.index_vector(id);
        }
    }

    /// The vectors, when an embedder is set.
    pub(crate) fn vectors(&self) -> Option<&crate::embed::VectorStore> {
        self.vectors.as_ref()
    }

    pub(crate) fn vectors_mut(&mut self) -> Option<&mut crate::embed::VectorStore> {
        self.vectors.as_mut()
    }

    /// Starts over with an empty store of `dim`-dimensional vectors: every enabled tool waits
    /// for its vector (a new embedder's vectors are not comparable with the old one's).
    pub(crate) fn reset_vectors(&mut self, dim: usize) {
        self.vectors = Some(crate::embed::VectorStore::new(dim));
        let ids: Vec<DocId> = self.enabled_slots().map(|(id, _)| id).collect();
        for id in ids {
            self.index_vector(id);
        }
    }

    /// Drops the vectors (no embedder any more).
    pub(crate) fn clear_vectors(&mut self) {
        self.vectors = None;
        self.embed_kick = false;
    }

    fn index_vector(&mut self, id: DocId) {
        let Some(slot) = self.slots[id as usize].as_ref() else {
            return;
        };
        if let Some(v) = self.vectors.as_mut() {
            let hash = crate::embed::text_hash(&crate::embed::tool_text(&slot.tool));
            self.embed_kick |= v.want(id, hash);
        }
    }

    pub(super) fn unindex_slot(&mut self, id: DocId) {
        let Some(slot) = self.slots[id as usize].as_ref() else {
            return;
        };
        if let Some(index) = self.index.as_mut() {
            index.remove_with(id, |push| reference_each(&slot.tool, &mut |_, t| push(t)));
        }
        if let Some(e) = self.enhanced.as_mut() {
            let analysis = e.analysis;
            e.index.remove_with(id, |push| {
                enhanced_each(&slot.tool, &analysis, &mut |_, t| push(t))
            });
        }
    }

    pub(crate) fn rebuild_index(&mut self) {
        let enhanced = self.enhanced.take().map(|e| e.analysis);
        if self.index.take().is_some() {
            self.ensure_reference();
        }
        if let Some(analysis) = enhanced {
            self.build_enhanced(analysis);
        }
    }
}

impl Registry {
    /// Whether the incrementally kept indexes (the reference one, and the enhanced one once
    /// built) equal ones rebuilt from scratch. For tests and diagnostics; costs a full rebuild.
    pub fn verify_index(&self) -> Result<bool> {
        let state = self.shared.read()?;
        let mut fresh = Index::<5>::new();
        let mut fresh_enhanced = Index::<6>::new();
        for (id, slot) in state.live_slots() {
            if state.is_enabled(id, slot) {
                if state.index.is_some() {
                    fresh.add(id, &reference_document(&slot.tool));
                }
                if let Some(e) = &state.enhanced {
                    fresh_enhanced.add(id, &enhanced_document(&slot.tool, &e.analysis));
                }
            }
        }
        let enhanced_ok = state
            .enhanced
            .as_ref()
            .is_none_or(|e| fresh_enhanced.canonical() == e.index.canonical());
        let reference_ok = state
            .index
            .as_ref()
            .is_none_or(|index| fresh.canonical() == index.canonical());
        Ok(enhanced_ok && reference_ok)
    }

    /// Sizes of the built indexes, as JSON, for the memory benchmark (`bench_mem`): per profile,
    /// terms, postings, blocks, encoded posting bytes and bytes allocated for postings; for the
    /// enhanced one also the bytes of the terms kept for the co-use step's fit test and of the
    /// name terms' lists by anchor.
    #[doc(hidden)]
    pub fn index_stats_json(&self) -> Result<String> {
        let state = self.shared.read()?;
        let one = |(t, p, b, u, h): (usize, usize, usize, usize, usize), extra: String| {
            format!(
                r#"{{"terms":{t},"postings":{p},"blocks":{b},"posting_bytes":{u},"posting_bytes_held":{h}{extra}}}"#
            )
        };
        let reference = state
            .index
            .as_ref()
            .map_or("null".into(), |i| one(i.stats(), String::new()));
        let enhanced = state.enhanced.as_ref().map_or("null".into(), |e| {
            let kept = format!(
                r#","kept_terms_bytes":{},"name_terms_bytes":{}"#,
                e.index.kept_terms_bytes(),
                e.index.name_terms_bytes()
            );
            one(e.index.stats(), kept)
        });
        Ok(format!(
            r#"{{"reference":{reference},"enhanced":{enhanced}}}"#
        ))
    }

    /// Whether the reference index has been built (by a reference discoverer or `discover_tools`).
    pub fn has_reference_index(&self) -> Result<bool> {
        Ok(self.shared.read()?.index.is_some())
    }

    /// Whether the enhanced index has been built (by an enhanced discoverer or `discover_tools`).
    pub fn has_enhanced_index(&self) -> Result<bool> {
        Ok(self.shared.read()?.enhanced.is_some())
    }
}
