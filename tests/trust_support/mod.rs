//! The shape property shared by `tests/trust.rs` (fixtures and a fixed
//! sample of real files, every function and method in each) and
//! `benches/trust_corpus.rs` (every file of the whole corpora, release).
//!
//! For every function and method of a file, new code is made in each shape
//! agents use: as `extract_code` returns it, as both interfaces print it
//! (every line at the target's depth), without its decorators/attributes/doc
//! comments, dedented to column 0, with the other line endings, with tabs,
//! with a one-line body, with a body that starts with a docstring or
//! comment, in every other indentation width (2, 3, 4, 8 spaces) and, in a
//! tab-indented file, in spaces. Each goes through the same planning and
//! validation `update_symbol` uses, and:
//! - adds no parse problem;
//! - changes no byte outside the symbol's range;
//! - keeps the symbol's leading trivia when the code brings none;
//! - gives back the original byte for byte when the code is the original
//!   in another shape (identity);
//! - for code in another width, leaves the file's indentation unit and the
//!   symbol's own unchanged and every line's text as it was;
//! - and the new file is then judged by the language's own front end:
//!   CPython's `compile()`, `syn`, the `typescript` compiler's parser.
#![allow(dead_code)]

use scalpel::edit::{self, Operation};
use scalpel::lang::Registry;
use scalpel::symbols::{self, ParsedFile, Symbol};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;

pub struct Lang {
    pub name: &'static str,
    /// A statement that is a whole body, and a comment/docstring first line.
    one_line: &'static str,
    /// Another whole body for a header holding a word (C++ `constexpr`
    /// functions must return: `return {};`).
    one_line_when: Vec<(&'static str, &'static str)>,
    doc_first: &'static str,
    /// Wraps a body for brace languages (`{` + body + `}`).
    braces: bool,
    /// Closes a body that is not braced (Ruby `end`).
    body_end: Option<&'static str>,
    /// The body kinds a new body replaces (empty: every body): Ruby's
    /// endless `def f = expr` has an expression for a body.
    body_kinds: Vec<&'static str>,
}

// The languages judged by a test of their own; the others' knowledge is in
// `tests/data/front_ends.toml` ([`FrontEnd::lang`]).
pub const PYTHON: Lang = Lang {
    name: "python",
    one_line: "pass",
    one_line_when: Vec::new(),
    doc_first: "\"\"\"Doc.\"\"\"",
    braces: false,
    body_end: None,
    body_kinds: Vec::new(),
};
pub const RUST: Lang = Lang {
    name: "rust",
    one_line: "unimplemented!()",
    one_line_when: Vec::new(),
    doc_first: "// A comment first.",
    braces: true,
    body_end: None,
    body_kinds: Vec::new(),
};
pub const TYPESCRIPT: Lang = Lang {
    name: "typescript",
    one_line: "throw new Error(\"todo\");",
    one_line_when: Vec::new(),
    doc_first: "// A comment first.",
    braces: true,
    body_end: None,
    body_kinds: Vec::new(),
};

fn ws_len(line: &str) -> usize {
    line.len() - line.trim_start_matches([' ', '\t']).len()
}

/// Does [`dedent`] keep the code's layout? Not when a layout line (not
/// blank, not inside a string) has fewer than `col` characters of
/// indentation: such a line (a comment at column 0 inside a method, a
/// docstring line starting with a tab) ends up level with the first line or
/// nearer to it than it was, and no reading can put it back. The shape is
/// still applied and judged, but it is not an identity case.
fn dedent_keeps_layout(code: &str, col: usize, verbatim: &[bool]) -> bool {
    // What is stripped must be the same on every line: a line of a tab and
    // spaces among lines of spaces (the JDK's `CharacterData02`) loses its
    // tab's width when cut by bytes.
    let mut stripped = None;
    code.split('\n').enumerate().skip(1).all(|(i, l)| {
        verbatim.get(i).copied().unwrap_or(false)
            || l.trim().is_empty()
            || (ws_len(l) >= col && *stripped.get_or_insert(&l[..col]) == &l[..col])
    })
}

