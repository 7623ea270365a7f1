//! What one run of a model's calls tells usage ([`crate::usage`]): the tools whose calls ran
//! (the host ran them and they succeeded) were used together in one task. Calls the library
//! answered (searches, unknown or disabled tools, arguments that break the schema), failures
//! and calls no host function ran do not count.

use super::{Plan, Step};
use crate::provider::CallOutcome;

/// The registered names of the calls of `plan` that ran, in call order (repeats kept: usage
/// counts each tool once per task).
pub(crate) fn ran<'p>(plan: &'p Plan, results: &[CallOutcome]) -> Vec<&'p str> {
    plan.calls
        .iter()
        .zip(results)
        .filter_map(|(c, r)| match (&c.step, r) {
            (Step::Host(h), CallOutcome::Success(_)) => Some(h.name.as_str()),
            _ => None,
        })
        .collect()
}
