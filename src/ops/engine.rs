//! The library facade: one function per user-facing operation, composed from
//! `disk` (reading), `lang` (detection) and `symbols` (parsing). The CLI and the
//! MCP server are thin adapters over these functions, so both give the same
//! answers and the same errors.

use crate::disk::{self, Purpose, Workspace, WriteMeta};
use crate::edit::{self, Operation};
use crate::error::{Error, ErrorCode, Result};
use crate::hint::{Term, term, term_with};
use crate::ops::change::{Change, Judged};
use crate::ops::receipt::SymbolChange;
use crate::symbols::{self, Dependencies, ParseErrorLoc, ParsedFile, Symbol};
use serde::Serialize;
use serde_json::json;
use std::path::Path;
use std::sync::Arc;

pub use super::cache::{CacheStats, ParseCache};
pub use super::config::Engine;

/// The outline of one file (`list_symbols`, `scalpel symbols --json`).
#[derive(Debug, Clone, Serialize)]
pub struct FileSymbols {
    pub path: String,
    pub language: String,
    pub symbols: Vec<Symbol>,
    /// Number of places where the parser had to recover.
    pub parse_errors: usize,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub parse_error_locations: Vec<ParseErrorLoc>,
    pub file_hash: String,
    /// For a folder: the outline of each file with a grammar, in path order
    /// (`symbols` is then empty, `language` and `file_hash` too).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<FolderFile>,
    /// The outline was cut at the entry or size cap (see `note`).
    pub truncated: bool,
    /// Symbols left out by the cap.
    #[serde(skip_serializing_if = "is_zero")]
    pub omitted_symbols: usize,
    /// What was left out (folder files, capped symbols) and how to see it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    /// Pass as `cursor` for the next page of a cut outline.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

/// One file of a folder's outline.
#[derive(Debug, Clone, Serialize)]
pub struct FolderFile {
    pub path: String,
    pub language: String,
    pub symbols: Vec<Symbol>,
    #[serde(skip_serializing_if = "is_zero")]
    pub parse_errors: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// How to outline a folder (`list_symbols` on a folder).
#[derive(Debug, Clone, Default)]
pub struct FolderRequest<'a> {
    pub include_trivia: bool,
    /// Only this symbol and its members, in the files that have it.
    pub symbol: Option<&'a str>,
    /// Symbol depth (default 1 for a folder: top-level symbols only).
    pub depth: Option<usize>,
    pub kind: Option<&'a str>,
    /// Most files outlined (default [`DEFAULT_FOLDER_FILES`]).
    pub max_files: Option<usize>,
}

/// Files a folder outline lists by default.
pub const DEFAULT_FOLDER_FILES: usize = 50;

/// The outline of the files under `dir` (the workspace's ignore rules, path
/// order) that a grammar claims, each parsed by `parse` and narrowed like
/// [`outline`]. Files that fail to read or parse, and with `symbol` files
/// without it, are left out; past `max_files` the rest are counted in
/// `hint`.
pub fn folder_outline(
    engine: &Engine,
    ws: &Workspace,
    dir: &disk::ResolvedPath,
    req: &FolderRequest,
    parse: impl Fn(&Path) -> Result<Arc<ParsedFile>>,
) -> Result<FileSymbols> {
    let max_files = req.max_files.unwrap_or(DEFAULT_FOLDER_FILES);
    if max_files == 0 {
        return Err(
            Error::invalid_argument("the file limit must be at least 1").with_suggestion(format!(
                "omit {} to use the default ({DEFAULT_FOLDER_FILES})",
                crate::hint::term(crate::hint::Term::MaxFiles)
            )),
        );
    }
    let depth = req
        .depth
        .or(Some(1))
        .filter(|_| req.symbol.is_none() || req.depth.is_some());
    let mut walk = disk::grep::walk_builder(ws.root(), &dir.path, false, None);
    walk.sort_by_file_path(|a, b| a.cmp(b));
    let (mut files, mut left_out, mut unreadable) = (Vec::new(), 0usize, 0usize);
    for entry in walk.build().flatten() {
        let path = entry.path();
        if !entry.file_type().is_some_and(|t| t.is_file())
            || engine.language_for(path, None, None).is_err()
        {
            continue;
        }
        if files.len() == max_files {
            left_out += 1;
            continue;
        }
        let display = disk::grep::rel_path(ws.root(), path);
        let narrowed = parse(path).and_then(|parsed| {
            outline(
                &parsed,
                &display,
                req.include_trivia,
                req.symbol,
                depth,
                req.kind,
            )
        });
        match narrowed {
            Ok(o) => files.push(FolderFile {
                path: o.path,
                language: o.language,
                symbols: o.symbols,
                parse_errors: o.parse_errors,
            }),
            Err(e) if e.code() == ErrorCode::InvalidArgument => return Err(e),
            Err(e) if e.code() == ErrorCode::NotFound || e.code() == ErrorCode::Ambiguous => {}
            Err(_) => unreadable += 1,
        }
    }
    if req.symbol.is_some() {
        files.retain(|f| !f.symbols.is_empty());
    }
    let mut notes = Vec::new();
    if left_out > 0 {
        notes.push(format!(
            "{} more not outlined; pass a narrower {} or raise {}",
            crate::text::count(left_out, "file"),
            crate::hint::term(crate::hint::Term::Path),
            crate::hint::term(crate::hint::Term::MaxFiles)
        ));
    }
    if unreadable > 0 {
        notes.push(format!(
            "{} could not be read or parsed",
            crate::text::count(unreadable, "file")
        ));
    }
    Ok(FileSymbols {
        path: dir.display.clone(),
        language: String::new(),
        symbols: Vec::new(),
        parse_errors: 0,
        parse_error_locations: Vec::new(),
        file_hash: String::new(),
        files,
        truncated: false,
        omitted_symbols: 0,
        hint: (!notes.is_empty()).then(|| notes.join("; ")),
        next_cursor: None,
    })
}

/// Entries an outline shows by default (`list_symbols`, `scalpel symbols`).
pub const DEFAULT_MAX_SYMBOLS: usize = 1000;
/// Bytes of outline text (one line per symbol: address, kind, lines,
/// signature) an outline shows by default: about 2,000 tokens (outline
/// lines run at 3 to 3.7 bytes a token, the low end for lines that are
/// mostly numbers; `tests/bounded.rs` counts them with a real tokenizer).
pub const DEFAULT_OUTLINE_BYTES: usize = 6_000;
/// Bytes of outline text an outline shows at most, whatever `max_symbols`
/// asks for: about 12,000 tokens.
pub const MAX_OUTLINE_BYTES: usize = 48 * 1024;

/// The bytes of `s`'s line in an outline: indentation, address, kind,
/// lines, signature.
pub fn outline_line_bytes(s: &Symbol) -> usize {
    s.depth().min(8) * 2 + s.address().len() + s.kind.len() + s.signature.len() + 24
}

/// How much of an outline one answer shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Budget {
    /// An agent's: about 2,000 tokens by default, [`MAX_OUTLINE_BYTES`]
    /// with an explicit `max`, and a `next_cursor` for the rest.
    Agent,
    /// Machine output (the CLI's `--json`): every symbol, or `max` of them.
    Complete,
}