/// Strip `col` columns of indentation from every line after the first (as
/// far as each line has them), except lines inside a multi-line string
/// literal (`verbatim`): an agent moving code keeps its strings' contents.
fn dedent(code: &str, col: usize, verbatim: &[bool]) -> String {
    code.split('\n')
        .enumerate()
        .map(|(i, l)| {
            if i == 0 || verbatim.get(i).copied().unwrap_or(false) {
                l.to_string()
            } else {
                l[ws_len(l).min(col)..].to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn column_of(text: &str, byte: usize) -> usize {
    let ls = text[..byte].rfind('\n').map_or(0, |p| p + 1);
    ws_len(&text[ls..])
}

struct Shape {
    name: &'static str,
    code: String,
    /// The code is the original symbol in another shape: the result must be
    /// the original file.
    identity: bool,
    /// The code is written in another indentation unit than the file's:
    /// the file's unit, and the symbol's own, must come out unchanged.
    respaced: bool,
    /// The symbol's own unit can be read back from the code: see
    /// [`readable_width`]. When not, the file's unit and every line's text
    /// must still come out unchanged.
    unit_readable: bool,
}

/// Whether code made from the symbol's lines (`ded`, dedented by the
/// definition line's own column) by turning each step of `unit` into one
/// of `w` can be read back: every step line's indentation `n` must keep
/// less than a step of `w` past its steps (`n % unit < w`). Else the
/// shape says other steps than the symbol had, and no reading can tell:
/// the JDK's `LocaleResources.getBreakIteratorInfo` has an `if` body 3
/// columns in, in a file of 4, which in steps of 2 is one step and one
/// column, where its lines at 4 are two steps (`Wrapper.Format.format`'s
/// continuation 11 in, in steps of 3, is 3 whole steps). Code dedented by
/// another column than the definition line's (a header one column right
/// of its `{`, `BasicConstraintsExtension`'s) has lost where its lines
/// stood from the header, which is what a reading measures them from.
fn readable_width(ded: &str, step_lines: &[bool], unit: usize, w: usize, lossless: bool) -> bool {
    lossless
        && ded
            .split('\n')
            .zip(step_lines)
            .skip(1)
            .all(|(l, &step)| !step || l.trim().is_empty() || ws_len(l) % unit < w)
}

/// `code` with the leading whitespace of every line but the first and
/// those inside a multi-line string literal (`verbatim`) rewritten by `f`.
fn reindent(code: &str, verbatim: &[bool], f: impl Fn(&str) -> String) -> String {
    code.split('\n')
        .enumerate()
        .map(|(i, l)| {
            if i == 0 || verbatim.get(i).copied().unwrap_or(false) {
                return l.to_string();
            }
            let w = ws_len(l);
            format!("{}{}", f(&l[..w]), &l[w..])
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The widths code comes in from other projects and agents.
const WIDTHS: [usize; 4] = [2, 3, 4, 8];

/// A width shape's name.
fn width_name(spaces: usize) -> &'static str {
    match spaces {
        2 => "width_2",
        3 => "width_3",
        4 => "width_4",
        _ => "width_8",
    }
}

/// How the engine moves each line of `file`'s text over `range` (file
/// offsets) when it rescales it ([`edit::indent::roles`]).
fn roles(file: &ParsedFile, range: std::ops::Range<usize>) -> Vec<edit::indent::Role> {
    let off = file.source.body_offset();
    edit::indent::roles(
        &file.language,
        &file.tree,
        file.source.body(),
        range.start - off..range.end - off,
    )
}

/// The least column of the step lines of `code` after the first, by their
/// `roles`.
fn step_lines_column(code: &str, roles: &[edit::indent::Role]) -> Option<usize> {
    code.split('\n')
        .zip(roles)
        .skip(1)
        .filter(|(l, r)| r.steps() && !l.trim().is_empty())
        .map(|(l, _)| ws_len(l))
        .min()
}

/// Lines of `file`'s text over `range` (file offsets) inside a multi-line
/// string literal, as the engine reads them.
fn verbatim(file: &ParsedFile, range: std::ops::Range<usize>) -> Vec<bool> {
    let off = file.source.body_offset();
    edit::indent::verbatim_lines(
        &file.language,
        &file.tree,
        file.source.body(),
        range.start - off..range.end - off,
    )
}

fn shapes(lang: &Lang, file: &ParsedFile, s: &Symbol, unit: usize) -> Vec<Shape> {
    let text = file.source.text.as_str();
    let full = s.full_span();
    let bare = s.bare_span();
    let col = column_of(text, full.start_byte);
    let full_code = &text[full.start_byte..full.end_byte];
    let bare_code = &text[bare.start_byte..full.end_byte];
    let full_verbatim = verbatim(file, full.start_byte..full.end_byte);
    let bare_verbatim = verbatim(file, bare.start_byte..full.end_byte);
    // The bare definition is dedented by its own column: the least of its
    // first line's and its step lines' (a JDK method at 5 under its
    // Javadoc at 4 is dedented by 5, so that its steps stay steps in every
    // other width; BigDecimal's `writeObject` at 3 under `@java.io.Serial`
    // at 4, by 3). Lossless only when that is the first line's column and
    // no line sits left of it.
    let bare_col = column_of(text, bare.start_byte);
    let bare_roles = roles(file, bare.start_byte..full.end_byte);
    let ded_col = step_lines_column(bare_code, &bare_roles).map_or(bare_col, |c| c.min(bare_col));
    let crlf = text.contains("\r\n");
    let bare_lossless =
        ded_col == bare_col && dedent_keeps_layout(bare_code, bare_col, &bare_verbatim);
    let mut out = vec![Shape {
        name: "extract",
        code: full_code.to_string(),
        identity: true,
        respaced: false,
        unit_readable: true,
    }];
    out.push(Shape {
        name: "dedented",
        code: dedent(full_code, col, &full_verbatim),
        identity: dedent_keeps_layout(full_code, col, &full_verbatim),
        respaced: false,
        unit_readable: true,
    });
    if bare.start_byte > full.start_byte {
        out.push(Shape {
            name: "extract_no_trivia",
            code: bare_code.to_string(),
            identity: true,
            respaced: false,
            unit_readable: true,
        });
        out.push(Shape {
            name: "dedented_no_trivia",
            code: dedent(bare_code, ded_col, &bare_verbatim),
            identity: bare_lossless,
            respaced: false,
            unit_readable: true,
        });
    }
    let before = &text[full.start_byte - col..full.start_byte];
    if col > 0 && before.bytes().all(|b| b == b' ' || b == b'\t') {
        // As both interfaces print it (`Extraction::printed`): the line's
        // indentation first, nothing when other text precedes the symbol
        // there (Ruby's `private def m`).
        out.push(Shape {
            name: "printed",
            code: format!(
                "{}{full_code}",
                &text[full.start_byte - col..full.start_byte]
            ),
            identity: true,
            respaced: false,
            unit_readable: true,
        });
    }
    let ded = dedent(bare_code, ded_col, &bare_verbatim);
    out.push(Shape {
        name: "other_line_endings",
        code: if crlf {
            ded.replace("\r\n", "\n")
        } else {
            ded.replace('\n', "\r\n")
        },
        identity: bare_lossless,
        respaced: false,
        unit_readable: true,
    });
    if !text.contains('\t') && unit > 0 {
        let tabbed: Vec<String> = ded
            .split('\n')
            .enumerate()
            .map(|(i, l)| {
                if bare_verbatim.get(i).copied().unwrap_or(false) {
                    return l.to_string();
                }
                let w = ws_len(l);
                format!(
                    "{}{}{}",
                    "\t".repeat(w / unit),
                    " ".repeat(w % unit),
                    &l[w..]
                )
            })
            .collect();
        out.push(Shape {
            name: "tabs",
            code: tabbed.join("\n"),
            identity: bare_lossless,
            respaced: false,
            unit_readable: true,
        });
    }
    // The same code in every other indentation unit: each step of the
    // file's becomes a step of the other width (what is left over, such as
    // a continuation line's alignment, stays), or each tab of a tab file
    // becomes spaces.
    if !text.contains('\t') && unit > 0 {
        let step_lines: Vec<bool> = bare_roles
            .iter()
            .map(|&r| r.steps() || r == edit::indent::Role::Close)
            .collect();
        for w in WIDTHS.into_iter().filter(|&w| w != unit) {
            out.push(Shape {
                name: width_name(w),
                code: reindent(&ded, &bare_verbatim, |ws| {
                    let n = ws.len();
                    " ".repeat(n / unit * w + n % unit)
                }),
                identity: false,
                respaced: true,
                unit_readable: readable_width(&ded, &step_lines, unit, w, ded_col == bare_col),
            });
        }
    } else if file_is_tabbed(file) {
        for w in [2, 4, 8] {
            out.push(Shape {
                name: match w {
                    2 => "spaces_2",
                    4 => "spaces_4",
                    _ => "spaces_8",
                },
                code: reindent(&ded, &bare_verbatim, |ws| ws.replace('\t', &" ".repeat(w))),
                identity: false,
                respaced: true,
                unit_readable: true,
            });
        }
    }
    // A new body under the original header (no trivia: it must be kept).
    let node = file
        .tree
        .root_node()
        .descendant_for_byte_range(
            bare.start_byte - file.source.body_offset(),
            bare.end_byte - file.source.body_offset(),
        )
        .unwrap();
    let mut def = node;
    while let Some(p) = def.parent() {
        if p.start_byte() == def.start_byte() && p.end_byte() == def.end_byte() {
            def = p;
        } else {
            break;
        }
    }
    let body = file
        .language
        .rules()
        .body_fields
        .iter()
        .find_map(|f| def.child_by_field_name(f))
        .filter(|b| lang.body_kinds.is_empty() || lang.body_kinds.contains(&b.kind()));
    if let Some(body) = body {
        let off = file.source.body_offset();
        let header_end = body.start_byte() + off;
        let header = text[bare.start_byte..header_end].trim_end();
        let header = dedent(header, col, &verbatim(file, bare.start_byte..header_end));
        let ind = " ".repeat(unit);
        // A header that ends in a comment (`-> Vec<&Arg> // FIXME`, `{` on
        // the next line) takes its brace on a line of its own: on the same
        // line it would be inside the comment.
        // A block comment there (Go's `func raise(sig uint32) /* int32 */ {`)
        // ends before the line does: the brace stays on its line, where Go
        // requires it.
        let brace = if body.prev_sibling().is_some_and(|n| {
            n.is_extra() && !text[n.start_byte() + off..n.end_byte() + off].ends_with("*/")
        }) {
            "\n{"
        } else {
            " {"
        };
        let make = |stmts: &[&str]| {
            let lines: String = stmts.iter().map(|l| format!("\n{ind}{l}")).collect();
            if lang.braces {
                format!("{header}{brace}{lines}\n}}")
            } else if let Some(end) = lang.body_end {
                format!("{header}{lines}\n{end}")
            } else {
                format!("{header}{lines}")
            }
        };
        let one_line = lang
            .one_line_when
            .iter()
            .find(|(word, _)| header.split_whitespace().any(|w| w == *word))
            .map_or(lang.one_line, |(_, body)| *body);
        out.push(Shape {
            name: "one_line_body",
            code: make(&[one_line]),
            identity: false,
            respaced: false,
            unit_readable: true,
        });
        out.push(Shape {
            name: "doc_first",
            code: make(&[lang.doc_first, one_line]),
            identity: false,
            respaced: false,
            unit_readable: true,
        });
    }
    out
}

/// The file's indentation style, read as the engine reads it.
fn style_of(file: &ParsedFile) -> scalpel::source::Indent {
    edit::indent::style_of(file)
}

fn file_is_tabbed(file: &ParsedFile) -> bool {
    style_of(file) == scalpel::source::Indent::Tabs
}

/// The indentation units of `s`'s own lines in `file`: one, or several
/// when its most frequent steps tie ([`edit::indent::code_units`]).
fn symbol_units(file: &ParsedFile, s: &Symbol) -> Vec<usize> {
    symbol_steps(file, s).units
}

/// The steps of `s`'s lines, read several ways ([`edit::indent::Steps`]).
fn symbol_steps(file: &ParsedFile, s: &Symbol) -> edit::indent::Steps {
    // From the definition's line: its leading trivia may sit elsewhere (the
    // JDK's `RandomGenerator.of` has its doc comment one column right).
    let off = file.source.body_offset();
    edit::indent::code_steps(
        &file.language,
        &file.tree,
        file.source.body(),
        s.bare_span().start_byte - off..s.full_span().end_byte - off,
    )
}

/// The lines of `text`, trimmed, blank ones left out: what no reading of
/// the indentation may change.
fn trimmed_lines(text: &str) -> Vec<&str> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect()
}

/// Trivia lines above the definition line, trimmed.
fn trivia_lines(text: &str, s: &Symbol) -> Vec<String> {
    let bare_line = text[..s.bare_span().start_byte]
        .rfind('\n')
        .map_or(0, |p| p + 1)
        .max(s.full_span().start_byte);
    text[s.full_span().start_byte..bare_line]
        .lines()
        .map(|l| l.trim().to_string())
        .filter(|l| !l.is_empty())
        .collect()
}

#[derive(Default)]
pub struct Tally {
    pub files: usize,
    /// Files left out: unreadable, or with parse errors of their own.
    pub skipped: usize,
    pub symbols: usize,
    /// Functions and methods not run (see [`Pick`]).
    pub left_out: usize,
    pub cases: usize,
    pub identity_cases: usize,
    pub identity_kept: usize,
    pub failures: Vec<String>,
    /// Identity cases whose result differs from the original (labels).
    pub identity_lost: Vec<String>,
    /// New files the front end must accept: (label, text).
    pub judged: Vec<(String, String)>,
    /// How many new files were judged so far (`judged` is drained by
    /// batches in the bench).
    pub judged_count: usize,
    /// How many different texts among them the front end read.
    pub judged_distinct: usize,
    /// Labels of new files the front end rejected.
    pub rejected: Vec<String>,
    /// Width cases whose symbol's own unit cannot be read back from the
    /// code sent (see `readable_width`): not compared, every other check
    /// made.
    pub unit_unread: usize,
}

impl Tally {
    /// No failure, no identity lost, nothing rejected.
    pub fn clean(&self) -> bool {
        self.failures.is_empty() && self.identity_lost.is_empty() && self.rejected.is_empty()
    }

    /// Add `other`'s counts and findings to these.
    pub fn merge(&mut self, other: Tally) {
        self.files += other.files;
        self.skipped += other.skipped;
        self.symbols += other.symbols;
        self.left_out += other.left_out;
        self.cases += other.cases;
        self.identity_cases += other.identity_cases;
        self.identity_kept += other.identity_kept;
        self.failures.extend(other.failures);
        self.identity_lost.extend(other.identity_lost);
        self.judged.extend(other.judged);
        self.judged_count += other.judged_count;
        self.judged_distinct += other.judged_distinct;
        self.rejected.extend(other.rejected);
        self.unit_unread += other.unit_unread;
    }

    pub fn line(&self, what: &str) -> String {
        format!(
            "{what}: {} files ({} skipped), {} functions/methods{}, {} cases, {} failures; identity {}/{}; \
             {} new files judged by the front end ({} different), {} rejected; \
             {} width cases whose unit the code cannot show",
            self.files,
            self.skipped,
            self.symbols,
            if self.left_out > 0 {
                format!(" ({} more left out by the part or the cap)", self.left_out)
            } else {
                String::new()
            },
            self.cases,
            self.failures.len(),
            self.identity_kept,
            self.identity_cases,
            self.judged_count + self.judged.len(),
            self.judged_distinct,
            self.rejected.len(),
            self.unit_unread
        )
    }
}

pub fn parse(lang: &str, text: &str) -> Option<ParsedFile> {
    parse_or_why(lang, text).ok()
}

/// [`parse`], with the reason when it fails (a new file that does not
/// parse is a finding: the reason tells a deadline from a decode error).
pub fn parse_or_why(lang: &str, text: &str) -> Result<ParsedFile, String> {
    let reg = Registry::builtin();
    let l = reg.by_name(lang).unwrap().clone();
    let src = scalpel::source::decode(Path::new("x"), text.as_bytes().to_vec())
        .map_err(|e| e.to_string())?;
    symbols::parse(&l, Arc::new(src)).map_err(|e| e.to_string())
}

/// The kinds a run takes: everything with a body of statements.
const CALLABLE: [&str; 4] = ["function", "method", "constructor", "operator"];

/// Every shape of every function and method of `path` (a file the parser
/// reads without errors; others are skipped and not counted).
pub fn run_file(lang: &Lang, path: &Path, t: &mut Tally) {
    run_file_picked(lang, path, Pick::ALL, t)
}

/// Which of a file's functions and methods a run takes; the others are
/// counted in [`Tally::left_out`]. A case reparses its whole file, so a
/// file's cost grows with its functions times its size: a cap bounds a
/// whole-corpus run while still reaching every file, and parts split a
/// corpus too large for one run into runs that together take every
/// function.
#[derive(Clone, Copy, Debug)]
pub struct Pick {
    /// Only the functions whose place in the file is `k` modulo `n`
    /// (`part = (k, n)`).
    pub part: (usize, usize),
    /// Then at most this many of those, spread evenly over the file (the
    /// same ones on every run).
    pub per_file: usize,
}

impl Pick {
    pub const ALL: Pick = Pick {
        part: (0, 1),
        per_file: usize::MAX,
    };

    /// The items of `all` (a file's functions, in order) this pick takes.
    pub fn choose<'a, T>(&self, all: &[&'a T]) -> Vec<&'a T> {
        let (k, n) = self.part;
        let part: Vec<&T> = all.iter().copied().skip(k).step_by(n.max(1)).collect();
        if part.len() <= self.per_file {
            return part;
        }
        (0..self.per_file)
            .map(|i| part[i * part.len() / self.per_file])
            .collect()
    }
}

/// [`run_file`] on the functions and methods `pick` takes.
pub fn run_file_picked(lang: &Lang, path: &Path, pick: Pick, t: &mut Tally) {
    let Ok(text) = std::fs::read_to_string(path) else {
        t.skipped += 1;
        return;
    };
    let file = match parse(lang.name, &text) {
        Some(f) if f.parse_error_count == 0 => f,
        _ => {
            t.skipped += 1;
            return;
        }
    };
    t.files += 1;
    let style = style_of(&file);
    let unit = edit::indent::unit(style);
    let all: Vec<&Symbol> = file
        .symbols
        .iter()
        .filter(|s| CALLABLE.contains(&s.kind))
        .collect();
    let chosen = pick.choose(&all);
    t.left_out += all.len() - chosen.len();
    for s in chosen {
        t.symbols += 1;
        for shape in shapes(lang, &file, s, unit) {
            t.cases += 1;
            let label = format!(
                "{}:{} {} [{}]",
                path.display(),
                s.start_line,
                s.name_path,
                shape.name
            );
            let prepared =
                match edit::symbol::prepare(&file, s, Operation::Replace, Some(&shape.code)) {
                    Ok(p) => p,
                    Err(e) => {
                        t.failures.push(format!("{label}: {e}"));
                        continue;
                    }
                };
            let new = &prepared.checked.edit.new_text;
            // `TRUST_SHOW=label` prints the code sent and the symbol written
            // for the cases whose label holds it (to see a finding), before
            // any check can pass or fail it.
            let full = s.full_span();
            let tail = &text[full.end_byte..];
            if std::env::var("TRUST_SHOW").is_ok_and(|w| !w.is_empty() && label.contains(&w)) {
                let written = new
                    .strip_suffix(tail)
                    .and_then(|n| n.get(full.start_byte..));
                eprintln!(
                    "{label}\n--- sent\n{}\n--- written\n{}\n---",
                    shape.code,
                    written.unwrap_or("(the bytes around the symbol changed)")
                );
            }
            if !prepared.checked.introduced.is_empty() {
                t.failures.push(format!(
                    "{label}: new problems {:?}",
                    prepared.checked.introduced
                ));
                continue;
            }
            if new[..full.start_byte] != text[..full.start_byte] || !new.ends_with(tail) {
                t.failures
                    .push(format!("{label}: bytes outside the symbol changed"));
                continue;
            }
            // The trivia rule, read from the new file's own outline (the
            // original's, when the new file is the original again: most
            // shapes come back so, and every check below then holds).
            let parsed_after;
            let after = if *new == text {
                &file
            } else {
                match parse_or_why(lang.name, new) {
                    Ok(a) => {
                        parsed_after = a;
                        &parsed_after
                    }
                    Err(why) => {
                        t.failures
                            .push(format!("{label}: new file does not parse: {why}"));
                        continue;
                    }
                }
            };
            let moved = after
                .symbols
                .iter()
                .find(|a| a.full_span().start_byte == full.start_byte && a.name == s.name);
            match moved {
                Some(a) if trivia_lines(new, a) == trivia_lines(&text, s) => {}
                _ => {
                    t.failures.push(format!("{label}: leading trivia not kept"));
                    continue;
                }
            }
            if shape.respaced {
                // The file's unit, the symbol's own, and every line's text.
                let (was, now) = (symbol_units(&file, s), symbol_units(after, moved.unwrap()));
                if style_of(after) != style {
                    t.failures.push(format!(
                        "{label}: the file's indentation became {:?} (was {style:?})",
                        style_of(after)
                    ));
                    continue;
                }
                // In a tab-indented file, spaces that became tabs are the
                // file's own style (Go's `gcc_traceback.c` has 8-space lines
                // in a tab function): with no space-indented step line left,
                // no unit remains to compare.
                let normalized = now.is_empty() && style == scalpel::source::Indent::Tabs;
                // A unit a tie chose is only one of the steps the symbol
                // shows most: any of them may come out as the unit.
                let kept = now.first() == was.first()
                    || (was.len() > 1 && now.iter().any(|u| was.contains(u)));
                // A symbol whose own steps are not the file's (the JDK's
                // `SimpleDateFormat.applyLocalizedPattern`, a body 5 columns
                // in, in a file of 4) may come back in the file's unit: its
                // own was a slip the code sent in another width no longer
                // shows, and the file's is what #29 asks for.
                // The same for a tie the code's steps came back in: the
                // JDK's `PipedInputStream.initPipe` steps 5 then 3 in a file
                // of 4, in steps of 3 the code goes 4 then 2, and placed as
                // sent its steps tie at 2 and 4.
                let to_file = now.contains(&unit) && !was.contains(&unit);
                // Steps read from lines inside a bracket are the writer's
                // choice of continuation: the standard library's
                // `test_load_standard_types` lines concatenated strings up
                // under a call's first argument, 6 columns in; sent in
                // steps of 2 they hang two steps in, and rescaled, two
                // steps of 4, where they outvote the one step of its body.
                // Its blocks' steps, which no such line votes in, tell the
                // unit then.
                let blocks = |f: &ParsedFile, s: &Symbol| symbol_steps(f, s).blocks;
                let (was_blocks, now_blocks) = (blocks(&file, s), blocks(after, moved.unwrap()));
                let blocks_kept = !was_blocks.is_empty() && now_blocks == was_blocks;
                let kept = kept || to_file || blocks_kept;
                if !shape.unit_readable {
                    t.unit_unread += 1;
                }
                if shape.unit_readable && !was.is_empty() && !kept && !normalized {
                    t.failures.push(format!(
                        "{label}: the symbol's indentation unit became {now:?} (was {was:?})"
                    ));
                    continue;
                }
                if trimmed_lines(new) != trimmed_lines(&text) {
                    t.failures
                        .push(format!("{label}: {}", first_difference(&text, new)));
                    continue;
                }
            }
            if shape.identity {
                t.identity_cases += 1;
                if *new == text {
                    t.identity_kept += 1;
                    continue;
                }
                t.identity_lost
                    .push(format!("{label}: {}", first_difference(&text, new)));
            }
            t.judged.push((label, new.clone()));
        }
    }
}

/// Where `new` first differs from `old`: the line and both versions of it.
fn first_difference(old: &str, new: &str) -> String {
    let at = old
        .split_inclusive('\n')
        .zip(new.split_inclusive('\n'))
        .position(|(a, b)| a != b)
        .unwrap_or_else(|| old.lines().count().min(new.lines().count()));
    let line = |t: &str| t.split_inclusive('\n').nth(at).unwrap_or("").to_string();
    format!("line {}: {:?} became {:?}", at + 1, line(old), line(new))
}

pub fn fixture_files(lang: &str, ext: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(lang);
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .collect();
    v.sort();
    v
}

/// Every k-th file of `files` between 2 and 30 KB, `n` of them (the cost
/// of a file grows with the square of its size: its functions times the
/// reparses of each).
pub fn sample(files: Vec<PathBuf>, n: usize) -> Vec<PathBuf> {
    sample_from(files, n, 2_000)
}

/// [`sample`] with another smallest size (bytes).
pub fn sample_from(mut files: Vec<PathBuf>, n: usize, min_bytes: u64) -> Vec<PathBuf> {
    files.retain(|p| std::fs::metadata(p).is_ok_and(|m| (min_bytes..30_000).contains(&m.len())));
    files.sort();
    let step = (files.len() / n).max(1);
    files.into_iter().step_by(step).take(n).collect()
}

/// The Python standard library's folder.
pub fn stdlib_dir() -> PathBuf {
    let out = Command::new("python3")
        .args([
            "-c",
            "import sysconfig; print(sysconfig.get_paths()['stdlib'])",
        ])
        .output()
        .expect("this needs python3");
    PathBuf::from(String::from_utf8(out.stdout).unwrap().trim())
}

/// The `.py` files of the standard library: its top folder only, or every
/// folder below it but `site-packages`.
pub fn stdlib_files(recursive: bool) -> Vec<PathBuf> {
    let dir = stdlib_dir();
    let mut files: Vec<PathBuf> = if recursive {
        scalpel::disk::walk_files(&dir)
            .into_iter()
            .filter(|p| !p.components().any(|c| c.as_os_str() == "site-packages"))
            .collect()
    } else {
        std::fs::read_dir(&dir)
            .unwrap()
            .filter_map(|e| e.ok().map(|e| e.path()))
            .collect()
    };
    files.retain(|p| p.extension().is_some_and(|e| e == "py"));
    files.sort();
    files
}

/// The crates whose sources are the Rust corpus (from cargo's registry).
pub const CRATES: [&str; 5] = [
    "serde_json-",
    "regex-syntax-",
    "similar-",
    "memchr-",
    "clap_builder-",
];

/// Every `.rs` file under `src/` of the [`CRATES`] in cargo's registry
/// (every version present), sorted.
pub fn crate_files() -> Vec<PathBuf> {
    let cargo_home = std::env::var("CARGO_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|_| PathBuf::from(std::env::var("HOME").unwrap()).join(".cargo"));
    let mut files = Vec::new();
    for index in std::fs::read_dir(cargo_home.join("registry/src"))
        .unwrap()
        .flatten()
    {
        for krate in std::fs::read_dir(index.path()).unwrap().flatten() {
            let name = krate.file_name().to_string_lossy().to_string();
            if CRATES.iter().any(|p| name.starts_with(p)) {
                files.extend(
                    scalpel::disk::walk_files(&krate.path().join("src"))
                        .into_iter()
                        .filter(|p| p.extension().is_some_and(|e| e == "rs")),
                );
            }
        }
    }
    files.sort();
    files
}

/// The `.ts` files (not `.d.ts`) under `dir`, sorted.
pub fn ts_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = scalpel::disk::walk_files(dir)
        .into_iter()
        .filter(|p| {
            p.extension().is_some_and(|e| e == "ts") && !p.to_string_lossy().ends_with(".d.ts")
        })
        .collect();
    files.sort();
    files
}

/// The files under `dir` whose extension is one of `exts`, sorted.
pub fn files_with(dir: &Path, exts: &[&str]) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = scalpel::disk::walk_files(dir)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| exts.iter().any(|x| e == *x)))
        .collect();
    files.sort();
    files
}

