//! Which host calls of a plan run when: in order on the caller's thread, or up to N at once on
//! threads started and joined here. A tool marked `"concurrency_safe": false` always runs alone.

use super::{HostCall, HostOutcome, Plan, run_host_call};
use crate::registry::Registry;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Runs every host call of `plan` with the registry's host functions; the outcomes are in the
/// plan's order.
pub(crate) fn run_host_calls(
    registry: &Registry,
    plan: &Plan,
    parallel: usize,
) -> Vec<HostOutcome> {
    let calls: Vec<&HostCall> = plan.host_calls().collect();
    if parallel <= 1 || calls.len() <= 1 {
        return calls.iter().map(|c| run_host_call(registry, c)).collect();
    }
    let mut results: Vec<Option<HostOutcome>> = vec![None; calls.len()];
    let mut start = 0;
    while start < calls.len() {
        if !calls[start].concurrency_safe {
            results[start] = Some(run_host_call(registry, calls[start]));
            start += 1;
            continue;
        }
        let end = (start..calls.len())
            .find(|&i| !calls[i].concurrency_safe)
            .unwrap_or(calls.len());
        run_group(
            registry,
            &calls[start..end],
            &mut results[start..end],
            parallel,
        );
        start = end;
    }
    results
        .into_iter()
        .map(|r| r.expect("every call ran"))
        .collect()
}

/// Runs `calls` on up to `parallel` scoped threads, each taking the next call in turn.
fn run_group(
    registry: &Registry,
    calls: &[&HostCall],
    results: &mut [Option<HostOutcome>],
    parallel: usize,
) {
    let next = AtomicUsize::new(0);
    let slots: Vec<Mutex<Option<HostOutcome>>> = calls.iter().map(|_| Mutex::new(None)).collect();
    std::thread::scope(|scope| {
        for _ in 0..parallel.min(calls.len()) {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(c) = calls.get(i) else { break };
                    let outcome = run_host_call(registry, c);
                    *slots[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(outcome);
                }
            });
        }
    });
    for (r, slot) in results.iter_mut().zip(slots) {
        *r = slot.into_inner().unwrap_or_else(|e| e.into_inner());
    }
}
