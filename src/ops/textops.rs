//! The text tools' library facade: `read_file`, `read_fragment`, `edit_file`,
//! `write_file` and `list_directory`, one function each (`search_files`
//! is [`crate::ops::search`], where its ranking lives).
//!
//! The algorithms live elsewhere and are pure (`text`: intervals, safe
//! replace; `disk`: windows, the search walk, the tree) or are the single way
//! to the disk (a [`Change`] committed by `change`). This module only
//! composes them, so the
//! CLI and the MCP server stay thin adapters that give the same answers and
//! the same errors. Every function takes the [`Workspace`], so each path is
//! sandboxed before a byte is read, and every result names its file relative
//! to the root.

use crate::disk::tree::{TreeListing, TreeParams, list_directory};
use crate::disk::{self, Purpose, ResolvedPath, Workspace, WriteMeta};
use crate::edit::validate::{self, Splice, Validation};
use crate::error::{Error, Result};
use crate::lang::Language;
use crate::ops::change::{self, Change, Committed, Judged, Reparsed};
use crate::ops::engine::Engine;
use crate::source::SourceText;
use crate::symbols::{self, ParsedFile};
use crate::text::window::{Window, WindowRequest, read_window};
use crate::text::{
    DroppedRegion, LineIndex, LineRange, LineRequest, RangeNote, TextEdit, apply_budget,
    keyword_lines, merge, plan_edits, validate_ranges,
};
use serde::{Deserialize, Serialize};
use std::path::Path;
use std::sync::Arc;
use tree_sitter::Tree;

/// Lines of context around each requested range, keyword line or symbol.
pub const DEFAULT_CONTEXT_LINES: usize = 3;
/// Line budget of one `read_fragment` answer (about 6k tokens of code).
pub const DEFAULT_FRAGMENT_MAX_LINES: usize = 500;
/// At most this many left-out ranges are spelled out in a hint.
const HINT_RANGES: usize = 8;

const BOM: &str = "\u{FEFF}";

// ---------------------------------------------------------------------------
// read_file

/// A line window of one file (`read_file`).
#[derive(Debug, Clone, Serialize)]
pub struct FileWindow {
    /// The file, relative to the root.
    pub path: String,
    #[serde(flatten)]
    pub window: Window,
}

/// Read a window of `path` (the whole file by default), bounded by lines and
/// bytes. Errors: the sandbox's (`OUTSIDE_ROOT`, `NOT_FOUND`, ...),
/// `BINARY_FILE`, `ENCODING`, `TOO_LARGE`, `INVALID_RANGE`.
pub fn read_file(
    ws: &Workspace,
    engine: &Engine,
    path: &Path,
    req: &WindowRequest,
) -> Result<FileWindow> {
    let (target, src) = read_target(ws, engine, path)?;
    Ok(FileWindow {
        path: target.display,
        window: read_window(&src, req)?,
    })
}

/// Resolve `path` for reading and decode it.
fn read_target(ws: &Workspace, engine: &Engine, path: &Path) -> Result<(ResolvedPath, SourceText)> {
    let target = ws.resolve(path, Purpose::Read)?;
    let src = disk::read_source(&target.path, engine.max_file_size)
        .map_err(|e| e.with_path(&target.display))?;
    Ok((target, src))
}

// ---------------------------------------------------------------------------
// read_fragment

/// What to read from one file (`read_fragment`): line ranges, lines holding
/// keywords, and symbols by name path, in any combination.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FragmentParams {
    // A file, relative to the root (the instructions say so once).
    pub path: String,
    /// Line ranges `{start, end}` (1-based, inclusive).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ranges: Vec<LineRange>,
    /// Read the lines that contain any of these (literal text). With
    /// `symbols`, only lines inside those symbols are searched and read.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub keywords: Vec<String>,
    /// Read these symbols (name paths such as `Parser.run`), decorators and
    /// doc comments included.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub symbols: Vec<String>,
    /// Lines of context around each piece (default 3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_lines: Option<usize>,
    /// Most lines returned (default 500); what does not fit is listed in
    /// `dropped`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_lines: Option<usize>,
    /// Keywords match case exactly.
    #[serde(default)]
    pub case_sensitive: bool,
    // Keywords match whole words only (the name says it).
    #[serde(default)]
    pub whole_word: bool,
}