/// `files` but those `rejects` (a front end's `path | message` lines) names.
fn accepted(files: Vec<PathBuf>, rejects: Vec<String>) -> Vec<PathBuf> {
    let rejected: std::collections::HashSet<String> = rejects
        .into_iter()
        .map(|l| l.split(" | ").next().unwrap_or("").to_string())
        .collect();
    files
        .into_iter()
        .filter(|p| !rejected.contains(&p.display().to_string()))
        .collect()
}

/// The files CPython compiles (only those can be judged by it).
pub fn compiling(files: Vec<PathBuf>) -> Vec<PathBuf> {
    let rejects = cpython_rejects(&files);
    accepted(files, rejects)
}

/// The files `syn` parses.
pub fn syn_parses(files: Vec<PathBuf>) -> Vec<PathBuf> {
    files
        .into_iter()
        .filter(|p| std::fs::read_to_string(p).is_ok_and(|s| syn::parse_file(&s).is_ok()))
        .collect()
}

/// The files the TypeScript compiler's parser accepts.
pub fn tsc_accepts(ts: &Path, files: Vec<PathBuf>) -> Vec<PathBuf> {
    let rejects = tsc_rejects(ts, &files);
    accepted(files, rejects)
}

/// Files CPython's `compile()` rejects, among `paths`, as `path | message`.
pub fn cpython_rejects(paths: &[PathBuf]) -> Vec<String> {
    let mut cmd = Command::new("python3");
    cmd.args([
        "-c",
        "import sys\nfor p in sys.stdin.read().split('\\n'):\n    \
         if not p: continue\n    \
         try: compile(open(p,'rb').read(), p, 'exec', dont_inherit=True)\n    \
         except (SyntaxError, ValueError) as e: print(p, '|', e)\n",
    ]);
    run_judge(cmd, paths)
}

