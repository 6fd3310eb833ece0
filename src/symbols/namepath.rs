//! Name-path addressing: `name`, `Outer.inner` (suffix match), `/Outer.inner`
//! (from the top level), separators `.` `::` `/` interchangeable, `#N` for
//! the N-th match in document order, optional kind filter.
//!
//! **Invariant:** resolution never guesses. More than one match is
//! `AMBIGUOUS` with an address per candidate that resolves to exactly that
//! candidate; no match is `NOT_FOUND` with ranked suggestions.

use super::Symbol;
use crate::error::{Error, ErrorCode, Result};
use crate::lang::query::SYMBOL_KINDS;
use std::collections::HashMap;

/// How many "did you mean" suggestions a miss carries.
const MAX_SUGGESTIONS: usize = 5;
/// Similarity below which a name is not worth suggesting.
const SUGGEST_THRESHOLD: f64 = 0.72;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamePathQuery {
    pub absolute: bool,
    pub segments: Vec<String>,
    /// 1-based index among the matches (`#N`).
    pub index: Option<usize>,
}

impl NamePathQuery {
    pub fn parse(input: &str) -> Result<NamePathQuery> {
        let raw = input.trim();
        let mut rest = raw;
        let mut index = None;
        if let Some(pos) = rest.rfind('#') {
            let digits = &rest[pos + 1..];
            if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
                let n: usize = digits.parse().unwrap_or(0);
                if n == 0 {
                    return Err(bad_path(input, "`#N` counts from 1"));
                }
                index = Some(n);
                rest = &rest[..pos];
            }
        }
        let absolute = rest.starts_with('/') || rest.starts_with("::") || rest.starts_with('.');
        let body = rest.trim_start_matches(['/', ':', '.']);
        let segments = split_path(body);
        if segments.is_empty() {
            return Err(bad_path(input, "it names no symbol"));
        }
        if segments.iter().any(|s| s.is_empty()) {
            return Err(bad_path(input, "it has an empty segment"));
        }
        Ok(NamePathQuery {
            absolute,
            segments,
            index,
        })
    }

    fn matches(&self, sym: &Symbol) -> bool {
        let segs = &sym.segments;
        if self.absolute {
            segs.len() == self.segments.len()
                && segs.iter().zip(&self.segments).all(|(a, b)| a == b)
        } else {
            segs.len() >= self.segments.len()
                && segs[segs.len() - self.segments.len()..]
                    .iter()
                    .zip(&self.segments)
                    .all(|(a, b)| a == b)
        }
    }
}

fn bad_path(input: &str, why: &str) -> Error {
    Error::new(
        ErrorCode::InvalidArgument,
        format!("`{input}` is not a valid name path: {why}"),
    )
    .with_suggestion("write a name path like `Class.method`, `Type::method`, `/top_level` or `f#2`")
    .with_details(serde_json::json!({"symbol": input}))
}

/// Split a name path on `::`, `.` and `/`, except inside brackets and quotes
/// (JS computed names like `[Symbol.iterator]`, TS names like `"a.b"`), and
/// drop generic arguments from each segment. Symbol names go through the same
/// function, so a symbol's segments always match the query that names it.
pub(crate) fn split_path(path: &str) -> Vec<String> {
    let mut segments = Vec::new();
    let mut current = String::new();
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut chars = path.chars().peekable();
    while let Some(c) = chars.next() {
        if let Some(q) = quote {
            current.push(c);
            if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '"' | '`' => {
                quote = Some(c);
                current.push(c);
            }
            '[' | '(' | '{' => {
                depth += 1;
                current.push(c);
            }
            ']' | ')' | '}' => {
                depth = depth.saturating_sub(1);
                current.push(c);
            }
            '.' | '/' if depth == 0 => segments.push(std::mem::take(&mut current)),
            ':' if depth == 0 && chars.peek() == Some(&':') => {
                chars.next();
                segments.push(std::mem::take(&mut current));
            }
            _ => current.push(c),
        }
    }
    segments.push(current);
    segments.iter().map(|s| strip_generics(s)).collect()
}

