//! `scalpel check`: does every file still parse? The last line of defence
//! before a commit, for edits made by agents and by people alike.
//!
//! Three sources of text, one pipeline:
//!
//! - files and folders on disk (`scalpel check src/`), folders walked with the
//!   project's ignore rules, which is what the pre-commit framework calls with
//!   the staged file names;
//! - the index (`--staged`): exactly the blobs about to be committed, read
//!   through `git cat-file --batch`, so a file that is staged clean but broken
//!   in the work tree passes, and the reverse fails (partial staging);
//! - for `--new-only` / `--since`, the same files at a revision, to tell the
//!   errors an edit introduced from those the file (or the grammar) already
//!   had. A file the grammar has always mis-parsed must not block every
//!   commit that touches it.
//!
//! Each text is decoded with `crate::source::decode` (binary and non-UTF-8 files are
//! skipped and counted, never guessed at), its language detected from its
//! name or `#!` line (no grammar: skipped and counted), and parsed. Only the
//! files with errors pay for the old version: it is fetched and parsed in a
//! second round.
//!
//! This module owns the logic and the rendering; the CLI only maps flags to
//! [`CheckOptions`] and prints.

pub mod diagnose;
pub mod git;
pub mod hook;
mod render;

pub use diagnose::{Diagnostic, DiagnosticKind};
pub use render::{render_human, render_json};

use crate::disk::{self};
use crate::error::{Error, ErrorCode, Result};
use crate::ops::engine::Engine;
use crate::source::SourceText;
use git::{CatFile, Repo};
use rayon::prelude::*;
use serde::Serialize;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// What the errors are compared with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Baseline {
    /// Every error counts (`--all-errors`, the default without `--staged`).
    AllErrors,
    /// Only errors `HEAD` did not have (`--new-only`, the default with
    /// `--staged`). A repository without commits: every error is new.
    Head,
    /// Only errors this revision did not have (`--since REV`).
    Rev(String),
}

impl Baseline {
    /// The baseline the command-line flags ask for: `--since` wins, then
    /// `--all-errors`, then `--new-only`; with none of them, `HEAD` for
    /// `--staged` and every error otherwise.
    pub fn from_flags(staged: bool, new_only: bool, all_errors: bool, since: Option<&str>) -> Self {
        match since {
            Some(rev) => Baseline::Rev(rev.to_string()),
            None if all_errors => Baseline::AllErrors,
            None if new_only || staged => Baseline::Head,
            None => Baseline::AllErrors,
        }
    }
}

/// What to check and how.
#[derive(Debug, Clone)]
pub struct CheckOptions {
    /// Files and folders on disk; with `staged`, pathspecs limiting the staged
    /// files. Empty: the current folder (the whole index with `staged`).
    pub paths: Vec<PathBuf>,
    /// Check the index instead of the work tree.
    pub staged: bool,
    pub baseline: Baseline,
}

/// Why a file was not parsed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SkipReason {
    /// No grammar claims its name or `#!` line.
    NoGrammar,
    /// A NUL byte in the first 8000 bytes.
    Binary,
    /// Not UTF-8 (or UTF-16 with a byte-order mark).
    Encoding,
    /// Over `--max-file-size`.
    TooLarge,
    /// A staged symlink or submodule: no source text to parse.
    NotAFile,
}