/// Files the TypeScript compiler's parser rejects, among `paths`.
pub fn tsc_rejects(ts: &Path, paths: &[PathBuf]) -> Vec<String> {
    let script = "const ts = require(process.argv[1]);\n\
        const fs = require('fs');\n\
        for (const p of fs.readFileSync(0, 'utf8').split('\\n')) {\n\
          if (!p) continue;\n\
          const sf = ts.createSourceFile(p, fs.readFileSync(p, 'utf8'), ts.ScriptTarget.Latest, true,\n\
            p.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);\n\
          for (const d of sf.parseDiagnostics) {\n\
            console.log(p + ' | ' + ts.flattenDiagnosticMessageText(d.messageText, ' '));\n\
            break;\n\
          }\n\
        }\n";
    let mut cmd = Command::new("node");
    cmd.arg("-e").arg(script).arg(ts);
    run_judge(cmd, paths)
}

/// Run a front end that reads file paths on stdin and prints a
/// `path | message` line for each file it rejects.
fn run_judge(cmd: Command, paths: &[PathBuf]) -> Vec<String> {
    run_judge_needing(cmd, paths, "python3 and nodejs")
}

/// [`run_judge`]; `package` is what to install when the program is missing.
fn run_judge_needing(mut cmd: Command, paths: &[PathBuf], package: &str) -> Vec<String> {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| {
            panic!("cannot run {cmd:?}: {e}; the tests need it (Debian: apt-get install {package})")
        });
    let list: String = paths.iter().map(|p| format!("{}\n", p.display())).collect();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(list.as_bytes()));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(
        out.status.success(),
        "{cmd:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

/// Which front end judges a language's new files.
pub enum Judge<'a> {
    CPython,
    Syn,
    Tsc(&'a Path),
    /// A checker named in `tests/data/front_ends.toml`.
    Command(&'a FrontEnd),
}

impl Judge<'_> {
    /// The extension of the judged files.
    fn ext(&self) -> &str {
        match self {
            Judge::CPython => "py",
            Judge::Syn => "rs",
            Judge::Tsc(_) => "ts",
            Judge::Command(fe) => &fe.ext,
        }
    }

    /// Files among `paths` the front end rejects, as `path | message`,
    /// each read `with` its original's folder and precompiled header.
    fn rejects(&self, paths: &[PathBuf], with: ReadWith) -> Vec<String> {
        match self {
            Judge::CPython => cpython_rejects(paths),
            Judge::Syn => paths
                .iter()
                .filter_map(|p| {
                    let text = std::fs::read_to_string(p).unwrap();
                    syn::parse_file(&text)
                        .err()
                        .map(|e| format!("{} | {e}", p.display()))
                })
                .collect(),
            Judge::Tsc(ts) => tsc_rejects(ts, paths),
            Judge::Command(fe) => fe.rejects_with(paths, with),
        }
    }

    /// Is the original file's folder part of the judgement (the include
    /// path of C and C++)?
    fn wants_origin(&self) -> bool {
        matches!(self, Judge::Command(fe) if fe.include_flag.is_some())
    }

    /// The row of a checker command.
    fn front_end(&self) -> Option<&FrontEnd> {
        match self {
            Judge::Command(fe) => Some(fe),
            _ => None,
        }
    }
}

/// What a checker reads a judged file with, besides the file: the folder
/// its original came from (on the include path of C and C++) and the
/// precompiled header of the original's leading lines.
#[derive(Clone, Copy, Default)]
pub struct ReadWith<'a> {
    pub origin: Option<&'a Path>,
    pub pch: Option<&'a Path>,
}