/// A page of an outline: where it starts and how much it holds.
#[derive(Debug, Clone, Copy)]
pub struct Page<'a> {
    pub max: Option<usize>,
    /// `next_cursor` of the previous page: `N@hash`, the symbols before it
    /// and the file it was given for.
    pub cursor: Option<&'a str>,
    pub budget: Budget,
}

/// Cut an outline, in document order, to a budget: by default at most
/// [`DEFAULT_MAX_SYMBOLS`] symbols and [`DEFAULT_OUTLINE_BYTES`] of text
/// (about 2,000 tokens); with an explicit `max`, at most `max` symbols and
/// [`MAX_OUTLINE_BYTES`]. A cut outline says in `hint` how many were left
/// out, from which line, and how to get them.
pub fn cap_symbols(outline: FileSymbols, max: Option<usize>) -> FileSymbols {
    let page = Page {
        max,
        cursor: None,
        budget: Budget::Agent,
    };
    page_symbols(outline, &page).expect("a page without a cursor is always valid")
}

/// The page of `outline` that `page` asks for (see [`cap_symbols`]). A cut
/// page carries `next_cursor`, which reaches the next page of the same
/// outline (same filters), so every symbol of any file can be listed; a
/// cursor given for another version of the file is refused.
pub fn page_symbols(mut outline: FileSymbols, page: &Page) -> Result<FileSymbols> {
    let skip = match page.cursor {
        None => 0,
        Some(c) => parse_cursor(c, &outline.file_hash)?.min(outline.symbols.len()),
    };
    let total = outline.symbols.len();
    outline.symbols.drain(..skip);
    let (budget, max) = match (page.budget, page.max) {
        (Budget::Complete, max) => (usize::MAX, max.unwrap_or(usize::MAX)),
        (Budget::Agent, Some(max)) => (MAX_OUTLINE_BYTES, max),
        (Budget::Agent, None) => (DEFAULT_OUTLINE_BYTES, DEFAULT_MAX_SYMBOLS),
    };
    let mut bytes = 0usize;
    let mut keep = 0usize;
    for s in &outline.symbols {
        let line = outline_line_bytes(s);
        // At least one symbol a page, so following the cursor ends.
        if keep == max || (keep > 0 && bytes + line > budget) {
            break;
        }
        bytes += line;
        keep += 1;
    }
    let omitted = outline.symbols.len() - keep;
    if omitted > 0 {
        let from = outline.symbols[keep].start_line;
        let next = format!("{}@{}", skip + keep, cursor_hash(&outline.file_hash));
        outline.symbols.truncate(keep);
        outline.symbols.shrink_to_fit();
        outline.truncated = true;
        outline.omitted_symbols = omitted;
        let shown = match skip {
            0 => format!("showing {keep} of {total} symbols"),
            _ => format!("showing symbols {}-{} of {total}", skip + 1, skip + keep),
        };
        let narrow = match page.budget {
            Budget::Agent => format!(
                ", list one class's members with {}, or narrow with {} or {}",
                term(Term::Symbol),
                term_with(Term::Depth, 1),
                term(Term::Kind)
            ),
            Budget::Complete => String::new(),
        };
        outline.hint = Some(format!(
            "{shown}; {omitted} more, from line {from}: pass {} for the next page{narrow}",
            term_with(Term::Cursor, &next)
        ));
        outline.next_cursor = Some(next);
    }
    Ok(outline)
}

