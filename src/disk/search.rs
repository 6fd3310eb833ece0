//! `search_files`, the "scout": find which files mention the given keywords
//! (or match a regex) across the workspace, ranked, without loading whole
//! files into the agent's context.
//!
//! The walk is ripgrep's: the `ignore` crate in parallel, honouring
//! `.gitignore` (even outside a git repository), `.ignore` and our own
//! `.scalpelignore`, skipping hidden files and `.git` unless asked, never
//! following symlinks (a link can point outside the root, or in a loop).
//! Files are searched with `grep-searcher`, which quits on the first NUL byte
//! so binary files cost almost nothing. A single regex alternation of all
//! keywords finds candidate lines fast; within a matching line the shared
//! [`KeywordMatcher`] decides which keywords hit and where, so `search_files`
//! and `read_fragment` agree on what a match is.
//!
//! Results are ranked: the number of distinct keywords a file matches
//! dominates, then frequency normalised for file length, then a boost when a
//! keyword names a definition in that file (supplied by the symbol engine
//! through a callback, so this module needs no parser). Ties are broken by
//! path so the output is deterministic. Every list is bounded and says how to
//! get the rest.
//!
//! Parsing is two orders of magnitude slower than grepping, so the boost is
//! computed after the walk, for a bounded set of candidates only: files where
//! a keyword occurs as a whole word (a definition's name is a whole word),
//! that could still reach the requested top results with the boost, best
//! first, at most [`DEFINITION_CANDIDATES`] of them and about 1 MiB of
//! source in all, parsed in parallel.

use crate::disk::workspace::{Purpose, Workspace, is_git_dir};
use crate::error::{Error, ErrorCode, Result};
use crate::text::matcher::{KeywordMatcher, is_whole_word};
use crate::text::preview::{PREVIEW_WIDTH, preview};
use globset::{Glob, GlobBuilder, GlobSet, GlobSetBuilder};
use grep_regex::RegexMatcherBuilder;
use grep_searcher::{
    BinaryDetection, Searcher, SearcherBuilder, Sink, SinkContext, SinkContextKind, SinkMatch,
};
use ignore::{WalkBuilder, WalkState};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

pub const DEFAULT_MAX_RESULTS: usize = 100;
pub const DEFAULT_MAX_MATCHES_PER_FILE: usize = 20;
/// Matches shown across all files; keeps the response well under 25k tokens.
pub const DEFAULT_MAX_TOTAL_MATCHES: usize = 300;
/// Files larger than this are not searched (reported in `errors`).
pub const DEFAULT_SEARCH_MAX_FILE_SIZE: u64 = crate::disk::DEFAULT_MAX_FILE_SIZE;
/// Our own ignore file, read like `.gitignore` in every directory.
pub const SCALPEL_IGNORE: &str = ".scalpelignore";
/// Directories never searched or listed: git's store and our backups/journal.
pub const ALWAYS_SKIPPED_DIRS: [&str; 2] = [".git", ".scalpel"];
/// At most this many non-fatal errors are listed.
const MAX_ERRORS: usize = 50;
/// Context lines are cut to this many characters.
const CONTEXT_LINE_CHARS: usize = 200;
/// Files of at least this many bytes are read whole and searched as a slice.
const WHOLE_READ_MIN_SIZE: u64 = 1024 * 1024;
/// At most this many files are parsed for the definition boost.
pub const DEFINITION_CANDIDATES: usize = 32;
/// Files larger than this are not parsed for the definition boost.
const DEFINITION_MAX_FILE_SIZE: u64 = 1024 * 1024;
/// At most this many bytes, over all candidates, are parsed for the boost
/// (parsing runs at a few MB/s; this keeps it near the cost of the walk).
const DEFINITION_MAX_BYTES: u64 = 1024 * 1024;
/// The largest boost [`score`] gives for definitions.
const MAX_DEFINITION_BOOST: f64 = 5.5;
/// At most this many distinct matched words per file are kept as
/// definition candidates in regex mode.
const MAX_IDENTS: usize = 32;

