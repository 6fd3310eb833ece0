//! Parse-delta validation: an edit may not add parse errors the file did not
//! already have. Files that are already broken elsewhere stay editable, so
//! errors are compared as multisets of signatures (what went wrong and the
//! text it went wrong on), which survive the line shifts an edit causes.

use crate::error::{Error, ErrorCode, Result};
use crate::lang::Language;
use crate::symbols::{ParsedFile, parse_tree};
use serde::Serialize;
use std::collections::HashMap;
use tree_sitter::{InputEdit, Point, Tree};

/// How many characters of an error's text are shown and compared.
const SNIPPET: usize = 60;
/// How many new errors a refusal lists (the count is always exact).
const MAX_LISTED: usize = 20;

/// One place where the new file breaks the language: a parser recovery or
/// a rule the language enforces beyond its grammar (Python indentation).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SyntaxProblem {
    pub line: usize,
    /// 1-based column, in bytes.
    pub column: usize,
    /// What went wrong: `unexpected `<text>``, `missing `<token>`` or the
    /// rule broken (`unexpected indent`). Problems are compared by this,
    /// exactly as `scalpel check --new-only` compares them.
    pub what: String,
    /// The source line at the problem (shortened).
    pub snippet: String,
}

/// What validation found in a new text: the problems the edit introduced,
/// and the grammar's problems that the language's second opinion
/// overruled (it parses the whole new text: they are the grammar's gaps,
/// such as tree-sitter-rust refusing `let v: Vec::<u8> = ..`, which rustc
/// and syn take; see [`super::second`]).
#[derive(Debug, Clone, Default)]
pub struct Problems {
    pub introduced: Vec<SyntaxProblem>,
    pub overruled: Vec<SyntaxProblem>,
    /// The parser that overruled them (`[edit] second_opinion`).
    pub overruled_by: Option<String>,
}

impl From<Vec<SyntaxProblem>> for Problems {
    fn from(introduced: Vec<SyntaxProblem>) -> Problems {
        Problems {
            introduced,
            ..Problems::default()
        }
    }
}

impl Problems {
    /// No problem introduced (overruled ones are none).
    pub fn is_empty(&self) -> bool {
        self.introduced.is_empty()
    }

    /// The grammar's `found` in `body` (whose tree is `tree`), overruled
    /// when the language's second opinion parses the whole of `body`.
    pub fn judged(lang: &Language, tree: &Tree, body: &str, found: Vec<SyntaxProblem>) -> Problems {
        match &lang.config.edit.second_opinion {
            Some(parser) if !found.is_empty() && super::second::accepts(parser, tree, body) => {
                Problems {
                    introduced: Vec::new(),
                    overruled: found,
                    overruled_by: Some(parser.clone()),
                }
            }
            _ => found.into(),
        }
    }
}

/// The seal on a [`Validation`]: private, so nothing outside this module
/// can make one.
#[derive(Debug, Clone, Copy)]
struct Judged;

/// The outcome of validating an edit, part of every write receipt.
#[derive(Debug, Clone, Serialize)]
pub struct Validation {
    pub status: ValidationStatus,
    /// Errors the edit introduced (empty unless `errors_allowed`).
    pub new_errors: Vec<SyntaxProblem>,
    /// Errors the file already had before the edit.
    pub preexisting_errors: usize,
    /// Errors the grammar reads in the new text that the language's second
    /// opinion accepts whole (the grammar's gaps): written, and said.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub grammar_gaps: Vec<SyntaxProblem>,
    /// The parser that accepted them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub accepted_by: Option<String>,
    /// Only this module builds a `Validation` ([`judge`],
    /// [`Validation::not_checked`]), so a change that carries one was
    /// judged (or says it was not).
    #[serde(skip)]
    _judged: Judged,
}

/// How an edit was validated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ValidationStatus {
    /// The edit adds no problem the file did not have.
    Ok,
    /// No grammar covers the file: nothing was checked.
    NotChecked,
    /// The edit adds problems and was written because they were allowed.
    ErrorsAllowed,
}

impl ValidationStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            ValidationStatus::Ok => "ok",
            ValidationStatus::NotChecked => "not_checked",
            ValidationStatus::ErrorsAllowed => "errors_allowed",
        }
    }
}