/// The part of a file's hash a cursor carries.
fn cursor_hash(file_hash: &str) -> &str {
    &file_hash[..file_hash.len().min(8)]
}

/// The symbols a cursor skips; refused when it is malformed or was given
/// for another version of the file.
fn parse_cursor(cursor: &str, file_hash: &str) -> Result<usize> {
    let bad = |why: &str| {
        Error::invalid_argument(format!("cursor `{cursor}` {why}"))
            .with_suggestion(format!(
                "list the file again without {}, then follow its next_cursor",
                term(Term::Cursor)
            ))
            .with_details(json!({"cursor": cursor, "file_hash": file_hash}))
    };
    let (n, hash) = cursor
        .split_once('@')
        .ok_or_else(|| bad("is not a cursor this tool gave"))?;
    let n = n
        .parse::<usize>()
        .map_err(|_| bad("is not a cursor this tool gave"))?;
    if hash != cursor_hash(file_hash) {
        return Err(bad("was given for another version of the file"));
    }
    Ok(n)
}

/// One symbol's code (`extract_code`, `scalpel extract --json`).
#[derive(Debug, Clone, Serialize)]
pub struct Extraction {
    pub path: String,
    pub language: String,
    #[serde(flatten)]
    pub symbol: Symbol,
    /// The file's exact bytes over `start_byte..end_byte`.
    pub code: String,
    /// The whitespace before `code` on its first line: printed code is
    /// `indent` + `code` ([`Extraction::printed`]), every line where the
    /// file has it. Not serialized: `code` stays the exact bytes.
    #[serde(skip)]
    pub indent: String,
    pub file_hash: String,
    /// Rough token count of `code` (about 4 bytes per token).
    pub token_estimate: usize,
    pub dependencies: Dependencies,
    /// Code of the same-file dependencies, when asked for.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub dependency_code: Vec<DependencyCode>,
    pub parse_errors: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct DependencyCode {
    pub address: String,
    pub kind: String,
    pub start_line: usize,
    pub end_line: usize,
    pub code: String,
    /// As [`Extraction::indent`].
    #[serde(skip)]
    pub indent: String,
}

impl Extraction {
    /// The code as both interfaces print it: its first line with the
    /// indentation it has in the file, so every line is indented alike
    /// (`    @property` over `    def size`). Sent back as new code, it is
    /// the "every line at the target's depth" shape.
    pub fn printed(&self) -> String {
        format!("{}{}", self.indent, self.code)
    }
}

impl DependencyCode {
    /// As [`Extraction::printed`].
    pub fn printed(&self) -> String {
        format!("{}{}", self.indent, self.code)
    }
}

/// The whitespace between the start of the line holding `start` and
/// `start`, or nothing when other text precedes it there.
fn indent_before(file: &ParsedFile, start: usize) -> String {
    let text = file.source.text.as_str();
    let ls = text[..start]
        .rfind('\n')
        .map_or(0, |p| p + 1)
        .max(file.source.body_offset());
    let before = &text[ls..start];
    if before.bytes().all(|b| b == b' ' || b == b'\t') {
        before.to_string()
    } else {
        String::new()
    }
}

/// A rough token estimate: code averages about four bytes per token.
pub fn token_estimate(text: &str) -> usize {
    text.len().div_ceil(4)
}

impl Engine {
    /// Outline of `path`, shown as `display`.
    pub fn list_symbols(
        &self,
        path: &Path,
        display: &str,
        include_trivia: bool,
        forced: Option<&str>,
    ) -> Result<FileSymbols> {
        let file = self.load(path, forced)?;
        Ok(file_symbols(&file, display, include_trivia))
    }