/// One merged region of lines and the requests that formed it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FragmentRegion {
    pub start_line: usize,
    pub end_line: usize,
    /// The requests inside this region: `"10-15"`, `"keyword:parse"`,
    /// `"symbol:Parser.run"`.
    pub sources: Vec<String>,
    /// The lines, with their original line endings.
    pub text: String,
}

/// Where a requested symbol was found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FragmentSymbol {
    /// The name path as requested.
    pub requested: String,
    /// The address that selects it unambiguously.
    pub address: String,
    pub kind: String,
    pub start_line: usize,
    pub end_line: usize,
}

/// The answer of `read_fragment`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Fragment {
    pub path: String,
    /// Regions in line order; adjacent and overlapping requests are merged.
    pub regions: Vec<FragmentRegion>,
    pub total_lines: usize,
    /// Lines returned over all regions.
    pub lines_returned: usize,
    /// True when the line budget left something out (see `dropped`).
    pub truncated: bool,
    /// What the budget left out; ask for these lines as `ranges` to read them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub dropped: Vec<DroppedRegion>,
    /// How to get what was left out.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    /// The requested symbols and their lines.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub symbols: Vec<FragmentSymbol>,
    /// Keywords that occur on no line.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub keywords_not_found: Vec<String>,
    /// Requested ranges that were clamped or skipped.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<RangeNote>,
    pub file_hash: String,
}

/// Read the lines of `params.path` that the ranges, keywords and symbols
/// select, each expanded by `context_lines`, merged, and cut to `max_lines`.
/// Keywords given with symbols are searched inside those symbols only, and
/// then the keyword lines are read instead of the whole symbols.
///
/// A symbol that cannot be resolved (`NOT_FOUND`, `AMBIGUOUS`) fails the
/// whole call: a silently missing piece would be read as "not there".
/// Symbols in a file without a grammar are `UNSUPPORTED_LANGUAGE`.
pub fn read_fragment(ws: &Workspace, engine: &Engine, params: &FragmentParams) -> Result<Fragment> {
    if params.ranges.is_empty() && params.keywords.is_empty() && params.symbols.is_empty() {
        return Err(
            Error::invalid_argument("nothing to read: give ranges, keywords or symbols")
                .with_suggestion("e.g. ⟦ranges=10-40⟧, or use ⟦read_file⟧ for a whole file"),
        );
    }
    let max_lines = params.max_lines.unwrap_or(DEFAULT_FRAGMENT_MAX_LINES);
    if max_lines == 0 {
        return Err(Error::invalid_argument("the line limit must be at least 1")
            .with_suggestion("omit ⟦max_lines⟧ to use the default (500)"));
    }
    let context = params.context_lines.unwrap_or(DEFAULT_CONTEXT_LINES);
    let (target, src) = read_target(ws, engine, Path::new(&params.path))?;
    // Shared with the parse below rather than copied.
    let src = Arc::new(src);
    let body = src.body();
    let total = src.total_lines();

    let checked = validate_ranges(&params.ranges, total)?;
    let mut requests = checked.requests;

    let mut found_symbols = Vec::new();
    if !params.symbols.is_empty() {
        let lang = engine
            .language_for(&target.path, Some(&src), None)
            .map_err(|e| e.with_path(&target.display))?;
        let file = symbols::parse_within(&lang, Arc::clone(&src), engine.parse_budget)?;
        for name in &params.symbols {
            let s = symbols::resolve(&file.symbols, name, None)
                .map_err(|e| e.with_path(&target.display))?;
            let span = s.full_span();
            if params.keywords.is_empty() {
                requests.push(LineRequest::new(
                    format!("symbol:{name}"),
                    span.start_line,
                    span.end_line,
                ));
            }
            found_symbols.push(FragmentSymbol {
                requested: name.clone(),
                address: s.address().to_string(),
                kind: s.kind.to_string(),
                start_line: span.start_line,
                end_line: span.end_line,
            });
        }
    }

    let mut keywords_not_found = Vec::new();
    if !params.keywords.is_empty() {
        let hits = keyword_lines(
            body,
            &params.keywords,
            params.case_sensitive,
            params.whole_word,
        )?;
        // With symbols, the keywords are looked for inside them only.
        let in_scope = |line: usize| {
            found_symbols.is_empty()
                || found_symbols
                    .iter()
                    .any(|s| (s.start_line..=s.end_line).contains(&line))
        };
        let hits: Vec<(usize, String)> = hits
            .into_iter()
            .filter(|(line, _)| in_scope(*line))
            .collect();
        for k in &params.keywords {
            if !hits.iter().any(|(_, label)| label == k) && !keywords_not_found.contains(k) {
                keywords_not_found.push(k.clone());
            }
        }
        requests.extend(
            hits.into_iter()
                .map(|(line, k)| LineRequest::new(format!("keyword:{k}"), line, line)),
        );
    }

    let budget = apply_budget(merge(&requests, context, total), max_lines);
    let index = LineIndex::new(body);
    let regions: Vec<FragmentRegion> = budget
        .kept
        .into_iter()
        .map(|r| FragmentRegion {
            text: body[index.lines_span(r.start, r.end)].to_string(),
            start_line: r.start,
            end_line: r.end,
            sources: r.sources,
        })
        .collect();
    let lines_returned = regions.iter().map(|r| r.end_line + 1 - r.start_line).sum();
    let hint = budget
        .truncated
        .then(|| dropped_hint(&budget.dropped, max_lines));
    Ok(Fragment {
        path: target.display,
        regions,
        total_lines: total,
        lines_returned,
        truncated: budget.truncated,
        dropped: budget.dropped,
        hint,
        symbols: found_symbols,
        keywords_not_found,
        notes: checked.notes,
        file_hash: src.hash.clone(),
    })
}