/// What to search for and where.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchParams {
    /// Literal keywords; a line matches if it contains any of them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub keywords: Vec<String>,
    /// A regular expression (Rust regex syntax), instead of keywords.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pattern: Option<String>,
    /// Folder (or file) to search, relative to the root; default: the root.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// Only files matching one of these globs, e.g. "*.rs" (a name) or
    /// "src/**/*.py" (a path from the root).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub include: Vec<String>,
    /// Skip files and folders matching any of these globs, e.g. "tests" or "*.min.js".
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub exclude: Vec<String>,
    /// Match case exactly (default: false, case-insensitive).
    #[serde(default)]
    pub case_sensitive: bool,
    /// Only match whole words (not "parse" inside "parser").
    #[serde(default)]
    pub whole_word: bool,
    /// Most files returned (default 100).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_results: Option<usize>,
    /// Most matching lines listed per file (default 20); all are counted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_matches_per_file: Option<usize>,
    /// Most matching lines listed over all files (default 300).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_total_matches: Option<usize>,
    /// Lines of context before and after each match (default 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_lines: Option<usize>,
    /// Also search hidden files and folders (never `.git`).
    #[serde(default)]
    pub hidden: bool,
    /// Skip files larger than this many bytes (default 32 MiB).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_file_size: Option<u64>,
}

/// One matching line (a line with several hits is one row).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct SearchMatch {
    /// The keyword of the line's first hit (the pattern, in regex mode).
    pub keyword: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column of the first hit, in characters.
    pub column: usize,
    /// Hits on this line (all counted in the file's `match_count`).
    pub hits: usize,
    /// About 80 characters of the line, centred on the first hit.
    pub preview: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub context_before: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub context_after: Vec<String>,
}

/// A file with matches.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct FileMatches {
    /// Relative to the root, with `/` separators.
    pub path: String,
    pub file_size: u64,
    /// All matches in the file (may exceed the matches listed).
    pub match_count: usize,
    pub score: f64,
    /// Distinct keywords found in this file.
    pub keywords_matched: Vec<String>,
    /// Keywords that name a definition in this file (ranking boost).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub defines: Vec<String>,
    pub matches: Vec<SearchMatch>,
    /// True when not every match is listed.
    pub matches_truncated: bool,
}

/// A file that could not be searched; the search went on without it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct SearchError {
    pub path: String,
    pub message: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct SearchResult {
    /// Files ordered by score (best first), then path.
    pub files: Vec<FileMatches>,
    /// Matches in all matching files, listed or not.
    pub total_matches: usize,
    /// Files with at least one match (may exceed `files`).
    pub files_matched: usize,
    pub files_searched: usize,
    /// True when files or matches were left out.
    pub truncated: bool,
    /// The caller cancelled the search; the results are partial.
    pub cancelled: bool,
    /// How to get what was left out.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    pub binary_files_skipped: usize,
    /// Files parsed to find which keywords they define (the ranking boost).
    pub definitions_checked: usize,
    /// Non-fatal problems (unreadable or oversized files), at most 50.
    pub errors: Vec<SearchError>,
    /// Total number of errors, listed or not.
    pub error_count: usize,
}

/// Names defined in a file, for the ranking boost: called with the file's
/// absolute path and its text, only for the best-ranked files that matched
/// (see [`DEFINITION_CANDIDATES`]), possibly from several threads.
pub type DefinitionsFn = dyn Fn(&Path, &str) -> Vec<String> + Sync;

struct Limits {
    per_file: usize,
    context: usize,
    max_size: u64,
}

/// How often (in files searched) progress is reported.
pub const PROGRESS_EVERY: usize = 1000;

/// Lets a caller stop a long search and watch it go: `cancel` is polled
/// before each file (a cancelled search returns what it found so far,
/// marked `cancelled`), `progress` is called with the number of files
/// searched every [`PROGRESS_EVERY`] files, from the walker's threads.
#[derive(Default, Clone, Copy)]
pub struct SearchControl<'a> {
    pub cancel: Option<&'a AtomicBool>,
    pub progress: Option<&'a (dyn Fn(usize) + Sync)>,
}