/// The leading lines of a C or C++ file a header can hold: comments and
/// preprocessor directives up to the first other line, cut after the last
/// directive outside any `#if`, when an `#include` is among them (else 0).
/// The byte length.
pub fn leading_directives(text: &str) -> usize {
    let (mut at, mut end, mut depth, mut includes) = (0, 0, 0i32, false);
    let (mut in_comment, mut continued) = (false, false);
    for line in text.split_inclusive('\n') {
        at += line.len();
        let t = line.trim();
        let directive = continued || t.starts_with('#');
        if continued {
            continued = t.ends_with('\\');
        } else if in_comment {
            in_comment = !t.contains("*/");
        } else if t.is_empty() || t.starts_with("//") {
        } else if t.starts_with("/*") {
            in_comment = !t.contains("*/");
        } else if let Some(d) = t.strip_prefix('#') {
            let word = d.trim_start();
            if word.starts_with("if") {
                depth += 1;
            } else if word.starts_with("endif") {
                depth -= 1;
            }
            includes |= word.starts_with("include");
            continued = t.ends_with('\\');
        } else {
            break;
        }
        if depth == 0 && directive && !continued {
            end = at;
        }
    }
    if includes && depth >= 0 { end } else { 0 }
}

/// `text` with its first `n` bytes turned into as many empty lines (the
/// lines after keep their numbers).
fn blank_prefix(text: &str, n: usize) -> String {
    let lines = text[..n].matches('\n').count();
    format!("{}{}", "\n".repeat(lines), &text[n..])
}