/// "N lines left out; read them with ranges [...]".
fn dropped_hint(dropped: &[DroppedRegion], max_lines: usize) -> String {
    let lines: usize = dropped.iter().map(|d| d.end + 1 - d.start).sum();
    let ranges: Vec<String> = dropped
        .iter()
        .take(HINT_RANGES)
        .map(|d| format!("{}-{}", d.start, d.end))
        .collect();
    let more = if dropped.len() > HINT_RANGES {
        format!(" and {} more", dropped.len() - HINT_RANGES)
    } else {
        String::new()
    };
    format!(
        "{lines} line(s) over the budget of {max_lines} were left out; read them with {}{more}, or raise {}",
        crate::hint::term_with(crate::hint::Term::Ranges, ranges.join(",")),
        crate::hint::term(crate::hint::Term::MaxLines)
    )
}

// ---------------------------------------------------------------------------
// edit_file

/// A batch of text edits to one file (`edit_file`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EditParams {
    // A file, relative to the root (the instructions say so once).
    pub path: String,
    // Replacements, all matched against the current content and applied
    // together; if one fails, nothing is written (the tool's description
    // says so).
    pub edits: Vec<TextEdit>,
    // Match, validate and show the diff, but write nothing.
    #[serde(default)]
    pub dry_run: bool,
    /// Refuse with STALE_FILE unless the file still has this hash (from a read).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected_hash: Option<String>,
    // Write even if the result has new parse errors.
    #[serde(default)]
    pub allow_syntax_errors: bool,
}

pub use crate::ops::receipt::{EditReceipt, EditSummary, WriteReceipt};
use crate::ops::receipt::{TextEdits, WholeFile};

/// Apply a batch of text edits to an existing file: match every edit against
/// the current text (`text::plan_edits`: exact, anchors, fuzzy, conflicts),
/// splice once, check that the result adds no parse errors (files with a
/// grammar), and commit through the one write path (backup, journal, atomic
/// replace). One failing edit fails the batch with its index and the file is
/// not touched; a dry run returns the same receipt and writes nothing.
pub fn edit_file(ws: &Workspace, engine: &Engine, params: &EditParams) -> Result<EditReceipt> {
    let target = ws.resolve(Path::new(&params.path), Purpose::Write)?;
    edit_resolved(ws, engine, &target, None, params).map(|(r, _)| r)
}