/// Search `params.path` (default: all of `root`).
pub fn search_files(
    root: &Path,
    params: &SearchParams,
    definitions: Option<&DefinitionsFn>,
) -> Result<SearchResult> {
    search_files_with(root, params, definitions, SearchControl::default())
}

/// [`search_files`] that can be cancelled and reports progress.
pub fn search_files_with(
    root: &Path,
    params: &SearchParams,
    definitions: Option<&DefinitionsFn>,
    control: SearchControl<'_>,
) -> Result<SearchResult> {
    let matcher = build_matcher(params)?;
    let grep = RegexMatcherBuilder::new()
        .case_insensitive(!params.case_sensitive)
        .line_terminator(Some(b'\n'))
        .crlf(true)
        .build(matcher.alternation())
        .map_err(|e| {
            Error::invalid_argument(format!("cannot search for this pattern: {e}"))
                .with_suggestion("patterns match within one line; remove \\n from the pattern")
        })?;
    let (root, dir) = resolve_dir(root, params.path.as_deref())?;
    let include = globs(&params.include, "include")?;
    let exclude = globs(&params.exclude, "exclude")?;
    let max_results = params.max_results.unwrap_or(DEFAULT_MAX_RESULTS).max(1);
    let limits = Limits {
        per_file: params
            .max_matches_per_file
            .unwrap_or(DEFAULT_MAX_MATCHES_PER_FILE),
        context: params.context_lines.unwrap_or(0),
        max_size: params.max_file_size.unwrap_or(DEFAULT_SEARCH_MAX_FILE_SIZE),
    };

    let builder = walk_builder(&root, &dir, params.hidden, exclude);
    let searched = AtomicUsize::new(0);
    let binary = AtomicUsize::new(0);
    let matched = AtomicUsize::new(0);
    let total = AtomicUsize::new(0);
    let best: Mutex<Vec<Scored>> = Mutex::new(Vec::new());
    let boost = definitions.is_some();
    let errors: Mutex<Vec<SearchError>> = Mutex::new(Vec::new());
    // Files the door refused because a folder on their way became a symlink
    // after the walker listed it, or that were gone when opened: counted,
    // never named, as the listing may have been of a folder outside the
    // root swapped in for a moment.
    let swapped = AtomicUsize::new(0);
    let push_error = |path: &Path, message: String| {
        let mut errs = errors.lock().unwrap_or_else(|p| p.into_inner());
        errs.push(SearchError {
            path: rel_path(&root, path),
            message,
        });
    };

    builder.build_parallel().run(|| {
        let mut searcher = SearcherBuilder::new()
            .binary_detection(BinaryDetection::quit(0))
            .line_number(true)
            .line_terminator(grep_matcher::LineTerminator::crlf())
            .before_context(limits.context)
            .after_context(limits.context)
            .build();
        let (matcher, grep, include, root) = (&matcher, &grep, &include, &root);
        let (limits, push_error, swapped) = (&limits, &push_error, &swapped);
        let (searched, binary, matched, total, best) = (&searched, &binary, &matched, &total, &best);
        Box::new(move |entry| {
            if control.cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
                return WalkState::Quit;
            }
            let entry = match entry {
                Ok(e) => e,
                Err(err) => {
                    let path = error_path(&err).unwrap_or_else(|| root.clone());
                    push_error(&path, err.to_string());
                    return WalkState::Continue;
                }
            };
            if !entry.file_type().is_some_and(|t| t.is_file()) {
                return WalkState::Continue;
            }
            let path = entry.path();
            if let Some(inc) = include
                && !inc.is_match(root, path)
            {
                return WalkState::Continue;
            }
            // Open first and ask the open file for its size: one path lookup
            // per file instead of two (a stat by path, then the open). The
            // open goes through the door: a folder swapped for a symlink since
            // the walker listed it makes it fail instead of reading outside.
            let opened = crate::disk::door::open_file(path).and_then(|f| {
                let len = f.metadata()?.len();
                Ok((f, len))
            });
            let (file, size) = match opened {
                Ok(x) => x,
                Err(err)
                    if crate::disk::door::is_swap(&err)
                        || err.kind() == std::io::ErrorKind::NotFound =>
                {
                    swapped.fetch_add(1, Ordering::Relaxed);
                    return WalkState::Continue;
                }
                Err(err) => {
                    push_error(path, err.to_string());
                    return WalkState::Continue;
                }
            };
            if size > limits.max_size {
                push_error(
                    path,
                    format!(
                        "skipped: {size} bytes, over the search limit of {} bytes (raise the file size limit)",
                        limits.max_size
                    ),
                );
                return WalkState::Continue;
            }
            let n = searched.fetch_add(1, Ordering::Relaxed) + 1;
            if n % PROGRESS_EVERY == 0
                && let Some(report) = control.progress
            {
                report(n);
            }
            let mut sink = FileSink::new(matcher, limits);
            if let Err(err) = search_one(&mut searcher, grep, &file, size, &mut sink) {
                push_error(path, err.to_string());
                return WalkState::Continue;
            }
            if sink.binary {
                binary.fetch_add(1, Ordering::Relaxed);
                return WalkState::Continue;
            }
            if sink.match_count == 0 {
                return WalkState::Continue;
            }
            matched.fetch_add(1, Ordering::Relaxed);
            total.fetch_add(sink.match_count, Ordering::Relaxed);
            let file = sink.finish(rel_path(root, path), size, path);
            let mut best = best.lock().unwrap_or_else(|p| p.into_inner());
            best.push(file);
            if best.len() >= 2 * (max_results + DEFINITION_CANDIDATES) + 64 {
                prune(&mut best, max_results, boost);
            }
            WalkState::Continue
        })
    });

    let mut scored = best.into_inner().unwrap_or_else(|p| p.into_inner());
    rank(&mut scored);
    let definitions_checked = match definitions {
        Some(defs) => boost_definitions(&mut scored, max_results, defs, matcher.case_sensitive()),
        None => 0,
    };
    let mut files: Vec<FileMatches> = scored.into_iter().map(|s| s.file).collect();
    let files_matched = matched.into_inner();
    let more_files = files_matched > max_results;
    files.truncate(max_results);
    let max_total = params
        .max_total_matches
        .unwrap_or(DEFAULT_MAX_TOTAL_MATCHES);
    let mut shown = 0;
    for f in &mut files {
        let room = max_total.saturating_sub(shown);
        if f.matches.len() > room {
            f.matches.truncate(room);
            f.matches_truncated = true;
        }
        shown += f.matches.len();
    }
    let some_cut = files.iter().any(|f| f.matches_truncated);
    let cancelled = control.cancel.is_some_and(|c| c.load(Ordering::Relaxed));
    let hint = match (more_files, some_cut) {
        _ if cancelled => Some(format!(
            "cancelled after {}: results are partial",
            crate::text::count(searched.load(Ordering::Relaxed), "file")
        )),
        (false, false) => None,
        (true, _) => Some(format!(
            "{} of {files_matched} matching files shown; narrow with ⟦path⟧ or ⟦include⟧, add keywords, or raise ⟦max_results⟧",
            files.len()
        )),
        // Only what both interfaces offer: the per-file and total caps of
        // listed lines are library and CLI settings, not MCP fields.
        (false, true) => Some(
            "some matching lines are not listed; read them with ⟦read_fragment⟧ on a file with the same keywords, or narrow with ⟦path⟧ or ⟦include⟧".to_string(),
        ),
    };
    let mut errors = errors.into_inner().unwrap_or_else(|p| p.into_inner());
    let swapped = swapped.into_inner();
    if swapped > 0 {
        errors.push(SearchError {
            path: rel_path(&root, &root),
            message: format!(
                "{swapped} listed files skipped: they vanished, or a folder on their way became a symlink, while in use"
            ),
        });
    }
    errors.sort_by(|a, b| a.path.cmp(&b.path));
    let error_count = errors.len();
    errors.truncate(MAX_ERRORS);
    Ok(SearchResult {
        truncated: more_files || some_cut || cancelled,
        cancelled,
        hint,
        files,
        total_matches: total.into_inner(),
        files_matched,
        files_searched: searched.into_inner(),
        binary_files_skipped: binary.into_inner(),
        definitions_checked,
        errors,
        error_count,
    })
}

