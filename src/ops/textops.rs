//! The text tools' library facade: `read_file`, `read_fragment`, `edit_file`,
//! `write_file`, `search_files` and `list_directory`, one function each.
//!
//! The algorithms live elsewhere and are pure (`text`: intervals, safe
//! replace; `disk`: windows, the search walk, the tree) or are the single way
//! to the disk (a [`Change`] committed by `change`). This module only
//! composes them, so the
//! CLI and the MCP server stay thin adapters that give the same answers and
//! the same errors. Every function takes the [`Workspace`], so each path is
//! sandboxed before a byte is read, and every result names its file relative
//! to the root.

use crate::disk::search::{
    DefinitionsFn, SearchControl, SearchParams, SearchResult, search_files_with,
};
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
use schemars::JsonSchema;
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
#[derive(Debug, Clone, Serialize, JsonSchema)]
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
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FragmentParams {
    // A file, relative to the root (the instructions say so once).
    pub path: String,
    /// Line ranges `{start, end}` (1-based, inclusive).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ranges: Vec<LineRange>,
    /// Read the lines that contain any of these (literal text). With
    /// `symbols`, only lines inside those symbols are searched and read.
    #[schemars(
        description = "Read lines containing any of these; with `symbols`, only inside them."
    )]
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub keywords: Vec<String>,
    /// Read these symbols (name paths such as `Parser.run`), decorators and
    /// doc comments included.
    #[schemars(description = "Name paths of symbols to read.")]
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub symbols: Vec<String>,
    /// Lines of context around each piece (default 3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_lines: Option<usize>,
    /// Most lines returned (default 500); what does not fit is listed in
    /// `dropped`.
    #[schemars(description = "Line budget (default 500).")]
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
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
                kind: s.kind.clone(),
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
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
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
    #[schemars(description = "Refuse unless the file has this file_hash.")]
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
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EditFilesParams {
    /// One entry per file: path, edits, optional expected_hash.
    #[schemars(
        description = "[{path, edits, expected_hash?}], each as in edit_file.",
        with = "Vec<serde_json::Map<String, serde_json::Value>>"
    )]
    pub files: Vec<FileEdits>,
    /// Match, validate and show the diffs, but write nothing.
    #[serde(default)]
    pub dry_run: bool,
    /// Write even if a result has new parse errors.
    #[serde(default)]
    pub allow_syntax_errors: bool,
}