/// `Point<T>` → `Point` (agents often paste types with their parameters).
fn strip_generics(seg: &str) -> String {
    let mut out = String::new();
    let mut depth = 0usize;
    for c in seg.chars() {
        match c {
            '<' => depth += 1,
            '>' if depth > 0 => depth -= 1,
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out.trim().to_string()
}

/// Resolve `query` (with an optional `kind` filter) to exactly one symbol.
pub fn resolve<'a>(symbols: &'a [Symbol], query: &str, kind: Option<&str>) -> Result<&'a Symbol> {
    let q = NamePathQuery::parse(query)?;
    if let Some(k) = kind
        && !SYMBOL_KINDS.contains(&k)
    {
        let nearest = SYMBOL_KINDS
            .iter()
            .max_by(|a, b| strsim::jaro_winkler(a, k).total_cmp(&strsim::jaro_winkler(b, k)))
            .copied()
            .unwrap_or("function");
        return Err(Error::invalid_argument(format!("unknown kind `{k}`"))
            .with_suggestion(format!(
                "did you mean `{nearest}`? kinds: {}",
                SYMBOL_KINDS.join(", ")
            ))
            .with_details(serde_json::json!({"kind": k, "legal": SYMBOL_KINDS})));
    }
    let by_path: Vec<&Symbol> = symbols.iter().filter(|s| q.matches(s)).collect();
    let matched: Vec<&Symbol> = by_path
        .iter()
        .copied()
        .filter(|s| kind.is_none_or(|k| s.kind == k))
        .collect();

    if matched.is_empty() {
        return Err(not_found(symbols, query, &q, kind, &by_path));
    }
    if let Some(n) = q.index {
        return matched.get(n - 1).copied().ok_or_else(|| {
            Error::new(
                ErrorCode::NotFound,
                format!(
                    "`{query}` asks for match #{n}, but only {} symbol(s) match",
                    matched.len()
                ),
            )
            .with_suggestion(format!(
                "use one of: {}",
                matched
                    .iter()
                    .map(|s| s.address())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
            .with_details(serde_json::json!({
                "symbol": query,
                "candidates": matched.iter().map(|s| candidate(s)).collect::<Vec<_>>(),
            }))
        });
    }
    if matched.len() == 1 {
        return Ok(matched[0]);
    }
    let list: Vec<String> = matched
        .iter()
        .map(|s| {
            format!(
                "{} ({}, lines {}-{})",
                s.address(),
                s.kind,
                s.start_line,
                s.end_line
            )
        })
        .collect();
    Err(Error::new(
        ErrorCode::Ambiguous,
        format!("`{query}` matches {} symbols", matched.len()),
    )
    .with_suggestion(format!(
        "pass one of these addresses verbatim: {}",
        list.join("; ")
    ))
    .with_details(serde_json::json!({
        "symbol": query,
        "candidates": matched.iter().map(|s| candidate(s)).collect::<Vec<_>>(),
    })))
}

fn candidate(s: &Symbol) -> serde_json::Value {
    let mut v = serde_json::json!({
        "address": s.address(),
        "name_path": s.name_path,
        "kind": s.kind,
        "start_line": s.start_line,
        "end_line": s.end_line,
    });
    if let Some(c) = &s.context {
        v["context"] = serde_json::Value::String(c.clone());
    }
    v
}

fn not_found(
    symbols: &[Symbol],
    query: &str,
    q: &NamePathQuery,
    kind: Option<&str>,
    by_path: &[&Symbol],
) -> Error {
    if let (Some(k), false) = (kind, by_path.is_empty()) {
        let kinds: Vec<&str> = by_path.iter().map(|s| s.kind.as_str()).collect();
        return Error::new(
            ErrorCode::NotFound,
            format!(
                "`{query}` exists, but as {} rather than {k}",
                kinds.join(", ")
            ),
        )
        .with_suggestion(format!("drop the kind filter or use ⟦kind={}⟧", kinds[0]))
        .with_details(serde_json::json!({
            "symbol": query, "kind": k,
            "candidates": by_path.iter().map(|s| candidate(s)).collect::<Vec<_>>(),
        }));
    }
    let last = q.segments.last().map(String::as_str).unwrap_or("");
    let wanted = q.segments.join("/").to_lowercase();
    let mut scored: Vec<(f64, &Symbol)> = symbols
        .iter()
        .filter(|s| kind.is_none_or(|k| s.kind == k))
        .map(|s| {
            let by_name = strsim::jaro_winkler(&last.to_lowercase(), &s.name.to_lowercase());
            let by_path =
                strsim::normalized_levenshtein(&wanted, &s.segments.join("/").to_lowercase());
            // The exact name under another parent is the best hint of all.
            let exact = if s.name == last { 1.0 } else { 0.0 };
            (by_name.max(by_path).max(exact), s)
        })
        .filter(|(score, _)| *score >= SUGGEST_THRESHOLD)
        .collect();
    scored.sort_by(|a, b| {
        b.0.total_cmp(&a.0)
            .then(a.1.start_byte.cmp(&b.1.start_byte))
    });
    scored.truncate(MAX_SUGGESTIONS);
    let suggestion = if scored.is_empty() {
        "list the file's symbols (⟦list_symbols⟧) to see what it defines".to_string()
    } else {
        format!(
            "did you mean {}?",
            scored
                .iter()
                .map(|(_, s)| format!("`{}` ({}, line {})", s.address(), s.kind, s.start_line))
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    let filtered = kind.map(|k| format!(" of kind {k}")).unwrap_or_default();
    Error::new(
        ErrorCode::NotFound,
        format!("no symbol `{query}`{filtered} in this file"),
    )
    .with_suggestion(suggestion)
    .with_details(serde_json::json!({
        "symbol": query,
        "kind": kind,
        "suggestions": scored.iter().map(|(score, s)| {
            let mut c = candidate(s);
            c["similarity"] = serde_json::json!((score * 100.0).round() / 100.0);
            c
        }).collect::<Vec<_>>(),
        "symbol_count": symbols.len(),
    }))
}

/// Give every symbol whose name path is not a unique address one that is:
/// `/path` when only the suffix rule makes it ambiguous, `path#k` or
/// `/path#k` for true duplicates (overloads, `@property` + setter, ...).
pub(crate) fn assign_addresses(symbols: &mut [Symbol]) {
    let mut suffix_count: HashMap<Vec<&str>, usize> = HashMap::new();
    let mut exact_count: HashMap<Vec<&str>, usize> = HashMap::new();
    for s in symbols.iter() {
        let segs: Vec<&str> = s.segments.iter().map(String::as_str).collect();
        for i in 0..segs.len() {
            *suffix_count.entry(segs[i..].to_vec()).or_default() += 1;
        }
        *exact_count.entry(segs).or_default() += 1;
    }
    let mut seen: HashMap<Vec<String>, usize> = HashMap::new();
    let addresses: Vec<Option<String>> = symbols
        .iter()
        .map(|s| {
            let segs: Vec<&str> = s.segments.iter().map(String::as_str).collect();
            let suffixes = suffix_count[&segs];
            let exact = exact_count[&segs];
            let ordinal = {
                let n = seen.entry(s.segments.clone()).or_default();
                *n += 1;
                *n
            };
            if suffixes == 1 {
                None
            } else if exact == 1 {
                Some(format!("/{}", s.name_path))
            } else if suffixes == exact {
                Some(format!("{}#{ordinal}", s.name_path))
            } else {
                Some(format!("/{}#{ordinal}", s.name_path))
            }
        })
        .collect();
    for (s, a) in symbols.iter_mut().zip(addresses) {
        s.address = a;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_forms() {
        let q = NamePathQuery::parse("Point::new#2").unwrap();
        assert_eq!(q.segments, ["Point", "new"]);
        assert_eq!(q.index, Some(2));
        assert!(!q.absolute);
        let q = NamePathQuery::parse("/a.b/c").unwrap();
        assert!(q.absolute);
        assert_eq!(q.segments, ["a", "b", "c"]);
        let q = NamePathQuery::parse("Wrapper<T>::get").unwrap();
        assert_eq!(q.segments, ["Wrapper", "get"]);
        let q = NamePathQuery::parse("A.#secret").unwrap();
        assert_eq!(q.segments, ["A", "#secret"]);
        assert_eq!(q.index, None);
        let q = NamePathQuery::parse("Queryable.[util.inspect.custom]").unwrap();
        assert_eq!(q.segments, ["Queryable", "[util.inspect.custom]"]);
        let q = NamePathQuery::parse("&'_ std::ffi::OsStr::eq").unwrap();
        assert_eq!(q.segments, ["&'_ std", "ffi", "OsStr", "eq"]);
        assert_eq!(split_path("\"a.b\""), ["\"a.b\""]);
        for bad in ["", "/", "a..b", "f#0"] {
            assert_eq!(
                NamePathQuery::parse(bad).unwrap_err().code(),
                ErrorCode::InvalidArgument,
                "{bad}"
            );
        }
    }
}
