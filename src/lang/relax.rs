//! Query sources rewritten so that tree-sitter compiles them faster, for
//! the same matches.
//!
//! When tree-sitter compiles a query it analyses every *named* node of a
//! pattern that has child steps against the grammar's parse table, from
//! every parse state where that kind can appear. That analysis is most of
//! what a first command pays before its work begins (Python's references
//! query: 19 ms; C++'s tags: 104 ms). A wildcard parent `(_ ...)` is not
//! analysed. So, before a query a language lists in `relaxed_queries`
//! compiles, each named node with child steps that its parent's *field*
//! names, `field: (kind ...)`, becomes `field: (_ ...) @_relaxedN`, and
//! the pattern gains `(#kind? @_relaxedN kind)`: the engine's own
//! predicate ([`super::query::Compiled::admits`]), which drops every match
//! whose captured node is of another kind. The matches admitted are the
//! ones the query as written finds.
//!
//! Only under a field: there the parent holds one such child, so the
//! wildcard is tried at one node. A wildcard without a field is tried at
//! every child, and the queries so relaxed ran up to 80% longer (Go's tags;
//! session 43 measured both rules on every language, BENCHMARKS.md). Even
//! under fields, a few queries run longer relaxed (Go's and PHP's
//! references): a language lists only those whose run time did not grow.
//!
//! Left as written, because a wildcard there would not give the same
//! matches:
//! - a pattern's root (a wildcard root with a named child costs tree-sitter
//!   more to analyse, not less, and the outline's rooted walk needs a named
//!   root);
//! - the alternatives of an alternation `[...]` and the nodes of a sibling
//!   sequence: tree-sitter reports one match per pattern for the same
//!   nodes, so two alternatives that both become `(_ ...)` could hide one
//!   another (session 40's trap);
//! - a quantified node (`*`, `+`, `?`) and everything inside it: the
//!   repetition would take in nodes of other kinds and the predicate would
//!   then drop the whole match;
//! - a pattern followed by a quantifier at the top level, supertypes
//!   (`a/b`), hidden kinds (`_x`), `ERROR` and `MISSING`.
//!
//! Only the embedded queries are relaxed. Their as-written compile (where
//! tree-sitter refuses an impossible pattern) and the equality of the two
//! forms' matches on every fixture are tested
//! (`languages::relaxed_queries_find_what_the_queries_as_written_find`). A
//! query given with `--lang-dir` compiles as written, so its author gets
//! every error tree-sitter reports.

/// The capture names the rewrite adds start with this (a `_` capture is a
/// private helper to every query kind).
const PREFIX: &str = "_relaxed";

/// `source` with the rewrite above, or `None` when nothing is rewritten
/// (or the source does not read as a query: it then compiles as written,
/// and tree-sitter says what is wrong with it).
pub fn relax(source: &str) -> Option<String> {
    if source.contains(&format!("@{PREFIX}")) {
        return None;
    }
    let tokens = tokenize(source)?;
    let mut at = 0;
    let mut top = Vec::new();
    while at < tokens.len() {
        top.push(parse(&tokens, &mut at)?);
    }
    let mut edits: Vec<(usize, usize, String)> = Vec::new();
    let mut count = 0usize;
    let mut i = 0;
    while i < top.len() {
        let Item::List(list) = &top[i] else {
            i += 1;
            continue;
        };
        // The pattern's captures (and quantifier) follow it.
        let mut end = list.close + 1;
        let mut quantified = false;
        let mut j = i + 1;
        while let Some(Item::Atom(a)) = top.get(j) {
            let text = &source[a.start..a.end];
            if text.starts_with('@') {
                end = a.end;
            } else if matches!(text, "*" | "+" | "?") {
                quantified = true;
            } else {
                break;
            }
            j += 1;
        }
        i = j;
        if quantified {
            continue;
        }
        let mut kinds: Vec<(String, String)> = Vec::new();
        let grouping = !list.bracket && matches!(list.items.first(), Some(Item::List(_)));
        if grouping {
            // `((root ...) @c (#pred ...))`: the root and any sibling nodes
            // stay as written; below them, relax.
            for item in &list.items {
                if let Item::List(inner) = item
                    && !is_predicate(source, inner)
                {
                    below(source, inner, &mut edits, &mut kinds, &mut count);
                }
            }
        } else {
            below(source, list, &mut edits, &mut kinds, &mut count);
        }
        if kinds.is_empty() {
            continue;
        }
        let predicates: String = kinds
            .iter()
            .map(|(capture, kind)| format!(" (#kind? @{capture} {kind})"))
            .collect();
        if grouping {
            edits.push((list.close, list.close, predicates));
        } else {
            edits.push((list.open, list.open, "(".to_string()));
            edits.push((end, end, format!("{predicates})")));
        }
    }
    if edits.is_empty() {
        return None;
    }
    // Apply from the end so earlier offsets stay valid (no two edits
    // start at one offset: each is at a different paren or kind).
    edits.sort_by_key(|e| std::cmp::Reverse(e.0));
    let mut out = source.to_string();
    for (start, end, text) in edits {
        out.replace_range(start..end, &text);
    }
    Some(out)
}