/// Search one file opened through the door. A large file is read whole,
/// in one call, into a buffer of its size, then searched as a slice: the
/// searcher's own line buffer would otherwise grow by doubling (zero-fill
/// and copy) across a multi-MB minified line. Small files are streamed.
///
/// Decision: not mapped. A map of a file that another process truncates
/// during the search raises SIGBUS, which would end the MCP server and every
/// request in flight with it; a read cannot (see ARCHITECTURE.md).
fn search_one(
    searcher: &mut Searcher,
    grep: &grep_regex::RegexMatcher,
    mut file: &std::fs::File,
    size: u64,
    sink: &mut FileSink<'_>,
) -> std::io::Result<()> {
    if size < WHOLE_READ_MIN_SIZE {
        return searcher.search_file(grep, file, sink);
    }
    let mut bytes = Vec::with_capacity(size as usize);
    std::io::Read::read_to_end(&mut file, &mut bytes)?;
    // The reader quits at a NUL byte anywhere; a slice search only looks
    // at its first 64 KiB. Check the whole buffer so both agree.
    if memchr::memchr(0, &bytes).is_some() {
        sink.binary = true;
        return Ok(());
    }
    searcher.search_slice(grep, &bytes, sink)
}

fn build_matcher(params: &SearchParams) -> Result<KeywordMatcher> {
    match (&params.pattern, params.keywords.is_empty()) {
        (Some(_), false) => Err(Error::invalid_argument(
            "pass either keywords or pattern, not both",
        )
        .with_suggestion("put alternatives in the regex (a|b), or drop ⟦pattern⟧")),
        (Some(p), true) => KeywordMatcher::pattern(p, params.case_sensitive, params.whole_word),
        (None, _) => {
            KeywordMatcher::keywords(&params.keywords, params.case_sensitive, params.whole_word)
        }
    }
}