/// [`edit_file`] on a path already resolved for writing, with the file's
/// parse when the caller keeps one (the MCP server's cache): validation
/// then reparses incrementally from that tree instead of parsing the old
/// content again. Also returns the new file's tree, for the cache.
pub fn edit_resolved(
    ws: &Workspace,
    engine: &Engine,
    target: &ResolvedPath,
    parsed: Option<&ParsedFile>,
    params: &EditParams,
) -> Result<(EditReceipt, Option<Reparsed>)> {
    let change = plan_file(
        engine,
        target,
        parsed,
        &params.edits,
        params.expected_hash.as_deref(),
        params.allow_syntax_errors,
    )?;
    let written = change.commit(
        ws,
        WriteMeta {
            operation: "edit_file".to_string(),
            symbol: None,
            expected_hash: params.expected_hash.clone(),
            dry_run: params.dry_run,
        },
    )?;
    Ok((written.receipt, written.reparsed))
}

/// Read, check the hash, match every edit and validate the result (see
/// [`edit_file`]); nothing is written.
fn plan_file(
    engine: &Engine,
    target: &ResolvedPath,
    parsed: Option<&ParsedFile>,
    edits: &[TextEdit],
    expected_hash: Option<&str>,
    allow_syntax_errors: bool,
) -> Result<Change<TextEdits>> {
    if edits.is_empty() {
        return Err(Error::invalid_argument("no edits given").with_suggestion(
            "pass ⟦edits⟧ with ⟦old_text⟧ and ⟦new_text⟧; use ⟦write_file⟧ to replace a whole file",
        ));
    }
    let src = match parsed {
        Some(p) => p.source.clone(),
        None => Arc::new(
            disk::read_source(&target.path, engine.max_file_size)
                .map_err(|e| e.with_path(&target.display))?,
        ),
    };
    // Check the hash before matching: against a file that changed, the
    // edits' failures would only be noise.
    if let Some(expected) = expected_hash {
        disk::check_expected_hash(&target.display, &src, expected)?;
    }
    let plan = plan_edits(&src.text, edits).map_err(|e| e.with_path(&target.display))?;
    let mut warnings = plan.warnings.clone();
    let planned = TextEdits {
        edits: summarize(&plan.edits),
    };
    if plan.is_noop() {
        warnings.push("nothing changed: every edit's old text equals its new text".to_string());
        let judged = Judged {
            new: None,
            validation: Validation::not_checked(),
            tree: None,
        };
        return Ok(Change::new(
            target.clone(),
            Some(src),
            judged,
            planned,
            warnings,
        ));
    }

    let new_text = plan.apply(&src.text)?;
    let splice = Splice::between(src.body(), strip_bom(&new_text));
    let (validation, tree) = validate_change(
        engine,
        target,
        Some(Base {
            source: &src,
            parsed,
            change: splice,
        }),
        &new_text,
        allow_syntax_errors,
        &mut warnings,
    )?;
    let judged = Judged {
        new: Some(new_text),
        validation,
        tree,
    };
    Ok(Change::new(
        target.clone(),
        Some(src),
        judged,
        planned,
        warnings,
    ))
}

/// Text edits to several files (`edit_files`): each file's batch as in
/// `edit_file`, all matched and validated first, then written as one
/// transaction (one edit id; undo restores every file).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EditFilesParams {
    /// One entry per file: path, edits, optional expected_hash.
    pub files: Vec<FileEdits>,
    /// Match, validate and show the diffs, but write nothing.
    #[serde(default)]
    pub dry_run: bool,
    /// Write even if a result has new parse errors.
    #[serde(default)]
    pub allow_syntax_errors: bool,
}

/// The edits of one file in `edit_files`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileEdits {
    pub path: String,
    pub edits: Vec<TextEdit>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected_hash: Option<String>,
}

/// The receipt of `edit_files`: one `edit_file` receipt per file, in the
/// order given, and the transaction's edit id.
pub type EditFilesReceipt = Committed<TextEdits>;

/// Apply `params` (see [`EditFilesParams`]). Any failure (a match, a
/// validation, a stale file, a write) leaves every file untouched.
pub fn edit_files(
    ws: &Workspace,
    engine: &Engine,
    params: &EditFilesParams,
) -> Result<EditFilesReceipt> {
    if params.files.is_empty() {
        return Err(Error::invalid_argument("no files given")
            .with_suggestion("pass one entry per file, each with its ⟦path⟧ and ⟦edits⟧"));
    }
    let mut changes: Vec<Change<TextEdits>> = Vec::new();
    for f in &params.files {
        let target = ws.resolve(Path::new(&f.path), Purpose::Write)?;
        if changes.iter().any(|c| c.target().path == target.path) {
            return Err(
                Error::invalid_argument(format!("{} is given twice", target.display))
                    .with_suggestion("put all the edits of one file in one entry")
                    .with_details(serde_json::json!({"path": target.display})),
            );
        }
        // Several files: the message names the one that failed.
        let planned = plan_file(
            engine,
            &target,
            None,
            &f.edits,
            f.expected_hash.as_deref(),
            params.allow_syntax_errors,
        )
        .map_err(|mut e| {
            if !e.message.contains(&target.display) {
                e.message = format!("{}: {}", target.display, e.message);
            }
            e.or_path(&target.display)
        })?;
        changes.push(planned);
    }
    change::commit_all(ws, changes, "edit_files", None, params.dry_run)
}

