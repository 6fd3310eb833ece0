//! The search walk under `search_files`: which files mention some keywords
//! (or match a regex) across the workspace, each handed with its matching
//! lines to the caller as it is found. Nothing here ranks: ranking lives in
//! `ops::search`, which consumes these files (and prunes them) as they come.
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

use crate::disk::workspace::{Purpose, Workspace, is_git_dir};
use crate::error::{Error, ErrorCode, Result};
use crate::text::matcher::{KeywordHit, KeywordMatcher, is_whole_word};
use crate::text::preview::{PREVIEW_WIDTH, preview};
use globset::{Glob, GlobBuilder, GlobSet, GlobSetBuilder};
use grep_regex::RegexMatcherBuilder;
use grep_searcher::{
    BinaryDetection, Searcher, SearcherBuilder, Sink, SinkContext, SinkContextKind, SinkMatch,
};
use ignore::{WalkBuilder, WalkState};
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// At most this many distinct matched words per file are kept as
/// definition candidates in regex mode.
const MAX_IDENTS: usize = 32;
/// At most this many non-fatal errors are listed in an answer.
pub const MAX_ERRORS: usize = 50;
/// Files larger than this are not searched (reported in `errors`).
pub const DEFAULT_SEARCH_MAX_FILE_SIZE: u64 = crate::disk::DEFAULT_MAX_FILE_SIZE;
/// Our own ignore file, read like `.gitignore` in every directory.
pub const SCALPEL_IGNORE: &str = ".scalpelignore";
/// Directories never searched or listed: git's store and our backups/journal.
pub const ALWAYS_SKIPPED_DIRS: [&str; 2] = [".git", ".scalpel"];
/// Context lines are cut to this many characters.
const CONTEXT_LINE_CHARS: usize = 200;
/// Files of at least this many bytes are read whole and searched as a slice.
pub(crate) const WHOLE_READ_MIN_SIZE: u64 = 1024 * 1024;
/// One matching line (a line with several hits is one row).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
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

/// A file that could not be searched; the search went on without it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SearchError {
    pub path: String,
    pub message: String,
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

/// What to look for and where: the matcher (keywords or a regex, built by
/// the caller) and the walk's bounds.
pub struct GrepQuery<'a> {
    pub matcher: &'a KeywordMatcher,
    /// Folder (or file) to search, relative to the root; `None`: the root.
    pub path: Option<&'a str>,
    pub include: &'a [String],
    pub exclude: &'a [String],
    pub hidden: bool,
    /// Lines of context before and after each listed match.
    pub context: usize,
    /// Matching lines listed per file (all are counted).
    pub per_file: usize,
    /// Files larger than this are reported in `errors`, not searched.
    pub max_size: u64,
}

/// A file with matches, as the walk found it.
#[derive(Debug, Clone)]
pub struct FileHits {
    /// Relative to the root, with `/` separators.
    pub path: String,
    pub abs: PathBuf,
    pub size: u64,
    /// All matches in the file (may exceed the matches listed).
    pub match_count: usize,
    /// Distinct keywords found in this file, in the matcher's order.
    pub keywords_matched: Vec<String>,
    /// Keywords (or, for a regex, matched texts) that occur as whole words:
    /// the only ones that can name a definition here.
    pub idents: Vec<String>,
    pub matches: Vec<SearchMatch>,
    /// True when not every match is listed.
    pub matches_truncated: bool,
}

/// What the walk saw besides the files it handed over.
#[derive(Debug)]
pub struct Walked {
    pub searched: usize,
    pub binary: usize,
    /// Files with at least one match.
    pub matched: usize,
    /// Matches in all matching files.
    pub total: usize,
    /// Non-fatal problems, sorted by path, all of them.
    pub errors: Vec<SearchError>,
    /// The caller's cancel was set: the walk stopped early.
    pub cancelled: bool,
}