/// A matching file during the search: its result plus what the definition
/// boost needs.
struct Scored {
    file: FileMatches,
    abs: PathBuf,
    /// Keywords (or, for a regex, matched texts) that occur as whole words:
    /// the only ones that can name a definition here.
    idents: Vec<String>,
}

/// Best first: higher score, then path.
fn rank(files: &mut [Scored]) {
    files.sort_by(|a, b| {
        b.file
            .score
            .total_cmp(&a.file.score)
            .then_with(|| a.file.path.cmp(&b.file.path))
    });
}

/// Bound memory during the walk: keep the best `max_results` files, plus
/// (when the boost is on) the best [`DEFINITION_CANDIDATES`] of the rest that
/// could be boosted. Both are top-n sets under a total order, so pruning at
/// any moment of the parallel walk leaves the same final answer.
fn prune(files: &mut Vec<Scored>, max_results: usize, boost: bool) {
    rank(files);
    if !boost {
        files.truncate(max_results);
        return;
    }
    let mut spare = DEFINITION_CANDIDATES;
    let mut i = 0;
    files.retain(|s| {
        i += 1;
        if i <= max_results {
            return true;
        }
        let keep = spare > 0 && !s.idents.is_empty();
        spare -= usize::from(keep);
        keep
    });
}

/// Ask `defs` which keywords the best candidates define, in parallel, and
/// re-rank. Candidates: files with a whole-word occurrence, small enough to
/// parse, whose score plus the largest boost reaches the score of the
/// `max_results`-th file (others cannot move into the results), best first,
/// at most [`DEFINITION_CANDIDATES`]. Returns how many files were parsed.
fn boost_definitions(
    files: &mut [Scored],
    max_results: usize,
    defs: &DefinitionsFn,
    case_sensitive: bool,
) -> usize {
    use rayon::prelude::*;
    let floor = files
        .get(max_results.saturating_sub(1))
        .map_or(f64::NEG_INFINITY, |s| s.file.score - MAX_DEFINITION_BOOST);
    let mut bytes = 0u64;
    let picked: Vec<usize> = files
        .iter()
        .enumerate()
        .filter(|(_, s)| {
            !s.idents.is_empty()
                && s.file.file_size <= DEFINITION_MAX_FILE_SIZE
                && s.file.score >= floor
        })
        .take_while(|(_, s)| {
            bytes += s.file.file_size;
            bytes <= DEFINITION_MAX_BYTES.max(s.file.file_size)
        })
        .map(|(i, _)| i)
        .take(DEFINITION_CANDIDATES)
        .collect();
    // The request's cancellation reaches rayon's workers (the parses'
    // deadlines check it); a cancelled item just defines nothing.
    let cancel = crate::symbols::Cancel::current();
    let found: Vec<(usize, Vec<String>)> = picked
        .par_iter()
        .map(|&i| {
            let defines = cancel.run(|| defined_here(&files[i], defs, case_sensitive));
            (i, defines.unwrap_or_default())
        })
        .collect();
    for (i, defines) in found {
        if defines.is_empty() {
            continue;
        }
        let f = &mut files[i].file;
        f.score = score(
            f.keywords_matched.len(),
            f.match_count,
            f.file_size,
            defines.len(),
        );
        f.defines = defines;
    }
    rank(files);
    picked.len()
}

