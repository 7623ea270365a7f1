//! Live config: the proxy re-reads its config file when it changes (checked every
//! [`POLL`]) and on SIGHUP. Servers added are started, servers removed are stopped, servers whose
//! entry changed are restarted (as a new server: their tools leave and come back), and the others
//! are not touched; the client gets `notifications/tools/list_changed`. A config that no longer
//! parses is refused with its reason on stderr and everything keeps running as it was.

use super::catalog::Catalog;
use super::config::{self, ServerConfig};
use super::downstream::Downstream;
use std::path::PathBuf;
use std::sync::{Arc, RwLock};
use std::time::Duration;

/// How often the config file is read to see whether it changed.
pub const POLL: Duration = Duration::from_millis(500);

/// The running servers, by the index their tools' routes carry. A stopped server's slot stays
/// empty (indexes are never reused, so a late answer of an old server cannot land on a new one).
pub struct Servers {
    slots: RwLock<Vec<Option<Arc<Downstream>>>>,
}

impl Servers {
    /// The servers of the first config, at their indexes.
    pub fn new(servers: &[Arc<Downstream>]) -> Arc<Servers> {
        Arc::new(Servers {
            slots: RwLock::new(servers.iter().cloned().map(Some).collect()),
        })
    }

    /// The server at `index`, unless it was stopped.
    pub fn get(&self, index: usize) -> Option<Arc<Downstream>> {
        self.read().get(index).cloned().flatten()
    }

    /// The servers running now, in index order.
    pub fn live(&self) -> Vec<Arc<Downstream>> {
        self.read().iter().flatten().cloned().collect()
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, Vec<Option<Arc<Downstream>>>> {
        self.slots
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, Vec<Option<Arc<Downstream>>>> {
        self.slots
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// Follows the config file until the proxy exits.
pub struct Reloader {
    pub path: PathBuf,
    /// Whether a change of the file reloads it (SIGHUP always does).
    pub watch: bool,
    pub servers: Arc<Servers>,
    pub catalog: Arc<Catalog>,
    pub on_change: Arc<dyn Fn() + Send + Sync>,
}

impl Reloader {
    /// Watches the file and SIGHUP; applies each new config that parses.
    pub async fn watch(self) {
        let mut last = std::fs::read(&self.path).ok();
        let mut hangup = hangups();
        let mut tick = tokio::time::interval(POLL);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            let forced = tokio::select! {
                _ = tick.tick() => false,
                Some(()) = next(&mut hangup) => true,
            };
            if !forced && !self.watch {
                continue;
            }
            let now = std::fs::read(&self.path).ok();
            if !forced && now == last {
                continue;
            }
            last = now;
            match config::load(&self.path) {
                Ok(servers) => {
                    let what = self.apply(servers);
                    super::console::activity::note_reload(true, what);
                }
                Err(e) => {
                    eprintln!(
                        "toolregistry mcp: the config is refused ({e}); the running servers keep going as they were"
                    );
                    super::console::activity::note_reload(false, e);
                }
            }
        }
    }

    /// Starts, stops and restarts servers so that the running set matches `wanted`; says what
    /// changed.
    fn apply(&self, wanted: Vec<ServerConfig>) -> String {
        let (mut added, mut removed, mut restarted) = (Vec::new(), Vec::new(), Vec::new());
        let running = self.servers.live();
        for server in &running {
            match wanted.iter().find(|c| c.name == server.config.name) {
                Some(c) if *c == server.config => {}
                Some(_) => {
                    self.stop(server, false);
                    restarted.push(server.config.name.clone());
                }
                None => {
                    self.stop(server, true);
                    removed.push(server.config.name.clone());
                }
            }
        }
        for c in wanted {
            let kept = running
                .iter()
                .any(|s| s.config.name == c.name && s.config == c);
            if kept {
                continue;
            }
            if !restarted.contains(&c.name) {
                added.push(c.name.clone());
            }
            let server = {
                let mut slots = self.servers.write();
                let server = Downstream::new(slots.len(), c);
                slots.push(Some(Arc::clone(&server)));
                server
            };
            tokio::spawn(server.supervise(
                Arc::clone(&self.catalog),
                Arc::clone(&self.on_change),
                false,
            ));
        }
        if added.is_empty() && removed.is_empty() && restarted.is_empty() {
            return "no server changed".into();
        }
        let what = format!("added {added:?}, removed {removed:?}, restarted {restarted:?}");
        eprintln!("toolregistry mcp: config reloaded: {what}");
        (self.on_change)();
        what
    }

    fn stop(&self, server: &Arc<Downstream>, removed: bool) {
        server.stop();
        if let Some(slot) = self.servers.write().get_mut(server.index()) {
            *slot = None;
        }
        self.catalog.remove_server(server.index());
        if removed {
            self.catalog.gate().forget(&server.config.name);
        }
    }
}

#[cfg(unix)]
type Hangups = Option<tokio::signal::unix::Signal>;
#[cfg(not(unix))]
type Hangups = Option<()>;

/// SIGHUP, where there is one (a failure to install the handler leaves the file watch).
fn hangups() -> Hangups {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        signal(SignalKind::hangup())
            .map_err(|e| eprintln!("toolregistry mcp: SIGHUP will not reload the config: {e}"))
            .ok()
    }
    #[cfg(not(unix))]
    {
        None
    }
}

async fn next(hangup: &mut Hangups) -> Option<()> {
    #[cfg(unix)]
    if let Some(s) = hangup {
        return s.recv().await;
    }
    let _ = hangup;
    std::future::pending().await
}