/// Walk `query.path` (default: all of `root`) and hand every file with a
/// match to `found`, from the walker's threads, in no particular order.
pub fn grep(
    root: &Path,
    query: &GrepQuery<'_>,
    control: SearchControl<'_>,
    found: &(dyn Fn(FileHits) + Sync),
) -> Result<Walked> {
    let matcher = query.matcher;
    let grep = line_regex(matcher)?;
    let (root, dir) = resolve_dir(root, query.path)?;
    let include = globs(query.include, "include")?;
    let exclude = globs(query.exclude, "exclude")?;
    let limits = Limits {
        per_file: query.per_file,
        context: query.context,
        max_size: query.max_size,
    };

    let walk = Walk {
        matcher,
        grep: &grep,
        include: include.as_ref(),
        root: &root,
        limits: &limits,
        control,
        found,
        searched: AtomicUsize::new(0),
        binary: AtomicUsize::new(0),
        matched: AtomicUsize::new(0),
        total: AtomicUsize::new(0),
        errors: Mutex::new(Vec::new()),
        swapped: AtomicUsize::new(0),
    };
    walk_builder(&root, &dir, query.hidden, exclude)
        .build_parallel()
        .run(|| {
            let mut searcher = line_searcher(&limits);
            // A matcher of its own per thread: a shared regex hands its
            // scratch space out through a pool, contended on every line.
            let grep = walk.grep.clone();
            // One buffer per thread, every file read into it whole.
            let mut buf = Vec::new();
            let walk = &walk;
            Box::new(move |entry| {
                let state = walk.visit(&mut searcher, &grep, &mut buf, entry);
                // A big file's buffer is not kept for the small ones after it.
                if buf.capacity() > 2 * WHOLE_READ_MIN_SIZE as usize {
                    buf = Vec::new();
                }
                state
            })
        });
    let cancelled = control.cancel.is_some_and(|c| c.load(Ordering::Relaxed));
    Ok(walk.finish(cancelled))
}

/// What finds the lines that may hold a hit, for the searcher.
fn line_regex(matcher: &KeywordMatcher) -> Result<grep_regex::RegexMatcher> {
    RegexMatcherBuilder::new()
        .case_insensitive(!matcher.case_sensitive())
        .line_terminator(Some(b'\n'))
        .crlf(true)
        .build(matcher.alternation())
        .map_err(|e| {
            Error::invalid_argument(format!("cannot search for this pattern: {e}"))
                .with_suggestion("patterns match within one line; remove \\n from the pattern")
        })
}

fn line_searcher(limits: &Limits) -> Searcher {
    SearcherBuilder::new()
        .binary_detection(BinaryDetection::quit(0))
        .line_number(true)
        .line_terminator(grep_matcher::LineTerminator::crlf())
        .before_context(limits.context)
        .after_context(limits.context)
        .build()
}

/// Search `buf`, a whole file, into `sink`.
fn search_buffer(
    searcher: &mut Searcher,
    grep: &grep_regex::RegexMatcher,
    buf: &[u8],
    sink: &mut FileSink<'_>,
) -> std::io::Result<()> {
    // An ASCII file, searched for keywords without context, is read by the
    // matcher alone, once (the same hits: `scan_ascii`). An ASCII file has
    // no byte-order mark.
    if sink.limits.context == 0
        && sink.matcher.finds_in_ascii_text()
        && buf.is_ascii()
        && let Ok(text) = std::str::from_utf8(buf)
    {
        sink.scan_ascii(text);
        return Ok(());
    }
    // A file with a byte-order mark is left to the searcher, which decodes
    // it (UTF-16 included) and checks the decoded text for NUL bytes; any
    // other file with a NUL byte anywhere was found binary as it was read
    // (a slice search would only look at its first 64 KiB).
    searcher.search_slice(grep, buf, sink)
}