impl std::fmt::Display for ValidationStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Compare with the wire spelling (`"ok"`), as payloads and tests do.
impl PartialEq<&str> for ValidationStatus {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl Validation {
    pub fn not_checked() -> Validation {
        Validation {
            status: ValidationStatus::NotChecked,
            new_errors: Vec::new(),
            preexisting_errors: 0,
            grammar_gaps: Vec::new(),
            accepted_by: None,
            _judged: Judged,
        }
    }
}

/// Every problem of `tree` (see [`crate::symbols::syntax_errors`]), in order,
/// located where the trouble starts.
pub fn syntax_problems(lang: &Language, tree: &Tree, body: &str) -> Vec<SyntaxProblem> {
    problems(body, crate::symbols::syntax_errors(lang, tree, body))
}

fn problems(body: &str, errors: Vec<crate::symbols::ErrorNode>) -> Vec<SyntaxProblem> {
    errors
        .into_iter()
        .map(|e| {
            let from = body[..e.focus_byte.min(body.len())]
                .rfind('\n')
                .map_or(0, |p| p + 1);
            let line = body[from..].lines().next().unwrap_or("").trim();
            SyntaxProblem {
                line: e.focus_line,
                column: e.focus_column,
                what: e.message(body),
                snippet: line.chars().take(SNIPPET).collect(),
            }
        })
        .collect()
}

/// A byte-range change in body coordinates (after any BOM): the text at
/// `start..old_end` became `start..new_end`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Splice {
    pub start: usize,
    pub old_end: usize,
    pub new_end: usize,
}

impl Splice {
    /// The smallest window where `old` and `new` differ, on character
    /// boundaries of both: the one way a planner that has the old and the
    /// new text derives the tree edit for the incremental reparse.
    pub fn between(old: &str, new: &str) -> Splice {
        let (mut start, mut old_end, mut new_end) =
            crate::text::changed_window(old.as_bytes(), new.as_bytes());
        while !(old.is_char_boundary(start) && new.is_char_boundary(start)) {
            start -= 1;
        }
        // The bytes after the window are equal, so both ends reach a
        // character boundary together.
        while !(old.is_char_boundary(old_end) && new.is_char_boundary(new_end)) {
            old_end += 1;
            new_end += 1;
        }
        Splice {
            start,
            old_end,
            new_end,
        }
    }
}

fn point_at(text: &str, byte: usize) -> Point {
    let before = &text.as_bytes()[..byte];
    let row = memchr::memchr_iter(b'\n', before).count();
    let line_start = memchr::memrchr(b'\n', before).map_or(0, |p| p + 1);
    Point {
        row,
        column: byte - line_start,
    }
}

/// Reparse `new_body` incrementally from `old_tree` and return the new tree,
/// the problems the change introduced, and how many the old body had.
pub fn reparse(
    lang: &Language,
    old_tree: &Tree,
    old_body: &str,
    new_body: &str,
    change: Splice,
) -> Result<(Tree, Problems, usize)> {
    let before = syntax_problems(lang, old_tree, old_body);
    let (tree, introduced) = reparse_against(lang, old_tree, old_body, new_body, change)?;
    Ok((tree, introduced, before.len()))
}

/// [`reparse`] of a parsed file, whose problems are counted once per parse
/// ([`ParsedFile::problem_count`]); a text already judged against the same
/// parse is not judged again ([`JudgedTexts`]: a dry run's verdict serves its
/// apply).
pub fn reparse_parsed(
    file: &ParsedFile,
    new_body: &str,
    change: Splice,
) -> Result<(Tree, Problems, usize)> {
    if let Some((tree, problems)) = JUDGED.recall(file, new_body) {
        return Ok((tree, problems, file.problem_count()));
    }
    let body = file.source.body();
    let (tree, introduced) = reparse_against(&file.language, &file.tree, body, new_body, change)?;
    JUDGED.keep(file, new_body, &tree, &introduced);
    Ok((tree, introduced, file.problem_count()))
}

