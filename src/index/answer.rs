//! Answers: each hit with a one- or two-sentence summary built from what
//! the parse knows and a snippet of whole lines, bounded, cuts marked; the
//! whole answer within a token budget.

use super::table::Summary;
use super::units::{self, first_sentence};
use super::{UnitRef, tokens};
use serde::Serialize;

/// Default token budget of an answer (`max_tokens`). Within it a hit shows
/// only the lines that matched ([`matched_lines`]); a larger budget brings
/// snippets ([`snippet`]).
pub const DEFAULT_MAX_TOKENS: usize = 1000;
/// Lines that matched, shown per hit within the default budget.
pub const MATCHED_LINES: usize = 2;
/// Characters of one matched line at most.
const MATCHED_CHARS: usize = 100;
/// Default number of hits (`max_results`).
pub const DEFAULT_MAX_RESULTS: usize = 8;
/// Lines of a snippet at most.
pub const SNIPPET_LINES: usize = 8;
/// Characters of one snippet line at most.
const LINE_CHARS: usize = 160;

/// One ranked code unit.
#[derive(Debug, Clone, Serialize)]
pub struct Hit {
    pub path: String,
    pub start_line: usize,
    pub end_line: usize,
    pub kind: String,
    /// Pass as `symbol` to extract_code (absent for module-level code and
    /// text windows).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub name_path: String,
    pub score: f32,
    pub summary: String,
    /// Whole lines of the unit; `⋮` marks lines left out, `…` a cut line.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub snippet: String,
}