/// The precompiled leading directives of each original file (`precompile`
/// in `tests/data/front_ends.toml`): clang reads a C++ file's standard
/// headers in about a second, and an original's edited copies share them.
struct Precompiled<'a> {
    /// The checker's row (nothing is precompiled without its `precompile`).
    fe: Option<&'a FrontEnd>,
    dir: &'a Path,
    /// Per original: its leading directives and their header, or None
    /// when it has none or they did not precompile.
    made: std::collections::HashMap<PathBuf, Option<(String, PathBuf)>>,
}

impl Precompiled<'_> {
    /// The precompiled header for a copy of `original` and the length of
    /// the leading text it stands for, when the copy starts with the
    /// original's leading directives.
    fn for_copy(
        &mut self,
        original: &Path,
        origin: Option<&Path>,
        text: &str,
    ) -> Option<(PathBuf, usize)> {
        let fe = self.fe?;
        let pre = fe.precompile.as_ref()?;
        let n = self.made.len();
        let dir = self.dir;
        let made = self.made.entry(original.to_path_buf()).or_insert_with(|| {
            let whole = std::fs::read_to_string(original).ok()?;
            let lead = whole[..leading_directives(&whole)].to_string();
            if lead.is_empty() {
                return None;
            }
            let header = dir.join(format!("lead{n}.h"));
            let pch = dir.join(format!("lead{n}.pch"));
            std::fs::write(&header, &lead).unwrap();
            let mut cmd = Command::new(&pre.command[0]);
            cmd.args(&pre.command[1..])
                .current_dir(env!("CARGO_MANIFEST_DIR"));
            fe.include_args(&mut cmd, origin);
            let ok = cmd
                .arg(&header)
                .arg("-o")
                .arg(&pch)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success());
            ok.then_some((lead, pch))
        });
        let (lead, pch) = made.as_ref()?;
        text.starts_with(lead.as_str())
            .then(|| (pch.clone(), lead.len()))
    }
}

/// Let the front end judge every new file of `t` (one process per batch,
/// or `syn` in process), move them out of `t.judged`, and add the labels
/// of those it rejects to `t.rejected`. Files of a checker with an
/// `include_flag` (C, C++) are judged with their original's folder on the
/// include path.
pub fn judge(t: &mut Tally, judge: &Judge) {
    let judged = std::mem::take(&mut t.judged);
    t.judged_count += judged.len();
    let dir = tempfile::tempdir().unwrap();
    let mut precompiled = Precompiled {
        fe: judge.front_end(),
        dir: dir.path(),
        made: Default::default(),
    };
    // Most shapes of a function come out as the same file (the original
    // again, most often): each text of an original is judged once, and its
    // verdict is every label's.
    let mut seen: std::collections::HashMap<(PathBuf, &str), usize> = Default::default();
    let mut labels: Vec<Vec<&str>> = Vec::new();
    type Group = (Option<PathBuf>, Option<PathBuf>);
    let mut groups: std::collections::BTreeMap<Group, Vec<(PathBuf, usize)>> = Default::default();
    for (label, text) in &judged {
        let original = origin_of(label);
        let n = labels.len();
        let i = *seen.entry((original.clone(), text)).or_insert(n);
        if i < n {
            labels[i].push(label);
            continue;
        }
        labels.push(vec![label]);
        let p = dir.path().join(format!("n{i}.{}", judge.ext()));
        let origin = judge
            .wants_origin()
            .then(|| original.parent().map(Path::to_path_buf))
            .flatten();
        let pch = match precompiled.for_copy(&original, origin.as_deref(), text) {
            Some((pch, n)) => {
                std::fs::write(&p, blank_prefix(text, n)).unwrap();
                Some(pch)
            }
            None => {
                std::fs::write(&p, text).unwrap();
                None
            }
        };
        groups.entry((origin, pch)).or_default().push((p, i));
    }
    t.judged_distinct += labels.len();
    for ((origin, pch), names) in groups {
        let paths: Vec<PathBuf> = names.iter().map(|(p, _)| p.clone()).collect();
        let with = ReadWith {
            origin: origin.as_deref(),
            pch: pch.as_deref(),
        };
        let rejects = judge.rejects(&paths, with);
        for l in rejects {
            let p = l.split(" | ").next().unwrap_or("");
            match names.iter().find(|(n, _)| n.display().to_string() == p) {
                Some((_, i)) => t
                    .rejected
                    .extend(labels[*i].iter().map(|label| format!("{label}: {l}"))),
                None => t.rejected.push(format!("?: {l}")),
            }
        }
    }
}