/// Relax the nodes below `list` (itself left as written: a root, an
/// alternative or a sequence's node).
fn below(
    source: &str,
    list: &List,
    edits: &mut Vec<(usize, usize, String)>,
    kinds: &mut Vec<(String, String)>,
    count: &mut usize,
) {
    let items = &list.items;
    for (k, item) in items.iter().enumerate() {
        let Item::List(child) = item else {
            continue;
        };
        if is_predicate(source, child) || followed_by_quantifier(source, items, k) {
            continue;
        }
        if child.bracket {
            // Each alternative stays as written; below it, relax.
            for (j, alt) in child.items.iter().enumerate() {
                if let Item::List(a) = alt
                    && !a.bracket
                    && !is_predicate(source, a)
                    && !followed_by_quantifier(source, &child.items, j)
                {
                    below(source, a, edits, kinds, count);
                }
            }
            continue;
        }
        match child.items.first() {
            Some(Item::Atom(head)) => {
                let kind = &source[head.start..head.end];
                // Only a node its parent's field names: there the parent
                // holds one such child, so the wildcard is tried at one
                // node; without a field it is tried at every child, and
                // running the query cost up to 80% more (Go, session 43).
                let field = k > 0
                    && matches!(&items[k - 1], Item::Atom(a) if source[a.start..a.end].ends_with(':'));
                if field && relaxable(kind) && has_child_steps(source, child) {
                    let capture = format!("{PREFIX}{count}");
                    *count += 1;
                    edits.push((head.start, head.end, "_".to_string()));
                    edits.push((child.close + 1, child.close + 1, format!(" @{capture}")));
                    kinds.push((capture, kind.to_string()));
                }
                below(source, child, edits, kinds, count);
            }
            // A sibling sequence: its nodes stay as written.
            Some(Item::List(_)) => {
                for inner in &child.items {
                    if let Item::List(n) = inner
                        && !n.bracket
                        && !is_predicate(source, n)
                    {
                        below(source, n, edits, kinds, count);
                    }
                }
            }
            None => {}
        }
    }
}

/// A plain named kind: not a wildcard, supertype, hidden kind or the
/// parser's own `ERROR`/`MISSING`.
fn relaxable(kind: &str) -> bool {
    let mut bytes = kind.bytes();
    bytes.next().is_some_and(|c| c.is_ascii_alphabetic())
        && kind.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_')
        && kind != "ERROR"
        && kind != "MISSING"
}

/// Whether the node `(kind ...)` has a child step: a child node, an
/// alternation, a string or a `_`.
fn has_child_steps(source: &str, list: &List) -> bool {
    list.items.iter().skip(1).any(|item| match item {
        Item::List(l) => !is_predicate(source, l),
        Item::Atom(a) => {
            let text = &source[a.start..a.end];
            text.starts_with('"') || text == "_"
        }
    })
}

fn is_predicate(source: &str, list: &List) -> bool {
    !list.bracket
        && matches!(list.items.first(), Some(Item::Atom(a)) if source[a.start..a.end].starts_with('#'))
}

/// Whether `items[k]` is followed, after its captures, by a quantifier.
fn followed_by_quantifier(source: &str, items: &[Item], k: usize) -> bool {
    for item in &items[k + 1..] {
        let Item::Atom(a) = item else {
            return false;
        };
        match &source[a.start..a.end] {
            t if t.starts_with('@') => continue,
            "*" | "+" | "?" => return true,
            _ => return false,
        }
    }
    false
}

#[derive(Debug, Clone, Copy)]
enum Token {
    Open { at: usize, bracket: bool },
    Close { at: usize },
    Atom { start: usize, end: usize },
}

/// The tokens of a query source: parentheses and brackets, strings, and
/// runs of other characters; comments and whitespace dropped. `None` for
/// an unterminated string.
fn tokenize(source: &str) -> Option<Vec<Token>> {
    let bytes = source.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        match c {
            c if c.is_ascii_whitespace() => i += 1,
            b';' => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'"' => {
                let start = i;
                i += 1;
                loop {
                    match bytes.get(i)? {
                        b'\\' => i += 2,
                        b'"' => break,
                        _ => i += 1,
                    }
                }
                i += 1;
                out.push(Token::Atom { start, end: i });
            }
            b'(' | b'[' => {
                out.push(Token::Open {
                    at: i,
                    bracket: c == b'[',
                });
                i += 1;
            }
            b')' | b']' => {
                out.push(Token::Close { at: i });
                i += 1;
            }
            _ => {
                let start = i;
                while i < bytes.len()
                    && !bytes[i].is_ascii_whitespace()
                    && !matches!(bytes[i], b'(' | b')' | b'[' | b']' | b'"' | b';')
                {
                    i += 1;
                }
                out.push(Token::Atom { start, end: i });
            }
        }
    }
    Some(out)
}