/// One walk in progress: what every walker thread shares.
struct Walk<'a> {
    matcher: &'a KeywordMatcher,
    grep: &'a grep_regex::RegexMatcher,
    include: Option<&'a Globs>,
    root: &'a Path,
    limits: &'a Limits,
    control: SearchControl<'a>,
    found: &'a (dyn Fn(FileHits) + Sync),
    searched: AtomicUsize,
    binary: AtomicUsize,
    matched: AtomicUsize,
    total: AtomicUsize,
    errors: Mutex<Vec<SearchError>>,
    // Files the door refused because a folder on their way became a symlink
    // after the walker listed it, or that were gone when opened: counted,
    // never named, as the listing may have been of a folder outside the
    // root swapped in for a moment.
    swapped: AtomicUsize,
}

impl Walk<'_> {
    /// What the walk saw, its errors sorted by path.
    fn finish(self, cancelled: bool) -> Walked {
        let mut errors = self.errors.into_inner().unwrap_or_else(|p| p.into_inner());
        let swapped = self.swapped.into_inner();
        if swapped > 0 {
            errors.push(SearchError {
                path: rel_path(self.root, self.root),
                message: format!(
                    "{swapped} listed files skipped: they vanished, or a folder on their way became a symlink, while in use"
                ),
            });
        }
        errors.sort_by(|a, b| a.path.cmp(&b.path));
        Walked {
            searched: self.searched.into_inner(),
            binary: self.binary.into_inner(),
            matched: self.matched.into_inner(),
            total: self.total.into_inner(),
            errors,
            cancelled,
        }
    }

    fn push_error(&self, path: &Path, message: String) {
        let mut errs = self.errors.lock().unwrap_or_else(|p| p.into_inner());
        errs.push(SearchError {
            path: rel_path(self.root, path),
            message,
        });
    }

    /// The file at `path`, or `None` (counted or reported) when it cannot
    /// be opened.
    fn open(&self, path: &Path) -> Option<std::fs::File> {
        // The open goes through the door: a folder swapped for a symlink
        // since the walker listed it makes it fail instead of reading
        // outside. Its size is not asked: the read finds it (one system
        // call per file fewer; a tenth of a search that matches nothing).
        match crate::disk::door::open_file(path) {
            Ok(f) => Some(f),
            Err(err)
                if crate::disk::door::is_swap(&err)
                    || err.kind() == std::io::ErrorKind::NotFound =>
            {
                self.swapped.fetch_add(1, Ordering::Relaxed);
                None
            }
            Err(err) => {
                self.push_error(path, err.to_string());
                None
            }
        }
    }

    /// One entry of the walk: searched, and handed over if it matches.
    fn visit(
        &self,
        searcher: &mut Searcher,
        grep: &grep_regex::RegexMatcher,
        buf: &mut Vec<u8>,
        entry: std::result::Result<ignore::DirEntry, ignore::Error>,
    ) -> WalkState {
        if self
            .control
            .cancel
            .is_some_and(|c| c.load(Ordering::Relaxed))
        {
            return WalkState::Quit;
        }
        let entry = match entry {
            Ok(e) => e,
            Err(err) => {
                let path = error_path(&err).unwrap_or_else(|| self.root.to_path_buf());
                self.push_error(&path, err.to_string());
                return WalkState::Continue;
            }
        };
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            return WalkState::Continue;
        }
        let path = entry.path();
        if let Some(inc) = self.include
            && !inc.is_match(self.root, path)
        {
            return WalkState::Continue;
        }
        let Some(file) = self.open(path) else {
            return WalkState::Continue;
        };
        let max_size = self.limits.max_size;
        let size = match read_capped(&file, max_size, buf) {
            Ok(Capped::Read(size)) => Some(size),
            Ok(Capped::Binary) => None,
            Ok(Capped::Over(size)) => {
                self.push_error(
                    path,
                    format!(
                        "skipped: {size} bytes, over the search limit of {max_size} bytes (raise the file size limit)"
                    ),
                );
                return WalkState::Continue;
            }
            Err(err) => {
                self.push_error(path, err.to_string());
                return WalkState::Continue;
            }
        };
        let n = self.searched.fetch_add(1, Ordering::Relaxed) + 1;
        if n.is_multiple_of(PROGRESS_EVERY)
            && let Some(report) = self.control.progress
        {
            report(n);
        }
        let Some(size) = size else {
            self.binary.fetch_add(1, Ordering::Relaxed);
            return WalkState::Continue;
        };
        let mut sink = FileSink::new(self.matcher, self.limits);
        if let Err(err) = search_buffer(searcher, grep, buf, &mut sink) {
            self.push_error(path, err.to_string());
            return WalkState::Continue;
        }
        if sink.binary {
            self.binary.fetch_add(1, Ordering::Relaxed);
            return WalkState::Continue;
        }
        if sink.match_count == 0 {
            return WalkState::Continue;
        }
        self.matched.fetch_add(1, Ordering::Relaxed);
        self.total.fetch_add(sink.match_count, Ordering::Relaxed);
        (self.found)(sink.finish(rel_path(self.root, path), size, path));
        WalkState::Continue
    }
}

