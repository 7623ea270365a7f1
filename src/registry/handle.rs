//! Who holds a registry's shared state: every [`super::Registry`] and [`crate::Discoverer`] is a
//! [`Handle`], counted, so the last one to go can stop the embedding thread on its own thread.

use super::Shared;
use std::sync::Arc;
use std::sync::atomic::Ordering;

/// A user's hold on the shared state: a [`super::Registry`] or a [`crate::Discoverer`]. When the last
/// one goes, the embedding thread is stopped and joined there, so the embedder (a host's user
/// data) is let go before the free returns, never later on the embedding thread, even when that
/// thread happened to hold the state at that moment.
#[derive(Debug)]
pub(crate) struct Handle(Arc<Shared>);

impl Handle {
    pub(crate) fn new(shared: Arc<Shared>) -> Self {
        shared.users.fetch_add(1, Ordering::AcqRel);
        Handle(shared)
    }
}

impl Default for Handle {
    fn default() -> Self {
        Handle::new(Arc::default())
    }
}

impl Clone for Handle {
    fn clone(&self) -> Self {
        Handle::new(Arc::clone(&self.0))
    }
}

impl std::ops::Deref for Handle {
    type Target = Arc<Shared>;
    fn deref(&self) -> &Arc<Shared> {
        &self.0
    }
}

impl Drop for Handle {
    fn drop(&mut self) {
        if self.0.users.fetch_sub(1, Ordering::AcqRel) == 1 {
            // The last user: what was recorded since the last write is written now.
            self.0.usage().flush();
            if let Some(e) = self.0.replace_embedding(None) {
                e.finish();
            }
        }
    }
}