/// The file a case's label names (`path:line name [shape]`).
fn origin_of(label: &str) -> PathBuf {
    let at = label.split(' ').next().unwrap_or("");
    PathBuf::from(at.rsplit_once(':').map_or(at, |(p, _)| p))
}

/// How a checker takes the files it judges (`batch` in
/// `tests/data/front_ends.toml`).
#[derive(serde::Deserialize, Clone, Copy, Debug, Default, PartialEq)]
#[serde(rename_all = "lowercase")]
pub enum Batch {
    /// One process per file; a file is rejected when the exit status is
    /// not 0 (`bash -n`, `ruby -c`, `php -l`, `mcs --parse`).
    #[default]
    Each,
    /// Many files as arguments of one process; a file is rejected when a
    /// line of stderr starting with its path reports an error (`gofmt -e`,
    /// `clang -fsyntax-only`).
    Arguments,
    /// Paths on stdin, one per line; a `path | message` line on stdout for
    /// each file rejected (`tests/support/JavaParse.java`).
    Stdin,
}

/// A language's row of `tests/data/front_ends.toml` (see the comments
/// there): the checker that judges its files and the corpus it judges.
#[derive(serde::Deserialize, Clone, Debug)]
#[serde(deny_unknown_fields)]
pub struct FrontEnd {
    #[serde(skip)]
    pub language: String,
    pub judged_by: Option<String>,
    #[serde(default)]
    pub command: Vec<String>,
    #[serde(default)]
    pub batch: Batch,
    #[serde(default)]
    pub package: String,
    #[serde(default)]
    pub ext: String,
    include_flag: Option<String>,
    #[serde(default)]
    include: Vec<String>,
    precompile: Option<Precompile>,
    #[serde(default)]
    one_line: String,
    #[serde(default)]
    one_line_when: Vec<(String, String)>,
    #[serde(default)]
    doc_first: String,
    #[serde(default)]
    braces: bool,
    body_end: Option<String>,
    #[serde(default)]
    body_kinds: Vec<String>,
    #[serde(default)]
    corpus: std::collections::BTreeMap<String, toml::Value>,
    #[serde(default)]
    under: String,
    #[serde(default)]
    files: String,
    #[serde(default)]
    pub sample: usize,
    #[serde(default = "default_min_bytes")]
    pub min_bytes: u64,
}

/// `precompile` of a row of `tests/data/front_ends.toml`.
#[derive(serde::Deserialize, Clone, Debug)]
#[serde(deny_unknown_fields)]
pub struct Precompile {
    /// The argv that precompiles a header (the header, `-o` and the output
    /// follow).
    command: Vec<String>,
    /// The checker's flag before a precompiled header.
    include: String,
}

fn default_min_bytes() -> u64 {
    2_000
}

/// Every row of `tests/data/front_ends.toml`, by language.
pub fn front_ends() -> Vec<FrontEnd> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/front_ends.toml");
    let table: std::collections::BTreeMap<String, FrontEnd> =
        toml::from_str(&std::fs::read_to_string(&path).unwrap())
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    table
        .into_iter()
        .map(|(language, mut fe)| {
            fe.language = language;
            fe
        })
        .collect()
}

/// The rows whose checker is a command (the others name their own test).
pub fn command_front_ends() -> Vec<FrontEnd> {
    front_ends()
        .into_iter()
        .filter(|fe| fe.judged_by.is_none())
        .collect()
}

fn leak(s: &str) -> &'static str {
    Box::leak(s.to_string().into_boxed_str())
}

impl FrontEnd {
    /// The shapes' language knowledge of this row.
    pub fn lang(&self) -> Lang {
        Lang {
            name: leak(&self.language),
            one_line: leak(&self.one_line),
            one_line_when: self
                .one_line_when
                .iter()
                .map(|(w, b)| (leak(w), leak(b)))
                .collect(),
            doc_first: leak(&self.doc_first),
            braces: self.braces,
            body_end: self.body_end.as_deref().map(leak),
            body_kinds: self.body_kinds.iter().map(|k| leak(k)).collect(),
        }
    }

    /// Fail, naming the package, when the checker is not installed.
    pub fn require(&self) {
        let found = Command::new(&self.command[0])
            .arg("--version")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok();
        assert!(
            found,
            "{}: the tests judge {} files with `{}`, which is not installed: \
             apt-get install {} (see the README's prerequisites)",
            self.language,
            self.language,
            self.command.join(" "),
            self.package
        );
    }

    /// The checker's command, without the files, run from the
    /// repository's root (a relative path in it names a file of the
    /// repository), `with.origin` and the `include` folders of the corpus
    /// after `include_flag`, and the precompiled header `with.pch` after
    /// `precompile.include`.
    fn command(&self, with: ReadWith) -> Command {
        let mut cmd = Command::new(&self.command[0]);
        cmd.args(&self.command[1..])
            .current_dir(env!("CARGO_MANIFEST_DIR"));
        self.include_args(&mut cmd, with.origin);
        if let (Some(pch), Some(pre)) = (with.pch, &self.precompile) {
            cmd.arg(&pre.include).arg(pch);
        }
        cmd
    }

    /// `origin` and the `include` folders of the corpus after
    /// `include_flag`, for a row that has one.
    fn include_args(&self, cmd: &mut Command, origin: Option<&Path>) {
        if let Some(flag) = &self.include_flag {
            let root = (!self.include.is_empty()).then(|| self.corpus_root());
            let folders = origin
                .map(Path::to_path_buf)
                .into_iter()
                .chain(self.include.iter().map(|i| root.as_ref().unwrap().join(i)));
            for folder in folders {
                cmd.arg(flag).arg(folder);
            }
        }
    }

    /// `path | message` for each of `paths` the checker rejects; `origin`
    /// is the folder the files come from (None: each file's own folder),
    /// for a checker with an `include_flag`.
    pub fn rejects(&self, paths: &[PathBuf], origin: Option<&Path>) -> Vec<String> {
        self.rejects_with(paths, ReadWith { origin, pch: None })
    }

    /// [`rejects`](Self::rejects), the files read `with` a precompiled
    /// header too (see [`Precompiled`]).
    fn rejects_with(&self, paths: &[PathBuf], with: ReadWith) -> Vec<String> {
        self.require();
        if with.origin.is_none() && self.include_flag.is_some() {
            let mut by_dir: std::collections::BTreeMap<&Path, Vec<PathBuf>> = Default::default();
            for p in paths {
                by_dir
                    .entry(p.parent().unwrap())
                    .or_default()
                    .push(p.clone());
            }
            return by_dir
                .into_iter()
                .flat_map(|(dir, files)| {
                    let with = ReadWith {
                        origin: Some(dir),
                        ..with
                    };
                    self.rejects_with(&files, with)
                })
                .collect();
        }
        let mut v = match self.batch {
            Batch::Each => self.rejects_each(paths, with),
            Batch::Arguments => self.rejects_arguments(paths, with),
            Batch::Stdin => run_judge_needing(self.command(with), paths, &self.package),
        };
        v.sort();
        v
    }

    /// [`rejects`](Self::rejects), one process per file whatever the
    /// row's `batch`: a batch run blames a header's error on the file it
    /// is in ("In file included from"), not on the file judged.
    pub fn rejects_alone(&self, paths: &[PathBuf]) -> Vec<String> {
        self.require();
        let mut v = self.rejects_each(paths, ReadWith::default());
        v.sort();
        v
    }

