//! `search_files`, the "scout": which files mention the given keywords (or
//! match a regex), ranked. The walk and the per-file matching are the disk's
//! ([`crate::disk::grep`]); ranking lives here, whole: the score, pruning as
//! files arrive from the walk, and the definition boost, which parses.
//!
//! Results are ranked: the number of distinct keywords a file matches
//! dominates, then frequency normalised for file length, then a boost when a
//! keyword names a definition in that file. Ties are broken by path so the
//! output is deterministic. Every list is bounded and says how to get the
//! rest.
//!
//! Parsing is two orders of magnitude slower than grepping, so the boost is
//! computed after the walk, for a bounded set of candidates only: files where
//! a keyword occurs as a whole word (a definition's name is a whole word),
//! that could still reach the requested top results with the boost, best
//! first, at most [`DEFINITION_CANDIDATES`] of them and about 1 MiB of
//! source in all, parsed in parallel.

use crate::disk::Workspace;
use crate::disk::grep::{
    DEFAULT_SEARCH_MAX_FILE_SIZE, FileHits, GrepQuery, MAX_ERRORS, SearchControl, SearchError,
    SearchMatch, grep,
};
use crate::error::{Error, Result};
use crate::lang::Language;
use crate::ops::engine::{Engine, ParseCache};
use crate::symbols;
use crate::text::matcher::KeywordMatcher;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

pub const DEFAULT_MAX_RESULTS: usize = 100;
pub const DEFAULT_MAX_MATCHES_PER_FILE: usize = 20;
/// Matches shown across all files; keeps the response well under 25k tokens.
pub const DEFAULT_MAX_TOTAL_MATCHES: usize = 300;

/// At most this many files are parsed for the definition boost.
pub const DEFINITION_CANDIDATES: usize = 32;
/// Files larger than this are not parsed for the definition boost.
const DEFINITION_MAX_FILE_SIZE: u64 = 1024 * 1024;
/// At most this many bytes, over all candidates, are parsed for the boost
/// (parsing runs at a few MB/s; this keeps it near the cost of the walk).
const DEFINITION_MAX_BYTES: u64 = 1024 * 1024;
/// The largest boost [`score`] gives for definitions.
const MAX_DEFINITION_BOOST: f64 = 5.5;

/// What to search for and where.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
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

/// A file with matches.
#[derive(Debug, Clone, PartialEq, Serialize)]
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

#[derive(Debug, Clone, PartialEq, Serialize)]
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
type DefinitionsFn<'a> = dyn Fn(&Path, &str) -> Vec<String> + Sync + 'a;

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
    search_cached(ws, engine, None, params, control)
}

/// [`search`] for a one-shot process (the CLI): [`search_remembered`]
/// with a memo of its own.
pub fn search_remembering(
    ws: &Workspace,
    engine: &Engine,
    params: &SearchParams,
) -> Result<SearchResult> {
    // Only the memo is used: no parse of a whole file is kept.
    let cache = ParseCache::new(1, 0);
    search_remembered(ws, engine, &cache, params, SearchControl::default())
}

/// [`search_cached`] with the memo kept on disk as well
/// ([`remembered`]): the first search of a root in this process imports
/// what earlier processes saved there (a CLI call, a server started
/// again), and a search that parsed a file the memo did not have saves it
/// back.
pub fn search_remembered(
    ws: &Workspace,
    engine: &Engine,
    cache: &ParseCache,
    params: &SearchParams,
    control: SearchControl<'_>,
) -> Result<SearchResult> {
    if cache.first_import_for(ws.root()) {
        remembered::load_in_background(ws.root(), cache);
    }
    let computed = cache.definitions_computed();
    let result = search_cached(ws, engine, Some(cache), params, control)?;
    if cache.definitions_computed() != computed {
        remembered::save(ws.root(), cache);
    }
    Ok(result)
}

