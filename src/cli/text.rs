//! The text commands (`search`, `read`, `edit`, `write`, `tree`): thin
//! adapters over [`crate::ops::textops`]. `--json` prints the payload the MCP
//! tool returns; human output is compact and grep-like.
//!
//! Paths on the command line are relative to the current directory, as for
//! any command-line tool; they are made absolute before they reach the
//! library, which checks that they lie inside the root. The root is `--root`,
//! else the git work tree around the path, else the current directory.

use super::layout::{Head, show};
use super::output::Out;
use super::to_json;
use super::{RootArg as Common, WriteOpts};
use crate::disk::tree::TreeParams;
use crate::error::{Error, ErrorCode, Result};
use crate::ops::Session;
use crate::ops::engine::Engine;
use crate::ops::search::SearchParams;
use crate::ops::textops::{self, EditParams, FragmentParams, WriteParams};
use crate::render::Render;
use crate::text::window::WindowRequest;
use crate::text::{Anchor, FuzzyMode, LineRange, TextEdit};
use clap::{Args, Subcommand};
use std::io::Read;
use std::path::{Path, PathBuf};

#[derive(Subcommand, Debug)]
pub(super) enum TextCommand {
    /// Search files for keywords (a line matches if it has any of them) or a
    /// regex; files ranked by relevance, .gitignore honoured.
    Search(SearchArgs),
    /// Print a file, or only some lines: ranges, keyword lines, symbols.
    Read(ReadArgs),
    /// Replace text in a file: unique match, anchors, fuzzy fallback,
    /// all-or-nothing, validated, undoable.
    Edit(EditArgs),
    /// Create a file or replace its content (from --from FILE or stdin).
    Write(WriteArgs),
    /// Show a folder as a tree (.gitignore honoured).
    Tree(TreeArgs),
}

impl TextCommand {
    pub(super) fn json(&self) -> bool {
        match self {
            TextCommand::Search(a) => a.json,
            TextCommand::Read(a) => a.json,
            TextCommand::Edit(a) => a.json,
            TextCommand::Write(a) => a.json,
            TextCommand::Tree(a) => a.json,
        }
    }
}

#[derive(Args, Debug)]
pub(super) struct SearchArgs {
    /// Keywords (any of them), or regexes with --regex.
    #[arg(required = true, value_name = "TERM")]
    terms: Vec<String>,
    /// Treat the terms as regular expressions (several are OR-ed).
    #[arg(long)]
    regex: bool,
    /// Folder to search (default: --root, else the current directory).
    #[arg(long, value_name = "P")]
    path: Option<PathBuf>,
    /// Only files matching this glob ("*.rs", "src/**/*.py"); repeatable.
    #[arg(long, value_name = "G")]
    include: Vec<String>,
    /// Skip files and folders matching this glob; repeatable.
    #[arg(long, value_name = "G")]
    exclude: Vec<String>,
    /// Match case exactly (default: ignore case).
    #[arg(long)]
    case_sensitive: bool,
    /// Match whole words only.
    #[arg(long)]
    whole_word: bool,
    /// Most files listed (default 100).
    #[arg(long, value_name = "N")]
    max_results: Option<usize>,
    /// Most matches listed per file (default 20).
    #[arg(long, value_name = "N")]
    max_matches_per_file: Option<usize>,
    /// Most matches listed over all files (default 300).
    #[arg(long, value_name = "N")]
    max_total_matches: Option<usize>,
    /// Lines of context around each match.
    #[arg(long, value_name = "N")]
    context: Option<usize>,
    /// Also search hidden files and folders.
    #[arg(long)]
    hidden: bool,
    #[command(flatten)]
    common: Common,
    /// Print the result as JSON (the payload of the MCP tool).
    #[arg(long)]
    json: bool,
}

#[derive(Args, Debug)]
pub(super) struct ReadArgs {
    /// The file to read.
    file: PathBuf,
    /// Line ranges, e.g. 10-20,40-60 (a single number is one line).
    #[arg(long, value_name = "RANGES", value_delimiter = ',')]
    lines: Vec<String>,
    /// Lines containing any of these words (with --symbols: inside those symbols only).
    #[arg(long, value_name = "WORDS", value_delimiter = ',')]
    keywords: Vec<String>,
    /// Symbols by name path, e.g. Parser.run.
    #[arg(long, value_name = "NAMES", value_delimiter = ',')]
    symbols: Vec<String>,
    /// Context lines around each range, keyword line and symbol (default 3).
    #[arg(long, value_name = "N")]
    context: Option<usize>,
    /// Most lines printed (default 500 with selectors, 1000 without).
    #[arg(long, value_name = "N")]
    max_lines: Option<usize>,
    /// Keywords match case exactly.
    #[arg(long)]
    case_sensitive: bool,
    /// Keywords match whole words only.
    #[arg(long)]
    whole_word: bool,
    /// Only the first N lines.
    #[arg(long, value_name = "N", conflicts_with_all = ["lines", "keywords", "symbols", "tail"])]
    head: Option<usize>,
    /// Only the last N lines.
    #[arg(long, value_name = "N", conflicts_with_all = ["lines", "keywords", "symbols"])]
    tail: Option<usize>,
    /// Print from line N on, without context (--max-lines lines, default
    /// 1000): how a cut read continues.
    #[arg(long, value_name = "N", conflicts_with_all = ["lines", "keywords", "symbols", "head", "tail"])]
    from: Option<usize>,
    #[command(flatten)]
    common: Common,
    /// Print the result as JSON (the payload of the MCP tool).
    #[arg(long)]
    json: bool,
}