    /// [`Batch::Each`]: one process per file, on every core.
    fn rejects_each(&self, paths: &[PathBuf], with: ReadWith) -> Vec<String> {
        let next = std::sync::atomic::AtomicUsize::new(0);
        let out = std::sync::Mutex::new(Vec::new());
        std::thread::scope(|s| {
            for _ in 0..cores() {
                s.spawn(|| {
                    while let Some(p) =
                        paths.get(next.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
                    {
                        let o = self
                            .command(with)
                            .arg(p)
                            .stdin(Stdio::null())
                            .output()
                            .unwrap_or_else(|e| panic!("cannot run {:?}: {e}", self.command));
                        if !o.status.success() {
                            let said = format!(
                                "{}{}",
                                String::from_utf8_lossy(&o.stderr),
                                String::from_utf8_lossy(&o.stdout)
                            );
                            let first = said
                                .lines()
                                .find(|l| !l.trim().is_empty())
                                .unwrap_or("")
                                .to_string();
                            out.lock()
                                .unwrap()
                                .push(format!("{} | {first}", p.display()));
                        }
                    }
                });
            }
        });
        out.into_inner().unwrap()
    }

    /// [`Batch::Arguments`]: chunks of files, one process each, on every
    /// core (clang reads a C++ file's standard headers in a second or so).
    fn rejects_arguments(&self, paths: &[PathBuf], with: ReadWith) -> Vec<String> {
        let per = paths.len().div_ceil(cores()).clamp(1, 200);
        std::thread::scope(|s| {
            let runs: Vec<_> = paths
                .chunks(per)
                .map(|chunk| s.spawn(move || self.rejects_chunk(chunk, with)))
                .collect();
            runs.into_iter().flat_map(|r| r.join().unwrap()).collect()
        })
    }

    /// One process of [`Batch::Arguments`]: the first error line of each
    /// file it names on stderr (`path:line:col: message`).
    fn rejects_chunk(&self, chunk: &[PathBuf], with: ReadWith) -> Vec<String> {
        let mut cmd = self.command(with);
        let shown = format!("{cmd:?}");
        let res = cmd.args(chunk).output().unwrap_or_else(|e| {
            panic!(
                "cannot run {shown}: {e}; the tests need it (Debian: apt-get install {})",
                self.package
            )
        });
        let stderr = String::from_utf8_lossy(&res.stderr);
        let mut out = Vec::new();
        for p in chunk {
            let prefix = format!("{}:", p.display());
            let first = stderr.lines().find(|l| {
                l.starts_with(&prefix) && !l.contains(": note:") && !l.contains(": warning:")
            });
            if let Some(line) = first {
                out.push(format!("{} | {}", p.display(), &line[prefix.len()..]));
            }
        }
        assert!(
            res.status.success() || !out.is_empty(),
            "{shown} failed without naming a file: {stderr}"
        );
        out
    }

    /// [`sample`] of `files` with this row's `min_bytes`.
    pub fn sample(&self, files: Vec<PathBuf>, n: usize) -> Vec<PathBuf> {
        sample_from(files, n, self.min_bytes)
    }

    /// The files the checker accepts, among `files` (each judged with its
    /// own folder on the include path).
    pub fn accepts(&self, files: Vec<PathBuf>) -> Vec<PathBuf> {
        let rejects = self.rejects(&files, None);
        accepted(files, rejects)
    }

    /// The root of the pinned corpus, provisioned by `tests/provision`
    /// (see `corpus` in `tests/data/front_ends.toml`).
    pub fn corpus_root(&self) -> PathBuf {
        let spec = |key: &str| self.corpus.get(key).and_then(|v| v.as_str());
        let pin = |spec: &str| {
            let (name, version) = spec.split_once('=').expect("a `name=version` pin");
            (name.to_string(), version.to_string())
        };
        let root = if let Some(s) = spec("debian") {
            let (name, version) = pin(s);
            crate::provision::deb_package(&name, &version)
        } else if let Some(s) = spec("debian_source") {
            let (name, version) = pin(s);
            crate::provision::deb_source(&name, &version)
        } else if let Some(s) = spec("pypi") {
            crate::provision::pypi_sdist(s)
        } else if let Some(argv) = self.corpus.get("tool") {
            let argv: Vec<&str> = argv
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_str().unwrap())
                .collect();
            let o = Command::new(argv[0])
                .args(&argv[1..])
                .output()
                .unwrap_or_else(|e| panic!("{argv:?}: {e}: apt-get install {}", self.package));
            PathBuf::from(String::from_utf8(o.stdout).unwrap().trim())
        } else {
            panic!("{}: no corpus in tests/data/front_ends.toml", self.language)
        };
        match spec("unzip") {
            Some(zip) => crate::provision::unzipped(
                &format!("{}-corpus", self.language),
                &root.join(zip),
                &format!("{:?}", self.corpus),
            ),
            None => root,
        }
    }

    /// The corpus's files, sorted: under `under`, those whose path matches
    /// `files`, regular files only (no symbolic links: bash-completion
    /// links one script to many names).
    pub fn corpus_files(&self) -> Vec<PathBuf> {
        let dir = self.corpus_root().join(&self.under);
        let re = regex::Regex::new(&self.files).unwrap();
        let mut files: Vec<PathBuf> = scalpel::disk::walk_files(&dir)
            .into_iter()
            .filter(|p| std::fs::symlink_metadata(p).is_ok_and(|m| m.is_file()))
            .filter(|p| re.is_match(&p.to_string_lossy()))
            .collect();
        files.sort();
        files
    }

    /// The language's fixtures (every file of `fixtures/<lang>/`).
    pub fn fixtures(&self) -> Vec<PathBuf> {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures")
            .join(&self.language);
        let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
            .map(|d| {
                d.flatten()
                    .map(|e| e.path())
                    .filter(|p| p.is_file())
                    .collect()
            })
            .unwrap_or_default();
        v.sort();
        v
    }
}

/// A bench's arguments, less the flags cargo passes (`--bench`).
pub fn bench_args() -> Vec<String> {
    std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect()
}

fn cores() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get())
}

/// `update(S, extract(S).code)` for every symbol of `path`, whatever its
/// kind: the file must come back byte for byte (counted as identity cases).
pub fn every_symbol_identity(lang: &str, path: &Path, t: &mut Tally) -> usize {
    let Ok(text) = std::fs::read_to_string(path) else {
        return 0;
    };
    let Some(file) = parse(lang, &text).filter(|f| f.parse_error_count == 0) else {
        return 0;
    };
    for s in &file.symbols {
        let full = s.full_span();
        let code = &text[full.start_byte..full.end_byte];
        t.identity_cases += 1;
        let label = format!(
            "{}:{} {} [every symbol]",
            path.display(),
            s.start_line,
            s.name_path
        );
        match edit::symbol::prepare(&file, s, Operation::Replace, Some(code)) {
            Ok(p) if p.checked.edit.new_text == text => t.identity_kept += 1,
            Ok(p) => t.identity_lost.push(format!(
                "{label}: {}",
                first_difference(&text, &p.checked.edit.new_text)
            )),
            Err(e) => t.failures.push(format!("{label}: {e}")),
        }
    }
    file.symbols.len()
}