/// The candidate words of `s` that name a definition in its file.
fn defined_here(s: &Scored, defs: &DefinitionsFn, case_sensitive: bool) -> Vec<String> {
    // Read again, bounded like the candidates (a file swapped for a huge
    // one since it was searched is not read whole).
    let text = match crate::disk::read_bytes(&s.abs, DEFINITION_MAX_FILE_SIZE) {
        Ok(b) => String::from_utf8(b)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()),
        Err(_) => return Vec::new(),
    };
    let names = defs(&s.abs, &text);
    let mut defines: Vec<String> = Vec::new();
    for k in &s.idents {
        let hit = if case_sensitive {
            names.iter().any(|n| n == k)
        } else {
            let k = k.to_lowercase();
            names.iter().any(|n| n.to_lowercase() == k)
        };
        if hit && !defines.contains(k) {
            defines.push(k.clone());
        }
    }
    defines
}

/// Relevance: 10 per distinct keyword (dominant), plus up to 4 for
/// frequency (log-scaled, divided by a log-scaled file-size factor so a huge
/// file full of mentions does not beat a small focused one), plus 5 (5.5 for
/// several) when keywords name definitions in the file: where a thing is
/// defined beats where it is merely mentioned. The extras stay below 10, so
/// they never outweigh one more distinct keyword.
pub fn score(distinct: usize, match_count: usize, file_size: u64, defined: usize) -> f64 {
    let size_factor = 1.0 + (1.0 + file_size as f64 / 4096.0).ln();
    let freq = ((1.0 + match_count as f64).ln() / size_factor).min(3.99);
    let boost = match defined {
        0 => 0.0,
        1 => 5.0,
        _ => 5.5,
    };
    let s = 10.0 * distinct as f64 + freq + boost;
    (s * 1000.0).round() / 1000.0
}

/// Collects the matches of one file.
struct FileSink<'a> {
    matcher: &'a KeywordMatcher,
    limits: &'a Limits,
    binary: bool,
    match_count: usize,
    per_keyword: Vec<usize>,
    /// Definition candidates: keywords (or regex-matched texts) that occur
    /// as whole words.
    idents: Vec<String>,
    matches: Vec<SearchMatch>,
    truncated: bool,
    before: Vec<String>,
    /// Whether the last matching line was listed (so it takes after-context).
    last_listed: bool,
}

impl<'a> FileSink<'a> {
    fn new(matcher: &'a KeywordMatcher, limits: &'a Limits) -> Self {
        FileSink {
            matcher,
            limits,
            binary: false,
            match_count: 0,
            per_keyword: vec![0; matcher.labels().len()],
            idents: Vec::new(),
            matches: Vec::new(),
            truncated: false,
            before: Vec::new(),
            last_listed: false,
        }
    }

