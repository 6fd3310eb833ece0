//! `find_references`: every syntactic reference to a symbol (or a bare
//! name) across the root, tiered by how sure the tie to the definition is.
//!
//! 1. Candidates: a whole-word, case-sensitive text search for the name
//!    (`disk::grep`, the same gitignore-aware walk as `search_files`).
//! 2. Confirmation: each candidate file with a grammar is parsed and every
//!    occurrence classified by the language's queries
//!    ([`crate::symbols::occurrences`]): uses in code count, strings,
//!    comments, locals and keyword-argument names do not.
//! 3. Binding ([`bind`], the syntax backend): *proven* when the
//!    language's scope rules bind the use to this definition (or its
//!    family), left alone when they bind it elsewhere, and otherwise
//!    undecided: *probable* when only the target's family defines the name,
//!    *name only* when other definitions of it exist.
//!
//! Bounded: the candidate files and the listed references are capped, with
//! per-file counts of everything found and a hint when cut.

pub(crate) mod bind;
pub(crate) mod named;
mod remaining;
pub(crate) mod verify;

pub use remaining::remaining_references;

use crate::disk::grep::{GrepQuery, SearchControl, SearchError, matching_files};
use crate::disk::{Purpose, Workspace};
use crate::error::{Error, ErrorCode, Result};
use crate::hint::{Term, term};
use crate::lang::Registry;
use crate::symbols::occurrences::{LineStarts, Occurrence, Role, occurrences};
use crate::symbols::{self, ParsedFile, Symbol};
use crate::text::preview::{PREVIEW_WIDTH, preview};
use bind::{Binder, Verdict};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::path::Path;
use std::sync::Arc;

/// References listed by default.
pub const DEFAULT_MAX_RESULTS: usize = 200;
/// Files with a whole-word match that are parsed at most.
pub const MAX_CANDIDATE_FILES: usize = 5_000;
/// Occurrences left alone that are listed at least (else `max_results`).
const MAX_LEFT_ALONE: usize = 50;
/// The backend that decides which uses bind to a definition.
pub const BACKEND: &str = "syntax";
/// Kinds reached through their owner, never by a bare name.
pub(crate) const MEMBER_KINDS: &[&str] =
    &["method", "constructor", "field", "property", "enum_member"];
/// File stems that stand for their folder as a module.
const PACKAGE_STEMS: &[&str] = &["__init__", "index", "mod", "lib", "main"];

/// What to look for.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct RefsRequest {
    /// With `symbol`: the file defining it. With `name`: a folder or file to
    /// search (default: the root).
    pub path: Option<String>,
    /// The definition, by name path in `path`.
    pub symbol: Option<String>,
    /// A bare name instead of a symbol (no tie to one definition).
    pub name: Option<String>,
    pub kind: Option<String>,
    pub include: Vec<String>,
    pub exclude: Vec<String>,
    pub max_results: Option<usize>,
    /// Most candidate files parsed (default [`MAX_CANDIDATE_FILES`]).
    #[serde(skip)]
    pub max_files: Option<usize>,
}

/// How surely a reference is tied to the definition.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Tier {
    /// The definition itself (or one of its family, renamed with it).
    Definition,
    /// The language's scope rules bind it to this definition: renamed.
    Proven,
    /// Undecided (a receiver of unknown type, ...), and only this
    /// definition's family defines the name among the files searched.
    Probable,
    /// Undecided, and other definitions of the name exist.
    NameOnly,
}

impl Tier {
    pub fn as_str(self) -> &'static str {
        match self {
            Tier::Definition => "definition",
            Tier::Proven => "proven",
            Tier::Probable => "probable",
            Tier::NameOnly => "name_only",
        }
    }
}

/// One reference.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Reference {
    pub path: String,
    pub line: usize,
    /// 1-based, in characters.
    pub column: usize,
    pub tier: Tier,
    /// Why a `probable` or `name_only` reference is undecided.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
    /// `definition`, `reference`, `member` or `import`.
    pub role: String,
    /// Name path of the innermost symbol around it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enclosing: Option<String>,
    pub preview: String,
}

/// An occurrence of the name that is not a reference, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LeftAlone {
    pub path: String,
    pub line: usize,
    pub column: usize,
    pub why: String,
    pub preview: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FileCount {
    pub path: String,
    pub count: usize,
}

/// References per tier.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct TierCounts {
    pub proven: usize,
    pub probable: usize,
    pub name_only: usize,
}

