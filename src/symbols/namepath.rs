//! Name-path addressing: `name`, `Outer.inner` (suffix match), `/Outer.inner`
//! (from the top level), separators `.` `::` `/` `\` interchangeable (PHP
//! writes `App\Shop\Cart::add`, a leading `\` meaning the top), `#N` for
//! the N-th match in document order, optional kind filter.
//!
//! **Invariant:** resolution never guesses. More than one match is
//! `AMBIGUOUS` with an address per candidate that resolves to exactly that
//! candidate; no match is `NOT_FOUND` with ranked suggestions.

use super::Symbol;
use crate::error::{Error, ErrorCode, Result};
use crate::lang::query::SYMBOL_KINDS;
use rustc_hash::FxHashMap;

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
        let absolute = rest.starts_with(['/', '.', '\\']) || rest.starts_with("::");
        let body = rest.trim_start_matches(['/', ':', '.', '\\']);
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
        let own = if sym.phrase {
            self.matches_whole(&sym.segments)
        } else {
            self.matches_segments(&sym.segments)
        };
        own || sym
            .alias
            .as_ref()
            .is_some_and(|(segs, _)| self.matches_whole(segs))
    }

    fn matches_whole(&self, segs: &[String]) -> bool {
        segs.len() == self.segments.len() && segs.iter().zip(&self.segments).all(|(a, b)| a == b)
    }

    fn matches_segments(&self, segs: &[String]) -> bool {
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

/// Split a name path on `::`, `.`, `/` and `\`, except inside brackets and quotes
/// (JS computed names like `[Symbol.iterator]`, TS names like `"a.b"`), and
/// drop generic arguments from each segment. Symbol names go through the same
/// function, so a symbol's segments always match the query that names it.
pub(crate) fn split_path(path: &str) -> Vec<String> {
    // Most names are one plain identifier: nothing to split or strip.
    let plain = |c: char| {
        !matches!(
            c,
            '.' | '/' | '\\' | ':' | '"' | '`' | '[' | '(' | '{' | '<' | '>'
        )
    };
    if path.chars().all(plain) && path.trim().len() == path.len() {
        return vec![path.to_string()];
    }
    split_stripped(path)
}

/// [`split_path`] without its shortcut for plain names.
fn split_stripped(path: &str) -> Vec<String> {
    split_raw(path).iter().map(|s| strip_generics(s)).collect()
}

/// A name path's segments as written, generic arguments kept, joined with
/// one separator: how an exact name path is told from the generic-stripped
/// match (`impl Wrapper<Vec<u8>>` from `impl Wrapper<V>`).
fn exact_key(path: &str) -> String {
    let path = path.trim();
    let path = path.strip_prefix('/').unwrap_or(path);
    split_raw(path)
        .iter()
        .map(|s| s.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect::<Vec<_>>()
        .join("\u{1}")
}

/// [`split_path`] without dropping generic arguments.
fn split_raw(path: &str) -> Vec<String> {
    let mut segments = Vec::new();
    let mut current = String::new();
    let mut depth = 0usize;
    let mut angle = 0usize;
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
            // Generic arguments (`From<io::Error>`) are not split either.
            '<' if depth == 0 => {
                angle += 1;
                current.push(c);
            }
            '>' if depth == 0 && angle > 0 => {
                angle -= 1;
                current.push(c);
            }
            // `\` is PHP's namespace separator; no language's identifier
            // holds one, and a quoted name keeps its own (above).
            '.' | '/' | '\\' if depth == 0 && angle == 0 => {
                segments.push(std::mem::take(&mut current))
            }
            ':' if depth == 0 && angle == 0 && chars.peek() == Some(&':') => {
                chars.next();
                segments.push(std::mem::take(&mut current));
            }
            _ => current.push(c),
        }
    }
    segments.push(current);
    segments
}