    fn finish(self, rel: String, size: u64, abs: &Path) -> Scored {
        let labels = self.matcher.labels();
        let keywords_matched: Vec<String> = labels
            .iter()
            .zip(&self.per_keyword)
            .filter(|(_, n)| **n > 0)
            .map(|(k, _)| k.clone())
            .collect();
        let file = FileMatches {
            score: score(keywords_matched.len(), self.match_count, size, 0),
            path: rel,
            file_size: size,
            match_count: self.match_count,
            keywords_matched,
            defines: Vec::new(),
            matches: self.matches,
            matches_truncated: self.truncated,
        };
        Scored {
            file,
            abs: abs.to_path_buf(),
            idents: self.idents,
        }
    }
}

/// `bytes` as text: borrowed when valid UTF-8 (the usual case, checked
/// several times faster than the lossy decoder walks it: this runs over
/// every matching line, megabytes for a minified one), else lossy.
fn utf8(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(s) => std::borrow::Cow::Borrowed(s),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}

fn context_text(bytes: &[u8]) -> String {
    // At most 4 bytes a character: converting more than that is waste on a
    // minified line.
    let bytes = &bytes[..bytes.len().min(4 * CONTEXT_LINE_CHARS + 8)];
    let line = String::from_utf8_lossy(bytes);
    let line = crate::text::lines::strip_eol(&line).trim_end();
    match line.char_indices().nth(CONTEXT_LINE_CHARS) {
        Some((i, _)) => format!("{}…", &line[..i]),
        None => line.to_string(),
    }
}

impl Sink for FileSink<'_> {
    type Error = std::io::Error;

    fn matched(
        &mut self,
        _: &Searcher,
        m: &SinkMatch<'_>,
    ) -> std::result::Result<bool, std::io::Error> {
        let line_no = m.line_number().unwrap_or(0) as usize;
        let line = utf8(m.bytes());
        let hits = self.matcher.find_in_line(&line);
        let before = std::mem::take(&mut self.before);
        self.last_listed = false;
        let regex_mode = self.matcher.is_pattern();
        for h in &hits {
            self.match_count += 1;
            self.per_keyword[h.keyword] += 1;
            if self.idents.len() < MAX_IDENTS && is_whole_word(&line, h.start, h.end) {
                let word = if regex_mode {
                    &line[h.start..h.end]
                } else {
                    self.matcher.labels()[h.keyword].as_str()
                };
                if !self.idents.iter().any(|x| x == word) {
                    self.idents.push(word.to_string());
                }
            }
        }
        // One row per line, shown around its first hit: the work is the
        // preview's, not the line's (a minified line can be megabytes).
        let Some(first) = hits.first() else {
            return Ok(true);
        };
        if self.matches.len() >= self.limits.per_file {
            self.truncated = true;
            return Ok(true);
        }
        self.matches.push(SearchMatch {
            keyword: self.matcher.labels()[first.keyword].clone(),
            line: line_no,
            column: line[..first.start].chars().count() + 1,
            hits: hits.len(),
            preview: preview(&line, first.start, first.end, PREVIEW_WIDTH),
            context_before: before,
            context_after: Vec::new(),
        });
        self.last_listed = true;
        Ok(true)
    }

    fn context(
        &mut self,
        _: &Searcher,
        c: &SinkContext<'_>,
    ) -> std::result::Result<bool, std::io::Error> {
        match c.kind() {
            SinkContextKind::Before => self.before.push(context_text(c.bytes())),
            SinkContextKind::After if self.last_listed => {
                if let Some(last) = self.matches.last_mut() {
                    last.context_after.push(context_text(c.bytes()));
                }
            }
            _ => {}
        }
        Ok(true)
    }

    fn context_break(&mut self, _: &Searcher) -> std::result::Result<bool, std::io::Error> {
        self.before.clear();
        Ok(true)
    }

    fn binary_data(&mut self, _: &Searcher, _: u64) -> std::result::Result<bool, std::io::Error> {
        self.binary = true;
        Ok(false)
    }
}

// ---------------------------------------------------------------------------
// Shared with `tree`: where to walk and how.