#[derive(Args, Debug)]
pub(super) struct EditArgs {
    /// The file to edit.
    file: PathBuf,
    /// The text to replace (must be unique unless --expected-matches).
    #[arg(long, value_name = "T", requires = "new", conflicts_with = "edits")]
    old: Option<String>,
    /// The replacement text.
    #[arg(long, value_name = "T", requires = "old")]
    new: Option<String>,
    /// A JSON file with the edits: [{"old_text", "new_text", ...}] or
    /// {"edits": [...]}; `-` reads stdin.
    #[arg(long, value_name = "F.json")]
    edits: Option<PathBuf>,
    /// Fallback when --old does not match exactly: exact, whitespace, levenshtein.
    #[arg(long, value_name = "MODE", requires = "old")]
    fuzzy: Option<String>,
    /// Largest edit distance for --fuzzy levenshtein.
    #[arg(long, value_name = "N", requires = "old")]
    max_distance: Option<usize>,
    /// Replace exactly this many occurrences of --old.
    #[arg(long, value_name = "N", requires = "old")]
    expected_matches: Option<usize>,
    /// Match --old only where it is not part of a longer word (identifier).
    #[arg(long, requires = "old")]
    whole_word: bool,
    /// Anchor: only a match with this text within 50 lines above it.
    #[arg(long, value_name = "T", requires = "old")]
    anchor_before: Option<String>,
    /// Anchor: only a match with this text within 50 lines below it.
    #[arg(long, value_name = "T", requires = "old")]
    anchor_after: Option<String>,
    /// Anchor: only a match lying within these lines, e.g. 40-60.
    #[arg(long, value_name = "A-B", requires = "old")]
    anchor_lines: Option<String>,
    #[command(flatten)]
    write: WriteOpts,
    #[command(flatten)]
    common: Common,
    /// Print the result as JSON (the payload of the MCP tool).
    #[arg(long)]
    json: bool,
}

#[derive(Args, Debug)]
pub(super) struct WriteArgs {
    /// The file to create or replace.
    file: PathBuf,
    /// Read the content from this file (default: stdin).
    #[arg(long, value_name = "F")]
    from: Option<PathBuf>,
    #[command(flatten)]
    write: WriteOpts,
    #[command(flatten)]
    common: Common,
    /// Print the result as JSON (the payload of the MCP tool).
    #[arg(long)]
    json: bool,
}

#[derive(Args, Debug)]
pub(super) struct TreeArgs {
    /// Folder to show (default: --root, else the current directory).
    dir: Option<PathBuf>,
    /// Levels shown (default 3).
    #[arg(long, value_name = "N")]
    depth: Option<usize>,
    /// Most entries shown (default 200).
    #[arg(long, value_name = "N")]
    max_items: Option<usize>,
    /// Show file sizes.
    #[arg(long)]
    sizes: bool,
    /// Include hidden files and folders.
    #[arg(long)]
    hidden: bool,
    #[command(flatten)]
    common: Common,
    /// Print the result as JSON (the payload of the MCP tool).
    #[arg(long)]
    json: bool,
}

pub(super) fn run(cmd: TextCommand, engine: &Engine, out: &mut Out) -> Result<u8> {
    match cmd {
        TextCommand::Search(a) => search_cmd(a, engine, out),
        TextCommand::Read(a) => read_cmd(a, engine, out),
        TextCommand::Edit(a) => edit_cmd(a, engine, out),
        TextCommand::Write(a) => write_cmd(a, engine, out),
        TextCommand::Tree(a) => tree_cmd(a, engine, out),
    }
}

/// `p` made absolute against the current directory.
pub(super) fn absolute(p: &Path) -> Result<PathBuf> {
    if p.is_absolute() {
        return Ok(p.to_path_buf());
    }
    let cwd = std::env::current_dir().map_err(|e| Error::io("current_dir", p, &e))?;
    Ok(cwd.join(p))
}

