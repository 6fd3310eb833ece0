//! A second opinion on writes, from a parser stricter than a language's
//! tree-sitter grammar (`[edit] second_opinion` in its TOML). tree-sitter
//! recovers and accepts some text the language's own front end rejects
//! (tree-sitter-rust takes `for for (i, x) in v {}`); where a Rust
//! library parses the language as its compiler does, a write is also judged
//! by it: when the old text around the change parses, the new one must.
//!
//! Only the top-level items around the change are parsed, old and new, so
//! the cost is the change's, not the file's, and a file that parser already
//! rejects elsewhere stays editable.
//!
//! The other way round, the grammar is stricter than the language in places
//! (tree-sitter-rust refuses `let v: Vec::<u8> = ..` and `Vec<>`, which
//! rustc's parser and syn take): when the grammar finds new errors in a text
//! the second opinion parses whole ([`accepts`]), they are the grammar's
//! gaps, and the write goes on with a warning (`validate::Problems::overruled`).
//!
//! syn and proc_macro2 recurse for each level of nesting, so a text nested
//! deeper than [`MAX_DEPTH`] tree levels gets no opinion (no hand-written
//! code nests that far; an attacker's would overflow the stack and kill the
//! process), and the parser runs on a thread with a stack of its own.

use tree_sitter::Tree;

/// The deepest tree (in tree-sitter levels) whose text is given to the
/// parser. A method chain nests two levels per call; 1,000 is far past
/// hand-written code.
pub const MAX_DEPTH: usize = 1_000;
/// The stack the parser runs on: [`MAX_DEPTH`] levels of the costliest
/// nesting with room to spare in a debug build
/// (`tests::deep_code_gets_no_opinion_and_never_overflows`), where the
/// runtime's own threads have 2 MiB.
const STACK: usize = 64 << 20;

/// What the second opinion found: where (1-based line of the new text,
/// 1-based column in characters), what it says, and the line's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub line: usize,
    pub column: usize,
    pub what: String,
    pub snippet: String,
}

/// What `parser` says about a region: `Ok` or the first error, as (line,
/// column, message) with a 1-based line within the region and a 1-based
/// column in characters.
fn verdict(parser: &str, text: &str) -> Result<(), (usize, usize, String)> {
    let run = || match parser {
        "syn" => syn::parse_file(text).map(|_| ()).map_err(|e| {
            let at = e.span().start();
            (at.line.max(1), at.column + 1, e.to_string())
        }),
        _ => Ok(()),
    };
    // The stack is reserved, not touched: only the pages a parse uses are
    // mapped.
    std::thread::scope(|s| {
        std::thread::Builder::new()
            .name("second-opinion".into())
            .stack_size(STACK)
            .spawn_scoped(s, run)
            .map(|h| h.join())
    })
    .unwrap_or_else(|e| {
        // No thread (resources exhausted): no opinion, as for deep code.
        tracing::warn!(target: "scalpel::edit", "second opinion not asked: {e}");
        Ok(Ok(()))
    })
    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}

/// Whether the tree nests deeper than [`MAX_DEPTH`] within `from..to`.
fn too_deep(tree: &Tree, from: usize, to: usize) -> bool {
    let mut cursor = tree.walk();
    let mut depth = 0;
    loop {
        let n = cursor.node();
        let inside = n.start_byte() < to && n.end_byte() > from;
        if inside && depth >= MAX_DEPTH {
            return true;
        }
        if inside && cursor.goto_first_child() {
            depth += 1;
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return false;
            }
            depth -= 1;
        }
    }
}

/// Whether `parser` takes the whole of `text` (`tree` is the grammar's
/// reading of it, for its depth): then the grammar's errors in it are the
/// grammar's gaps.
pub fn accepts(parser: &str, tree: &Tree, text: &str) -> bool {
    !too_deep(tree, 0, text.len()) && verdict(parser, text).is_ok()
}