/// The verdicts of the last few texts judged against a parsed file: the
/// new text's tree and problems are a function of the language, the old
/// text and the new one alone, so a text judged again against the same
/// parse (a rename's `--apply` after its dry run: the same cached parses,
/// the same new texts) is answered from here. Exact, not hashed: an
/// entry holds its whole new text and a `Weak` to the parse's source, so
/// it matches only that very source (the `Weak` keeps its allocation, so
/// no other source can take its address) and dies with it. Bounded in
/// entries and bytes; failures (a timeout, a cancelled parse) are not kept.
struct JudgedTexts {
    recent: std::sync::Mutex<std::collections::VecDeque<JudgedText>>,
}

struct JudgedText {
    source: std::sync::Weak<crate::source::SourceText>,
    language: String,
    new_body: String,
    tree: Tree,
    problems: Problems,
}

/// How many judged texts are kept, and their bytes at most.
const JUDGED_TEXTS: usize = 32;
const JUDGED_BYTES: usize = 16 << 20;

static JUDGED: JudgedTexts = JudgedTexts {
    recent: std::sync::Mutex::new(std::collections::VecDeque::new()),
};

impl JudgedTexts {
    fn same(e: &JudgedText, file: &ParsedFile, new_body: &str) -> bool {
        e.language == file.language.name()
            && std::ptr::eq(e.source.as_ptr(), std::sync::Arc::as_ptr(&file.source))
            && e.new_body == new_body
    }

    fn recall(&self, file: &ParsedFile, new_body: &str) -> Option<(Tree, Problems)> {
        let mut recent = self.recent.lock().unwrap_or_else(|p| p.into_inner());
        recent.retain(|e| e.source.strong_count() > 0);
        let e = recent.iter().find(|e| Self::same(e, file, new_body))?;
        Some((e.tree.clone(), e.problems.clone()))
    }

    fn keep(&self, file: &ParsedFile, new_body: &str, tree: &Tree, problems: &Problems) {
        if new_body.len() > JUDGED_BYTES / 4 {
            return;
        }
        let mut recent = self.recent.lock().unwrap_or_else(|p| p.into_inner());
        recent.retain(|e| e.source.strong_count() > 0 && !Self::same(e, file, new_body));
        recent.push_back(JudgedText {
            source: std::sync::Arc::downgrade(&file.source),
            language: file.language.name().to_string(),
            new_body: new_body.to_string(),
            tree: tree.clone(),
            problems: problems.clone(),
        });
        let mut bytes: usize = recent.iter().map(|e| e.new_body.len()).sum();
        while recent.len() > JUDGED_TEXTS || bytes > JUDGED_BYTES {
            let Some(old) = recent.pop_front() else { break };
            bytes -= old.new_body.len();
        }
    }
}

/// [`reparse`] without counting the old version's problems (several
/// candidate edits of one file count them once). The new tree's problems
/// are compared with the old's around the change only
/// ([`crate::symbols::syntax_errors_around`]): the same difference as of the
/// whole files, without walking every token of both for each candidate.
///
/// A language with a second opinion (`[edit] second_opinion`) has the
/// change judged by that parser too, when the grammar finds nothing
/// ([`super::second::problem`]); when the grammar finds something in a text
/// that parser takes whole, the grammar is overruled ([`Problems::judged`]).
pub fn reparse_against(
    lang: &Language,
    old_tree: &Tree,
    old_body: &str,
    new_body: &str,
    change: Splice,
) -> Result<(Tree, Problems)> {
    let (new_tree, mut introduced) =
        reparse_grammar_only(lang, old_tree, old_body, new_body, change)?;
    if introduced.is_empty()
        && let Some(parser) = &lang.config.edit.second_opinion
    {
        let found = super::second::problem(
            parser,
            (old_tree, old_body),
            (&new_tree, new_body),
            (change.start, change.old_end, change.new_end),
        );
        introduced.extend(found.map(|f| SyntaxProblem {
            line: f.line,
            column: f.column,
            what: f.what,
            snippet: f.snippet,
        }));
        // The second opinion's own finding stands.
        return Ok((new_tree, introduced.into()));
    }
    let problems = Problems::judged(lang, &new_tree, new_body, introduced);
    Ok((new_tree, problems))
}