/// The edits of one file in `edit_files`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
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
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WriteParams {
    /// The file, relative to the root or absolute inside it; missing parent
    /// folders are created (inside the root only).
    #[schemars(description = "Missing parent folders are created.")]
    pub path: String,
    /// The complete new content.
    pub content: String,
    /// Refuse with STALE_FILE unless the file still has this hash.
    #[schemars(description = "Refuse unless the file has this file_hash.")]
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

fn strip_bom(s: &str) -> &str {
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
    // (a shebang decides for files without an extension), else of the
    // content about to be written.
    let first_line = match base {
        Some(b) => b.source.body().lines().next(),
        None => new_body.lines().next(),
    };
    let lang = match base.and_then(|b| b.parsed) {
        Some(p) => p.language.clone(),
        None => match engine.registry.detect(&target.path, first_line) {
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
) -> Result<(Tree, Vec<validate::SyntaxProblem>, usize)> {
    match base {
        Some(b) => {
            let parsed_here;
            let old_tree = match b.parsed {
                Some(p) => &p.tree,
                None => {
                    parsed_here = symbols::parse_tree(lang, b.source.body(), None)?;
                    &parsed_here
                }
            };
            validate::reparse(lang, old_tree, b.source.body(), new_body, b.change)
        }
        None => {
            let tree = symbols::parse_tree(lang, new_body, None)?;
            let found = validate::syntax_problems(lang, &tree, new_body);
            Ok((tree, found, 0))
        }
    }
}

// ---------------------------------------------------------------------------
// search_files and list_directory

/// Search the workspace (`search_files`), ranking files that define a
/// keyword (per the grammar's tags query) above files that only mention it.
/// `params.path` is a folder relative to the root or absolute inside it.
pub fn search(ws: &Workspace, engine: &Engine, params: &SearchParams) -> Result<SearchResult> {
    search_with(ws, engine, params, SearchControl::default())
}

/// [`search`] that can be cancelled and reports progress (the MCP server
/// wires these to the request's cancellation and progress token).
pub fn search_with(
    ws: &Workspace,
    engine: &Engine,
    params: &SearchParams,
    control: SearchControl<'_>,
) -> Result<SearchResult> {
    let registry = Arc::clone(&engine.registry);
    // Built once per search, not once per parsed file (a regex compile
    // costs about as much as parsing a small file).
    let lines = match &params.pattern {
        None => KeywordLines::new(&params.keywords, params.case_sensitive).map(Some),
        Some(_) => Ok(None),
    };
    let definitions = move |path: &Path, text: &str| -> Vec<String> {
        let body = strip_bom(text);
        let found = match (&lines, registry.detect(path, body.lines().next())) {
            (_, None) => return Vec::new(),
            (Ok(lines), Some(lang)) => defined_names(lang, body, lines.as_ref()),
            (Err(e), Some(_)) => Err(e.clone()),
        };
        found.unwrap_or_else(|e| {
            tracing::debug!(path = %path.display(), error = %e, "no definitions");
            Vec::new()
        })
    };
    let definitions: &DefinitionsFn = &definitions;
    search_files_with(ws.root(), params, Some(definitions), control)
}

/// Above this many keyword lines, the tags query runs over the whole file.
const MAX_QUERY_RANGES: usize = 64;

/// Names of the definitions in `body` (the `@name` of every match with a
/// `@definition.*` capture). With `words`, the query runs only over the
/// lines that mention one of them: the ranking only asks whether a keyword
/// is defined, and a definition whose name is a keyword intersects such a
/// line, so this finds the same answer for a fraction of the query cost.
fn defined_names(lang: &Language, body: &str, lines: Option<&KeywordLines>) -> Result<Vec<String>> {
    let ranges = match lines {
        Some(lines) => lines.spans(body),
        None => std::iter::once(0..body.len()).collect(),
    };
    if ranges.is_empty() {
        return Ok(Vec::new());
    }
    // The grammar's definition-line patterns are a necessary condition:
    // a file none of whose keyword lines could hold a definition's name is
    // not parsed (and, when no file is, the tags query is never compiled).
    if let Some(lines) = lines
        && !lines.may_define(lang, body, &ranges)
    {
        return Ok(Vec::new());
    }
    let tree = symbols::parse_tree(lang, body, None)?;
    let mut names: Vec<String> = Vec::new();
    for range in ranges {
        symbols::for_each_tag(lang, &tree, body, Some(range), None, |m| {
            if m.definition.is_none() {
                return;
            }
            for n in &m.names {
                if let Some(name) = body.get(n.byte_range())
                    && !names.iter().any(|have| have == name)
                {
                    names.push(name.to_string());
                }
            }
        })?;
    }
    Ok(names)
}

/// Finds the lines of a text that contain one of some keywords as a whole
/// word; built once per search and shared by the threads that parse.
struct KeywordLines {
    matcher: crate::text::KeywordMatcher,
    re: regex::Regex,
    case_sensitive: bool,
    /// Per language: its `definition_lines` with the keywords put in,
    /// compiled on first use (`None`: the language has none, or they do
    /// not compile with these keywords; then every candidate is parsed).
    definition_lines:
        std::sync::Mutex<std::collections::HashMap<String, Option<Arc<regex::Regex>>>>,
}

impl KeywordLines {
    fn new(words: &[String], case_sensitive: bool) -> Result<Self> {
        // The matcher's own whole-word rule decides (the same as search
        // hits): its alternation finds candidate lines, `find_in_line`
        // confirms them.
        let matcher = crate::text::KeywordMatcher::keywords(words, case_sensitive, true)?;
        let re = regex::RegexBuilder::new(matcher.alternation())
            .case_insensitive(!case_sensitive)
            .build()
            .map_err(|e| {
                Error::invalid_argument(format!("cannot search for these keywords: {e}"))
                    .with_suggestion("pass plain words as ⟦keywords⟧")
            })?;
        Ok(KeywordLines {
            matcher,
            re,
            case_sensitive,
            definition_lines: Default::default(),
        })
    }

    /// Whether one of `spans` of `body` (keyword lines) matches one of
    /// `lang`'s definition-line patterns; true when it has none.
    fn may_define(&self, lang: &Language, body: &str, spans: &[std::ops::Range<usize>]) -> bool {
        let re = {
            let mut cache = self
                .definition_lines
                .lock()
                .unwrap_or_else(|p| p.into_inner());
            cache
                .entry(lang.name().to_string())
                .or_insert_with(|| self.definition_regex(lang).map(Arc::new))
                .clone()
        };
        match re {
            Some(re) => spans.iter().any(|r| re.is_match(&body[r.clone()])),
            None => true,
        }
    }

    fn definition_regex(&self, lang: &Language) -> Option<regex::Regex> {
        let templates = lang.definition_lines();
        if templates.is_empty() {
            return None;
        }
        let name = format!("(?:{})", self.matcher.alternation());
        let alternatives: Vec<String> = templates
            .iter()
            .map(|t| format!("(?:{})", t.replace("{name}", &name)))
            .collect();
        regex::RegexBuilder::new(&format!("(?m){}", alternatives.join("|")))
            .case_insensitive(!self.case_sensitive)
            .build()
            .inspect_err(
                |e| tracing::debug!(language = lang.name(), error = %e, "definition lines"),
            )
            .ok()
    }

    /// Byte spans of the lines of `body` that contain one of the words as a
    /// whole word; the whole body when there are more than
    /// [`MAX_QUERY_RANGES`].
    fn spans(&self, body: &str) -> Vec<std::ops::Range<usize>> {
        let bytes = body.as_bytes();
        let mut spans: Vec<std::ops::Range<usize>> = Vec::new();
        let mut from = 0;
        while let Some(m) = self.re.find_at(body, from) {
            let start = memchr::memrchr(b'\n', &bytes[..m.start()]).map_or(0, |p| p + 1);
            let end = memchr::memchr(b'\n', &bytes[m.end()..]).map_or(body.len(), |p| m.end() + p);
            from = (end + 1).min(body.len());
            if self.matcher.find_in_line(&body[start..end]).is_empty() {
                if end >= body.len() {
                    break;
                }
                continue;
            }
            if spans.len() == MAX_QUERY_RANGES {
                return std::iter::once(0..body.len()).collect();
            }
            spans.push(start..end);
            if end >= body.len() {
                break;
            }
        }
        spans
    }
}

/// A token-lean tree of a folder (`list_directory`).
pub fn tree(ws: &Workspace, params: &TreeParams) -> Result<TreeListing> {
    list_directory(ws.root(), params)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The matcher's whole-word rule (neighbours are not word characters),
    /// not a regex `\b`: a keyword that starts with a symbol still matches,
    /// and part of a longer identifier does not.
    #[test]
    fn keyword_lines_follow_the_matchers_whole_word_rule() {
        let body = "x = 1\n@property\ndef f(): pass\nfoo_bar = 2\nfoo = 3\n";
        let lines = |words: &[&str]| -> Vec<&str> {
            let w: Vec<String> = words.iter().map(|s| s.to_string()).collect();
            KeywordLines::new(&w, true)
                .unwrap()
                .spans(body)
                .into_iter()
                .map(|r| &body[r])
                .collect()
        };
        assert_eq!(lines(&["@property"]), ["@property"]);
        assert_eq!(lines(&["foo"]), ["foo = 3"]);
        assert_eq!(lines(&["foo", "x"]), ["x = 1", "foo = 3"]);
        assert!(lines(&["oo"]).is_empty());
    }

    fn python() -> Arc<Language> {
        Engine::default()
            .registry
            .by_name("python")
            .cloned()
            .unwrap()
    }

    #[test]
    fn defined_names_only_looks_at_keyword_lines() {
        let body =
            "class Store:\n    def get(self):\n        return load()\n\n\ndef load():\n    pass\n";
        let all = defined_names(&python(), body, None).unwrap();
        assert_eq!(all, vec!["Store", "get", "load"]);
        // `load` is mentioned on line 3 and defined on line 6: found once.
        let load = KeywordLines::new(&["LOAD".to_string()], false).unwrap();
        let some = defined_names(&python(), body, Some(&load)).unwrap();
        assert!(some.contains(&"load".to_string()), "{some:?}");
        // Not mentioned as a whole word: nothing parsed, nothing found.
        let oad = KeywordLines::new(&["oad".to_string()], true).unwrap();
        let none = defined_names(&python(), body, Some(&oad)).unwrap();
        assert!(none.is_empty());
    }

    /// The grammars' definition-line patterns: every kind of line that
    /// the tags query finds a definition on passes (a superset), and a
    /// file that only uses the name does not, so it is not parsed.
    #[test]
    fn definition_lines_pass_definitions_and_skip_mere_uses() {
        let engine = Engine::default();
        let check = |lang: &str, body: &str, word: &str| -> (bool, bool) {
            let lang = engine.registry.by_name(lang).cloned().unwrap();
            let lines = KeywordLines::new(&[word.to_string()], false).unwrap();
            let spans = lines.spans(body);
            let defined = defined_names(&lang, body, None)
                .unwrap()
                .iter()
                .any(|n| n.eq_ignore_ascii_case(word));
            (lines.may_define(&lang, body, &spans), defined)
        };
        for (lang, body, word) in [
            ("python", "def f(): pass\n", "f"),
            ("python", "async def f(): pass\n", "f"),
            ("python", "class F:\n    pass\n", "f"),
            ("python", "F = 1\n", "f"),
            ("python", "f: int = 2\n", "f"),
            ("python", "a = 1; f = 2\n", "f"),
            ("python", "class C: f = 1\n", "f"),
            ("javascript", "function f() {}\n", "f"),
            ("javascript", "class C {\n  static async f() {}\n}\n", "f"),
            ("javascript", "const a = 1, f = () => 2;\n", "f"),
            ("javascript", "class C {\n  f = () => 1\n}\n", "f"),
            ("typescript", "interface I {\n  f?: string;\n}\n", "f"),
            ("typescript", "enum E { A, F }\n", "f"),
            (
                "typescript",
                "declare global {\n  var x: number;\n}\n",
                "global",
            ),
            ("typescript", "class C {\n  @dec() f(): void {}\n}\n", "f"),
        ] {
            assert_eq!(check(lang, body, word), (true, true), "{lang}: {body}");
        }
        for (lang, body) in [
            ("python", "import x\nx.f()\nprint(f(1))\n"),
            ("python", "if f == 2:\n    g(f)\n"),
            ("javascript", "a.f(1);\nconst g = b.f;\nreturn f(x) + 1;\n"),
            ("javascript", "read(path, function (err) {});\n"),
        ] {
            let word = if body.contains("function") {
                "function"
            } else {
                "f"
            };
            assert_eq!(check(lang, body, word), (false, false), "{lang}: {body}");
        }
    }
}