/// The files that match `query`, sorted by path, at most `max` of them (the
/// first by path: deterministic whatever order the walk finds them in), with
/// how many matched in all and the walk's errors. For callers that parse
/// every candidate and need no ranking (references, the language-server
/// backend's neighbours). `control` can stop the walk (see [`grep`]).
pub fn matching_files(
    root: &Path,
    query: &GrepQuery<'_>,
    max: usize,
    control: SearchControl<'_>,
) -> Result<(Vec<String>, Walked)> {
    let kept: Mutex<std::collections::BTreeSet<String>> = Mutex::default();
    let walked = grep(root, query, control, &|f: FileHits| {
        let mut kept = kept.lock().unwrap_or_else(|p| p.into_inner());
        kept.insert(f.path);
        if kept.len() > max {
            kept.pop_last();
        }
    })?;
    let kept = kept.into_inner().unwrap_or_else(|p| p.into_inner());
    Ok((kept.into_iter().collect(), walked))
}

/// What [`read_capped`] found: a text file read whole, of this many bytes,
/// a binary file within the limit (a NUL byte anywhere and no byte-order
/// mark; read no further than the NUL's part), or a file of this many
/// bytes, over the limit (not read whole).
enum Capped {
    Read(u64),
    Binary,
    Over(u64),
}

/// Bytes read before the rest of a file: a NUL among them makes it binary
/// ([`is_binary`]) whatever follows, so the rest is not read. The same
/// answer as reading it whole, for less: in Python's standard library
/// the shared objects, archives and wheels are 20 MB of its 57 MB that a
/// search read, copied and scanned only to skip them.
const BINARY_PROBE: u64 = 64 * 1024;

/// Read `file` whole into `buf` (cleared first), unless it holds more
/// than `max_size` bytes. A small file is one read and the read that finds
/// its end; only a file of [`WHOLE_READ_MIN_SIZE`] or more is asked its
/// size, so that its rest is read in one call into a buffer of that size
/// (growing by doubling across a multi-MB minified line would zero-fill
/// and copy). A file whose first [`BINARY_PROBE`] bytes show it binary is
/// read no further.
///
/// Decision: read, not mapped. A map of a file that another process
/// truncates during the search raises SIGBUS, which would end the MCP
/// server and every request in flight with it; a read cannot (see
/// ARCHITECTURE.md).
fn read_capped(
    mut file: &std::fs::File,
    max_size: u64,
    buf: &mut Vec<u8>,
) -> std::io::Result<Capped> {
    use std::io::Read;
    buf.clear();
    let over = max_size.saturating_add(1);
    let first = WHOLE_READ_MIN_SIZE.min(over);
    let probe = BINARY_PROBE.min(first);
    file.by_ref().take(probe).read_to_end(buf)?;
    let whole = (buf.len() as u64) < probe;
    if is_binary(buf, 0) {
        if whole {
            return Ok(Capped::Binary);
        }
        // Over the limit is said before binary, as when it was read whole.
        let size = file.metadata()?.len();
        return Ok(if size > max_size {
            Capped::Over(size)
        } else {
            Capped::Binary
        });
    }
    // The probe was looked at: a NUL can only lie in what follows it.
    let checked = buf.len();
    if whole {
        return Ok(Capped::Read(buf.len() as u64));
    }
    file.by_ref().take(first - probe).read_to_end(buf)?;
    if (buf.len() as u64) < first {
        return Ok(read_whole(buf, checked));
    }
    let size = file.metadata()?.len();
    if size > max_size {
        return Ok(Capped::Over(size));
    }
    buf.reserve_exact((size as usize).saturating_sub(buf.len()));
    file.take(over - buf.len() as u64).read_to_end(buf)?;
    Ok(if buf.len() as u64 <= max_size {
        read_whole(buf, checked)
    } else {
        Capped::Over(buf.len() as u64)
    })
}