fn summarize(planned: &[crate::text::PlannedEdit]) -> Vec<EditSummary> {
    planned
        .iter()
        .map(|p| {
            let occurrences: Vec<LineRange> = p
                .matches
                .iter()
                .map(|m| LineRange {
                    start: m.new_start_line,
                    end: m.new_end_line,
                })
                .collect();
            EditSummary {
                index: p.index,
                mode: p.mode,
                matches: p.matches.len(),
                start_line: occurrences.iter().map(|o| o.start).min(),
                end_line: occurrences.iter().map(|o| o.end).max(),
                occurrences: if occurrences.len() > 1 {
                    occurrences
                } else {
                    Vec::new()
                },
                distance: p.distance,
                similarity: p.similarity,
            }
        })
        .collect()
}

// ---------------------------------------------------------------------------
// write_file

/// A whole file to create or overwrite (`write_file`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WriteParams {
    /// The file, relative to the root or absolute inside it; missing parent
    /// folders are created (inside the root only).
    pub path: String,
    /// The complete new content.
    pub content: String,
    /// Refuse with STALE_FILE unless the file still has this hash.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected_hash: Option<String>,
    // Validate and show the diff, but write nothing.
    #[serde(default)]
    pub dry_run: bool,
    // Write even if the content has (new) parse errors.
    #[serde(default)]
    pub allow_syntax_errors: bool,
}

/// Create `params.path` or replace its whole content. An existing file must
/// be readable as UTF-8 text (else `BINARY_FILE` / `ENCODING`, untouched):
/// its old content is what the backup, the diff and validation start from.
///
/// Overwriting keeps the file's shape when the content does not say
/// otherwise: a BOM the file had is kept, and LF-only content written over a
/// CRLF file is converted to CRLF (both reported in `warnings`), so that
/// rewriting a file does not turn into a whole-file diff. Files with a
/// grammar are validated: a new file must parse (unless
/// `allow_syntax_errors`); an overwrite may not add parse errors the old
/// content did not have.
pub fn write_file(ws: &Workspace, engine: &Engine, params: &WriteParams) -> Result<WriteReceipt> {
    let target = ws.resolve(Path::new(&params.path), Purpose::Create)?;
    write_resolved(ws, engine, &target, params)
}

/// [`write_file`] on a path already resolved for creating or writing.
pub fn write_resolved(
    ws: &Workspace,
    engine: &Engine,
    target: &ResolvedPath,
    params: &WriteParams,
) -> Result<WriteReceipt> {
    let old = if target.path.exists() {
        Some(
            disk::read_source(&target.path, engine.max_file_size)
                .map_err(|e| e.with_path(&target.display))?,
        )
    } else {
        None
    };
    if let (Some(expected), Some(src)) = (&params.expected_hash, &old) {
        disk::check_expected_hash(&target.display, src, expected)?;
    }
    let mut warnings = Vec::new();
    let content = match &old {
        Some(src) => keep_shape(src, &params.content, &mut warnings),
        None => params.content.clone(),
    };
    let base = old.as_ref().map(|src| Base {
        source: src,
        parsed: None,
        change: Splice::between(src.body(), strip_bom(&content)),
    });
    let (validation, _) = validate_change(
        engine,
        target,
        base,
        &content,
        params.allow_syntax_errors,
        &mut warnings,
    )?;
    let planned = WholeFile {
        created: old.is_none(),
        total_lines: crate::source::count_lines(strip_bom(&content)),
        bytes: content.len(),
    };
    let judged = Judged {
        new: Some(content),
        validation,
        tree: None,
    };
    let change = Change::new(target.clone(), old.map(Arc::new), judged, planned, warnings);
    let meta = WriteMeta {
        operation: "write_file".to_string(),
        symbol: None,
        expected_hash: params.expected_hash.clone(),
        dry_run: params.dry_run,
    };
    Ok(change.commit(ws, meta)?.receipt)
}