/// The folder a command works on: the one given, else `--root`, else the
/// current directory.
fn folder(given: Option<&Path>, common: &Common) -> Result<PathBuf> {
    absolute(given.or(common.root.as_deref()).unwrap_or(Path::new(".")))
}

/// The session for a command on `near`: `--root`, else discovered.
fn session(common: &Common, near: &Path, engine: &Engine) -> Result<Session> {
    common.session(Some(near), engine)
}

fn path_string(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

fn search_cmd(a: SearchArgs, engine: &Engine, out: &mut Out) -> Result<u8> {
    let dir = folder(a.path.as_deref(), &a.common)?;
    let session = session(&a.common, &dir, engine)?;
    let ws = session.ws();
    let (keywords, pattern) = if a.regex {
        let pattern = if a.terms.len() == 1 {
            a.terms[0].clone()
        } else {
            a.terms
                .iter()
                .map(|t| format!("(?:{t})"))
                .collect::<Vec<_>>()
                .join("|")
        };
        (Vec::new(), Some(pattern))
    } else {
        (a.terms, None)
    };
    let params = SearchParams {
        keywords,
        pattern,
        path: Some(path_string(&dir)),
        include: a.include,
        exclude: a.exclude,
        case_sensitive: a.case_sensitive,
        whole_word: a.whole_word,
        max_results: a.max_results,
        max_matches_per_file: a.max_matches_per_file,
        max_total_matches: a.max_total_matches,
        context_lines: a.context,
        hidden: a.hidden,
        max_file_size: Some(engine.max_file_size),
    };
    let r = crate::ops::search::search_remembering(ws, engine, &params)?;
    emit(out, a.json, &r, Head::Above);
    Ok(if r.files_matched == 0 { 1 } else { 0 })
}

/// `10-20` or `15`.
fn parse_range(s: &str) -> Result<LineRange> {
    let bad = || {
        Error::invalid_argument(format!("invalid line range {s:?}"))
            .with_suggestion("write ranges like 10-20,40-60 (1-based, inclusive)")
    };
    let s = s.trim();
    let (a, b) = s.split_once('-').unwrap_or((s, s));
    let start = a.trim().parse().map_err(|_| bad())?;
    let end = b.trim().parse().map_err(|_| bad())?;
    Ok(LineRange { start, end })
}

fn read_cmd(a: ReadArgs, engine: &Engine, out: &mut Out) -> Result<u8> {
    let file = absolute(&a.file)?;
    let session = session(&a.common, &file, engine)?;
    let ws = session.ws();
    if a.lines.is_empty() && a.keywords.is_empty() && a.symbols.is_empty() {
        let req = WindowRequest {
            start_line: a.from,
            head: a.head,
            tail: a.tail,
            max_lines: a.max_lines,
            ..WindowRequest::default()
        };
        let w = textops::read_file(ws, engine, &file, &req)?;
        emit(out, a.json, &w, Head::Stderr);
        return Ok(0);
    }
    let params = FragmentParams {
        path: path_string(&file),
        ranges: a
            .lines
            .iter()
            .map(|s| parse_range(s))
            .collect::<Result<_>>()?,
        keywords: a.keywords,
        symbols: a.symbols,
        context_lines: a.context,
        max_lines: a.max_lines,
        case_sensitive: a.case_sensitive,
        whole_word: a.whole_word,
    };
    let f = textops::read_fragment(ws, engine, &params)?;
    emit(out, a.json, &f, Head::Above);
    Ok(0)
}

fn read_input(from: Option<&Path>, what: &str) -> Result<Vec<u8>> {
    match from {
        Some(p) if p != Path::new("-") => std::fs::read(p).map_err(|e| Error::io("read", p, &e)),
        _ => {
            super::stdin_notice(what);
            let mut buf = Vec::new();
            std::io::stdin()
                .read_to_end(&mut buf)
                .map_err(|e| Error::io("read", Path::new("<stdin>"), &e))?;
            Ok(buf)
        }
    }
}

fn utf8(bytes: Vec<u8>, what: &str) -> Result<String> {
    String::from_utf8(bytes).map_err(|e| {
        Error::new(
            ErrorCode::Encoding,
            format!(
                "{what} is not valid UTF-8 (byte {})",
                e.utf8_error().valid_up_to()
            ),
        )
        .with_suggestion("pass UTF-8 text")
    })
}

/// The edits of `--edits F.json`: an array of edits, or an object with
/// `edits`.
fn edits_from(path: &Path) -> Result<Vec<TextEdit>> {
    let shown = path.display().to_string();
    let text = utf8(read_input(Some(path), "the edits (JSON)")?, &shown)?;
    let value: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
        Error::invalid_argument(format!("{shown} is not valid JSON: {e}"))
            .with_suggestion("write [{\"old_text\": \"...\", \"new_text\": \"...\"}]")
    })?;
    let list = match value {
        serde_json::Value::Object(mut map) if map.contains_key("edits") => {
            map.remove("edits").unwrap_or_default()
        }
        other => other,
    };
    serde_json::from_value(list).map_err(|e| {
        Error::invalid_argument(format!("{shown} does not hold a list of edits: {e}"))
            .with_suggestion("each edit is {\"old_text\", \"new_text\", optional \"anchor\", \"fuzzy\", \"max_distance\", \"expected_matches\", \"whole_word\"}")
    })
}

