//! The lock around the state, shared by a registry and its discoverers: reads, writes (each a
//! new generation), the embedder at work, and the co-use counts under their own lock.

use super::{State, UsageCell, embedding};
use crate::error::{Error, Result};
use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};

/// The lock around the state, shared by a registry and its discoverers.
#[derive(Debug, Default)]
pub(crate) struct Shared {
    pub(super) state: RwLock<State>,
    /// Bumped by every write: a conversation whose registry is at the generation it last saw
    /// answers from its cache, without looking at the catalog.
    pub(super) generation: std::sync::atomic::AtomicU64,
    /// Renderings derived from the state that many readers share (a conversation's tool list
    /// prefix), each with the generation it was made at: (key, generation, value).
    pub(super) derived: std::sync::Mutex<Vec<Derived>>,
    /// The embedder and its thread, when one is set. Outside the state's lock: embedding runs
    /// with no registry lock held.
    pub(super) embedding: RwLock<Option<Arc<embedding::Embedding>>>,
    /// Live [`Handle`]s (registries and discoverers). The embedding thread's own short holds on
    /// the state are not counted: when the last handle goes, the thread is stopped and joined on
    /// that caller's thread.
    pub(super) users: std::sync::atomic::AtomicUsize,
    /// The co-use counts (see [`crate::usage`]): under their own lock, so recording a task
    /// never waits for nor changes the state.
    pub(super) usage: UsageCell,
}

/// One shared rendering: (key, generation it was made at, value).
pub(super) type Derived = ([u64; 3], u64, Arc<dyn std::any::Any + Send + Sync>);

/// The state, write-locked. When it is released after a change that left tools waiting for
/// their vectors, the embedding thread is told.
pub(crate) struct WriteGuard<'a> {
    pub(super) guard: Option<RwLockWriteGuard<'a, State>>,
    pub(super) shared: &'a Shared,
}

impl std::ops::Deref for WriteGuard<'_> {
    type Target = State;
    fn deref(&self) -> &State {
        self.guard.as_ref().expect("held until dropped")
    }
}

impl std::ops::DerefMut for WriteGuard<'_> {
    fn deref_mut(&mut self) -> &mut State {
        self.guard.as_mut().expect("held until dropped")
    }
}

impl Drop for WriteGuard<'_> {
    fn drop(&mut self) {
        let kick = self
            .guard
            .as_mut()
            .is_some_and(|g| std::mem::take(&mut g.embed_kick));
        // Released first: the embedding thread takes this lock as soon as it wakes.
        drop(self.guard.take());
        if kick {
            if let Some(e) = self.shared.embedding() {
                e.kick();
            }
        }
    }
}

impl Shared {
    pub(crate) fn read(&self) -> Result<RwLockReadGuard<'_, State>> {
        self.state.read().map_err(|_| poisoned())
    }

    pub(crate) fn write(&self) -> Result<WriteGuard<'_>> {
        let guard = self.state.write().map_err(|_| poisoned())?;
        // Bumped under the lock, so a reader that saw the new state also sees the new number.
        self.generation
            .fetch_add(1, std::sync::atomic::Ordering::AcqRel);
        Ok(WriteGuard {
            guard: Some(guard),
            shared: self,
        })
    }

    /// The write lock for bookkeeping nothing cached depends on (vectors taken and installed):
    /// the generation stays, so conversations keep their rendered tool lists.
    pub(crate) fn write_quiet(&self) -> Result<RwLockWriteGuard<'_, State>> {
        self.state.write().map_err(|_| poisoned())
    }

    pub(crate) fn generation(&self) -> u64 {
        self.generation.load(std::sync::atomic::Ordering::Acquire)
    }

    /// The embedder at work, if any.
    pub(crate) fn embedding(&self) -> Option<Arc<embedding::Embedding>> {
        self.embedding
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Sets the embedder at work, giving back the one it replaces.
    pub(crate) fn replace_embedding(
        &self,
        e: Option<Arc<embedding::Embedding>>,
    ) -> Option<Arc<embedding::Embedding>> {
        std::mem::replace(
            &mut *self.embedding.write().unwrap_or_else(|e| e.into_inner()),
            e,
        )
    }

    /// Whether `e` is still this registry's embedder.
    pub(crate) fn is_current_embedding(&self, e: &embedding::Embedding) -> bool {
        self.embedding
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .as_ref()
            .is_some_and(|cur| std::ptr::eq(Arc::as_ptr(cur), e))
    }
}

pub(super) fn poisoned() -> Error {
    Error::Internal(
        "the registry lock was poisoned by a panic in an earlier call; recreate the registry"
            .into(),
    )
}