/// [`search_with`] for a long-lived process: the names each parsed file
/// defines are remembered in `cache` by content, so a later search that
/// meets the same file does not parse it again.
pub fn search_cached(
    ws: &Workspace,
    engine: &Engine,
    cache: Option<&ParseCache>,
    params: &SearchParams,
    control: SearchControl<'_>,
) -> Result<SearchResult> {
    let registry = Arc::clone(&engine.registry);
    // Built once per search, not once per parsed file (a regex compile
    // costs about as much as parsing a small file), and only when a file
    // needs it: with the memo, a repeated search may never (its compile
    // was a twentieth of such a search in a fresh process).
    let lines: std::sync::OnceLock<Result<Option<KeywordLines>>> = std::sync::OnceLock::new();
    let lines = || {
        lines.get_or_init(|| match &params.pattern {
            None => KeywordLines::new(&params.keywords, params.case_sensitive).map(Some),
            Some(_) => Ok(None),
        })
    };
    let definitions = move |path: &Path, text: &str| -> Vec<String> {
        let body = crate::ops::textops::strip_bom(text);
        let found = match registry.detect(path, Some(body)) {
            None => return Vec::new(),
            Some(lang) => defined_names(lang, body, lines, cache.map(|c| (c, path))),
        };
        found.unwrap_or_else(|e| {
            tracing::debug!(path = %path.display(), error = %e, "no definitions");
            Vec::new()
        })
    };
    search_files_with(ws.root(), params, Some(&definitions), control)
}

/// Above this many keyword lines, the tags query runs over the whole file.
const MAX_QUERY_RANGES: usize = 64;

/// Names of the definitions in `body` (the `@name` of every match with a
/// `@definition.*` capture). With `words`, the query runs only over the
/// lines that mention one of them: the ranking only asks whether a keyword
/// is defined, and a definition whose name is a keyword intersects such a
/// line, so this finds the same answer for a fraction of the query cost.
/// With `memo`, every definition of the file is named once and remembered
/// by content (a superset of the above: the caller keeps the keywords).
fn defined_names<'l>(
    lang: &Language,
    body: &str,
    lines: impl FnOnce() -> &'l Result<Option<KeywordLines>>,
    memo: Option<(&ParseCache, &Path)>,
) -> Result<Vec<String>> {
    // A file the memo has needs neither its keyword lines nor a parse.
    let hash = memo.map(|_| crate::source::hash_bytes(body.as_bytes()));
    if let (Some((cache, path)), Some(hash)) = (memo, &hash)
        && let Some(names) = cache.remembered_definitions(path, hash)
    {
        return Ok(names.to_vec());
    }
    let lines = lines().as_ref().map_err(Clone::clone)?.as_ref();
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
    if let (Some((cache, path)), Some(hash)) = (memo, &hash) {
        let names = cache.definitions(path, hash, || {
            names_in(lang, body, std::iter::once(0..body.len()).collect())
        })?;
        return Ok(names.to_vec());
    }
    names_in(lang, body, ranges)
}