    /// Outline of `path` narrowed to one symbol and its members (see
    /// [`outline`]).
    pub fn list_symbol_members(
        &self,
        path: &Path,
        display: &str,
        include_trivia: bool,
        forced: Option<&str>,
        symbol: &str,
    ) -> Result<FileSymbols> {
        let file = self.load(path, forced)?;
        outline(&file, display, include_trivia, Some(symbol), None, None)
    }

    /// One symbol's code and dependencies.
    pub fn extract(&self, path: &Path, display: &str, req: &ExtractRequest) -> Result<Extraction> {
        let file = self.load(path, req.language.as_deref())?;
        extract_from(&file, display, req)
    }
}

/// What to extract and how.
#[derive(Debug, Clone, Default)]
pub struct ExtractRequest {
    pub symbol: String,
    pub kind: Option<String>,
    pub include_context: bool,
    pub include_trivia: bool,
    pub language: Option<String>,
}

pub fn file_symbols(file: &ParsedFile, display: &str, include_trivia: bool) -> FileSymbols {
    FileSymbols {
        path: display.to_string(),
        language: file.language.name().to_string(),
        symbols: file
            .symbols
            .iter()
            .map(|s| s.presented(include_trivia))
            .collect(),
        parse_errors: file.parse_error_count,
        parse_error_locations: file.parse_errors.clone(),
        file_hash: file.source.hash.clone(),
        files: Vec::new(),
        truncated: false,
        omitted_symbols: 0,
        hint: None,
        next_cursor: None,
    }
}

/// Narrow an outline: keep symbols nested at most `depth` levels (1: top
/// level only) and, when `kind` is given, only symbols of that kind.
/// `INVALID_ARGUMENT` for a depth of 0 or an unknown kind.
pub fn select_symbols(
    mut outline: FileSymbols,
    depth: Option<usize>,
    kind: Option<&str>,
) -> Result<FileSymbols> {
    use crate::lang::query::SYMBOL_KINDS;
    check_depth(depth)?;
    if let Some(k) = kind
        && !SYMBOL_KINDS.contains(&k)
    {
        return Err(Error::invalid_argument(format!("unknown kind `{k}`"))
            .with_suggestion(format!("kinds: {}", SYMBOL_KINDS.join(", ")))
            .with_details(serde_json::json!({"kind": k, "legal": SYMBOL_KINDS})));
    }
    outline.symbols.retain(|s| {
        depth.is_none_or(|d| s.segments().len() <= d) && kind.is_none_or(|k| s.kind == k)
    });
    Ok(outline)
}

fn check_depth(depth: Option<usize>) -> Result<()> {
    if depth == Some(0) {
        return Err(Error::invalid_argument("depth must be at least 1")
            .with_suggestion("use ⟦depth=1⟧ for top-level symbols only, or omit it for all")
            .with_details(serde_json::json!({"depth": 0})));
    }
    Ok(())
}

/// The outline of `file`, narrowed: with `symbol` (a name path) only that
/// symbol (or the declarations merged under its name) and the symbols nested
/// in it, then each block of the file that extends it (a Rust `impl`) with
/// its members, `depth` then counting levels below
/// it (1: its direct members); without it `depth` counts from the top level
/// (see [`select_symbols`]). `kind` applies to what is left.
pub fn outline(
    file: &ParsedFile,
    display: &str,
    include_trivia: bool,
    symbol: Option<&str>,
    depth: Option<usize>,
    kind: Option<&str>,
) -> Result<FileSymbols> {
    let mut outline = file_symbols(file, display, include_trivia);
    let Some(name) = symbol else {
        return select_symbols(outline, depth, kind);
    };
    check_depth(depth)?;
    let found =
        symbols::resolve_declarations(&file.symbols, name).map_err(|e| e.with_path(display))?;
    // Its declarations, then the blocks that extend it elsewhere in the file
    // (a Rust `impl T` / `impl X for T`, known from the tags query's scope).
    let inside_found = |s: &Symbol| found.iter().any(|f| f.contains(s));
    let heads: Vec<&Symbol> = file
        .symbols
        .iter()
        .filter(|s| {
            found.iter().any(|f| std::ptr::eq(*f, *s))
                || (found.iter().any(|f| s.extends(f)) && !inside_found(s))
        })
        .collect();
    let keep: Vec<bool> = file
        .symbols
        .iter()
        .map(|s| {
            heads.iter().any(|h| {
                std::ptr::eq(*h, s)
                    || (h.contains(s) && depth.is_none_or(|d| s.depth() - h.depth() <= d))
            })
        })
        .collect();
    let mut keep = keep.into_iter();
    outline.symbols.retain(|_| keep.next().unwrap_or(false));
    select_symbols(outline, None, kind)
}

pub fn extract_from(file: &ParsedFile, display: &str, req: &ExtractRequest) -> Result<Extraction> {
    let found = symbols::resolve(&file.symbols, &req.symbol, req.kind.as_deref())
        .map_err(|e| e.with_path(display))?;
    let shown = found.presented(req.include_trivia);
    let span = if req.include_trivia {
        found.full_span()
    } else {
        found.bare_span()
    };
    let code = file.text(span).to_string();
    let (dependencies, picked) = symbols::dependencies(file, found)?;
    let dependency_code = if req.include_context {
        picked
            .iter()
            .map(|&i| {
                let s = &file.symbols[i];
                DependencyCode {
                    address: s.address().to_string(),
                    kind: s.kind.to_string(),
                    start_line: s.start_line,
                    end_line: s.end_line,
                    code: file.text(s.full_span()).to_string(),
                    indent: indent_before(file, s.full_span().start_byte),
                }
            })
            .collect()
    } else {
        Vec::new()
    };
    Ok(Extraction {
        path: display.to_string(),
        language: file.language.name().to_string(),
        token_estimate: token_estimate(&code),
        symbol: shown,
        code,
        indent: indent_before(file, span.start_byte),
        file_hash: file.source.hash.clone(),
        dependencies,
        dependency_code,
        parse_errors: file.parse_error_count,
    })
}

/// A symbol write (`update_symbol`, `scalpel update`).
#[derive(Debug, Clone, Default)]
pub struct UpdateRequest {
    pub symbol: String,
    pub kind: Option<String>,
    pub operation: Option<Operation>,
    pub new_code: Option<String>,
    pub expected_hash: Option<String>,
    pub dry_run: bool,
    pub allow_syntax_errors: bool,
    pub language: Option<String>,
}

pub use crate::ops::change::Reparsed;
pub use crate::ops::receipt::UpdateReceipt;

impl Engine {
    /// Replace, insert next to, or delete a symbol, validated and written
    /// through the workspace's atomic, journaled write path.
    pub fn update_symbol(
        &self,
        ws: &Workspace,
        path: &Path,
        req: &UpdateRequest,
    ) -> Result<UpdateReceipt> {
        let target_path = ws.resolve(path, Purpose::Write)?;
        let file = self.load(&target_path.path, req.language.as_deref())?;
        let (receipt, reparsed) = self.update_parsed(ws, &target_path, &file, req)?;
        free_beside(file.source.text.len(), (file, reparsed));
        Ok(receipt)
    }

