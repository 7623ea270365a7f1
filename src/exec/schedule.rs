//! Which calls of a batch run when: in order on the caller's thread, or up to N at once on
//! threads started and joined here. A tool marked `"concurrency_safe": false` always runs alone.

use super::run_call;
use crate::provider::{CallOutcome, ToolCall};
use crate::registry::{CallTarget, Registry};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Runs every call; the outcomes are in call order.
pub(super) fn run_all(
    registry: &Registry,
    calls: &[ToolCall],
    parallel: usize,
) -> Vec<CallOutcome> {
    if parallel <= 1 || calls.len() <= 1 {
        return calls
            .iter()
            .map(|c| run_call(registry, &c.name, &c.arguments))
            .collect();
    }
    let mut results: Vec<Option<CallOutcome>> = vec![None; calls.len()];
    let mut start = 0;
    while start < calls.len() {
        if runs_alone(registry, &calls[start]) {
            let c = &calls[start];
            results[start] = Some(run_call(registry, &c.name, &c.arguments));
            start += 1;
            continue;
        }
        let end = (start..calls.len())
            .find(|&i| runs_alone(registry, &calls[i]))
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

fn runs_alone(registry: &Registry, call: &ToolCall) -> bool {
    matches!(registry.call_target(&call.name), Ok(CallTarget::Tool(t)) if !t.concurrency_safe)
}

/// Runs `calls` on up to `parallel` scoped threads, each taking the next call in turn.
fn run_group(
    registry: &Registry,
    calls: &[ToolCall],
    results: &mut [Option<CallOutcome>],
    parallel: usize,
) {
    let next = AtomicUsize::new(0);
    let slots: Vec<Mutex<Option<CallOutcome>>> = calls.iter().map(|_| Mutex::new(None)).collect();
    std::thread::scope(|scope| {
        for _ in 0..parallel.min(calls.len()) {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(c) = calls.get(i) else { break };
                    let outcome = run_call(registry, &c.name, &c.arguments);
                    *slots[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(outcome);
                }
            });
        }
    });
    for (r, slot) in results.iter_mut().zip(slots) {
        *r = slot.into_inner().unwrap_or_else(|e| e.into_inner());
    }
}