/// The result of `find_references`.
#[derive(Debug, Clone, Serialize)]
pub struct References {
    /// What decided the tiers: `syntax` (the language's scope rules) or a
    /// language server (`lsp:pyright 1.1.389`).
    pub backend: String,
    pub name: String,
    /// The definition's name path and kind (absent for a bare name).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub symbol: Option<String>,
    /// Best first: definition, proven, probable, name only.
    pub references: Vec<Reference>,
    /// References found (listed or not), definition included.
    pub total: usize,
    /// How many references of each tier were found.
    pub tiers: TierCounts,
    /// References per file, most first.
    pub files: Vec<FileCount>,
    /// Whole-word occurrences that are not references (strings, comments,
    /// locals, other definitions, members of other types), at most
    /// `max(max_results, 50)` listed.
    pub left_alone: Vec<LeftAlone>,
    pub left_alone_count: usize,
    pub files_searched: usize,
    pub truncated: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<SearchError>,
    /// Why the language server did not answer (the syntax backend did).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// The definition the references are tied to.
pub(crate) struct Target {
    /// Root-relative path of the defining file.
    pub display: String,
    pub file: Arc<ParsedFile>,
    pub index: usize,
}

impl Target {
    pub fn symbol(&self) -> &Symbol {
        &self.file.symbols[self.index]
    }
}

/// One occurrence with what it means for the target.
pub(crate) struct Found {
    pub occ: Occurrence,
    pub verdict: Verdict,
}

/// The files that mention the name, parsed and classified.
pub(crate) struct Collected {
    pub name: String,
    pub target: Option<Target>,
    /// Root-relative path, parse, occurrences (in file order).
    pub files: Vec<(String, Arc<ParsedFile>, Vec<Found>)>,
    pub files_searched: usize,
    pub candidates_cut: usize,
    pub errors: Vec<SearchError>,
    /// Why the target cannot be renamed at all (an external trait's method).
    pub refusal: Option<Error>,
}

/// A candidate file, parsed, with its occurrences of the name.
type Scanned = (Arc<ParsedFile>, Vec<Occurrence>);

/// Find and classify every occurrence (see the module doc). `load` parses
/// a resolved file (the MCP server passes its cache).
pub(crate) fn collect(
    ws: &Workspace,
    registry: &Registry,
    req: &RefsRequest,
    load: &(dyn Fn(&Path) -> Result<Arc<ParsedFile>> + Sync),
) -> Result<Collected> {
    let (name, target, scope) = match (&req.symbol, &req.name) {
        (Some(sym), None) => {
            let path = req.path.as_deref().ok_or_else(|| {
                Error::invalid_argument("a symbol needs the path of the file defining it")
                    .with_suggestion(format!("pass {} with the file", term(Term::Path)))
            })?;
            let resolved = ws.resolve(Path::new(path), Purpose::Read)?;
            let file = load(&resolved.path)?;
            let found = symbols::resolve(&file.symbols, sym, req.kind.as_deref())
                .map_err(|e| e.with_path(&resolved.display))?;
            let index = file
                .symbols
                .iter()
                .position(|s| std::ptr::eq(s, found))
                .unwrap_or(0);
            let name = found.name.clone();
            (
                name,
                Some(Target {
                    display: resolved.display,
                    file,
                    index,
                }),
                None,
            )
        }
        (None, Some(name)) => (name.trim().to_string(), None, req.path.clone()),
        _ => {
            return Err(Error::invalid_argument("give either a symbol or a name")
                .with_suggestion("pass a symbol (with the path of its file) or a bare name"));
        }
    };
    scan(ws, registry, name, target, scope, req, &[], load)
}

/// [`collect`] for a name and target already known: the files that mention
/// `name` (in `scope`), with `also` among them (the planned files a
/// rename's verification binds again), parsed by `load`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn scan(
    ws: &Workspace,
    registry: &Registry,
    name: String,
    target: Option<Target>,
    scope: Option<String>,
    req: &RefsRequest,
    also: &[String],
    load: &(dyn Fn(&Path) -> Result<Arc<ParsedFile>> + Sync),
) -> Result<Collected> {
    if name.is_empty() || name.chars().any(char::is_whitespace) {
        return Err(Error::invalid_argument(format!(
            "`{name}` is not a single identifier"
        ))
        .with_suggestion("references are found for one identifier: a function, method, class, field or variable")
        .with_details(serde_json::json!({"name": name})));
    }
    let cancel = crate::symbols::Cancel::current();
    let max_files = req.max_files.unwrap_or(MAX_CANDIDATE_FILES);
    let (mut paths, walked) = files_with(
        ws,
        &name,
        true,
        scope.as_deref(),
        (&req.include, &req.exclude),
        max_files,
        "finding references",
    )?;
    let candidates_cut = walked.matched.saturating_sub(paths.len());
    let mut extra: Vec<&String> = also.iter().collect();
    extra.extend(target.as_ref().map(|t| &t.display));
    for p in extra {
        if !paths.contains(p) {
            paths.push(p.clone());
        }
    }
    paths.sort();
    let mut errors = walked.errors;
    errors.truncate(crate::disk::grep::MAX_ERRORS);
    let parsed: Vec<(String, Result<Option<Scanned>>)> = paths
        .into_par_iter()
        .map(|p| {
            let r = cancel.run(|| {
                let resolved = ws.resolve(Path::new(&p), Purpose::Read)?;
                if registry.detect(&resolved.path, None).is_none() {
                    return Ok(None);
                }
                let file = match &target {
                    Some(t) if t.display == resolved.display => t.file.clone(),
                    _ => load(&resolved.path)?,
                };
                let occ = occurrences(&file, &name)?;
                Ok(Some((file, occ)))
            });
            (
                p,
                r.unwrap_or_else(|| Err(cancel.error("finding references"))),
            )
        })
        .collect();
    if cancel.is_set() {
        return Err(cancel.error("finding references"));
    }
    let mut scanned: Vec<(String, Arc<ParsedFile>)> = Vec::new();
    let mut occs: Vec<Vec<Occurrence>> = Vec::new();
    for (p, r) in parsed {
        match r {
            Ok(Some((file, occ))) => {
                scanned.push((p, file));
                occs.push(occ);
            }
            Ok(None) => {}
            Err(e) if e.code() == ErrorCode::UnsupportedLanguage => {}
            // The target's own file cannot be read (its language's
            // references query does not compile): nothing can be decided.
            Err(e) if target.as_ref().is_some_and(|t| t.display == p) => return Err(e),
            Err(e) => errors.push(SearchError {
                path: p,
                message: e.message,
            }),
        }
    }
    let binder = Binder::new(&name, ws.root(), &scanned, target.as_ref());
    let verdicts: Vec<Vec<Verdict>> = occs
        .iter()
        .enumerate()
        .map(|(fi, occ)| occ.iter().map(|o| binder.judge(fi, o)).collect())
        .collect();
    let refusal = binder.refusal.clone();
    drop(binder);
    let files = scanned
        .into_iter()
        .zip(occs.into_iter().zip(verdicts))
        .map(|((p, file), (occ, verdicts))| {
            let found = occ
                .into_iter()
                .zip(verdicts)
                .map(|(occ, verdict)| Found { occ, verdict })
                .collect();
            (p, file, found)
        })
        .collect();
    Ok(Collected {
        name,
        target,
        files,
        files_searched: walked.searched,
        candidates_cut,
        errors,
        refusal,
    })
}