/// Canonical root and the canonical folder (or file) `path` names inside it.
/// `path` may be relative to the root or absolute; it must stay inside.
pub(crate) fn resolve_dir(root: &Path, path: Option<&str>) -> Result<(PathBuf, PathBuf)> {
    let ws = Workspace::new(root)?;
    let root = ws.root().to_path_buf();
    let Some(p) = path.filter(|p| !p.is_empty() && *p != ".") else {
        return Ok((root.clone(), root));
    };
    // The same sandbox as every other path: outside, `.git` and git dirs
    // under other names are refused the same way.
    let dir = ws.resolve(Path::new(p), Purpose::Read)?.path;
    if dir.strip_prefix(&root).is_ok_and(|r| {
        r.components()
            .any(|c| ALWAYS_SKIPPED_DIRS.iter().any(|s| c.as_os_str() == *s))
    }) {
        return Err(Error::new(
            ErrorCode::IgnoredPath,
            format!("{p} is inside .git or .scalpel, which are never searched"),
        )
        .with_suggestion("pass a folder of the project itself")
        .with_details(serde_json::json!({"path": p})));
    }
    Ok((root, dir))
}

/// A walker over `dir` with the workspace's ignore rules, pruning entries
/// that match `exclude`.
pub(crate) fn walk_builder(
    root: &Path,
    dir: &Path,
    hidden: bool,
    exclude: Option<Globs>,
) -> WalkBuilder {
    let root = root.to_path_buf();
    crate::disk::walk::walker_with(dir, hidden, move |e| {
        let skipped = e.file_type().is_some_and(|t| t.is_dir())
            && (ALWAYS_SKIPPED_DIRS.iter().any(|s| e.file_name() == *s) || is_git_dir(e.path()));
        let excluded = exclude
            .as_ref()
            .is_some_and(|x| x.is_match(&root, e.path()));
        !skipped && !excluded
    })
}

/// Path relative to `root`, with `/` separators ("." for the root itself).
pub(crate) fn rel_path(root: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(root).unwrap_or(path);
    let parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts.is_empty() {
        ".".to_string()
    } else {
        parts.join("/")
    }
}

fn error_path(err: &ignore::Error) -> Option<PathBuf> {
    match err {
        ignore::Error::WithPath { path, .. } => Some(path.clone()),
        ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
            error_path(err)
        }
        ignore::Error::Loop { child, .. } => Some(child.clone()),
        _ => None,
    }
}

/// Include/exclude globs. A glob without `/` matches a file or folder name
/// anywhere ("*.rs", "tests"); one with `/` matches the path from the root
/// ("src/**/*.py").
#[derive(Debug, Clone)]
pub(crate) struct Globs {
    names: GlobSet,
    paths: GlobSet,
}

impl Globs {
    pub(crate) fn is_match(&self, root: &Path, path: &Path) -> bool {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        self.names.is_match(&name) || self.paths.is_match(rel_path(root, path))
    }
}

pub(crate) fn globs(patterns: &[String], field: &str) -> Result<Option<Globs>> {
    if patterns.is_empty() {
        return Ok(None);
    }
    let mut names = GlobSetBuilder::new();
    let mut paths = GlobSetBuilder::new();
    for p in patterns {
        let bad = |e: globset::Error| {
            Error::invalid_argument(format!("invalid {field} glob {p:?}: {e}"))
                .with_suggestion("use globs like \"*.rs\", \"tests\" or \"src/**/*.py\"")
        };
        let trimmed = p.trim_start_matches("./").trim_end_matches('/');
        if trimmed.contains('/') {
            let g = GlobBuilder::new(trimmed.trim_start_matches('/'))
                .literal_separator(true)
                .build()
                .map_err(bad)?;
            paths.add(g);
        } else {
            names.add(Glob::new(trimmed).map_err(bad)?);
        }
    }
    let build = |b: GlobSetBuilder| {
        b.build().map_err(|e| {
            Error::invalid_argument(format!("invalid {field} globs: {e}"))
                .with_suggestion("fix the glob (e.g. `*.py`, `src/**`)")
        })
    };
    Ok(Some(Globs {
        names: build(names)?,
        paths: build(paths)?,
    }))
}

#[cfg(test)]
mod tests;
