//! From source text to diagnostics, and from two versions of a file to the
//! diagnostics that are new.
//!
//! A diagnostic is one outermost `ERROR` or `MISSING` node. Its message is
//! written so that it survives edits elsewhere in the file: it names the text
//! (`unexpected `)``) or the token (`missing `;``), never a line number. That
//! message is the diagnostic's *signature* for `--new-only`.
//!
//! ## Why compare signatures, not lines
//!
//! Comparing line numbers would call every old error "new" as soon as a line
//! is added above it. Comparing the multiset of signatures is robust to any
//! line shift: a file fails only when some signature occurs more often than it
//! did in the old version. The price is that an error which disappears while
//! an identical one appears elsewhere goes unnoticed; the file is then no more
//! broken than before, which is the promise `--new-only` makes.
//!
//! The multiset decides *how many* errors are new; a line diff of the two
//! versions decides *which* ones to show: an old error whose line survived the
//! edit unchanged claims the error with the same signature at that line's new
//! position, and the remaining budget goes to the others in document order.

use crate::error::Result;
use crate::lang::Language;
use crate::symbols::{self, ErrorNode};
use serde::Serialize;
use std::collections::HashMap;
use std::time::Duration;

/// Longest source line shown whole; longer ones are windowed around the
/// column (minified code has lines of megabytes).
const LINE_CHARS: usize = 120;
/// Budget for the line diff that places old errors in the new text.
const DIFF_TIMEOUT: Duration = Duration::from_millis(200);

/// What the parser found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DiagnosticKind {
    /// Text the grammar could not fit (an `ERROR` node).
    Unexpected,
    /// A token the parser had to assume (a `MISSING` node).
    Missing,
    /// A rule the language enforces beyond its grammar (Python's
    /// indentation: `unexpected indent`, ...).
    Rule,
}

/// One parse error, located and quoted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in bytes (as everywhere in Scalpel).
    pub column: usize,
    pub end_line: usize,
    pub kind: DiagnosticKind,
    /// `unexpected `<text>`` or `missing `<token>``; also the signature
    /// used by `--new-only`.
    pub message: String,
    /// The source line, without its terminator (windowed when very long).
    pub source_line: String,
    /// Character offset of the column within `source_line`, for the caret.
    #[serde(skip)]
    pub caret: usize,
    /// `true` when the compared revision already had this error: it is
    /// reported but does not fail the check.
    pub preexisting: bool,
}

/// Parse `body` with `lang` and describe every parse error. A text the
/// language's second opinion (`[edit] second_opinion`) parses whole has
/// none: what the grammar found in it are the grammar's gaps, as writes
/// judge them (`edit::validate::Problems::judged`), so a file a write
/// was allowed to make passes the check.
pub fn diagnose(lang: &Language, body: &str) -> Result<Vec<Diagnostic>> {
    let tree = symbols::parse_tree(lang, body, None)?;
    let errors = symbols::syntax_errors(lang, &tree, body);
    if let Some(parser) = &lang.config.edit.second_opinion
        && !errors.is_empty()
        && crate::edit::second::accepts(parser, &tree, body)
    {
        return Ok(Vec::new());
    }
    Ok(errors.iter().map(|e| describe(e, body)).collect())
}

fn describe(e: &ErrorNode, body: &str) -> Diagnostic {
    let kind = if e.rule.is_some() {
        DiagnosticKind::Rule
    } else if e.missing.is_some() {
        DiagnosticKind::Missing
    } else {
        DiagnosticKind::Unexpected
    };
    let start = e.focus_byte.min(body.len());
    let line_start = body[..start].rfind('\n').map_or(0, |p| p + 1);
    let line_end = body[start..].find('\n').map_or(body.len(), |p| start + p);
    let line = body[line_start..line_end].trim_end_matches('\r');
    let before = body[line_start..start].chars().count();
    let (source_line, caret) = window(line, before);
    Diagnostic {
        line: e.focus_line,
        column: e.focus_column,
        end_line: e.end_line,
        kind,
        message: e.message(body),
        source_line,
        caret,
        preexisting: false,
    }
}

/// The part of `line` to show and where the caret goes in it.
fn window(line: &str, caret: usize) -> (String, usize) {
    let total = line.chars().count();
    if total <= LINE_CHARS {
        return (line.to_string(), caret);
    }
    let from = caret.saturating_sub(LINE_CHARS / 3);
    let shown: String = line.chars().skip(from).take(LINE_CHARS).collect();
    let mut out = String::new();
    let mut at = caret - from;
    if from > 0 {
        out.push('…');
        at += 1;
    }
    out.push_str(&shown);
    if from + LINE_CHARS < total {
        out.push('…');
    }
    (out, at)
}