/// [`reparse_against`] judged by the language's grammar alone.
pub fn reparse_grammar_only(
    lang: &Language,
    old_tree: &Tree,
    old_body: &str,
    new_body: &str,
    change: Splice,
) -> Result<(Tree, Vec<SyntaxProblem>)> {
    let new_tree = reparse_tree(lang, old_tree, old_body, new_body, change)?;
    let (before, after) = crate::symbols::syntax_errors_around(
        lang,
        (old_tree, old_body),
        (&new_tree, new_body),
        change.start,
        change.old_end,
        change.new_end,
    );
    let introduced = difference(&problems(old_body, before), &problems(new_body, after));
    Ok((new_tree, introduced))
}

/// The tree of `new_body`, reparsed incrementally from `old_tree` (edited
/// by `change`).
pub fn reparse_tree(
    lang: &Language,
    old_tree: &Tree,
    old_body: &str,
    new_body: &str,
    change: Splice,
) -> Result<Tree> {
    let mut edited = old_tree.clone();
    edited.edit(&InputEdit {
        start_byte: change.start,
        old_end_byte: change.old_end,
        new_end_byte: change.new_end,
        start_position: point_at(old_body, change.start),
        old_end_position: point_at(old_body, change.old_end),
        new_end_position: point_at(new_body, change.new_end),
    });
    parse_tree(lang, new_body, Some(&edited))
}

/// Problems in `after` that `before` does not account for (multiset
/// difference on `what`, the comparison `scalpel check` makes).
fn difference(before: &[SyntaxProblem], after: &[SyntaxProblem]) -> Vec<SyntaxProblem> {
    let mut budget: HashMap<&str, usize> = HashMap::new();
    for p in before {
        *budget.entry(&p.what).or_default() += 1;
    }
    after
        .iter()
        .filter(|p| match budget.get_mut(p.what.as_str()) {
            Some(n) if *n > 0 => {
                *n -= 1;
                false
            }
            _ => true,
        })
        .cloned()
        .collect()
}