/// `Point<T>` → `Point` (agents often paste types with their parameters).
/// Only a trailing argument list goes: in `impl From<io::Error> for Error`
/// the trait's arguments tell two impls apart and stay.
fn strip_generics(seg: &str) -> String {
    let seg = seg.trim();
    if !seg.ends_with('>') {
        return seg.to_string();
    }
    let mut depth = 0usize;
    for (i, c) in seg.char_indices().rev() {
        match c {
            '>' => depth += 1,
            '<' => {
                depth -= 1;
                // Not at the start: an operator's name (Ruby `<=>`) is
                // no generic argument list.
                if depth == 0 && i > 0 {
                    return seg[..i].trim_end().to_string();
                }
            }
            _ => {}
        }
    }
    seg.to_string()
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
        // `#n` counts every symbol of the name path, whatever its kind, as
        // the addresses list_symbols shows do (`Matrix::Matrix#3`, a method
        // after two constructors); a kind given with it has to agree.
        let nth = by_path.get(n - 1).copied();
        if let (Some(s), Some(k)) = (nth, kind)
            && s.kind != k
        {
            return Err(Error::new(
                ErrorCode::NotFound,
                format!("`{query}` is a {}, not a {k}", s.kind),
            )
            .with_suggestion(format!("pass kind `{}`, or no kind", s.kind))
            .with_details(serde_json::json!({"symbol": query, "candidates": [candidate(s)]})));
        }
        return nth.ok_or_else(|| {
            Error::new(
                ErrorCode::NotFound,
                format!(
                    "`{query}` asks for match #{n}, but only {} symbol(s) match",
                    by_path.len()
                ),
            )
            .with_suggestion(format!(
                "use one of: {}",
                by_path
                    .iter()
                    .map(|s| s.address())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
            .with_details(serde_json::json!({
                "symbol": query,
                "candidates": by_path.iter().map(|s| candidate(s)).collect::<Vec<_>>(),
            }))
        });
    }
    if matched.len() == 1 {
        return Ok(matched[0]);
    }
    // A query with generic arguments that is one symbol's name path exactly
    // as listed: that symbol, whatever else matches once the arguments are
    // dropped (`impl Wrapper<Vec<u8>>` beside `impl<V> Wrapper<V>`).
    if q.index.is_none() && query.contains('<') {
        let key = exact_key(query);
        let mut exact = matched.iter().filter(|s| exact_key(&s.name_path) == key);
        if let (Some(one), None) = (exact.next(), exact.next()) {
            return Ok(one);
        }
    }
    if let Some(top) = obvious(&q, &matched) {
        return Ok(top);
    }
    // Top-level candidates first: `/X` is the address an agent most often means.
    let mut matched = matched;
    matched.sort_by_key(|s| !is_top_level(s));
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

/// The declarations an outline of `query` starts from: the one symbol it
/// resolves to or, when it matches several declarations of one name path at
/// one level (a TypeScript interface and the namespace or class of the same
/// name, which the language merges; two `impl Point` blocks), all of them in
/// document order. Anything else ambiguous stays `AMBIGUOUS`.
pub fn resolve_declarations<'a>(symbols: &'a [Symbol], query: &str) -> Result<Vec<&'a Symbol>> {
    let ambiguous = match resolve(symbols, query, None) {
        Ok(one) => return Ok(vec![one]),
        Err(e) if e.code() == ErrorCode::Ambiguous => e,
        Err(e) => return Err(e),
    };
    let q = NamePathQuery::parse(query)?;
    let matched: Vec<&Symbol> = symbols.iter().filter(|s| q.matches(s)).collect();
    let first = matched.first().copied();
    let merged = first.is_some_and(|f| {
        matched
            .iter()
            .all(|s| s.segments == f.segments && s.parent_index == f.parent_index)
    });
    if merged { Ok(matched) } else { Err(ambiguous) }
}

fn is_top_level(s: &Symbol) -> bool {
    s.parent_index.is_none() && s.parent.is_none()
}

