//! One-line summaries of the deferred tools, as the built-ins' descriptions and a
//! conversation's system text list them.

use super::*;

impl State {
    pub(crate) fn summaries(&self) -> Vec<Summary> {
        self.live_slots()
            .filter(|&(id, s)| s.tool.metadata().defer && self.is_enabled(id, s))
            .map(|(_, s)| Summary {
                name: s.tool.name().to_string(),
                description: first_sentence(s.tool.description()).to_string(),
                namespace: s.tool.namespace().map(str::to_string),
            })
            .collect()
    }
}

impl Registry {
    /// One-line summaries of the enabled deferred tools, in registration order.
    pub fn deferred_summaries(&self) -> Result<Vec<Summary>> {
        Ok(self.shared.read()?.summaries())
    }

    /// [`deferred_summaries`](Self::deferred_summaries) as JSON: `[{"name", "description", "namespace"}]`.
    pub fn deferred_summaries_json(&self) -> Result<String> {
        let summaries = self.deferred_summaries()?;
        let mut out = vec![b'['];
        for (i, s) in summaries.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            out.extend_from_slice(b"{\"name\":");
            write_str(&mut out, &s.name);
            out.extend_from_slice(b",\"description\":");
            write_str(&mut out, &s.description);
            out.extend_from_slice(b",\"namespace\":");
            write_opt_str(&mut out, s.namespace.as_deref());
            out.push(b'}');
        }
        out.push(b']');
        Ok(into_string(out))
    }
}

/// The first sentence of the first line of a tool description, for one-line summaries.
///
/// Cuts after the first `.`, `!` or `?` followed by whitespace or the end of the line, or after
/// the first `。`, `！` or `？`; keeps the terminator. Without one, the whole first line.
pub fn first_sentence(description: &str) -> &str {
    let line = description.split('\n').next().unwrap_or("").trim();
    let mut chars = line.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let end = i + c.len_utf8();
        match c {
            '。' | '！' | '？' => return &line[..end],
            '.' | '!' | '?' if chars.peek().is_none_or(|(_, next)| next.is_whitespace()) => {
                return &line[..end];
            }
            _ => {}
        }
    }
    line
}

/// One line of the deferred-tools list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    /// Registered name.
    pub name: String,
    /// First sentence of the description.
    pub description: String,
    /// Namespace, if any.
    pub namespace: Option<String>,
}