/// Turn introduced problems into the validation outcome, or a refusal.
pub fn judge(
    problems: Problems,
    preexisting: usize,
    allow: bool,
    path: &str,
) -> Result<Validation> {
    let Problems {
        introduced,
        mut overruled,
        overruled_by,
    } = problems;
    overruled.truncate(MAX_LISTED);
    if introduced.is_empty() {
        return Ok(Validation {
            status: ValidationStatus::Ok,
            new_errors: Vec::new(),
            preexisting_errors: preexisting,
            grammar_gaps: overruled,
            accepted_by: overruled_by,
            _judged: Judged,
        });
    }
    if allow {
        return Ok(Validation {
            status: ValidationStatus::ErrorsAllowed,
            new_errors: introduced,
            preexisting_errors: preexisting,
            grammar_gaps: Vec::new(),
            accepted_by: None,
            _judged: Judged,
        });
    }
    let first = &introduced[0];
    let listed: Vec<&SyntaxProblem> = introduced.iter().take(MAX_LISTED).collect();
    Err(Error::new(
        ErrorCode::SyntaxError,
        format!(
            "the edit would add {} parse error(s) to {path}; first at line {}, column {}: {} (`{}`)",
            introduced.len(),
            first.line,
            first.column,
            first.what,
            first.snippet
        ),
    )
    .with_suggestion("fix the new code at the reported lines and retry; nothing was written (pass ⟦allow_syntax_errors⟧ to write anyway)")
    .with_details(serde_json::json!({
        "path": path,
        "new_errors": listed,
        "new_error_count": introduced.len(),
        "preexisting_errors": preexisting,
    })))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::Registry;

    fn check(old: &str, new: &str) -> Vec<SyntaxProblem> {
        let reg = Registry::builtin();
        let lang = reg.by_name("python").unwrap();
        let tree = parse_tree(lang, old, None).unwrap();
        let change = Splice::between(old, new);
        reparse(lang, &tree, old, new, change).unwrap().1.introduced
    }

    /// The grammar's errors in a text the second opinion parses whole are
    /// overruled (and kept, to be said); a language without one, and a
    /// text that parser also rejects, keep them as errors.
    #[test]
    fn a_second_opinion_that_takes_the_whole_text_overrules_the_grammar() {
        let reg = Registry::builtin();
        let judge = |lang: &str, old: &str, new: &str| {
            let lang = reg.by_name(lang).unwrap();
            let tree = parse_tree(lang, old, None).unwrap();
            reparse(lang, &tree, old, new, Splice::between(old, new))
                .unwrap()
                .1
        };
        let old = "fn f() -> usize {\n    let v: Vec<u8> = Vec::new();\n    v.len()\n}\n";
        let p = judge("rust", old, &old.replace("Vec<u8>", "Vec::<u8>"));
        assert!(p.is_empty(), "{p:?}");
        assert!(!p.overruled.is_empty());
        assert_eq!(p.overruled_by.as_deref(), Some("syn"));
        let p = judge("rust", old, &old.replace("Vec::new()", "Vec::new(,)"));
        assert!(!p.is_empty() && p.overruled.is_empty(), "{p:?}");
        // Python has no second opinion.
        let p = judge("python", "x = 1\n", "x = (1\n");
        assert!(!p.is_empty() && p.overruled.is_empty(), "{p:?}");
    }

    /// A text judged against a parse is recalled for that very parse only
    /// (not for another parse of the same text), with the same verdict,
    /// and forgotten with the parse.
    #[test]
    fn a_judged_text_is_recalled_for_its_own_parse_only() {
        let reg = Registry::builtin();
        let lang = reg.by_name("python").unwrap().clone();
        let parsed = |text: &str| {
            let src = crate::source::decode(std::path::Path::new("x.py"), text.as_bytes().to_vec());
            crate::symbols::parse(&lang, std::sync::Arc::new(src.unwrap())).unwrap()
        };
        let old = "def f():\n    return 1\n";
        let (one, twin) = (parsed(old), parsed(old));
        for new in ["def f():\n    return 2\n", "def f(:\n    return 2\n"] {
            let (_, first, n) = reparse_parsed(&one, new, Splice::between(old, new)).unwrap();
            let (tree, again) = JUDGED.recall(&one, new).expect("recalled");
            assert_eq!((again.introduced, n), (first.introduced.clone(), 0));
            assert_eq!(
                tree.root_node().to_sexp(),
                parse_tree(&lang, new, None).unwrap().root_node().to_sexp()
            );
            assert!(
                JUDGED.recall(&twin, new).is_none(),
                "another parse of the same text"
            );
            assert!(JUDGED.recall(&one, "def f():\n    return 3\n").is_none());
            let (_, second, _) = reparse_parsed(&one, new, Splice::between(old, new)).unwrap();
            assert_eq!(second.introduced, first.introduced);
        }
        // A parse made after the first is dropped cannot take its place.
        drop(one);
        for _ in 0..8 {
            let later = parsed(old);
            assert!(JUDGED.recall(&later, "def f():\n    return 2\n").is_none());
        }
    }

    #[test]
    fn new_errors_are_found_and_old_ones_forgiven() {
        assert!(check("def f():\n    return 1\n", "def f():\n    return 2\n").is_empty());
        let e = check("def f():\n    return 1\n", "def f(:\n    return 1\n");
        assert!(!e.is_empty());
        assert_eq!(e[0].line, 1);
        // A file broken elsewhere: editing a healthy function adds nothing.
        let old = "def broken(:\n    pass\n\ndef g():\n    return 1\n";
        let new = "def broken(:\n    pass\n\ndef g():\n    return 42\n";
        assert!(check(old, new).is_empty());
    }

    #[test]
    fn refusal_lists_locations() {
        let p = SyntaxProblem {
            line: 3,
            column: 5,
            what: "unexpected".into(),
            snippet: "(:".into(),
        };
        let e = judge(vec![p.clone()].into(), 1, false, "a.py").unwrap_err();
        assert_eq!(e.code(), ErrorCode::SyntaxError);
        assert_eq!(e.details["new_errors"][0]["line"], 3);
        assert_eq!(e.details["preexisting_errors"], 1);
        let v = judge(vec![p].into(), 0, true, "a.py").unwrap();
        assert_eq!(v.status, ValidationStatus::ErrorsAllowed);
    }

    #[test]
    fn a_splice_stays_on_char_boundaries() {
        let c = Splice::between("aé b", "aè b");
        assert_eq!((c.start, c.old_end, c.new_end), (1, 3, 3));
        let c = Splice::between("abc", "abc");
        assert_eq!((c.start, c.old_end, c.new_end), (3, 3, 3));
        let c = Splice::between("ab", "axb");
        assert_eq!((c.start, c.old_end, c.new_end), (1, 1, 2));
    }
}