/// A file read whole and within the limit: `Read`, or `Binary` when a NUL
/// lies past its first `checked` bytes (already looked at).
fn read_whole(buf: &[u8], checked: usize) -> Capped {
    if is_binary(buf, checked) {
        Capped::Binary
    } else {
        Capped::Read(buf.len() as u64)
    }
}

/// Whether `bytes` (a file, or its start) show it binary: a NUL byte at
/// `from` or after, and no byte-order mark (UTF-16 text is full of NULs).
fn is_binary(bytes: &[u8], from: usize) -> bool {
    !crate::source::has_bom(bytes) && memchr::memchr(0, &bytes[from..]).is_some()
}

struct Limits {
    per_file: usize,
    context: usize,
    max_size: u64,
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
    /// The line the searcher handed over last (one for all lines: they
    /// are many).
    line: HitLine,
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
            line: HitLine::new(matcher, 0),
        }
    }

    fn finish(self, path: String, size: u64, abs: &Path) -> FileHits {
        let keywords_matched: Vec<String> = self
            .matcher
            .labels()
            .iter()
            .zip(&self.per_keyword)
            .filter(|(_, n)| **n > 0)
            .map(|(k, _)| k.clone())
            .collect();
        FileHits {
            path,
            abs: abs.to_path_buf(),
            size,
            match_count: self.match_count,
            keywords_matched,
            idents: self.idents,
            matches: self.matches,
            matches_truncated: self.truncated,
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
        let line = utf8(m.bytes());
        let before = std::mem::take(&mut self.before);
        self.last_listed = false;
        // (`list_line` leaves it empty.)
        let mut at = std::mem::take(&mut self.line);
        at.number = m.line_number().unwrap_or(0) as usize;
        at.end = line.len();
        self.matcher
            .for_each_hit_in_line(&line, |h| self.count(&line, &mut at, h));
        self.list_line(&line, &mut at, before);
        self.line = at;
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

impl FileSink<'_> {
    /// Every hit of `text`, a whole ASCII file, found in one pass and
    /// listed line by line, through the same [`Self::count`] and
    /// [`Self::list_line`] as the lines the searcher hands [`Sink::matched`]
    /// when there is no context to show
    /// ([`KeywordMatcher::for_each_hit_in_ascii_text`] says why the hits are
    /// the same). The searcher found each matching line, then the matcher
    /// found its hits again; a search for `self` spent most of its time
    /// doing both. Nothing is kept per hit, only per line and keyword (a
    /// line of `a` searched for `a` has a hit every byte).
    fn scan_ascii(&mut self, text: &str) {
        let matcher = self.matcher;
        let bytes = text.as_bytes();
        let mut line = HitLine::new(matcher, 1);
        matcher.for_each_hit_in_ascii_text(text, |h| {
            // (Before the first hit the line ends at 0: every hit is past it.)
            if h.start >= line.end {
                self.list_line(text, &mut line, Vec::new());
                // `counted`: the previous line's start (newlines before it
                // counted).
                let counted = line.start;
                line.start = memchr::memrchr(b'\n', &bytes[counted..h.start])
                    .map_or(counted, |p| counted + p + 1);
                line.number += memchr::memchr_iter(b'\n', &bytes[counted..line.start]).count();
                line.end = memchr::memchr(b'\n', &bytes[h.start..])
                    .map_or(bytes.len(), |p| h.start + p + 1);
            }
            self.count(text, &mut line, h);
        });
        self.list_line(text, &mut line, Vec::new());
    }

    /// One hit `h` of `line` (in `text`): counted, and kept if it is the
    /// line's first or a keyword's first whole word there. A pattern's
    /// whole-word hits come by position and are candidates at once, by
    /// their text.
    fn count(&mut self, text: &str, line: &mut HitLine, h: KeywordHit) {
        self.match_count += 1;
        self.per_keyword[h.keyword] += 1;
        line.hits += 1;
        if line
            .first
            .is_none_or(|f| (h.start, h.keyword) < (f.start, f.keyword))
        {
            line.first = Some(h);
        }
        if self.idents.len() >= MAX_IDENTS || !is_whole_word(text, h.start, h.end) {
            return;
        }
        if self.matcher.is_pattern() {
            self.note_ident(&text[h.start..h.end]);
        } else if line.first_whole[h.keyword].is_none() {
            line.first_whole[h.keyword] = Some(h.start);
        }
    }

    /// The line at hand, its hits counted: its keywords' candidates in the
    /// order of their first whole-word places (then keywords), and one row
    /// around its first hit, after the `before` context lines; then it is
    /// emptied. Nothing is listed for a line without hits.
    fn list_line(&mut self, text: &str, line: &mut HitLine, before: Vec<String>) {
        let Some(first) = line.first.take() else {
            return;
        };
        // Candidates in the order of the line's hits: by place, then
        // keyword (picked one by one: a search has few keywords, and this
        // runs for every matching line).
        while let Some((_, k)) = line
            .first_whole
            .iter()
            .enumerate()
            .filter_map(|(k, at)| at.map(|at| (at, k)))
            .min()
        {
            line.first_whole[k] = None;
            self.note_ident(self.matcher.labels()[k].as_str());
        }
        let start = line.start;
        let hit = |h: KeywordHit| KeywordHit {
            start: h.start - start,
            end: h.end - start,
            ..h
        };
        self.row(
            &text[start..line.end],
            line.number,
            hit(first),
            line.hits,
            before,
        );
        line.hits = 0;
    }

    /// `word` occurs as a whole word: a definition candidate, once each.
    fn note_ident(&mut self, word: &str) {
        if self.idents.len() < MAX_IDENTS && !self.idents.iter().any(|x| x == word) {
            self.idents.push(word.to_string());
        }
    }

    /// One row for a line of `hits` hits, shown around its `first` hit:
    /// the work is the preview's, not the line's (a minified line can be
    /// megabytes).
    fn row(
        &mut self,
        line: &str,
        line_no: usize,
        first: KeywordHit,
        hits: usize,
        before: Vec<String>,
    ) {
        if self.matches.len() >= self.limits.per_file {
            self.truncated = true;
            return;
        }
        self.matches.push(SearchMatch {
            keyword: self.matcher.labels()[first.keyword].clone(),
            line: line_no,
            column: line[..first.start].chars().count() + 1,
            hits,
            preview: preview(line, first.start, first.end, PREVIEW_WIDTH),
            context_before: before,
            context_after: Vec::new(),
        });
        self.last_listed = true;
    }
}

/// The line whose hits are being counted: where it is in the text, its
/// number, its hits so far, the first of them, and each keyword's first
/// whole-word place. Nothing is kept per hit.
#[derive(Default)]
struct HitLine {
    start: usize,
    end: usize,
    number: usize,
    hits: usize,
    first: Option<KeywordHit>,
    first_whole: Vec<Option<usize>>,
}

impl HitLine {
    fn new(matcher: &KeywordMatcher, number: usize) -> HitLine {
        HitLine {
            number,
            first_whole: vec![None; matcher.labels().len()],
            ..HitLine::default()
        }
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
mod tests {
    use super::*;

    fn hits_of(sink: FileSink<'_>) -> String {
        let hits = sink.finish("f".into(), 0, Path::new("f"));
        format!(
            "{} {:?} {:?} {:?} {}",
            hits.match_count,
            hits.keywords_matched,
            hits.idents,
            hits.matches,
            hits.matches_truncated
        )
    }

    /// The line loop as it was before a line's hits were streamed: every
    /// hit of the line collected and sorted by `find_in_line`, then each
    /// counted, and each whole-word one a candidate, in that order.
    struct Collected<'a>(FileSink<'a>);

    impl Sink for Collected<'_> {
        type Error = std::io::Error;

        fn matched(&mut self, _: &Searcher, m: &SinkMatch<'_>) -> std::io::Result<bool> {
            let sink = &mut self.0;
            let line = utf8(m.bytes());
            let hits = sink.matcher.find_in_line(&line);
            let before = std::mem::take(&mut sink.before);
            sink.last_listed = false;
            for h in &hits {
                sink.match_count += 1;
                sink.per_keyword[h.keyword] += 1;
                if sink.idents.len() < MAX_IDENTS && is_whole_word(&line, h.start, h.end) {
                    let word = if sink.matcher.is_pattern() {
                        &line[h.start..h.end]
                    } else {
                        sink.matcher.labels()[h.keyword].as_str()
                    };
                    sink.note_ident(word);
                }
            }
            if let Some(&first) = hits.first() {
                let line_no = m.line_number().unwrap_or(0) as usize;
                sink.row(&line, line_no, first, hits.len(), before);
            }
            Ok(true)
        }

        fn context(&mut self, s: &Searcher, c: &SinkContext<'_>) -> std::io::Result<bool> {
            self.0.context(s, c)
        }

        fn context_break(&mut self, s: &Searcher) -> std::io::Result<bool> {
            self.0.context_break(s)
        }

        fn binary_data(&mut self, s: &Searcher, at: u64) -> std::io::Result<bool> {
            self.0.binary_data(s, at)
        }
    }

    proptest::proptest! {
        /// A line's hits counted as they are found give what collecting and
        /// sorting them gave: the counts, the candidates (a pattern's by
        /// their text), the rows and their context, and where the listing
        /// stops; on text that is not ASCII (letters that fold to ASCII
        /// ones, a BOM), with keywords or a pattern, with context or not.
        #[test]
        fn a_lines_hits_counted_as_found_give_what_collecting_them_gave(
            text in "[aAbB_ (\r\n\u{17F}\u{212A}\u{E9}k-]{0,120}",
            words in proptest::collection::vec("[aAbBk_(\u{E9}-]{1,6}", 1..4),
            pattern in proptest::option::of(proptest::sample::select(
                vec![r"a+", r"[ab]\w?", r"\bk|b_", r"(?i)a b", r"\w+"],
            )),
            case_sensitive: bool,
            whole_word: bool,
            per_file in 1usize..4,
            context in 0usize..3,
            bom: bool,
        ) {
            let m = match pattern {
                Some(p) => KeywordMatcher::pattern(p, case_sensitive, whole_word).unwrap(),
                None => KeywordMatcher::keywords(&words, case_sensitive, whole_word).unwrap(),
            };
            let limits = Limits { per_file, context, max_size: u64::MAX };
            let text = if bom { format!("\u{FEFF}{text}") } else { text };
            let mut searcher = line_searcher(&limits);
            let grep = line_regex(&m).unwrap();
            let mut streamed = FileSink::new(&m, &limits);
            searcher.search_slice(&grep, text.as_bytes(), &mut streamed).unwrap();
            let mut collected = Collected(FileSink::new(&m, &limits));
            searcher.search_slice(&grep, text.as_bytes(), &mut collected).unwrap();
            proptest::prop_assert_eq!(hits_of(streamed), hits_of(collected.0));
        }
    }

    proptest::proptest! {
        /// An ASCII file read in one pass gives what the searcher gives line
        /// by line: the counts, the definition candidates, the rows (line,
        /// column, hits, preview) and where the listing stops.
        #[test]
        fn an_ascii_file_read_whole_gives_what_the_searcher_gives(
            text in "[aAbB_ (\r\n-]{0,120}",
            words in proptest::collection::vec("[aAbB_(-]{1,6}", 1..4),
            case_sensitive: bool,
            whole_word: bool,
            per_file in 1usize..4,
        ) {
            let m = KeywordMatcher::keywords(&words, case_sensitive, whole_word).unwrap();
            let limits = Limits { per_file, context: 0, max_size: u64::MAX };
            let mut searcher = line_searcher(&limits);
            let grep = line_regex(&m).unwrap();
            let mut whole = FileSink::new(&m, &limits);
            search_buffer(&mut searcher, &grep, text.as_bytes(), &mut whole).unwrap();
            let mut by_line = Collected(FileSink::new(&m, &limits));
            searcher.search_slice(&grep, text.as_bytes(), &mut by_line).unwrap();
            proptest::prop_assert_eq!(hits_of(whole), hits_of(by_line.0));
        }
    }

    #[test]
    fn a_big_file_read_whole_gives_what_the_searcher_gives() {
        // Lines up to 9 KB and 80 KB long, CRLF and LF, hits everywhere:
        // the same as the searcher, line numbers included.
        let mut text = String::new();
        let mut n = 0usize;
        while text.len() < 320 * 1024 {
            n += 1;
            let filler = "x".repeat((n * 7919) % 9000);
            let eol = if n.is_multiple_of(3) { "\r\n" } else { "\n" };
            text.push_str(&format!("self {filler} Self_ (self){eol}"));
            if n.is_multiple_of(40) {
                text.push_str(&"self ".repeat(16 * 1024));
                text.push('\n');
            }
        }
        for (per_file, whole_word) in [(20, true), (usize::MAX, false)] {
            let m = KeywordMatcher::keywords(&["self".into(), "elf".into()], false, whole_word)
                .unwrap();
            let limits = Limits {
                per_file,
                context: 0,
                max_size: u64::MAX,
            };
            let mut searcher = line_searcher(&limits);
            let grep = line_regex(&m).unwrap();
            let mut whole = FileSink::new(&m, &limits);
            search_buffer(&mut searcher, &grep, text.as_bytes(), &mut whole).unwrap();
            let mut by_line = Collected(FileSink::new(&m, &limits));
            searcher
                .search_slice(&grep, text.as_bytes(), &mut by_line)
                .unwrap();
            assert!(by_line.0.match_count > 10_000, "{}", by_line.0.match_count);
            assert_eq!(hits_of(whole), hits_of(by_line.0));
        }
    }

    #[test]
    fn only_ascii_files_searched_without_context_are_read_whole() {
        let m = KeywordMatcher::keywords(&["self".into()], false, true).unwrap();
        let limits = Limits {
            per_file: 20,
            context: 0,
            max_size: u64::MAX,
        };
        let mut searcher = line_searcher(&limits);
        let grep = line_regex(&m).unwrap();
        // The long s folds to `s`: the searcher finds it, a byte search
        // would not, so a file that is not ASCII goes to the searcher.
        for text in ["x = \u{17F}elf\n", "self\r\nSELF self_\n"] {
            let mut sink = FileSink::new(&m, &limits);
            search_buffer(&mut searcher, &grep, text.as_bytes(), &mut sink).unwrap();
            assert_eq!(
                sink.match_count,
                if text.is_ascii() { 2 } else { 1 },
                "{text:?}"
            );
        }
    }
}