    /// `update_symbol` on a file already resolved for writing and parsed
    /// (the MCP server passes its cached parse; the write path re-checks the
    /// bytes on disk under its lock, so a stale cache cannot slip through).
    /// Also returns the new tree from validation's incremental reparse, when
    /// something was written, for a cache to keep ([`Reparsed::outline`]).
    pub fn update_parsed(
        &self,
        ws: &Workspace,
        target_path: &disk::ResolvedPath,
        file: &ParsedFile,
        req: &UpdateRequest,
    ) -> Result<(UpdateReceipt, Option<Reparsed>)> {
        let display = target_path.display.clone();
        if let Some(h) = &req.expected_hash {
            disk::check_expected_hash(&display, &file.source, h)?;
        }
        let target = symbols::resolve(&file.symbols, &req.symbol, req.kind.as_deref())
            .map_err(|e| e.with_path(&display))?;
        let op = req.operation.unwrap_or(Operation::Replace);
        let code = req.new_code.as_deref();
        let edit::symbol::Prepared {
            checked,
            preexisting,
            kept_trivia,
            defined,
            mut warnings,
        } = edit::symbol::prepare(file, target, op, code)?;
        let readings_tried = checked.readings_tried;
        let edit::symbol::Checked {
            edit: plan,
            tree,
            introduced,
            ..
        } = checked;
        let validation = edit::judge(introduced, preexisting, req.allow_syntax_errors, &display)
            .map_err(|mut e| {
                if let serde_json::Value::Object(map) = &mut e.details {
                    map.insert("indentation_readings_tried".into(), readings_tried.into());
                }
                e
            })?;

        if op == Operation::Delete {
            // Safer deletes: what still uses the symbol, before anything is
            // written (a dry run shows it too).
            let load = |p: &Path| self.load(p, None).map(Arc::new);
            match crate::refs::remaining_references(
                ws,
                &self.registry,
                &display,
                target.address(),
                &load,
            ) {
                Ok(Some(w)) => warnings.push(w),
                Ok(None) => {}
                Err(e) => warnings.push(format!("references not checked: {}", e.message)),
            }
        }
        if op != Operation::Delete {
            if op == Operation::Replace
                && defined.first().is_some_and(|d| !d.docstring)
                && symbols::docstring_of(file, target)
            {
                warnings.push(format!(
                    "the new code has no docstring, so `{}` lost its docstring (a docstring is part of the body)",
                    target.name
                ));
            }
            match (op, defined.first()) {
                (_, None) => warnings.push(format!(
                    "the new code defines no symbol Scalpel recognises as a {} definition",
                    file.language.name()
                )),
                (Operation::Replace, Some(d)) if d.name != target.name || d.kind != target.kind => {
                    warnings.push(format!(
                        "the replacement defines `{}` ({}) where `{}` ({}) was; references to `{}` may now be broken",
                        d.name, d.kind, target.name, target.kind, target.name
                    ))
                }
                (Operation::InsertBefore | Operation::InsertAfter, Some(d))
                    if file.symbols.iter().any(|s| s.parent == target.parent && s.name == d.name) =>
                {
                    warnings.push(format!("`{}` is now defined more than once in the same scope", d.name));
                }
                _ => {}
            }
        }

        let line_at =
            |b: usize| memchr::memchr_iter(b'\n', &plan.new_text.as_bytes()[..b]).count() + 1;
        let start_line = line_at(plan.code_start);
        let end_line = if plan.code_end > plan.code_start {
            line_at(plan.code_end - 1)
        } else {
            start_line
        };
        let judged = Judged {
            new: Some(plan.new_text),
            validation,
            tree: Some((file.language.clone(), tree)),
        };
        let planned = SymbolChange {
            operation: op,
            symbol: target.name_path.clone(),
            kind: target.kind.to_string(),
            start_line,
            end_line,
            kept_trivia,
        };
        let change = Change::new(
            target_path.clone(),
            Some(file.source.clone()),
            judged,
            planned,
            warnings,
        );
        let written = change.commit(
            ws,
            WriteMeta {
                operation: format!("update_symbol:{}", op.as_str()),
                symbol: Some(target.name_path.clone()),
                expected_hash: req.expected_hash.clone(),
                dry_run: req.dry_run,
            },
        )?;
        Ok((written.receipt, written.reparsed))
    }
}

/// Parses of files from this size on are freed on a thread of their own.
const FREE_BESIDE_MIN: usize = 1 << 20;

/// Free `parses` of a file of `size` bytes. A multi-megabyte syntax tree is
/// freed node by node, which costs a noticeable part of a write to it; no
/// answer waits for that, so large ones are freed on a thread of their own
/// (a CLI process exits without waiting for it).
fn free_beside<T: Send + 'static>(size: usize, parses: T) {
    if size >= FREE_BESIDE_MIN {
        // If no thread can be made, the closure and `parses` are dropped
        // here, as for a small file.
        let _ = std::thread::Builder::new().spawn(move || drop(parses));
    }
}