/// The files under `path` (the root when `None`) holding `text` (a whole
/// word when `whole_word`), filtered by `(include, exclude)` globs, at most
/// `max` of them (see [`matching_files`]). The request's cancellation stops
/// the walk too, not only the parses after it; `doing` names the work in
/// its error.
pub(crate) fn files_with(
    ws: &Workspace,
    text: &str,
    whole_word: bool,
    path: Option<&str>,
    (include, exclude): (&[String], &[String]),
    max: usize,
    doing: &str,
) -> Result<(Vec<String>, crate::disk::grep::Walked)> {
    let words = [text.to_string()];
    let matcher = crate::text::KeywordMatcher::keywords(&words, true, whole_word)?;
    let query = GrepQuery {
        matcher: &matcher,
        path,
        include,
        exclude,
        hidden: false,
        context: 0,
        per_file: 1,
        max_size: ws.max_file_size(),
    };
    let cancel = crate::symbols::Cancel::current();
    let control = SearchControl {
        cancel: cancel.flag(),
        progress: None,
    };
    let found = matching_files(ws.root(), &query, max, control)?;
    if cancel.is_set() {
        return Err(cancel.error(doing));
    }
    Ok(found)
}

/// The module a file stands for: its stem, or its folder's name for
/// `__init__.py`, `index.js`, `mod.rs`, ...
pub(crate) fn module_of(display: &str) -> &str {
    let mut parts = display.rsplit('/');
    let file = parts.next().unwrap_or(display);
    let stem = file.split('.').next().unwrap_or(file);
    if PACKAGE_STEMS.contains(&stem) {
        parts.next().unwrap_or(stem)
    } else {
        stem
    }
}

/// Does `file` import the name from the target's module (an import statement
/// binding the name whose text names the module as a word)?
pub(crate) fn imports_module(file: &ParsedFile, o: &Occurrence, t: &Target) -> bool {
    let module = module_of(&t.display);
    let name = &t.symbol().name;
    let body = file.source.body();
    let Ok(imports) = file.imports() else {
        return false;
    };
    let offset = file.source.body_offset();
    imports.iter().any(|s| {
        let binds = s.names.contains(name)
            || (o.in_import && s.start_byte <= o.byte - offset && o.byte - offset < s.end_byte);
        binds
            && !symbols::occurrences::word_offsets(&body[s.start_byte..s.end_byte], module)
                .is_empty()
    })
}