/// The `@name` of every tags match with a `@definition.*` capture that
/// lies in one of `ranges`, each name once.
fn names_in(
    lang: &Language,
    body: &str,
    ranges: Vec<std::ops::Range<usize>>,
) -> Result<Vec<String>> {
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

/// Search `params.path` (default: all of `root`), ranked; with `definitions`,
/// files that define a keyword are boosted (tests pass their own).
fn search_files_with(
    root: &Path,
    params: &SearchParams,
    definitions: Option<&DefinitionsFn<'_>>,
    control: SearchControl<'_>,
) -> Result<SearchResult> {
    let matcher = build_matcher(params)?;
    let max_results = params.max_results.unwrap_or(DEFAULT_MAX_RESULTS).max(1);
    let query = GrepQuery {
        matcher: &matcher,
        path: params.path.as_deref(),
        include: &params.include,
        exclude: &params.exclude,
        hidden: params.hidden,
        context: params.context_lines.unwrap_or(0),
        per_file: params
            .max_matches_per_file
            .unwrap_or(DEFAULT_MAX_MATCHES_PER_FILE),
        max_size: params.max_file_size.unwrap_or(DEFAULT_SEARCH_MAX_FILE_SIZE),
    };
    let boost = definitions.is_some();
    // Ranked as the files come: memory stays bounded by the results asked
    // for, however many files match.
    let best: Mutex<Vec<Scored>> = Mutex::new(Vec::new());
    let walked = grep(root, &query, control, &|hits: FileHits| {
        let mut best = best.lock().unwrap_or_else(|p| p.into_inner());
        best.push(Scored::new(hits));
        if best.len() >= 2 * (max_results + DEFINITION_CANDIDATES) + 64 {
            prune(&mut best, max_results, boost);
        }
    })?;

    let mut scored = best.into_inner().unwrap_or_else(|p| p.into_inner());
    rank(&mut scored);
    let definitions_checked = match definitions {
        Some(defs) => boost_definitions(&mut scored, max_results, defs, matcher.case_sensitive()),
        None => 0,
    };
    let mut files: Vec<FileMatches> = scored.into_iter().map(|s| s.file).collect();
    let files_matched = walked.matched;
    let more_files = files_matched > max_results;
    files.truncate(max_results);
    let some_cut = cut_listing(&mut files, params.max_total_matches);
    let cancelled = walked.cancelled;
    let hint = hint(
        cancelled,
        walked.searched,
        more_files,
        some_cut,
        files.len(),
        files_matched,
    );
    let mut errors = walked.errors;
    let error_count = errors.len();
    errors.truncate(MAX_ERRORS);
    Ok(SearchResult {
        truncated: more_files || some_cut || cancelled,
        cancelled,
        hint,
        files,
        total_matches: walked.total,
        files_matched,
        files_searched: walked.searched,
        binary_files_skipped: walked.binary,
        definitions_checked,
        errors,
        error_count,
    })
}

/// Cut the listed lines to `max_total` over all files (best files keep
/// theirs first); whether any file's listing is now incomplete.
fn cut_listing(files: &mut [FileMatches], max_total: Option<usize>) -> bool {
    let max_total = max_total.unwrap_or(DEFAULT_MAX_TOTAL_MATCHES);
    let mut shown = 0;
    for f in files.iter_mut() {
        let room = max_total.saturating_sub(shown);
        if f.matches.len() > room {
            f.matches.truncate(room);
            f.matches_truncated = true;
        }
        shown += f.matches.len();
    }
    files.iter().any(|f| f.matches_truncated)
}

/// How to get what an answer left out.
fn hint(
    cancelled: bool,
    searched: usize,
    more_files: bool,
    some_cut: bool,
    shown: usize,
    files_matched: usize,
) -> Option<String> {
    match (more_files, some_cut) {
        _ if cancelled => Some(format!(
            "cancelled after {}: results are partial",
            crate::text::count(searched, "file")
        )),
        (false, false) => None,
        (true, _) => Some(format!(
            "{shown} of {files_matched} matching files shown; narrow with ⟦path⟧ or ⟦include⟧, add keywords, or raise ⟦max_results⟧"
        )),
        // Only what both interfaces offer: the per-file and total caps of
        // listed lines are library and CLI settings, not MCP fields.
        (false, true) => Some(
            "some matching lines are not listed; read them with ⟦read_fragment⟧ on a file with the same keywords, or narrow with ⟦path⟧ or ⟦include⟧".to_string(),
        ),
    }
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

impl Scored {
    fn new(hits: FileHits) -> Scored {
        Scored {
            file: FileMatches {
                score: score(hits.keywords_matched.len(), hits.match_count, hits.size, 0),
                path: hits.path,
                file_size: hits.size,
                match_count: hits.match_count,
                keywords_matched: hits.keywords_matched,
                defines: Vec::new(),
                matches: hits.matches,
                matches_truncated: hits.matches_truncated,
            },
            abs: hits.abs,
            idents: hits.idents,
        }
    }
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
    defs: &DefinitionsFn<'_>,
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
fn defined_here(s: &Scored, defs: &DefinitionsFn<'_>, case_sensitive: bool) -> Vec<String> {
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

pub mod remembered;
#[cfg(test)]
mod tests;