/// The problem `parser` finds in `new_body` around the change (the text at
/// `start..old_end` of `old_body` became `start..new_end`) that it does not
/// find in `old_body` around it, if any. The region is the smallest run of
/// top-level nodes covering the change in both trees (old coordinates before
/// the change equal new ones).
pub fn problem(
    parser: &str,
    (old_tree, old_body): (&Tree, &str),
    (new_tree, new_body): (&Tree, &str),
    (start, old_end, new_end): (usize, usize, usize),
) -> Option<Finding> {
    let (from, end, new_to) =
        crate::symbols::changed_region(old_tree, new_tree, start, old_end, new_end);
    let old = old_body.get(from..end)?;
    let new = new_body.get(from..new_to)?;
    if too_deep(old_tree, from, end) || too_deep(new_tree, from, new_to) {
        return None;
    }
    verdict(parser, old).ok()?;
    let (line, column, message) = verdict(parser, new).err()?;
    let first_line = memchr::memchr_iter(b'\n', &new_body.as_bytes()[..from]).count();
    let snippet = new.lines().nth(line - 1).unwrap_or("").trim();
    Some(Finding {
        line: first_line + line,
        column,
        what: format!("{parser}: {message}"),
        snippet: snippet.chars().take(60).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::Registry;
    use crate::symbols::parse_tree;

    fn judge(old: &str, new: &str) -> Option<Finding> {
        let reg = Registry::builtin();
        let lang = reg.by_name("rust").unwrap();
        let change = crate::text::changed_window(old.as_bytes(), new.as_bytes());
        let (t1, t2) = (
            parse_tree(lang, old, None).unwrap(),
            parse_tree(lang, new, None).unwrap(),
        );
        problem("syn", (&t1, old), (&t2, new), change)
    }

    /// For each kind of nesting syn recurses on, the deepest text the
    /// depth bound lets through is parsed on the parser's own stack without
    /// overflowing it (debug build: the largest frames), and a far deeper
    /// one gets no opinion.
    #[test]
    fn deep_code_gets_no_opinion_and_never_overflows() {
        let reg = Registry::builtin();
        let lang = reg.by_name("rust").unwrap();
        let shapes: [(&str, &str, &str); 7] = [
            ("(", "1", ")"),
            ("{ ", "1", " }"),
            ("!", "x", ""),
            ("|| ", "1", ""),
            ("[", "1", "]"),
            ("-", "x", ""),
            ("f(", "1", ")"),
        ];
        let text = |(open, mid, close): (&str, &str, &str), n: usize| {
            format!(
                "fn a() {{\n    let _ = {}{mid}{};\n}}\n",
                open.repeat(n),
                close.repeat(n)
            )
        };
        for shape in shapes {
            // The largest n the bound lets through (depth grows with n).
            let (mut lo, mut hi) = (1, MAX_DEPTH + 1);
            while lo + 1 < hi {
                let mid = (lo + hi) / 2;
                let t = text(shape, mid);
                let tree = parse_tree(lang, &t, None).unwrap();
                if too_deep(&tree, 0, t.len()) {
                    hi = mid;
                } else {
                    lo = mid;
                }
            }
            let t = text(shape, lo);
            let tree = parse_tree(lang, &t, None).unwrap();
            assert!(!too_deep(&tree, 0, t.len()));
            // Parsed (its verdict does not matter: `|| || 1` is fine, `!!x`
            // too), and the process is still here.
            let _ = accepts("syn", &tree, &t);
            let t = text(shape, 40_000);
            let tree = parse_tree(lang, &t, None).unwrap();
            assert!(!accepts("syn", &tree, &t), "{shape:?}");
        }
    }

    #[test]
    fn syn_finds_what_the_grammar_lets_through() {
        let old = "fn a() {}\n\nfn f() {\n    for (x, y) in [(0, 1)] {}\n}\n\nfn z() {}\n";
        let p = judge(old, &old.replace("for (x", "for for (x")).unwrap();
        assert_eq!(p.line, 4, "{p:?}");
        assert!(p.what.starts_with("syn: "), "{p:?}");
        assert_eq!(p.snippet, "for for (x, y) in [(0, 1)] {}");
        assert!(judge(old, &old.replace("(0, 1)", "(0, 2)")).is_none());
        // Broken elsewhere (for syn): no opinion about that item.
        let broken = "fn a() { for for (y, z) in [(0, 1)] {} }\n\nfn f() {\n    let x = 1;\n}\n";
        assert!(judge(broken, &broken.replace("= 1", "= 3")).is_none());
        // The grammar lets these through.
        let reg = Registry::builtin();
        let lang = reg.by_name("rust").unwrap();
        let t = parse_tree(lang, &old.replace("for (x", "for for (x"), None).unwrap();
        assert!(!t.root_node().has_error());
    }
}