/// `find_references`: see the module doc.
pub fn find_references(
    ws: &Workspace,
    registry: &Registry,
    req: &RefsRequest,
    load: &(dyn Fn(&Path) -> Result<Arc<ParsedFile>> + Sync),
) -> Result<References> {
    let c = collect(ws, registry, req, load)?;
    let max = req.max_results.unwrap_or(DEFAULT_MAX_RESULTS).max(1);
    let mut refs = Vec::new();
    let mut left = Vec::new();
    let mut files = Vec::new();
    for (path, file, found) in &c.files {
        let show = previewer(file, c.name.len());
        let mut count = 0;
        for f in found {
            match &f.verdict {
                Verdict::Ref(tier, why) => {
                    count += 1;
                    refs.push(Reference {
                        path: path.clone(),
                        line: f.occ.line,
                        column: f.occ.column,
                        tier: *tier,
                        why: why.clone(),
                        role: role_name(&f.occ).into(),
                        enclosing: enclosing(file, f.occ.byte),
                        preview: show(&f.occ),
                    });
                }
                Verdict::Alone(why) => left.push(LeftAlone {
                    path: path.clone(),
                    line: f.occ.line,
                    column: f.occ.column,
                    why: why.clone(),
                    preview: show(&f.occ),
                }),
            }
        }
        if count > 0 {
            files.push(FileCount {
                path: path.clone(),
                count,
            });
        }
    }
    let def_path = c.target.as_ref().map(|t| t.display.clone());
    refs.sort_by(|a, b| {
        (
            a.tier,
            Some(&a.path) != def_path.as_ref(),
            &a.path,
            a.line,
            a.column,
        )
            .cmp(&(
                b.tier,
                Some(&b.path) != def_path.as_ref(),
                &b.path,
                b.line,
                b.column,
            ))
    });
    files.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.path.cmp(&b.path)));
    let count = |t: Tier| refs.iter().filter(|r| r.tier == t).count();
    let (proven, probable, name_only) = (
        count(Tier::Proven),
        count(Tier::Probable),
        count(Tier::NameOnly),
    );
    let total = refs.len();
    let left_alone_count = left.len();
    left.truncate(max.max(MAX_LEFT_ALONE));
    let mut hints = Vec::new();
    if total > max {
        refs.truncate(max);
        hints.push(format!(
            "{} of {total} references listed (best first); raise {} or narrow with {} or {}",
            max,
            term(Term::MaxResults),
            term(Term::Include),
            term(Term::Exclude)
        ));
    }
    if c.candidates_cut > 0 {
        hints.push(format!(
            "{} more files mention the name and were not parsed; narrow with {} or {}",
            c.candidates_cut,
            term(Term::Include),
            term(Term::Path)
        ));
    }
    let symbol = c.target.as_ref().map(|t| t.symbol());
    Ok(References {
        backend: BACKEND.to_string(),
        name: c.name.clone(),
        symbol: symbol.map(|s| format!("{} ({})", s.name_path, s.kind)),
        references: refs,
        total,
        tiers: TierCounts {
            proven,
            probable,
            name_only,
        },
        files,
        left_alone: left,
        left_alone_count,
        files_searched: c.files_searched,
        truncated: !hints.is_empty(),
        hint: (!hints.is_empty()).then(|| hints.join("; ")),
        errors: c.errors,
        warnings: Vec::new(),
    })
}

/// The preview of an occurrence's line, the name marked (a name of
/// `len` bytes).
pub(crate) fn previewer(file: &ParsedFile, len: usize) -> impl Fn(&Occurrence) -> String + '_ {
    let body = file.source.body();
    let offset = file.source.body_offset();
    let lines = LineStarts::new(body);
    move |o: &Occurrence| {
        let (line, at) = lines.line_of(body, o.byte - offset);
        preview(line, at, at + len, PREVIEW_WIDTH)
    }
}

fn role_name(o: &Occurrence) -> &'static str {
    match (&o.role, o.in_import) {
        (Role::Definition(_), _) => "definition",
        (_, true) => "import",
        (Role::Member(..), _) => "member",
        _ => "reference",
    }
}

/// Name path of the innermost symbol whose range holds file offset `byte`.
fn enclosing(file: &ParsedFile, byte: usize) -> Option<String> {
    file.symbols
        .iter()
        .filter(|s| {
            let sp = s.full_span();
            sp.start_byte <= byte && byte < sp.end_byte
        })
        .min_by_key(|s| s.full_span().end_byte - s.full_span().start_byte)
        .map(|s| s.name_path.clone())
}