/// The one rule by which a name that matches several symbols still resolves:
/// a bare name (one segment, not absolute, no `#N`) that matches exactly one
/// top-level definition, when every other match is nested and of a different
/// kind, means the top-level one (`ZodString` is the class, not the enum
/// member `ZodFirstPartyTypeKind.ZodString`; `find` is the module function,
/// not the method `Warehouse.find`). Two matches of the same kind are never
/// chosen between.
fn obvious<'a>(q: &NamePathQuery, matched: &[&'a Symbol]) -> Option<&'a Symbol> {
    if q.absolute || q.index.is_some() || q.segments.len() != 1 {
        return None;
    }
    let mut top = matched.iter().filter(|s| is_top_level(s));
    let first = *top.next()?;
    if top.next().is_some() {
        return None;
    }
    matched
        .iter()
        .all(|s| std::ptr::eq(*s, first) || s.kind != first.kind)
        .then_some(first)
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
        let kinds: Vec<&str> = by_path.iter().map(|s| s.kind).collect();
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
/// `/path` when only the suffix rule makes it ambiguous; for true duplicates
/// the path through the owner when that is unique (`impl Display for
/// Error::fmt`, a method of a trait impl); else `path#k` or `/path#k`
/// (overloads, `@property` + setter, ...).
pub(crate) fn assign_addresses(symbols: &mut [Symbol]) {
    // Counts are per symbol: a symbol matching a query through both its
    // path and its alias counts once.
    // Fx hashing: SipHash over every suffix of every path was a tenth of a
    // large file's outline.
    let sized = |n: usize| FxHashMap::with_capacity_and_hasher(n, Default::default());
    let mut suffix_count: FxHashMap<&[String], usize> = sized(symbols.len() * 2);
    let mut exact_count: FxHashMap<&[String], usize> = sized(symbols.len());
    // Reused for every symbol (an allocation each was a measurable part).
    let mut suffixes: Vec<&[String]> = Vec::new();
    let mut exact: Vec<&[String]> = Vec::new();
    for s in symbols.iter() {
        suffixes.clear();
        exact.clear();
        exact.push(&s.segments);
        if s.phrase {
            suffixes.push(&s.segments);
        } else {
            for i in 0..s.segments.len() {
                suffixes.push(&s.segments[i..]);
            }
        }
        if let Some((alias, _)) = &s.alias {
            exact.push(alias);
            suffixes.push(alias);
        }
        suffixes.sort();
        suffixes.dedup();
        exact.dedup();
        for &k in &suffixes {
            *suffix_count.entry(k).or_default() += 1;
        }
        for &k in &exact {
            *exact_count.entry(k).or_default() += 1;
        }
    }
    let mut seen: FxHashMap<&[String], usize> = sized(symbols.len());
    let mut addresses: Vec<Option<String>> = Vec::with_capacity(symbols.len());
    for s in symbols.iter() {
        let segs: &[String] = &s.segments;
        let suffixes = suffix_count[segs];
        let exact = exact_count[segs];
        let ordinal = {
            let own = seen.entry(segs).or_default();
            *own += 1;
            let own = *own;
            if let Some((alias, _)) = &s.alias
                && alias != segs
            {
                *seen.entry(alias).or_default() += 1;
            }
            own
        };
        let via_owner = s.alias.as_ref().and_then(|(alias, shown)| {
            if suffix_count[alias.as_slice()] == 1 {
                Some(shown.clone())
            } else if exact_count[alias.as_slice()] == 1 {
                Some(format!("/{shown}"))
            } else {
                None
            }
        });
        addresses.push(if suffixes == 1 {
            None
        } else if exact == 1 {
            Some(format!("/{}", s.name_path))
        } else if let Some(a) = via_owner {
            Some(a)
        } else if suffixes == exact {
            Some(format!("{}#{ordinal}", s.name_path))
        } else {
            Some(format!("/{}#{ordinal}", s.name_path))
        });
    }
    for (s, a) in symbols.iter_mut().zip(addresses) {
        s.address = a;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// The shortcut for plain names splits as the whole rules do.
        #[test]
        fn a_plain_name_splits_as_every_name_does(path in "[ a-z_$.:/<>()\\[\\]\"`{}\\\\é]{0,12}") {
            proptest::prop_assert_eq!(split_path(&path), split_stripped(&path));
        }
    }

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
        // PHP's own spelling: `\` separates, a leading one is the top.
        let q = NamePathQuery::parse(r"\App\Shop\Cart::add").unwrap();
        assert!(q.absolute);
        assert_eq!(q.segments, ["App", "Shop", "Cart", "add"]);
        assert_eq!(split_path(r"App\Shop"), ["App", "Shop"]);
        assert_eq!(split_path(r#""a\b""#), [r#""a\b""#]);
        // Generic arguments are not split and only a trailing list goes.
        assert_eq!(
            split_path("impl From<io::Error> for Error::from"),
            ["impl From<io::Error> for Error", "from"]
        );
        assert_eq!(split_path("HashMap<K, a::B>::get"), ["HashMap", "get"]);
        assert_eq!(split_path("impl Area for Vec<T>"), ["impl Area for Vec"]);
        for bad in ["", "/", "a..b", "f#0"] {
            assert_eq!(
                NamePathQuery::parse(bad).unwrap_err().code(),
                ErrorCode::InvalidArgument,
                "{bad}"
            );
        }
    }
}