/// The answer of `search_codebase` / `scalpel find`.
#[derive(Debug, Clone, Serialize)]
pub struct SearchAnswer {
    pub query: String,
    /// `hybrid` (keyword + structure + embeddings) or `keyword` (keyword +
    /// structure: no model).
    pub mode: String,
    pub results: Vec<Hit>,
    /// Files indexed so far, and files found under the root.
    pub indexed_files: usize,
    pub total_files: usize,
    /// The index covered every file when the search ran.
    pub complete: bool,
    /// Hits or snippets left out to stay within the token budget.
    pub truncated: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

/// The summary of a unit: kind, name, parent, signature, the doc comment's
/// first sentence (`sd`: the unit's, from the table), and whether it is a
/// test or exported.
pub fn summary(u: &UnitRef, sd: &Summary) -> String {
    let mut s = match (u.name_path.is_empty(), u.kind) {
        (true, "text") => format!("lines {}-{} of {}", u.start_line, u.end_line, u.name),
        (true, _) => format!("module-level code of {}", u.name),
        (false, _) => {
            let mut s = format!("{} {}", u.kind, u.name_path);
            if let Some(p) = u.parent
                && !u.name_path.contains(p)
            {
                s.push_str(&format!(" in {p}"));
            }
            if !sd.signature.is_empty() {
                let sig: String = sd.signature.chars().take(120).collect();
                s.push_str(&format!(": `{sig}`"));
            }
            s
        }
    };
    let mut tags = Vec::new();
    if u.part > 0 {
        tags.push(format!("part {}", u.part));
    }
    if u.flags.test {
        tags.push("test".to_string());
    }
    if u.flags.exported {
        tags.push("exported".to_string());
    }
    if u.flags.vendored {
        tags.push("vendored or generated".to_string());
    }
    if u.flags.dts {
        tags.push("declaration file".to_string());
    }
    if !tags.is_empty() {
        s.push_str(&format!(" ({})", tags.join(", ")));
    }
    s.push('.');
    let doc = first_sentence(&sd.doc, 160);
    if !doc.is_empty() {
        s.push(' ');
        s.push_str(doc);
        if !doc.ends_with('.') {
            s.push('.');
        }
    }
    s
}

fn cut_line(line: &str, chars: usize) -> String {
    let line = line.trim_end();
    if line.chars().count() <= chars {
        return line.to_string();
    }
    let mut s: String = line.chars().take(chars).collect();
    s.push('…');
    s
}

/// How many of `query_tokens` a line holds.
fn token_hits(line: &str, query_tokens: &[String]) -> usize {
    let mut n = 0;
    tokens::for_each_token(line, |t| {
        if query_tokens.iter().any(|q| q == t) {
            n += 1;
        }
    });
    n
}

/// The lean snippet of the default answer: at most `max_lines` lines of a
/// unit's `body` that hold a query word (the most words first, shown in
/// their order, trimmed; `⋮` between lines apart), none when no line does:
/// the summary already gives the signature and the location.
pub fn matched_lines(body: &str, query_tokens: &[String], max_lines: usize) -> String {
    let lines: Vec<&str> = body.lines().collect();
    let mut best: Vec<(usize, usize)> = lines
        .iter()
        .enumerate()
        .map(|(i, l)| (token_hits(l, query_tokens), i))
        .filter(|(n, _)| *n > 0)
        .collect();
    best.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut picked: Vec<usize> = best.into_iter().take(max_lines).map(|(_, i)| i).collect();
    picked.sort_unstable();
    let mut out = String::new();
    let mut prev: Option<usize> = None;
    for i in picked {
        if prev.is_some_and(|p| i > p + 1) {
            out.push_str("⋮\n");
        }
        out.push_str(&cut_line(lines[i].trim_start(), MATCHED_CHARS));
        out.push('\n');
        prev = Some(i);
    }
    out
}

/// A unit's body read back from its file's `text`: the lines of `ranges`
/// (`Index::body_lines`), cut as `units.rs` cuts a body. The index keeps
/// no bodies; the caller checks that the file is the one indexed.
pub fn body_of(text: &str, ranges: &[(usize, usize)]) -> String {
    let starts = units::line_starts(text);
    let mut body = String::new();
    for &(a, b) in ranges {
        body.push_str(units::lines_text(text, &starts, a.max(1), b.max(1)));
    }
    units::capped(body)
}

/// Up to `max_lines` whole lines of a unit's `body`: its first lines, and
/// when the best-matching line is further down, a few lines around it; `⋮`
/// marks what is left out.
pub fn snippet(body: &str, query_tokens: &[String], max_lines: usize) -> String {
    let lines: Vec<&str> = body.lines().collect();
    if lines.is_empty() || max_lines == 0 {
        return String::new();
    }
    let hits = |l: &str| token_hits(l, query_tokens);
    let head = max_lines.min(lines.len());
    let best = lines
        .iter()
        .enumerate()
        .skip(head)
        .map(|(i, l)| (hits(l), i))
        .filter(|(n, _)| *n > 0)
        .max_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
    let mut picked: Vec<usize> = match best {
        Some((_, at)) if max_lines >= 4 => {
            let first = max_lines / 2;
            let around = max_lines - first;
            let from = at.saturating_sub(around / 2).max(first);
            (0..first)
                .chain(from..(from + around).min(lines.len()))
                .collect()
        }
        _ => (0..head).collect(),
    };
    picked.dedup();
    let mut out = String::new();
    let mut prev: Option<usize> = None;
    for &i in &picked {
        if prev.is_some_and(|p| i > p + 1) {
            out.push_str("⋮\n");
        }
        out.push_str(&cut_line(lines[i], LINE_CHARS));
        out.push('\n');
        prev = Some(i);
    }
    if prev.is_some_and(|p| p + 1 < lines.len()) {
        out.push_str(&format!(
            "⋮ ({} more lines)\n",
            lines.len() - prev.unwrap_or(0) - 1
        ));
    }
    out
}

/// Rough tokens of a rendered hit.
pub fn hit_tokens(h: &Hit) -> usize {
    (h.path.len() + h.kind.len() + h.name_path.len() + h.summary.len() + h.snippet.len() + 40)
        .div_ceil(4)
}