struct List {
    open: usize,
    close: usize,
    bracket: bool,
    items: Vec<Item>,
}

struct Atom {
    start: usize,
    end: usize,
}

enum Item {
    List(List),
    Atom(Atom),
}

/// One item from `tokens[*at..]`; `None` when the brackets do not balance
/// (or nest absurdly deep).
fn parse(tokens: &[Token], at: &mut usize) -> Option<Item> {
    parse_at(tokens, at, 0)
}

fn parse_at(tokens: &[Token], at: &mut usize, depth: usize) -> Option<Item> {
    if depth > 256 {
        return None;
    }
    match *tokens.get(*at)? {
        Token::Atom { start, end } => {
            *at += 1;
            Some(Item::Atom(Atom { start, end }))
        }
        Token::Close { .. } => None,
        Token::Open { at: open, bracket } => {
            *at += 1;
            let mut items = Vec::new();
            loop {
                match *tokens.get(*at)? {
                    Token::Close { at: close } => {
                        *at += 1;
                        return Some(Item::List(List {
                            open,
                            close,
                            bracket,
                            items,
                        }));
                    }
                    _ => items.push(parse_at(tokens, at, depth + 1)?),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::relax;

    fn check(source: &str, expect: Option<&str>) {
        assert_eq!(relax(source).as_deref(), expect, "{source}");
    }

    #[test]
    fn named_parents_under_a_field_become_wildcards_with_a_kind() {
        check(
            "(class_definition body: (block (function_definition name: (identifier) @name) @definition.method))",
            Some(
                "((class_definition body: (_ (function_definition name: (identifier) @name) @definition.method) @_relaxed0) (#kind? @_relaxed0 block))",
            ),
        );
        // Nested, each under a field.
        check(
            "(a f: (b g: (c (d))))",
            Some(
                "((a f: (_ g: (_ (d)) @_relaxed1) @_relaxed0) (#kind? @_relaxed0 b) (#kind? @_relaxed1 c))",
            ),
        );
        // A grouping with its own predicates gains the kinds before its end.
        check(
            "((call function: (attribute object: (identifier) @o)) (#eq? @o \"x\"))",
            Some(
                "((call function: (_ object: (identifier) @o) @_relaxed0) (#eq? @o \"x\") (#kind? @_relaxed0 attribute))",
            ),
        );
        // Top-level captures stay inside the new grouping.
        check(
            "(a f: (b (c))) @x @y\n(d)",
            Some("((a f: (_ (c)) @_relaxed0) @x @y (#kind? @_relaxed0 b))\n(d)"),
        );
        // A string is a child step; a predicate is not.
        check(
            "(a f: (b \"x\"))",
            Some("((a f: (_ \"x\") @_relaxed0) (#kind? @_relaxed0 b))"),
        );
        check("(a f: (b (#eq? @x \"y\")))", None);
    }

    #[test]
    fn roots_fieldless_nodes_alternatives_and_quantified_nodes_stay() {
        // A root, a leaf, a node no field names.
        check("(function_definition name: (identifier) @name) @d", None);
        check("(a (b (c)))", None);
        // Alternatives stay; what is below them is relaxed.
        check(
            "(a [(b (c)) (d f: (e (f)))])",
            Some("((a [(b (c)) (d f: (_ (f)) @_relaxed0)]) (#kind? @_relaxed0 e))"),
        );
        check("(a f: [(b (c)) (d (e))])", None);
        // Quantified nodes and all inside them; quantified alternations.
        check("(a f: (b g: (c (d)))* @x)", None);
        check("(a [(b f: (c (d)))]+)", None);
        check("(a f: (b (c))) +", None);
        // Sibling sequences, supertypes, hidden kinds, ERROR.
        check("(a ((b (c)) (d)))", None);
        check("(a f: (expression/b (c)))", None);
        check("(a f: (_b (c)))", None);
        check("(a f: (ERROR (c)))", None);
    }

    #[test]
    fn what_does_not_read_as_a_query_is_left_to_tree_sitter() {
        check("(a (b (c))", None);
        check("(a \"open", None);
        check("(a f: (b (c))) @_relaxed0", None);
        check("; only a comment (a (b (c)))\n", None);
    }
}