fn fuzzy_mode(s: &str) -> Result<FuzzyMode> {
    serde_json::from_value(serde_json::Value::String(s.to_ascii_lowercase())).map_err(|_| {
        Error::invalid_argument(format!("unknown fuzzy mode {s:?}"))
            .with_suggestion("use exact, whitespace or levenshtein")
    })
}

/// The anchor of `--anchor-before/--anchor-after/--anchor-lines`, if any.
fn anchor(a: &EditArgs) -> Result<Option<Anchor>> {
    if a.anchor_before.is_none() && a.anchor_after.is_none() && a.anchor_lines.is_none() {
        return Ok(None);
    }
    Ok(Some(Anchor {
        before: a.anchor_before.clone(),
        after: a.anchor_after.clone(),
        line_range: a.anchor_lines.as_deref().map(parse_range).transpose()?,
    }))
}

fn edit_cmd(a: EditArgs, engine: &Engine, out: &mut Out) -> Result<u8> {
    let file = absolute(&a.file)?;
    let session = session(&a.common, &file, engine)?;
    let ws = session.ws();
    let edits = match (&a.old, &a.new, &a.edits) {
        (Some(old), Some(new), None) => vec![TextEdit {
            fuzzy: a
                .fuzzy
                .as_deref()
                .map(fuzzy_mode)
                .transpose()?
                .unwrap_or_default(),
            max_distance: a.max_distance,
            expected_matches: a.expected_matches,
            whole_word: a.whole_word,
            anchor: anchor(&a)?,
            ..TextEdit::new(old.clone(), new.clone())
        }],
        (None, None, Some(f)) => edits_from(f)?,
        _ => {
            return Err(
                Error::invalid_argument("give --old and --new, or --edits F.json")
                    .with_suggestion("e.g. scalpel edit f.py --old 'x = 1' --new 'x = 2'"),
            );
        }
    };
    let params = EditParams {
        path: path_string(&file),
        edits,
        dry_run: a.write.dry_run,
        expected_hash: a.write.expected_hash,
        allow_syntax_errors: a.write.allow_syntax_errors,
    };
    let r = textops::edit_file(ws, engine, &params)?;
    emit(out, a.json, &r, Head::Below);
    Ok(0)
}

fn write_cmd(a: WriteArgs, engine: &Engine, out: &mut Out) -> Result<u8> {
    let file = absolute(&a.file)?;
    let session = session(&a.common, &file, engine)?;
    let ws = session.ws();
    let source = a
        .from
        .as_ref()
        .map_or("stdin".to_string(), |p| p.display().to_string());
    let content = utf8(
        read_input(a.from.as_deref(), "the new content (or pass --from F)")?,
        &source,
    )?;
    let params = WriteParams {
        path: path_string(&file),
        content,
        expected_hash: a.write.expected_hash,
        dry_run: a.write.dry_run,
        allow_syntax_errors: a.write.allow_syntax_errors,
    };
    let r = textops::write_file(ws, engine, &params)?;
    emit(out, a.json, &r, Head::Below);
    Ok(0)
}

fn tree_cmd(a: TreeArgs, engine: &Engine, out: &mut Out) -> Result<u8> {
    let dir = folder(a.dir.as_deref(), &a.common)?;
    let session = session(&a.common, &dir, engine)?;
    let ws = session.ws();
    let params = TreeParams {
        path: Some(path_string(&dir)),
        depth: a.depth,
        max_items: a.max_items,
        sizes: a.sizes,
        hidden: a.hidden,
    };
    let t = textops::tree(ws, &params)?;
    emit(out, a.json, &t, Head::Above);
    Ok(0)
}

/// Print `value` as the JSON payload with `--json` (its `hint` in the CLI's
/// words, as the MCP adapter puts it in its own), else its one rendering in
/// the CLI's layout, the head where `head` says.
pub(super) fn emit<T: serde::Serialize + Render>(out: &mut Out, json: bool, value: &T, head: Head) {
    if !json {
        show(out, value, head);
        return;
    }
    match serde_json::to_value(value) {
        Ok(mut v) => {
            if let Some(serde_json::Value::String(h)) = v.get_mut("hint") {
                *h = super::words::cli_text(h);
            }
            out.line(&to_json(&v));
        }
        Err(_) => out.line(&to_json(value)),
    }
}