/// Keep the BOM and CRLF line endings of `old` in new whole-file content
/// that does not mention them.
fn keep_shape(old: &SourceText, content: &str, warnings: &mut Vec<String>) -> String {
    let mut out = content.to_string();
    if old.profile.eol == crate::source::Eol::Crlf
        && content.contains('\n')
        && !content.contains('\r')
    {
        out = out.replace('\n', "\r\n");
        warnings.push(
            "the file uses CRLF line endings; the new content's LF endings were converted"
                .to_string(),
        );
    }
    if old.profile.bom && !out.starts_with(BOM) {
        out.insert_str(0, BOM);
        warnings.push("the file starts with a UTF-8 BOM; it was kept".to_string());
    }
    out
}

pub(super) fn strip_bom(s: &str) -> &str {
    s.strip_prefix(BOM).unwrap_or(s)
}

// ---------------------------------------------------------------------------
// Validation shared by edit_file and write_file

/// The tree a validation parsed for the new content, with its language.
type NewTree = (Arc<Language>, Tree);

/// The old content of a validated change: its text, its parse when the
/// caller has one, and the change in body coordinates.
#[derive(Clone, Copy)]
struct Base<'a> {
    source: &'a SourceText,
    parsed: Option<&'a ParsedFile>,
    change: Splice,
}

/// Parse-delta validation of `new_text` (the whole new file, BOM included)
/// for files with a grammar. With a `base` the new content is reparsed
/// incrementally from the old tree (the caller's parse, else the old content
/// parsed here), and only problems the change adds count; without one (a new
/// file) every problem counts. Files without a grammar are `not_checked`; so
/// are files whose parser gives up (with a warning), because refusing a
/// write over a parser limit would block the text tools exactly where they
/// are the fallback. Also returns the new tree, for a cache.
fn validate_change(
    engine: &Engine,
    target: &ResolvedPath,
    base: Option<Base>,
    new_text: &str,
    allow: bool,
    warnings: &mut Vec<String>,
) -> Result<(Validation, Option<NewTree>)> {
    let new_body = strip_bom(new_text);
    // The language of the parse the caller has, else of the file as it is
    // (its text decides for files without an extension and for a `.h`
    // another language claims), else of the content about to be written.
    let text = match base {
        Some(b) => b.source.body(),
        None => new_body,
    };
    let lang = match base.and_then(|b| b.parsed) {
        Some(p) => p.language.clone(),
        None => match engine.registry.detect(&target.path, Some(text)) {
            Some(l) => l.clone(),
            None => return Ok((Validation::not_checked(), None)),
        },
    };
    match problems(&lang, base, new_body) {
        Ok((tree, introduced, preexisting)) => {
            let v = validate::judge(introduced, preexisting, allow, &target.display)?;
            Ok((v, Some((lang, tree))))
        }
        Err(e) => {
            warnings.push(format!("not validated: {}", e.message));
            Ok((Validation::not_checked(), None))
        }
    }
}

/// The new tree, the problems the change introduces, and how many the old
/// content had.
fn problems(
    lang: &Arc<Language>,
    base: Option<Base>,
    new_body: &str,
) -> Result<(Tree, validate::Problems, usize)> {
    match base {
        Some(b) => {
            let Some(parsed) = b.parsed else {
                let old_tree = symbols::parse_tree(lang, b.source.body(), None)?;
                return validate::reparse(lang, &old_tree, b.source.body(), new_body, b.change);
            };
            validate::reparse_parsed(parsed, new_body, b.change)
        }
        None => {
            let tree = symbols::parse_tree(lang, new_body, None)?;
            let found = validate::syntax_problems(lang, &tree, new_body);
            let found = validate::Problems::judged(lang, &tree, new_body, found);
            Ok((tree, found, 0))
        }
    }
}

// ---------------------------------------------------------------------------
// list_directory

/// A token-lean tree of a folder (`list_directory`).
pub fn tree(ws: &Workspace, params: &TreeParams) -> Result<TreeListing> {
    list_directory(ws.root(), params)
}