/// Mark the diagnostics of `new` (found in `new_text`) that the old version
/// (`old`, found in `old_text`) already had. See the module comment.
pub fn mark_preexisting(
    new: &mut [Diagnostic],
    old: &[Diagnostic],
    old_text: &str,
    new_text: &str,
) {
    let mut budget: HashMap<&str, usize> = HashMap::new();
    for d in old {
        *budget.entry(d.message.as_str()).or_default() += 1;
    }
    for d in new.iter_mut() {
        d.preexisting = false;
    }
    if budget.is_empty() {
        return;
    }
    // Where each unchanged old line sits in the new text.
    let diff = similar::TextDiff::configure()
        .timeout(DIFF_TIMEOUT)
        .diff_lines(old_text, new_text);
    let moved = |old_line: usize| -> Option<usize> {
        diff.ops().iter().find_map(|op| match *op {
            similar::DiffOp::Equal {
                old_index,
                new_index,
                len,
            } if (old_index..old_index + len).contains(&(old_line - 1)) => {
                Some(old_line - 1 - old_index + new_index + 1)
            }
            _ => None,
        })
    };
    // Pass 1: an old error on a line that survived claims its counterpart.
    for o in old {
        let Some(line) = moved(o.line) else { continue };
        let left = budget.get(o.message.as_str()).copied().unwrap_or(0);
        if left == 0 {
            continue;
        }
        if let Some(n) = new.iter_mut().find(|n| {
            !n.preexisting && n.line == line && n.column == o.column && n.message == o.message
        }) {
            n.preexisting = true;
            budget.insert(o.message.as_str(), left - 1);
        }
    }
    // Pass 2: the remaining budget absorbs errors in document order.
    for n in new.iter_mut().filter(|n| !n.preexisting) {
        if let Some(left) = budget.get_mut(n.message.as_str())
            && *left > 0
        {
            *left -= 1;
            n.preexisting = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::Registry;
    use std::path::Path;

    fn diag(file: &str, text: &str) -> Vec<Diagnostic> {
        let reg = Registry::builtin();
        let lang = reg.detect(Path::new(file), None).unwrap();
        diagnose(lang, text).unwrap()
    }

    #[test]
    fn messages_and_carets() {
        let d = diag("a.py", "x = 1\ny = foo(1, 2))\n");
        assert_eq!(d.len(), 1);
        assert_eq!((d[0].line, d[0].column), (2, 14));
        assert_eq!(d[0].message, "unexpected `)`");
        assert_eq!(d[0].source_line, "y = foo(1, 2))");
        assert_eq!(d[0].caret, 13);
        let d = diag("a.rs", "fn f() { let x = 1 }\n");
        assert!(d.iter().any(|d| d.message == "missing `;`"), "{d:?}");
        assert!(diag("a.rs", "fn f() {}\n").is_empty());
        // Valid Rust the grammar misreads: syn takes the file, so no error.
        let turbofish = "fn f() -> usize {\n    let v: Vec::<u8> = Vec::new();\n    v.len()\n}\n";
        assert!(diag("a.rs", turbofish).is_empty());
        assert!(!diag("a.rs", &turbofish.replace("new()", "new(,)")).is_empty());
    }

    #[test]
    fn long_lines_are_windowed() {
        let line = format!("{}é{}", "a".repeat(300), "b".repeat(300));
        let (shown, caret) = window(&line, 300);
        assert!(shown.starts_with('…') && shown.ends_with('…'));
        assert_eq!(shown.chars().nth(caret), Some('é'));
        assert_eq!(window("short", 2), ("short".to_string(), 2));
    }

    #[test]
    fn new_only_survives_line_shifts() {
        let old = "def f(:\n    pass\n";
        let new = "import os\n\n\ndef f(:\n    pass\n";
        let o = diag("a.py", old);
        let mut n = diag("a.py", new);
        assert!(!n.is_empty());
        mark_preexisting(&mut n, &o, old, new);
        assert!(n.iter().all(|d| d.preexisting), "{n:?}");
        // A second, different error is new; the shifted old one is not.
        let newer = "import os\n\n\ndef f(:\n    pass\nx = [1,\n";
        let mut n = diag("a.py", newer);
        mark_preexisting(&mut n, &o, old, newer);
        assert_eq!(n.iter().filter(|d| !d.preexisting).count(), 1, "{n:?}");
        // Nothing old: everything is new.
        let mut n = diag("a.py", newer);
        mark_preexisting(&mut n, &[], "", newer);
        assert!(n.iter().all(|d| !d.preexisting));
    }
}
