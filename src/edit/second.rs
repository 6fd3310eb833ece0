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

use tree_sitter::Tree;

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
    match parser {
        "syn" => syn::parse_file(text).map(|_| ()).map_err(|e| {
            let at = e.span().start();
            (at.line.max(1), at.column + 1, e.to_string())
        }),
        _ => Ok(()),
    }
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