impl SkipReason {
    /// Words for the summary line.
    pub fn describe(self) -> &'static str {
        match self {
            SkipReason::NoGrammar => "no grammar",
            SkipReason::Binary => "binary",
            SkipReason::Encoding => "not UTF-8",
            SkipReason::TooLarge => "too large",
            SkipReason::NotAFile => "symlink or submodule",
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Skipped {
    pub path: String,
    pub reason: SkipReason,
}

/// A checked file that has parse errors (new or pre-existing).
#[derive(Debug, Clone, Serialize)]
pub struct FileErrors {
    pub path: String,
    pub language: String,
    /// Every parse error, in document order; those marked `preexisting` do
    /// not fail the check.
    pub errors: Vec<Diagnostic>,
}

/// The result of a check (`scalpel check --json` prints it as it is).
#[derive(Debug, Clone, Serialize)]
pub struct CheckReport {
    /// No error counts against the files: exit status 0.
    pub ok: bool,
    /// The index was checked rather than the work tree.
    pub staged: bool,
    /// The revision errors were compared with (`HEAD` or `--since`); absent
    /// when every error counts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compared_with: Option<String>,
    pub files_checked: usize,
    /// Files with at least one error that counts.
    pub files_with_errors: usize,
    /// Errors that count (new ones, or all with `--all-errors`).
    pub error_count: usize,
    /// Errors the compared revision already had.
    pub preexisting_errors: usize,
    pub files: Vec<FileErrors>,
    pub skipped: Vec<Skipped>,
}

/// Where a text to check comes from.
enum Body {
    Disk(PathBuf),
    Blob(String),
}

/// The version to compare with.
#[derive(Clone)]
enum Old {
    /// Every error counts (no comparison, or a file the revision lacks).
    Nothing,
    Blob(String),
}

struct Item {
    display: String,
    /// `false` for a staged symlink or submodule: nothing to parse.
    regular: bool,
    /// Path used to detect the language (the blob's path in the index).
    name: PathBuf,
    body: Body,
    old: Old,
}

/// The texts to check, and the revision they are compared with.
struct Plan {
    items: Vec<Item>,
    compared_with: Option<String>,
}

/// A parsed text.
struct Parsed {
    language: std::sync::Arc<crate::lang::Language>,
    source: SourceText,
    errors: Vec<Diagnostic>,
}

enum Outcome {
    Skipped(SkipReason),
    Parsed(Parsed),
}

/// Run a check from the folder `cwd` (relative paths and git run there).
pub fn run(engine: &Engine, cwd: &Path, opts: &CheckOptions) -> Result<CheckReport> {
    let needs_git = opts.staged || opts.baseline != Baseline::AllErrors;
    let repo = if needs_git {
        Some(Repo::discover(cwd)?)
    } else {
        None
    };
    let mut cat = match &repo {
        Some(r) => Some(r.cat_file()?),
        None => None,
    };
    let Plan {
        items,
        compared_with,
    } = match &repo {
        Some(repo) if opts.staged => staged_items(repo, opts)?,
        _ => disk_items(repo.as_ref(), cwd, opts)?,
    };
    let (mut skipped, items) = split_not_files(items);

    // Round 1: the texts to check.
    let bodies: Vec<Result<Option<Vec<u8>>>> = match &mut cat {
        Some(cat) if opts.staged => {
            let oids: Vec<&str> = items.iter().map(|i| oid_of(&i.body)).collect();
            cat.blobs(&oids)?
                .into_iter()
                .zip(&items)
                .map(|(b, i)| b.map(Some).ok_or_else(|| missing_blob(&i.display)))
                .collect()
        }
        _ => items.par_iter().map(|i| read_body(engine, i)).collect(),
    };
    let outcomes: Vec<Result<Outcome>> = items
        .par_iter()
        .zip(bodies)
        .map(|(item, bytes)| examine(engine, item, bytes?))
        .collect();

    // Round 2: the old versions of the files with errors.
    let mut parsed: Vec<(usize, Parsed)> = Vec::new();
    for (i, outcome) in outcomes.into_iter().enumerate() {
        match outcome? {
            Outcome::Skipped(reason) => skipped.push(Skipped {
                path: items[i].display.clone(),
                reason,
            }),
            Outcome::Parsed(p) => parsed.push((i, p)),
        }
    }
    if let Some(cat) = &mut cat {
        compare_with_old(cat, &items, &mut parsed)?;
    }

    let files_checked = parsed.len();
    let mut files = Vec::new();
    for (i, p) in parsed {
        if !p.errors.is_empty() {
            files.push(FileErrors {
                path: items[i].display.clone(),
                language: p.language.name().to_string(),
                errors: p.errors,
            });
        }
    }
    let counted = |f: &FileErrors| f.errors.iter().filter(|d| !d.preexisting).count();
    let error_count: usize = files.iter().map(counted).sum();
    let all: usize = files.iter().map(|f| f.errors.len()).sum();
    Ok(CheckReport {
        ok: error_count == 0,
        staged: opts.staged,
        compared_with,
        files_checked,
        files_with_errors: files.iter().filter(|f| counted(f) > 0).count(),
        error_count,
        preexisting_errors: all - error_count,
        files,
        skipped,
    })
}

fn oid_of(body: &Body) -> &str {
    match body {
        Body::Blob(oid) => oid,
        Body::Disk(_) => "",
    }
}

fn missing_blob(display: &str) -> Error {
    Error::new(
        ErrorCode::Io,
        format!("the staged blob of {display} cannot be read"),
    )
    .with_suggestion("check the repository with `git fsck`, then stage the file again")
    .with_details(serde_json::json!({"path": display}))
}

/// Staged symlinks and submodules are skipped up front.
fn split_not_files(items: Vec<Item>) -> (Vec<Skipped>, Vec<Item>) {
    let mut skipped = Vec::new();
    let mut keep = Vec::new();
    for item in items {
        if item.regular {
            keep.push(item);
        } else {
            skipped.push(Skipped {
                path: item.display,
                reason: SkipReason::NotAFile,
            });
        }
    }
    (skipped, keep)
}

/// The index entries that differ from the baseline commit.
fn staged_items(repo: &Repo, opts: &CheckOptions) -> Result<Plan> {
    let (base, compared_with) = match &opts.baseline {
        Baseline::AllErrors => (None, None),
        Baseline::Head => (None, Some("HEAD".to_string())),
        Baseline::Rev(rev) => (repo.resolve_commit(rev)?, Some(rev.clone())),
    };
    let pathspecs = opts
        .paths
        .iter()
        .map(|p| {
            p.to_str().map(str::to_string).ok_or_else(|| {
                Error::invalid_argument(format!("{} is not valid UTF-8", p.display()))
                    .with_suggestion("name the files with UTF-8 paths or a folder above them")
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let items = repo
        .changes(true, base.as_deref(), &pathspecs)?
        .into_iter()
        .map(|c| {
            let old = match (&opts.baseline, c.old_oid) {
                (Baseline::AllErrors, _) | (_, None) => Old::Nothing,
                (_, Some(oid)) => Old::Blob(oid),
            };
            Item {
                name: PathBuf::from(&c.path),
                regular: git::is_regular_mode(&c.new_mode),
                display: c.path,
                body: Body::Blob(c.new_oid),
                old,
            }
        })
        .collect();
    Ok(Plan {
        items,
        compared_with,
    })
}

/// Files named or found under the folders named, each with its version at
/// the baseline revision when there is one.
fn disk_items(repo: Option<&Repo>, cwd: &Path, opts: &CheckOptions) -> Result<Plan> {
    let defaulted = opts.paths.is_empty();
    let roots = if defaulted {
        vec![PathBuf::from(".")]
    } else {
        opts.paths.clone()
    };
    let mut files = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for root in &roots {
        let abs = cwd.join(root);
        let meta = std::fs::metadata(&abs).map_err(|e| Error::io("read", root, &e))?;
        if meta.is_dir() {
            for f in disk::walk_files(&abs) {
                let shown = f
                    .strip_prefix(cwd)
                    .map(Path::to_path_buf)
                    .unwrap_or(f.clone());
                files.push((f, shown));
            }
        } else {
            files.push((abs, root.clone()));
        }
    }
    // A file named twice (or named and inside a named folder) is checked once.
    files.retain(|(abs, _)| seen.insert(std::fs::canonicalize(abs).unwrap_or(abs.clone())));

    let rev = match &opts.baseline {
        Baseline::AllErrors => None,
        Baseline::Head => Some("HEAD".to_string()),
        Baseline::Rev(r) => Some(r.clone()),
    };
    // Old blob per path relative to the top of the work tree.
    let mut old: HashMap<String, String> = HashMap::new();
    if let (Some(repo), Some(rev)) = (repo, &rev)
        && let Some(commit) = repo.resolve_commit(rev)?
    {
        old = repo.tree_blobs(&commit)?;
        // Renames and copies the index knows about keep their history.
        for c in repo.changes(false, Some(&commit), &[])? {
            if let (Some(_), Some(oid)) = (&c.old_path, c.old_oid) {
                old.insert(c.path, oid);
            }
        }
    }
    let items = files
        .into_iter()
        .map(|(abs, shown)| {
            let old = repo
                .and_then(|r| r.relative(&abs))
                .and_then(|rel| old.get(&rel).cloned())
                .map_or(Old::Nothing, Old::Blob);
            let display = shown.display().to_string().replace('\\', "/");
            let display = display.strip_prefix("./").unwrap_or(&display).to_string();
            Item {
                name: abs.clone(),
                regular: true,
                display,
                body: Body::Disk(abs),
                old,
            }
        })
        .collect();
    Ok(Plan {
        items,
        compared_with: rev,
    })
}

/// The bytes of a file on disk; `None` when it is over the size limit (it
/// is then not read at all).
fn read_body(engine: &Engine, item: &Item) -> Result<Option<Vec<u8>>> {
    let Body::Disk(path) = &item.body else {
        return Err(missing_blob(&item.display));
    };
    let meta = std::fs::metadata(path).map_err(|e| Error::io("read", path, &e))?;
    if meta.is_file() && meta.len() > engine.max_file_size {
        return Ok(None);
    }
    // A regular file only (a device reads forever, a FIFO blocks), read up
    // to the limit whatever it does meanwhile.
    crate::disk::read::read_capped(path, engine.max_file_size, crate::disk::read::Links::Follow)
        .map(Some)
        .map_err(|e| Error::io("read", path, &e))
}

/// Decode, detect and parse one text.
fn examine(engine: &Engine, item: &Item, bytes: Option<Vec<u8>>) -> Result<Outcome> {
    let Some(bytes) = bytes else {
        return Ok(Outcome::Skipped(SkipReason::TooLarge));
    };
    let source = match decode_limited(engine, &item.name, bytes) {
        Ok(s) => s,
        Err(reason) => return Ok(Outcome::Skipped(reason)),
    };
    let Some(language) = engine
        .registry
        .detect(&item.name, Some(source.body()))
        .cloned()
    else {
        return Ok(Outcome::Skipped(SkipReason::NoGrammar));
    };
    let errors = diagnose::diagnose(&language, source.body())?;
    Ok(Outcome::Parsed(Parsed {
        language,
        source,
        errors,
    }))
}

/// `crate::source::decode` under the size limit, failures turned into skip reasons.
fn decode_limited(
    engine: &Engine,
    name: &Path,
    bytes: Vec<u8>,
) -> std::result::Result<SourceText, SkipReason> {
    if bytes.len() as u64 > engine.max_file_size {
        return Err(SkipReason::TooLarge);
    }
    crate::source::decode(name, bytes).map_err(|e| match e.code() {
        ErrorCode::BinaryFile => SkipReason::Binary,
        _ => SkipReason::Encoding,
    })
}

/// Parse the old version of every file with errors and mark the errors it
/// already had. An old version that cannot be read or decoded had no
/// comparable errors: everything counts.
fn compare_with_old(
    cat: &mut CatFile,
    items: &[Item],
    parsed: &mut [(usize, Parsed)],
) -> Result<()> {
    let wanted: Vec<(usize, &str)> = parsed
        .iter()
        .enumerate()
        .filter(|(_, (_, p))| !p.errors.is_empty())
        .filter_map(|(k, (i, _))| match &items[*i].old {
            Old::Blob(oid) => Some((k, oid.as_str())),
            Old::Nothing => None,
        })
        .collect();
    if wanted.is_empty() {
        return Ok(());
    }
    let oids: Vec<&str> = wanted.iter().map(|(_, o)| *o).collect();
    let blobs = cat.blobs(&oids)?;
    let mut olds: Vec<Option<Vec<u8>>> = vec![None; parsed.len()];
    for ((k, _), blob) in wanted.iter().zip(blobs) {
        olds[*k] = blob;
    }
    parsed
        .par_iter_mut()
        .zip(olds)
        .try_for_each(|((i, p), bytes)| -> Result<()> {
            let Some(bytes) = bytes else {
                return Ok(());
            };
            let Ok(old) = crate::source::decode(&items[*i].name, bytes) else {
                return Ok(());
            };
            let before = diagnose::diagnose(&p.language, old.body())?;
            diagnose::mark_preexisting(&mut p.errors, &before, old.body(), p.source.body());
            Ok(())
        })
}
