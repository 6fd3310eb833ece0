//! The symbol engine: parse a source text with its grammar, run the
//! language's `tags.scm`, and build the outline of definitions with their
//! name paths, ranges and signatures. Pure: it never touches the disk.
//!
//! **Invariant:** a symbol's full range covers exactly the bytes that
//! `extract` returns and `update` replaces; the range is widened only by the
//! data in `grammars/<lang>.toml` (wrappers and leading siblings).

pub mod bases;
pub mod declared;
mod deps;
mod namepath;
pub mod occurrences;
pub mod offside;
pub mod scoped;

pub use deps::{Dependencies, DependencySymbol, ImportRef, ImportStmt, dependencies};
pub use namepath::{NamePathQuery, resolve, resolve_declarations};

use crate::error::{Error, ErrorCode, Result};
use crate::lang::Language;
use crate::lang::query::TagRole;
use crate::source::SourceText;
use rustc_hash::{FxHashMap, FxHashSet};
use serde::Serialize;
use std::cell::RefCell;
use std::collections::HashMap;
use std::ops::ControlFlow;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use tree_sitter::{Node, Parser, QueryCursor, StreamingIterator, Tree};

/// How many parse-error locations are reported (the count is always exact).
const MAX_ERROR_LOCATIONS: usize = 10;
/// Signatures are one line, capped at this many characters.
const MAX_SIGNATURE: usize = 160;

/// A byte and line range: bytes are file offsets (BOM included), lines are
/// 1-based and inclusive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Span {
    pub start_byte: usize,
    pub end_byte: usize,
    pub start_line: usize,
    pub end_line: usize,
}

/// One definition in a file.
#[derive(Debug, Clone, Serialize)]
pub struct Symbol {
    pub name: String,
    /// Path from the top level, joined with the language's separator.
    pub name_path: String,
    /// LSP-style kind: function, method, class, struct, ...
    pub kind: &'static str,
    pub start_line: usize,
    pub end_line: usize,
    pub start_byte: usize,
    pub end_byte: usize,
    /// Line of the symbol's name.
    pub name_line: usize,
    /// Name path of the enclosing symbol or scope.
    pub parent: Option<String>,
    /// The definition's header on one line.
    pub signature: String,
    /// The enclosing non-symbol scope, e.g. `impl Display for Point`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
    /// An address that selects this symbol unambiguously, when `name_path`
    /// alone does not (`/new`, `impl fmt::Debug for Error::fmt`, `parse#2`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub address: Option<String>,
    #[serde(skip)]
    pub(crate) segments: Vec<String>,
    /// A second way to address a member: through its owner symbol when the
    /// owner is also a scope (`impl Display for Point::fmt`), with the
    /// display form of that path. Matched only as a whole, never as a suffix.
    #[serde(skip)]
    pub(crate) alias: Option<(Vec<String>, String)>,
    /// The name is a phrase built from several `@name` captures (`impl
    /// From<Error> for io::Error`): the path matches only as a whole, so the
    /// `Error` inside it is not a suffix that names this symbol.
    #[serde(skip)]
    pub(crate) phrase: bool,
    /// For a definition that is also a scope (a Rust `impl`): the name path
    /// its members hang from (`Point` for `impl<T> Display for Point<T>`),
    /// so an outline of the type can list the block.
    #[serde(skip)]
    pub(crate) scope_of: Option<Vec<String>>,
    #[serde(skip)]
    pub(crate) full: Span,
    #[serde(skip)]
    pub(crate) bare: Span,
    /// File offset of the name's first byte.
    #[serde(skip)]
    pub(crate) name_byte: usize,
    /// Index of the parent symbol in the outline (scopes are not symbols).
    #[serde(skip)]
    pub(crate) parent_index: Option<usize>,
    #[serde(skip)]
    pub(crate) depth: usize,
}

impl Symbol {
    /// The range with leading decorators/attributes/doc comments and wrappers.
    pub fn full_span(&self) -> Span {
        self.full
    }

    /// The bare definition node.
    pub fn bare_span(&self) -> Span {
        self.bare
    }

    pub fn segments(&self) -> &[String] {
        &self.segments
    }

    /// How many symbols enclose this one (0 at the top level), for outlines.
    pub fn depth(&self) -> usize {
        self.depth
    }

    /// The address to use for this symbol: `address` if set, else the name path.
    pub fn address(&self) -> &str {
        self.address.as_deref().unwrap_or(&self.name_path)
    }

    /// A copy whose public range fields show `span`.
    pub fn with_span(&self, span: Span) -> Symbol {
        let mut s = self.clone();
        s.set_span(span);
        s
    }

    /// Present `span` in place (no copy of the names and paths).
    fn set_span(&mut self, span: Span) {
        self.start_byte = span.start_byte;
        self.end_byte = span.end_byte;
        self.start_line = span.start_line;
        self.end_line = span.end_line;
    }

    /// A copy presenting the full range (`trivia = true`) or the bare node.
    pub fn presented(&self, trivia: bool) -> Symbol {
        self.with_span(if trivia { self.full } else { self.bare })
    }

    /// Whether this symbol is a block whose members belong to `owner` (a
    /// Rust `impl T` or `impl X for T` when `owner` is `T`).
    pub(crate) fn extends(&self, owner: &Symbol) -> bool {
        self.scope_of.as_deref() == Some(owner.segments.as_slice())
    }

    pub(crate) fn contains(&self, other: &Symbol) -> bool {
        self.bare.start_byte <= other.bare.start_byte
            && other.bare.end_byte <= self.bare.end_byte
            && self.bare != other.bare
    }
}

/// Where the parser had to recover.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ParseErrorLoc {
    pub line: usize,
    /// 1-based column, in bytes.
    pub column: usize,
    pub end_line: usize,
    /// `ERROR` (unexpected text) or `MISSING <token>`.
    pub what: String,
}

/// A parsed file: the tree, its symbols in document order and its errors.
pub struct ParsedFile {
    pub language: Arc<Language>,
    pub source: Arc<SourceText>,
    pub tree: Tree,
    pub symbols: Vec<Symbol>,
    pub parse_error_count: usize,
    pub parse_errors: Vec<ParseErrorLoc>,
    /// The file's import statements, computed on first use.
    imports: std::sync::OnceLock<Vec<ImportStmt>>,
    /// Symbol indices by name, computed on first use (dependencies).
    by_name: std::sync::OnceLock<HashMap<String, Vec<usize>>>,
    /// The indentation edits re-indent to, computed on first use by the
    /// edit layer (`edit::indent::style_of`): it reads the whole file's
    /// line roles, and every edit of one parse needs it.
    indentation: std::sync::OnceLock<crate::source::Indent>,
    /// How many problems [`syntax_errors`] finds in the whole file, counted
    /// on first use: every edit of this parse reports them as the errors
    /// that were there before, and counting walks every node (a rename's
    /// dry run and its apply, each file's edits, share one count).
    problems: std::sync::OnceLock<usize>,
    /// The budget the parse had: each later query over the tree
    /// (dependencies, imports, occurrences) gets as much, from its start.
    walk_limit: Duration,
}

impl std::fmt::Debug for ParsedFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ParsedFile")
            .field("language", &self.language.name())
            .field("symbols", &self.symbols.len())
            .field("parse_errors", &self.parse_error_count)
            .finish()
    }
}

impl ParsedFile {
    /// The deadline of a query over this file's tree starting now (a
    /// cached file's later queries each get the budget its parse had).
    pub(crate) fn walk_deadline(&self) -> Deadline {
        Deadline::after(self.walk_limit)
    }

    /// The file's indentation as `read` finds it, read once per parse.
    pub fn indentation(
        &self,
        read: impl FnOnce(&Self) -> crate::source::Indent,
    ) -> crate::source::Indent {
        *self.indentation.get_or_init(|| read(self))
    }

    /// Every import statement of the file (the imports query runs once per
    /// parsed file, however many symbols are extracted from it).
    pub fn imports(&self) -> Result<&[ImportStmt]> {
        if let Some(v) = self.imports.get() {
            return Ok(v);
        }
        let v = deps::collect_imports(self)?;
        Ok(self.imports.get_or_init(|| v))
    }

    /// Indices into `symbols` of the symbols called `name`, in document
    /// order (the index is built once per parsed file).
    pub fn symbols_named(&self, name: &str) -> &[usize] {
        let index = self.by_name.get_or_init(|| {
            let mut m: HashMap<String, Vec<usize>> = HashMap::new();
            for (i, s) in self.symbols.iter().enumerate() {
                m.entry(s.name.clone()).or_default().push(i);
            }
            m
        });
        index.get(name).map_or(&[], Vec::as_slice)
    }

    /// How many problems (parse errors and the language's rules) the whole
    /// file has: [`syntax_errors`], counted once per parse.
    pub fn problem_count(&self) -> usize {
        *self
            .problems
            .get_or_init(|| syntax_errors(&self.language, &self.tree, self.source.body()).len())
    }

    /// The file's bytes over `span`.
    pub fn text(&self, span: Span) -> &str {
        &self.source.text[span.start_byte..span.end_byte]
    }
}

thread_local! {
    static PARSER: RefCell<Parser> = RefCell::new(Parser::new());
}

/// How long a parse (and the outline query over its tree) may take: `base`
/// plus `per_mib` for each MiB of text. tree-sitter parses several MB a
/// second, so the default (5 s + 2 s per MiB) leaves any real file a wide
/// margin and stops a pathological one instead of letting it run for
/// minutes (issue 14).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParseBudget {
    pub base: Duration,
    pub per_mib: Duration,
}

impl Default for ParseBudget {
    fn default() -> Self {
        ParseBudget {
            base: Duration::from_secs(5),
            per_mib: Duration::from_secs(2),
        }
    }
}

impl ParseBudget {
    /// A fixed budget, whatever the size (`--parse-timeout`).
    pub fn fixed(limit: Duration) -> ParseBudget {
        ParseBudget {
            base: limit,
            per_mib: Duration::ZERO,
        }
    }

    /// The time allowed for `len` bytes of text.
    pub fn for_len(&self, len: usize) -> Duration {
        let mib = len as f64 / (1024.0 * 1024.0);
        self.base + self.per_mib.mul_f64(mib)
    }

    /// When a parse of `len` bytes starting now must end.
    pub fn deadline(&self, len: usize) -> Deadline {
        Deadline::after(self.for_len(len))
    }
}

/// When a parse or a query must stop, and the budget it came from (for the
/// error). The budget is **CPU time of the thread** that runs the work, so a
/// loaded machine (other processes on the cores) does not turn a valid file
/// into `TIMEOUT`; a thread's CPU time never runs ahead of the wall clock,
/// so it is asked for only once the budget has passed on the wall clock,
/// and [`WALL_FACTOR`] times the budget on the wall clock ends the work in
/// any case (a thread that does not get the CPU at all).
#[derive(Debug, Clone, Copy)]
pub struct Deadline {
    started: Instant,
    /// The thread's CPU time when the work started (none where the clock is
    /// not available: then the wall clock alone counts).
    cpu_started: Option<Duration>,
    limit: Duration,
}

/// How many budgets of wall-clock time a piece of work may take at most,
/// however little CPU it got.
pub const WALL_FACTOR: u32 = 4;

/// The CPU time this thread has used.
fn thread_cpu() -> Option<Duration> {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    Some(Duration::new(
        u64::try_from(t.tv_sec).ok()?,
        u32::try_from(t.tv_nsec).ok()?,
    ))
}

thread_local! {
    /// The cancellation flag of the request this thread works for (an MCP
    /// call's `notifications/cancelled`), checked with every deadline.
    static CANCEL: RefCell<Option<Arc<AtomicBool>>> = const { RefCell::new(None) };
}

/// Run `f` with `flag` as this thread's cancellation: once it is set, every
/// parse and tags query `f` runs stops as if its deadline had passed, and
/// fails with `TIMEOUT` saying it was cancelled.
pub fn with_cancel<R>(flag: Arc<AtomicBool>, f: impl FnOnce() -> R) -> R {
    struct Reset(Option<Arc<AtomicBool>>);
    impl Drop for Reset {
        fn drop(&mut self) {
            let old = self.0.take();
            CANCEL.with(|c| *c.borrow_mut() = old);
        }
    }
    let _reset = Reset(CANCEL.with(|c| c.borrow_mut().replace(flag)));
    f()
}

fn cancelled() -> bool {
    CANCEL.with(|c| {
        c.borrow()
            .as_ref()
            .is_some_and(|f| f.load(Ordering::Relaxed))
    })
}

/// The cancellation of the request this thread works for, as a value to
/// carry into other threads: rayon's workers do not share the calling
/// thread's flag, so a parallel loop takes [`Cancel::current`] before it
/// starts and runs each item under [`Cancel::run`].
#[derive(Debug, Clone, Default)]
pub struct Cancel(Option<Arc<AtomicBool>>);

impl Cancel {
    /// This thread's cancellation (none outside [`with_cancel`]).
    pub fn current() -> Cancel {
        Cancel(CANCEL.with(|c| c.borrow().clone()))
    }

    /// The flag itself, for a loop that polls it (a search's walk).
    pub fn flag(&self) -> Option<&AtomicBool> {
        self.0.as_deref()
    }

    /// Whether the request was cancelled.
    pub fn is_set(&self) -> bool {
        self.0.as_ref().is_some_and(|f| f.load(Ordering::Relaxed))
    }

    /// The error of a request cancelled during `what` (`TIMEOUT`, as a
    /// cancelled parse is).
    pub fn error(&self, what: &str) -> Error {
        Error::new(
            ErrorCode::Timeout,
            format!("{what} was cancelled by the client"),
        )
        .with_suggestion("nothing was changed; send the request again if it is still needed")
        .with_details(serde_json::json!({"stage": what, "cancelled": true}))
    }

    /// Run `f` on this thread under this cancellation; `None` without
    /// running it when the request is already cancelled.
    pub fn run<R>(&self, f: impl FnOnce() -> R) -> Option<R> {
        if self.is_set() {
            return None;
        }
        Some(match &self.0 {
            Some(flag) => with_cancel(flag.clone(), f),
            None => f(),
        })
    }
}

impl Deadline {
    /// A budget of `limit` for work that starts now on this thread.
    pub fn after(limit: Duration) -> Deadline {
        Deadline {
            started: Instant::now(),
            cpu_started: thread_cpu(),
            limit,
        }
    }

    fn passed(&self) -> bool {
        if cancelled() {
            return true;
        }
        let wall = self.started.elapsed();
        if wall < self.limit {
            return false;
        }
        match (self.cpu_started, thread_cpu()) {
            (Some(from), Some(now)) if wall < self.limit * WALL_FACTOR => {
                now.saturating_sub(from) >= self.limit
            }
            _ => true,
        }
    }

    fn error(&self, lang: &Language, len: usize, stage: &str) -> Error {
        if cancelled() {
            return Error::new(
                ErrorCode::Timeout,
                format!(
                    "{stage} of this {} file was cancelled by the client",
                    lang.name()
                ),
            )
            .with_suggestion("nothing was changed; send the request again if it is still needed")
            .with_details(serde_json::json!({
                "stage": stage,
                "cancelled": true,
                "bytes": len,
                "language": lang.name(),
            }));
        }
        Error::new(
            ErrorCode::Timeout,
            format!(
                "{} of this {} file took longer than its budget of {:.1} s of CPU time",
                stage,
                lang.name(),
                self.limit.as_secs_f64()
            ),
        )
        .with_suggestion(
            "the file is too large or pathological to parse; use ⟦read_fragment⟧ and ⟦edit_file⟧, or raise ⟦parse_timeout⟧",
        )
        .with_details(serde_json::json!({
            "stage": stage,
            "budget_ms": self.limit.as_millis() as u64,
            "bytes": len,
            "language": lang.name(),
        }))
    }
}

/// Parse `text` (the file body, after any BOM) with `lang`'s grammar, within
/// the default [`ParseBudget`].
pub fn parse_tree(lang: &Language, text: &str, old: Option<&Tree>) -> Result<Tree> {
    parse_tree_within(lang, text, old, ParseBudget::default().deadline(text.len()))
}

/// Parse `text` with `lang`'s grammar, cancelled with `TIMEOUT` at `deadline`.
pub fn parse_tree_within(
    lang: &Language,
    text: &str,
    old: Option<&Tree>,
    deadline: Deadline,
) -> Result<Tree> {
    PARSER.with(|p| {
        let mut parser = p.borrow_mut();
        parser.set_language(lang.grammar()).map_err(|e| {
            Error::new(
                ErrorCode::UnsupportedLanguage,
                format!("grammar for {} cannot be loaded: {e}", lang.name()),
            )
            .with_suggestion("the grammar's ABI does not match this tree-sitter; rebuild with a matching grammar version")
        })?;
        let mut cancelled = false;
        let mut progress = |_: &tree_sitter::ParseState| {
            if deadline.passed() {
                cancelled = true;
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        };
        let mut run = |text: &str| {
            let bytes = text.as_bytes();
            let options = tree_sitter::ParseOptions::new().progress_callback(&mut progress);
            parser.parse_with_options(
                &mut |i, _| bytes.get(i..).unwrap_or_default(),
                old,
                Some(options),
            )
        };
        let mut tree = run(text);
        // A grammar gap the language's `recover` rules read around: the
        // second reading is kept when it has fewer errors.
        if let Some(t) = &tree
            && t.root_node().has_error()
            && let Some(second) = lang.recovered_text(text)
        {
            match run(&second) {
                Some(o) if error_count(&o) < error_count(t) => tree = Some(o),
                Some(_) => {}
                // Out of time: the whole parse is (the match below says so).
                None if cancelled => tree = None,
                None => parser.reset(),
            }
        }
        match tree {
            Some(t) => Ok(t),
            None => {
                parser.reset();
                if cancelled {
                    Err(deadline.error(lang, text.len(), "parsing"))
                } else {
                    Err(Error::new(ErrorCode::Io, format!("the {} parser gave up", lang.name()))
                        .with_suggestion("the file may be too large or pathological; use ⟦read_fragment⟧ and ⟦edit_file⟧"))
                }
            }
        }
    })
}

/// How many error and missing nodes `tree` has (subtrees without errors
/// are not walked).
fn error_count(tree: &tree_sitter::Tree) -> usize {
    let mut n = 0;
    let mut cursor = tree.walk();
    loop {
        let node = cursor.node();
        if node.is_error() || node.is_missing() {
            n += 1;
        }
        if node.has_error() && !node.is_error() && cursor.goto_first_child() {
            continue;
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                return n;
            }
        }
    }
}

/// Parse a decoded file and build its outline, within the default budget.
pub fn parse(lang: &Arc<Language>, source: Arc<SourceText>) -> Result<ParsedFile> {
    parse_within(lang, source, ParseBudget::default())
}

/// Parse a decoded file and build its outline; parsing and the outline
/// query share one deadline from `budget`.
pub fn parse_within(
    lang: &Arc<Language>,
    source: Arc<SourceText>,
    budget: ParseBudget,
) -> Result<ParsedFile> {
    let deadline = budget.deadline(source.body().len());
    let tree = parse_tree_within(lang, source.body(), None, deadline)?;
    outline_within(lang, source, tree, deadline)
}

/// Build the outline of an already parsed tree, within the default budget.
pub fn outline(lang: &Arc<Language>, source: Arc<SourceText>, tree: Tree) -> Result<ParsedFile> {
    let deadline = ParseBudget::default().deadline(source.body().len());
    outline_within(lang, source, tree, deadline)
}

/// Build the outline of an already parsed tree; the tags query is cancelled
/// with `TIMEOUT` at `deadline` (tree-sitter's query cursor is quadratic in
/// a node's child count: a one-line array of a million numbers).
pub fn outline_within(
    lang: &Arc<Language>,
    source: Arc<SourceText>,
    tree: Tree,
    deadline: Deadline,
) -> Result<ParsedFile> {
    let offset = source.body_offset();
    let body = source.body();
    let root = tree.root_node();

    // Collect matches. Two patterns capturing the same @name node describe
    // the same definition: the earlier pattern (lower index) wins.
    // Keyed by node ids: Fx hashing, not SipHash (an outline is CPU-bound
    // and nothing here is keyed by what a file's author chose).
    // The candidates in a vector, the map holding their indexes: a map of
    // whole `Raw`s moved them all at every growth (a twentieth of a
    // declaration file's outline).
    let mut candidates: Vec<Raw> = Vec::new();
    let mut best: FxHashMap<usize, usize> = FxHashMap::default();
    let mut widener = Widener::new(lang, body, 0);
    let along = Some(&mut widener);
    let (finished, widened_along) =
        for_each_tag_along(lang, &tree, body, None, Some(&deadline), along, |mut m| {
            let phrase = m.names.len() > 1;
            let Some((name, label, sigil)) = name_of(lang, &mut m.names, body) else {
                return;
            };
            let (node, kind) = match (m.definition, m.scope) {
                (Some((n, k)), _) => (n, Some(k)),
                (None, Some(n)) => (n, None),
                (None, None) => return,
            };
            let key = if kind.is_some() { name.id() } else { node.id() };
            let qualifier = qualifier_of(&mut m.qualifiers, body, lang.separator());
            let raw = Raw {
                node,
                name,
                label,
                qualifier,
                sigil,
                phrase,
                kind,
                doc: m.doc,
                pattern: m.pattern,
            };
            match best.entry(key) {
                std::collections::hash_map::Entry::Occupied(e) => {
                    let r = &mut candidates[*e.get()];
                    if raw.pattern < r.pattern {
                        *r = raw;
                    }
                }
                std::collections::hash_map::Entry::Vacant(e) => {
                    e.insert(candidates.len());
                    candidates.push(raw);
                }
            }
        })?;
    if !finished {
        return Err(deadline.error(lang, body.len(), "listing the symbols"));
    }
    drop(best);
    let mut raws = candidates;
    // A node that is both a definition and a scope (a Rust `impl` block) is
    // one symbol whose children hang from the scope's name (`Point::new`).
    let scopes_of_definitions: FxHashMap<usize, Raw> = {
        let defined: FxHashSet<usize> = raws
            .iter()
            .filter(|r| r.kind.is_some())
            .map(|r| r.node.id())
            .collect();
        let (merged, rest): (Vec<Raw>, Vec<Raw>) = raws
            .into_iter()
            .partition(|r| r.kind.is_none() && defined.contains(&r.node.id()));
        raws = rest;
        merged.into_iter().map(|r| (r.node.id(), r)).collect()
    };
    // A definition that scopes the rest of its parent (`symbols.to_end`:
    // C#'s `namespace N;`) ends where the next one of its kind starts, or
    // with its parent.
    let last_of: FxHashMap<usize, Node> = raws
        .iter()
        .filter(|r| r.kind.is_some() && lang.kinds().to_end.contains(&r.node))
        .map(|r| {
            let mut last = r.node;
            while let Some(next) = last.next_sibling() {
                if next.kind_id() == r.node.kind_id() {
                    break;
                }
                last = next;
            }
            (r.node.id(), last)
        })
        .collect();
    let last = |n: Node<'_>| last_of.get(&n.id()).map_or(n.end_byte(), |l| l.end_byte());
    raws.sort_by_cached_key(|r| {
        (
            r.node.start_byte(),
            std::cmp::Reverse(last(r.node)),
            r.kind.is_some(),
            // Definitions sharing one node (Go's `A, B int`, Ruby's
            // `attr_reader :a, :b`) follow their names.
            r.name.start_byte(),
        )
    });

    // Walk in document order with a stack of enclosing items.
    struct Open {
        end: usize,
        start: usize,
        /// The segments and path its children hang from; `None`: those of
        /// its symbol (most definitions: not cloned for children they
        /// seldom have).
        own: Option<(Vec<String>, String)>,
        symbol: Option<usize>,
        scope_signature: Option<String>,
        is_scope: bool,
    }
    let mut stack: Vec<Open> = Vec::new();
    let mut symbols: Vec<Symbol> = Vec::with_capacity(raws.len());
    let sep = lang.separator();
    // What an open item's children hang from.
    fn hung<'a>(o: &'a Open, symbols: &'a [Symbol]) -> (&'a [String], &'a str) {
        match (&o.own, o.symbol) {
            (Some((segments, path)), _) => (segments, path),
            (None, Some(i)) => (&symbols[i].segments, &symbols[i].name_path),
            (None, None) => (&[], ""),
        }
    }
    let child_of = |parent: Option<(&[String], &str)>, name: &str| -> (Vec<String>, String) {
        let mut segments = parent.map(|p| p.0.to_vec()).unwrap_or_default();
        let own = namepath::split_path(name);
        if own.iter().any(|s| s.is_empty()) {
            segments.push(name.to_string());
        } else {
            segments.extend(own);
        }
        let path = parent.map_or_else(|| name.to_string(), |p| format!("{}{sep}{name}", p.1));
        (segments, path)
    };
    // Every definition's wrappers and leading trivia, found along the walk
    // that found the definitions, or else by one walk of its own.
    let widened = if widened_along {
        widener.out
    } else {
        let defs: Vec<Node> = raws.iter().map(|r| r.node).collect();
        widen_all(lang, root, &defs, body)
    };
    for (i, raw) in raws.iter_mut().enumerate() {
        if i % 1024 == 1023 && deadline.passed() {
            return Err(deadline.error(lang, body.len(), "listing the symbols"));
        }
        let (s, e) = (raw.node.start_byte(), last(raw.node));
        while let Some(top) = stack.last() {
            if top.start <= s && e <= top.end && !(top.start == s && top.end == e && !top.is_scope)
            {
                break;
            }
            stack.pop();
        }
        let parent = stack.last();
        let hangs = parent.map(|p| hung(p, &symbols));
        let name = std::mem::take(&mut raw.label);
        let (segments, path) = match &raw.qualifier {
            Some(q) => child_of(hangs, &format!("{q}{sep}{name}")),
            None => child_of(hangs, &name),
        };
        match raw.kind {
            None => {
                let sig = signature(lang, raw.node, body);
                stack.push(Open {
                    start: s,
                    end: e,
                    own: Some((segments, path)),
                    symbol: parent.and_then(|p| p.symbol),
                    scope_signature: Some(sig),
                    is_scope: true,
                });
            }
            Some(kind) => {
                let parent_path = hangs.map(|h| h.1.to_string());
                let context = parent.and_then(|p| p.scope_signature.clone());
                let parent_index = parent.and_then(|p| p.symbol);
                // Members of a definition that is also a scope can be
                // addressed through it as well: `impl Display for Point::fmt`.
                let alias = parent.filter(|p| !p.is_scope).and_then(|p| {
                    let owner = &symbols[p.symbol?];
                    (hung(p, &symbols).0 != owner.segments.as_slice()).then(|| {
                        let shown = format!("{}{sep}{name}", owner.name_path);
                        (namepath::split_path(&shown), shown)
                    })
                });
                let full = match widened.get(&raw.node.id()) {
                    Some(&(first, top)) => with_doc(first, top, raw.doc),
                    None => widen(lang, raw.node, raw.doc, body),
                };
                let index = symbols.len();
                let signature = signature(lang, raw.node, body);
                // The children of an `impl` hang from its scope's name.
                let scope = scopes_of_definitions.get(&raw.node.id());
                let own = scope.map(|scope| child_of(hangs, &scope.label));
                let scope_signature = scope.map(|_| signature.clone());
                let scope_of = own.as_ref().map(|(segments, _)| segments.clone());
                symbols.push(Symbol {
                    name,
                    name_path: path,
                    kind,
                    start_line: 0,
                    end_line: 0,
                    start_byte: 0,
                    end_byte: 0,
                    name_line: raw.name.start_position().row + 1,
                    parent: parent_path,
                    signature,
                    context,
                    address: None,
                    segments,
                    alias,
                    phrase: raw.phrase,
                    scope_of,
                    full: span_of(
                        full.0,
                        *last_of.get(&raw.node.id()).unwrap_or(&full.1),
                        offset,
                    ),
                    bare: span_of(
                        raw.node,
                        *last_of.get(&raw.node.id()).unwrap_or(&raw.node),
                        offset,
                    ),
                    name_byte: raw.name.start_byte() + raw.sigil + offset,
                    parent_index,
                    depth: parent_index.map_or(0, |i| symbols[i].depth + 1),
                });
                stack.push(Open {
                    start: s,
                    end: e,
                    own,
                    symbol: Some(index),
                    scope_signature,
                    is_scope: false,
                });
            }
        }
    }
    for s in &mut symbols {
        s.set_span(s.full);
    }
    namepath::assign_addresses(&mut symbols);

    let (parse_error_count, parse_errors) = collect_errors(&tree);
    Ok(ParsedFile {
        language: lang.clone(),
        source,
        tree,
        symbols,
        parse_error_count,
        parse_errors,
        imports: std::sync::OnceLock::new(),
        by_name: std::sync::OnceLock::new(),
        indentation: std::sync::OnceLock::new(),
        problems: std::sync::OnceLock::new(),
        walk_limit: deadline.limit,
    })
}

#[derive(Clone)]
struct Raw<'t> {
    node: Node<'t>,
    /// The first `@name` node (the dedup key and the name's position).
    name: Node<'t>,
    /// The symbol's name: the text of its `@name` captures.
    label: String,
    /// Bytes of a sigil before the name in the `name` node (`:` of `:sku`).
    sigil: usize,
    /// Several `@name` captures formed the name.
    phrase: bool,
    /// The `@qualifier` captures' texts joined by the separator.
    qualifier: Option<String>,
    kind: Option<&'static str>,
    doc: Option<Node<'t>>,
    pattern: usize,
}

/// The owners a definition names before its name (`@qualifier`
/// captures, in document order, generic arguments and whitespace
/// dropped: `Matrix<T, R>::` is `Matrix`), joined by `sep`.
fn qualifier_of(nodes: &mut [Node], body: &str, sep: &str) -> Option<String> {
    nodes.sort_by_key(|n| n.start_byte());
    let parts: Vec<String> = nodes
        .iter()
        .flat_map(|n| namepath::split_path(node_text(*n, body)))
        .map(|t| t.split_whitespace().collect::<String>())
        .filter(|t| !t.is_empty())
        .collect();
    (!parts.is_empty()).then(|| parts.join(sep))
}

/// A symbol's name from its `@name` captures: one capture's text (less a
/// leading sigil of `symbols.name_sigils` before a letter, digit or `_`:
/// Ruby's `:name`, not `::Kernel`), or several
/// captures (`"impl" @name trait: (_) @name "for" @name type: (_) @name`)
/// joined by single spaces in document order. Returns the first node too,
/// and how many bytes of it the sigil took.
fn name_of<'t>(
    lang: &Language,
    names: &mut [Node<'t>],
    body: &str,
) -> Option<(Node<'t>, String, usize)> {
    names.sort_by_key(|n| n.start_byte());
    let first = *names.first()?;
    if names.len() == 1 {
        let text = node_text(first, body);
        let sigil = lang
            .rules()
            .name_sigils
            .iter()
            .find(|s| {
                text.starts_with(s.as_str())
                    && text[s.len()..].starts_with(|c: char| c.is_alphanumeric() || c == '_')
            })
            .map_or(0, |s| s.len());
        return Some((first, text[sigil..].to_string(), sigil));
    }
    let label = {
        names
            .iter()
            .map(|n| {
                node_text(*n, body)
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect::<Vec<_>>()
            .join(" ")
    };
    Some((first, label, 0))
}

fn node_text<'a>(node: Node, body: &'a str) -> &'a str {
    &body[node.start_byte()..node.end_byte()]
}

fn span_of(first: Node, last: Node, offset: usize) -> Span {
    Span {
        start_byte: first.start_byte() + offset,
        end_byte: last.end_byte() + offset,
        start_line: first.start_position().row + 1,
        end_line: end_line_of(last),
    }
}

/// Last line a node occupies (a node ending right after a newline ends on
/// the previous line).
fn end_line_of(node: Node) -> usize {
    let end = node.end_position();
    if end.column == 0 && end.row > node.start_position().row {
        end.row
    } else {
        end.row + 1
    }
}

/// Widen a definition node to its wrappers and the leading siblings that
/// touch it. Returns the first and last node of the full range.
fn widen<'t>(
    lang: &Language,
    node: Node<'t>,
    doc: Option<Node<'t>>,
    body: &str,
) -> (Node<'t>, Node<'t>) {
    let wrappers = &lang.kinds().wrappers;
    let mut top = node;
    while let Some(parent) = top.parent() {
        if wrappers.contains(&parent) {
            top = parent;
        } else {
            break;
        }
    }
    let mut first = top;
    // The node whose previous siblings are read: a node that begins its
    // parent (a Python block's first statement) reads its parent's, since
    // the comment above it is a sibling of the block.
    let mut at = top;
    loop {
        match at.prev_sibling() {
            Some(prev) => {
                let touches = prev.end_position().row + 1 >= first.start_position().row;
                if touches && is_leading(lang, prev, body) && !deeper_comment(prev, top, body) {
                    first = prev;
                    at = prev;
                } else {
                    break;
                }
            }
            None => match at.parent() {
                Some(parent) if parent.start_byte() == at.start_byte() => at = parent,
                _ => break,
            },
        }
    }
    with_doc(first, top, doc)
}

/// Is `node` leading trivia of what follows it (`[symbols] leading` in the
/// language's TOML)? A comment (an extra) only when it begins its line: a
/// comment after code on its line (`x = 1  # note`) belongs to that code.
fn is_leading(lang: &Language, node: Node, body: &str) -> bool {
    lang.kinds().leading.contains(&node)
        && lang.is_leading(node.kind(), node_text(node, body))
        && (!node.is_extra() || {
            let start = node.start_byte();
            let ls = memchr::memrchr(b'\n', &body.as_bytes()[..start]).map_or(0, |i| i + 1);
            body[ls..start].trim().is_empty()
        })
}

/// Is `node` a comment right of `top`'s column that continues a trailing
/// comment above it (`x = f()  # a` then `#   b` aligned under `# a`,
/// perhaps over several lines)? Such a comment belongs to the code above,
/// not to the definition below, whose own column it would otherwise
/// become when new code is placed.
fn deeper_comment(node: Node, top: Node, body: &str) -> bool {
    let col = node.start_position().column;
    if !node.is_extra() || col <= top.start_position().column {
        return false;
    }
    let text = node_text(node, body);
    let token_len = text
        .find(|c: char| c.is_alphanumeric() || c.is_whitespace())
        .unwrap_or(text.len());
    let token = &text[..token_len.min(3)];
    if token.is_empty() {
        return false;
    }
    let bytes = body.as_bytes();
    let mut line_start = node.start_byte() - col;
    while line_start > 0 {
        let end = line_start - 1;
        let start = memchr::memrchr(b'\n', &bytes[..end]).map_or(0, |i| i + 1);
        let line = &body[start..end];
        let at = match line.get(col..) {
            Some(rest) if rest.starts_with(token) => &line[..col],
            _ => return false,
        };
        if !at.trim().is_empty() {
            return true;
        }
        line_start = start;
    }
    false
}

/// `(first, top)` extended to a doc comment the tags query captured above.
fn with_doc<'t>(first: Node<'t>, top: Node<'t>, doc: Option<Node<'t>>) -> (Node<'t>, Node<'t>) {
    match doc {
        Some(d) if d.start_byte() < first.start_byte() => (d, top),
        _ => (first, top),
    }
}

/// What a walk in pre-order says of where it is, for work done along it
/// (the [`Widener`]): a node is `enter`ed (with its kind id), then
/// `entered` (after the tags query ran from it), then either gone `down`
/// into or `left`; `up` follows the last child of a level.
pub(crate) trait Walker<'t> {
    fn enter(&mut self, _node: Node<'t>, _kind: u16) {}
    fn entered(&mut self, _node: Node<'t>) {}
    fn down(&mut self) {}
    fn left(&mut self) {}
    fn up(&mut self) {}
    /// A definition a match found (its node lies below where the walk is,
    /// or is that node).
    fn wanted(&mut self, _definition: Node<'t>) {}
}

/// A walk that wants nothing but the matches.
impl Walker<'_> for () {}

/// A walker that may be absent (then the walk wants nothing but the
/// matches).
impl<'t, W: Walker<'t>> Walker<'t> for Option<&mut W> {
    fn enter(&mut self, node: Node<'t>, kind: u16) {
        if let Some(w) = self {
            w.enter(node, kind);
        }
    }
    fn entered(&mut self, node: Node<'t>) {
        if let Some(w) = self {
            w.entered(node);
        }
    }
    fn down(&mut self) {
        if let Some(w) = self {
            w.down();
        }
    }
    fn left(&mut self) {
        if let Some(w) = self {
            w.left();
        }
    }
    fn up(&mut self) {
        if let Some(w) = self {
            w.up();
        }
    }
    fn wanted(&mut self, definition: Node<'t>) {
        if let Some(w) = self {
            w.wanted(definition);
        }
    }
}

/// [`widen`] along a pre-order walk, for every definition node it is told of
/// (`wanted`) and then visits: each level carries the run of leading
/// siblings (touching, trivia by `is_leading`) that ends at the node being
/// visited, so a definition's first node is known when the walk reaches it.
/// tree-sitter answers `parent()` and `prev_sibling()` by scanning siblings
/// from the first, so widening N top-level definitions one by one costs
/// O(N²); this costs O(nodes visited). The outline widens along the walk
/// that finds the tags query's roots (no walk of its own); [`widen_all`]
/// walks for it when the query has no roots.
pub(crate) struct Widener<'a, 't> {
    lang: &'a Language,
    body: &'a str,
    /// The definitions told of and not yet visited, below the node being
    /// visited (most are that node itself: `here`). Empty nearly always, so
    /// most nodes cost no lookup.
    pending: FxHashSet<usize>,
    /// The node being visited is a definition.
    here: bool,
    /// Each widened definition's `(first, top)`, by node id.
    out: FxHashMap<usize, (Node<'t>, Node<'t>)>,
    /// The ancestors of the node being visited and that node, with each
    /// one's `first`.
    path: Vec<(Node<'t>, Node<'t>)>,
    /// Per open level (the children of `path`'s node above the current
    /// one): how many of them were visited, and the leading run that ends
    /// at the last one visited (its first node and its last), whose nodes
    /// on this level are `runs[run_from..]`.
    levels: Vec<Level<'t>>,
    /// The leading runs' nodes of every open level, the deepest last.
    runs: Vec<Node<'t>>,
}

struct Level<'t> {
    visited: usize,
    run: Option<(Node<'t>, Node<'t>)>,
    run_from: usize,
}

impl<'a, 't> Widener<'a, 't> {
    pub(crate) fn new(lang: &'a Language, body: &'a str, expected: usize) -> Self {
        Widener {
            lang,
            body,
            pending: FxHashSet::default(),
            here: false,
            out: FxHashMap::with_capacity_and_hasher(expected, Default::default()),
            path: Vec::new(),
            levels: Vec::new(),
            runs: Vec::new(),
        }
    }
}

impl<'t> Walker<'t> for Widener<'_, 't> {
    fn enter(&mut self, child: Node<'t>, kind: u16) {
        let (lang, body) = (self.lang, self.body);
        let Some(level) = self.levels.last_mut() else {
            self.path.push((child, child));
            return;
        };
        let touches = |a: Node, b: Node| a.end_position().row + 1 >= b.start_position().row;
        level.visited += 1;
        let leading = lang.kinds().leading.has(kind) && is_leading(lang, child, body);
        let first = match level.run {
            Some((start, last)) if touches(last, child) => {
                if leading {
                    start
                } else {
                    // The run's first node that no comment right of
                    // `child`'s column follows (see `deeper_comment`). Only
                    // a node that ends the run asks, so each run is read
                    // once. The run's nodes on this level are none of it
                    // when it began above (the comment above a block's
                    // first statement).
                    let run = &self.runs[level.run_from..];
                    match run.iter().rposition(|&n| deeper_comment(n, child, body)) {
                        Some(i) => run.get(i + 1).copied().unwrap_or(child),
                        None => start,
                    }
                }
            }
            // A node that begins its parent takes the run above the parent
            // (the comment above a Python block's first statement).
            None if level.visited == 1 => match self.path.last() {
                Some(&(parent, parent_first)) if parent.start_byte() == child.start_byte() => {
                    parent_first
                }
                _ => child,
            },
            _ => child,
        };
        if leading {
            if level.run.is_none_or(|(_, last)| !touches(last, child)) {
                self.runs.truncate(level.run_from);
            }
            self.runs.push(child);
            level.run = Some((first, child));
        } else {
            self.runs.truncate(level.run_from);
            level.run = None;
        }
        self.path.push((child, first));
    }

    fn entered(&mut self, node: Node<'t>) {
        let here = std::mem::take(&mut self.here);
        if !here && (self.pending.is_empty() || !self.pending.remove(&node.id())) {
            return;
        }
        let wrappers = &self.lang.kinds().wrappers;
        let mut i = self.path.len() - 1;
        while i > 0 && wrappers.contains(&self.path[i - 1].0) {
            i -= 1;
        }
        self.out.insert(node.id(), (self.path[i].1, self.path[i].0));
    }

    fn down(&mut self) {
        self.levels.push(Level {
            visited: 0,
            run: None,
            run_from: self.runs.len(),
        });
    }

    fn left(&mut self) {
        self.path.pop();
    }

    fn up(&mut self) {
        if let Some(done) = self.levels.pop() {
            self.runs.truncate(done.run_from);
        }
        self.path.pop();
    }

    fn wanted(&mut self, definition: Node<'t>) {
        if self
            .path
            .last()
            .is_some_and(|p| p.0.id() == definition.id())
        {
            self.here = true;
        } else {
            self.pending.insert(definition.id());
        }
    }
}

/// [`widen`] for every node of `defs` at once (without the doc capture),
/// keyed by node id: a [`Widener`] along a walk from `root` that goes only
/// into subtrees that hold a definition.
fn widen_all<'t>(
    lang: &Language,
    root: Node<'t>,
    defs: &[Node<'t>],
    body: &str,
) -> FxHashMap<usize, (Node<'t>, Node<'t>)> {
    let mut w = Widener::new(lang, body, defs.len());
    // How many definitions each node is (Go's `A, B int` is two).
    let mut own: FxHashMap<usize, usize> =
        FxHashMap::with_capacity_and_hasher(defs.len(), Default::default());
    for &n in defs {
        w.wanted(n);
        *own.entry(n.id()).or_default() += 1;
    }
    let mut starts: Vec<usize> = defs.iter().map(|n| n.start_byte()).collect();
    starts.sort_unstable();
    // Does a definition other than `n` itself start inside `n`? Only then
    // is `n` gone into: most definitions hold none, and listing their
    // children was most of this walk.
    let holds_def = |n: Node, own: usize| {
        let (start, end) = (n.start_byte(), n.end_byte());
        let from = starts.partition_point(|&b| b < start);
        let to = from + starts[from..].partition_point(|&b| b < end.max(start + 1));
        to - from > own
    };
    let mut cursor = root.walk();
    loop {
        let node = cursor.node();
        w.enter(node, node.kind_id());
        w.entered(node);
        let own = own.get(&node.id()).copied().unwrap_or(0);
        if holds_def(node, own) && cursor.goto_first_child() {
            w.down();
            continue;
        }
        w.left();
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                return w.out;
            }
            w.up();
        }
    }
}

/// Where a definition's header ends: after its last child before the body
/// that is not an extra (a comment between `def f():` and the body's first
/// statement belongs to neither, and is not part of the signature).
fn header_end(node: Node, body_node: Node) -> usize {
    let mut end = node.start_byte();
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        if child.start_byte() >= body_node.start_byte() {
            break;
        }
        if !child.is_extra() {
            end = child.end_byte();
        }
    }
    end
}

/// One-line header: the text before the body, whitespace collapsed.
fn signature(lang: &Language, node: Node, body: &str) -> String {
    let text = node_text(node, body);
    let head = lang
        .kinds()
        .body_fields
        .iter()
        .find_map(|&f| node.child_by_field_id(f))
        .filter(|b| b.start_byte() > node.start_byte())
        .map(|b| &body[node.start_byte()..header_end(node, b)])
        .unwrap_or_else(|| text.lines().next().unwrap_or(""));
    let mut out = String::with_capacity(head.len().min(MAX_SIGNATURE + 4));
    for word in head.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
        if out.len() > MAX_SIGNATURE {
            break;
        }
    }
    if out.len() > MAX_SIGNATURE {
        let mut cut = MAX_SIGNATURE;
        while !out.is_char_boundary(cut) {
            cut -= 1;
        }
        out.truncate(cut);
        out.push('…');
    }
    out
}

/// A definition found in a range of new code (see [`definitions_in`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Defined {
    pub name: String,
    pub kind: &'static str,
    /// It brings leading trivia lines of its own (decorators, attributes,
    /// doc comments above its definition line).
    pub trivia_lines: bool,
    /// Its definition line starts with a wrapper of its own (`export `).
    pub trivia_prefix: bool,
    /// Its body starts with a docstring.
    pub docstring: bool,
}

/// Does the definition `node` have a docstring (per `symbols.docstring`)?
fn has_docstring(lang: &Language, node: Node) -> bool {
    docstring_node(lang, node).is_some()
}

/// The docstring node of a definition node (see `symbols.docstring`).
fn docstring_node<'t>(lang: &Language, node: Node<'t>) -> Option<Node<'t>> {
    let rules = lang.rules();
    if rules.docstring.is_empty() {
        return None;
    }
    let body = lang
        .kinds()
        .body_fields
        .iter()
        .find_map(|&f| node.child_by_field_id(f))?;
    let mut at = body;
    for kind in &rules.docstring {
        let mut cursor = at.walk();
        let first = at.named_children(&mut cursor).find(|c| !c.is_extra())?;
        if first.kind() != kind {
            return None;
        }
        at = first;
    }
    Some(at)
}

/// Does `sym`, a symbol of `file`, have a docstring?
pub fn docstring_of(file: &ParsedFile, sym: &Symbol) -> bool {
    docstring_text(file, sym).is_some()
}

/// The text of `sym`'s docstring (quotes included), if it has one.
pub fn docstring_text<'f>(file: &'f ParsedFile, sym: &Symbol) -> Option<&'f str> {
    let doc = docstring_node(&file.language, definition_node(file, sym)?)?;
    file.source.body().get(doc.start_byte()..doc.end_byte())
}

/// The syntax node of `sym`'s definition: the widest node with exactly
/// its bare range.
fn definition_node<'f>(file: &'f ParsedFile, sym: &Symbol) -> Option<Node<'f>> {
    let off = file.source.body_offset();
    let bare = sym.bare_span();
    let mut node = file
        .tree
        .root_node()
        .descendant_for_byte_range(bare.start_byte - off, bare.end_byte - off);
    while let Some(n) = node {
        match n.parent() {
            Some(p) if p.start_byte() == n.start_byte() && p.end_byte() == n.end_byte() => {
                node = Some(p)
            }
            _ => break,
        }
    }
    node
}

/// Does `sym` have a body (a field of `symbols.body_fields`)? A C
/// prototype or a method declared in its class has none.
pub fn has_body(file: &ParsedFile, sym: &Symbol) -> bool {
    definition_node(file, sym).is_some_and(|n| {
        file.language
            .rules()
            .body_fields
            .iter()
            .any(|f| n.child_by_field_name(f).is_some())
    })
}

/// One match of a language's tags query, its captures sorted by role
/// ([`TagRole`]): the one decoding of `tags.scm` captures.
pub struct TagMatch<'t> {
    /// The `@definition.KIND` node and its kind.
    pub definition: Option<(Node<'t>, &'static str)>,
    /// The `@scope` node (a container that is not itself a definition).
    pub scope: Option<Node<'t>>,
    /// The `@name` captures, in order (several form a phrase).
    pub names: Vec<Node<'t>>,
    /// The `@doc` node.
    pub doc: Option<Node<'t>>,
    /// The `@qualifier` captures, in order (owners named before the name).
    pub qualifiers: Vec<Node<'t>>,
    /// The query pattern that matched (earlier patterns win ties).
    pub pattern: usize,
}

/// Run `lang`'s tags query over `tree` (only over `range` of `body`, when
/// given) and hand every match to `f`. Returns `false` when `deadline`
/// (or the request's cancellation) stopped it before the end.
pub fn for_each_tag<'t>(
    lang: &Language,
    tree: &'t Tree,
    body: &str,
    range: Option<std::ops::Range<usize>>,
    deadline: Option<&Deadline>,
    f: impl FnMut(TagMatch<'t>),
) -> Result<bool> {
    for_each_tag_along(lang, tree, body, range, deadline, None, f).map(|(done, _)| done)
}

/// [`for_each_tag`], telling `widener` (when given) of every definition
/// found, along the walk that finds the query's roots. Also says whether
/// `widener` went along (there was such a walk).
fn for_each_tag_along<'t>(
    lang: &Language,
    tree: &'t Tree,
    body: &str,
    range: Option<std::ops::Range<usize>>,
    deadline: Option<&Deadline>,
    mut widener: Option<&mut Widener<'_, 't>>,
    mut f: impl FnMut(TagMatch<'t>),
) -> Result<(bool, bool)> {
    let query = lang.tags_query()?;
    let mut each = |m: &tree_sitter::QueryMatch<'_, 't>| -> Option<Node<'t>> {
        let mut tag = TagMatch {
            definition: None,
            scope: None,
            names: Vec::new(),
            doc: None,
            qualifiers: Vec::new(),
            pattern: m.pattern_index,
        };
        for c in m.captures() {
            match query.roles[c.index as usize] {
                TagRole::Definition(kind) => tag.definition = Some((c.node, kind)),
                TagRole::Scope => tag.scope = Some(c.node),
                TagRole::Name => tag.names.push(c.node),
                TagRole::Doc => tag.doc = Some(c.node),
                TagRole::Qualifier => tag.qualifiers.push(c.node),
                TagRole::Private => {}
            }
        }
        let definition = tag.definition.map(|d| d.0);
        f(tag);
        definition
    };
    let root = tree.root_node();
    Ok(match (&query.roots, range) {
        (Some(roots), None) => {
            let went = widener.is_some();
            let done = for_each_rooted_match(
                &query,
                roots,
                &lang.kinds().opaque,
                root,
                body,
                deadline,
                &mut widener,
                |m, w| {
                    if let Some(d) = each(m) {
                        w.wanted(d);
                    }
                },
            );
            (done, went)
        }
        (_, range) => {
            let done = for_each_match(&query, root, body, range, deadline, |m| {
                each(m);
            });
            (done, false)
        }
    })
}

/// [`for_each_match`] over the whole of `start` for a query whose matches
/// start only at the node kinds of `roots`: a walk of the tree finds those
/// nodes, and the query runs from each of them, starting matches there
/// only. The same matches, in document order of their roots; the query
/// cursor walks only as deep below each root as its patterns go, instead
/// of through every node of the tree (what costs most in an outline).
/// The walk does not go into a node of an `opaque` kind (`symbols.opaque`:
/// TypeScript's type annotations are a third of a declaration file's
/// nodes), unless the parse has an error inside it. `walker` is told where
/// the walk goes, and handed to `f` with each match.
#[allow(clippy::too_many_arguments)]
pub(crate) fn for_each_rooted_match<'t, W: Walker<'t>, R>(
    q: &crate::lang::query::Compiled<R>,
    roots: &crate::lang::query::Roots,
    opaque: &crate::lang::KindSet,
    start: Node<'t>,
    body: &str,
    deadline: Option<&Deadline>,
    walker: &mut W,
    mut f: impl FnMut(&tree_sitter::QueryMatch<'_, 't>, &mut W),
) -> bool {
    let passed = || deadline.is_some_and(Deadline::passed);
    let stopped = std::cell::Cell::new(false);
    let mut progress = stop_at(deadline, &stopped);
    let mut cursor = QueryCursor::new();
    cursor.set_max_start_depth(Some(0));
    let mut walk = start.walk();
    let mut seen = 0usize;
    loop {
        seen += 1;
        if seen.is_multiple_of(4096) && passed() {
            return false;
        }
        let node = walk.node();
        let kind = node.kind_id();
        walker.enter(node, kind);
        if roots.contains(kind) {
            let options = tree_sitter::QueryCursorOptions::new().progress_callback(&mut progress);
            let mut matches = cursor.matches_with_options(&q.query, node, body.as_bytes(), options);
            while let Some(m) = matches.next() {
                if passed() {
                    return false;
                }
                if q.admits(m) {
                    f(m, walker);
                }
            }
            if stopped.get() {
                return false;
            }
        }
        walker.entered(node);
        let skip = !opaque.is_empty() && opaque.has(kind) && !node.has_error();
        if !skip && walk.goto_first_child() {
            walker.down();
            continue;
        }
        walker.left();
        while !walk.goto_next_sibling() {
            if !walk.goto_parent() {
                return true;
            }
            walker.up();
        }
    }
}

/// A query cursor's progress callback that stops it once `deadline` has
/// passed, noting so in `stopped`.
fn stop_at<'a>(
    deadline: Option<&'a Deadline>,
    stopped: &'a std::cell::Cell<bool>,
) -> impl FnMut(&tree_sitter::QueryCursorState) -> ControlFlow<()> + 'a {
    move |_| {
        if deadline.is_some_and(Deadline::passed) {
            stopped.set(true);
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    }
}

/// How many levels below where it starts one run of a query explores.
/// tree-sitter keeps a match's start depth in 16 bits: more than 65,535
/// levels below its start, the cursor no longer drops the states it is done
/// with, and every node costs as much as the depth (a function of 100,000
/// nested blocks: 46 s for its dependencies). So [`for_each_match`] runs a
/// query in layers of this depth.
const QUERY_LAYER: u32 = 1 << 15;

/// Run `query` over `start` (and, with `range`, only where it overlaps it),
/// handing every match to `f`, until `deadline` passes: `false` when it
/// stopped early. The query runs in layers ([`QUERY_LAYER`]): matches may
/// start in the top `QUERY_LAYER` levels of a run (a match started there
/// follows its pattern as deep as it goes), and the nodes just below start
/// the next run. Together they give the same matches as one run, in time
/// linear in the tree, at any depth; their order is document order within
/// a run, not across runs.
pub(crate) fn for_each_match<'t, R>(
    q: &crate::lang::query::Compiled<R>,
    start: Node<'t>,
    body: &str,
    range: Option<std::ops::Range<usize>>,
    deadline: Option<&Deadline>,
    mut f: impl FnMut(&tree_sitter::QueryMatch<'_, 't>),
) -> bool {
    let passed = || deadline.is_some_and(Deadline::passed);
    let stopped = std::cell::Cell::new(false);
    let mut runs = vec![start];
    while let Some(top) = runs.pop() {
        let mut cursor = QueryCursor::new();
        cursor.set_max_start_depth(Some(QUERY_LAYER));
        if let Some(r) = &range {
            cursor.set_byte_range(r.clone());
        }
        let mut progress = stop_at(deadline, &stopped);
        let options = tree_sitter::QueryCursorOptions::new().progress_callback(&mut progress);
        let mut matches = cursor.matches_with_options(&q.query, top, body.as_bytes(), options);
        while let Some(m) = matches.next() {
            if passed() {
                stopped.set(true);
                break;
            }
            if q.admits(m) {
                f(m);
            }
        }
        drop(matches);
        if stopped.get() || !layer_below(top, range.as_ref(), deadline, &mut runs) {
            return false;
        }
    }
    true
}

/// Push the nodes [`QUERY_LAYER`] levels below `top` that overlap `range`
/// (where the next run of a query starts); `false` when `deadline` passed.
fn layer_below<'t>(
    top: Node<'t>,
    range: Option<&std::ops::Range<usize>>,
    deadline: Option<&Deadline>,
    out: &mut Vec<Node<'t>>,
) -> bool {
    let overlaps = |n: Node| range.is_none_or(|r| n.start_byte() < r.end && n.end_byte() > r.start);
    let mut cursor = top.walk();
    let mut depth = 0u32;
    let mut seen = 0usize;
    loop {
        seen += 1;
        if seen.is_multiple_of(4096) && deadline.is_some_and(Deadline::passed) {
            return false;
        }
        let node = cursor.node();
        let inside = overlaps(node);
        if depth == QUERY_LAYER && inside {
            out.push(node);
        }
        // A node with no more descendants than levels left to the layer
        // holds no node at the layer's depth: its subtree is not walked, so
        // on a tree of ordinary depth this visits little more than the
        // top-level nodes (`descendant_count` is stored, not counted).
        let reaches = node.descendant_count() > (QUERY_LAYER - depth) as usize;
        if depth < QUERY_LAYER && inside && reaches && cursor.goto_first_child() {
            depth += 1;
            continue;
        }
        loop {
            if depth == 0 {
                return true;
            }
            if cursor.goto_next_sibling() {
                break;
            }
            cursor.goto_parent();
            depth -= 1;
        }
    }
}

/// Definitions whose definition node starts inside `range` (body offsets),
/// outermost first. Used to check what new code defines, and which leading
/// trivia it brings, without building a whole outline.
pub fn definitions_in(
    lang: &Language,
    tree: &Tree,
    body: &str,
    range: std::ops::Range<usize>,
) -> Result<Vec<Defined>> {
    // (start, end, pattern, definition): when two patterns capture the same
    // definition, the earlier pattern wins, as in the outline (matches do
    // not come in pattern order: `export const f = () => 1 // why` met the
    // constant pattern first).
    let mut found: Vec<(usize, usize, usize, Defined)> = Vec::new();
    for_each_tag(lang, tree, body, Some(range.clone()), None, |mut m| {
        if let (Some((node, kind)), Some((_, name, _))) =
            (m.definition, name_of(lang, &mut m.names, body))
            && range.contains(&node.start_byte())
        {
            let same = found
                .iter()
                .position(|f| f.0 == node.start_byte() && f.3.name == name);
            if same.is_some_and(|i| found[i].2 <= m.pattern) {
                return;
            }
            let (first, top) = widen(lang, node, m.doc, body);
            let row = node.start_position().row;
            let defined = (
                node.start_byte(),
                node.end_byte(),
                m.pattern,
                Defined {
                    name,
                    kind,
                    trivia_lines: first.start_position().row < row,
                    trivia_prefix: top.start_byte() < node.start_byte()
                        && top.start_position().row == row,
                    docstring: has_docstring(lang, node),
                },
            );
            match same {
                Some(i) => found[i] = defined,
                None => found.push(defined),
            }
        }
    })?;
    found.sort_by_key(|f| (f.0, std::cmp::Reverse(f.1)));
    Ok(found.into_iter().map(|f| f.3).collect())
}

/// One place where the parser had to recover: an `ERROR` node (text the
/// grammar could not fit) or a `MISSING` node (a token the parser assumed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ErrorNode {
    /// Offsets into the parsed text (the body, after any BOM).
    pub start_byte: usize,
    pub end_byte: usize,
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in bytes.
    pub column: usize,
    pub end_line: usize,
    /// Where the trouble starts: the node's first child that is not a
    /// complete, error-free named node. Parsers wrap the constructs they had
    /// already recognised into the ERROR node (`y = f(1))` gives an ERROR
    /// holding the whole assignment and the stray `)`); pointing at its start
    /// would blame the valid part.
    pub focus_byte: usize,
    pub focus_line: usize,
    pub focus_column: usize,
    /// The token kind the parser assumed, for a `MISSING` node.
    pub missing: Option<String>,
    /// The language rule a well-formed tree still breaks (an offside-rule
    /// violation: `unexpected indent`, ...).
    pub rule: Option<std::borrow::Cow<'static, str>>,
}

/// Characters of offending text quoted in a problem's message.
const SNIPPET_CHARS: usize = 32;

impl ErrorNode {
    /// The problem at `node` (an ERROR or MISSING node, or a node breaking a
    /// rule), where the trouble starts at `focus`.
    pub(crate) fn of(node: Node, focus: Node) -> ErrorNode {
        let (p, f) = (node.start_position(), focus.start_position());
        ErrorNode {
            start_byte: node.start_byte(),
            end_byte: node.end_byte(),
            line: p.row + 1,
            column: p.column + 1,
            end_line: node.end_position().row + 1,
            focus_byte: focus.start_byte(),
            focus_line: f.row + 1,
            focus_column: f.column + 1,
            missing: node.is_missing().then(|| node.kind().to_string()),
            rule: None,
        }
    }

    /// What went wrong, in words that survive edits elsewhere in the file:
    /// the rule broken, the token assumed (`missing `;``) or the text not
    /// understood (`unexpected `)``), never a line number. Validation and
    /// `scalpel check` both compare problems by this message, so an edit
    /// passes exactly when `check --new-only` would.
    pub fn message(&self, body: &str) -> String {
        if let Some(rule) = &self.rule {
            return rule.to_string();
        }
        if let Some(token) = &self.missing {
            return format!("missing `{token}`");
        }
        let text = body.get(self.focus_byte..self.end_byte).unwrap_or("");
        let first = text.lines().map(str::trim).find(|l| !l.is_empty());
        let Some(first) = first else {
            return if body[self.focus_byte.min(body.len())..].trim().is_empty() {
                "unexpected end of file".to_string()
            } else {
                "syntax error".to_string()
            };
        };
        let collapsed = first.split_whitespace().collect::<Vec<_>>().join(" ");
        let mut shown: String = collapsed.chars().take(SNIPPET_CHARS).collect();
        if shown.len() < collapsed.len() {
            shown.push('…');
        }
        format!("unexpected `{shown}`")
    }
}

/// Every problem of a parsed file: the parser's ERROR and MISSING nodes and,
/// for an offside-rule language, indentation the language rejects, in
/// document order.
pub fn syntax_errors(lang: &Language, tree: &Tree, body: &str) -> Vec<ErrorNode> {
    let mut all = error_nodes(tree);
    let root = tree.root_node();
    let mut more = scoped::violations(lang, tree, body, root.start_byte()..root.end_byte());
    if let Some(rules) = &lang.config.offside {
        more.extend(offside::violations(rules, tree, body));
    }
    if !more.is_empty() {
        all.extend(more);
        all.sort_by_key(|e| (e.focus_byte, e.rule.is_some()));
    }
    all
}

/// The smallest run of top-level nodes covering one change (the text at
/// `start..old_end` of the old version became `start..new_end`) in both
/// trees, as `(from, old_to, new_to)`: the old text over `from..old_to`
/// became the new over `from..new_to`, and outside both versions agree.
pub fn changed_region(
    old: &Tree,
    new: &Tree,
    start: usize,
    old_end: usize,
    new_end: usize,
) -> (usize, usize, usize) {
    let delta = new_end as isize - old_end as isize;
    let to_new = |old: usize| (old as isize + delta).max(0) as usize;
    let to_old = |new: usize| (new as isize - delta).max(0) as usize;
    let (mut from, mut end) = (start, old_end);
    loop {
        let (a1, b1) = top_level_cover(old, from, end);
        let (a2, b2) = top_level_cover(new, from, to_new(end));
        let (f, e) = (a1.min(a2), b1.max(to_old(b2)));
        if (f, e) == (from, end) {
            return (from, end, to_new(end));
        }
        (from, end) = (f, e);
    }
}

/// `lo..hi` widened to the top-level nodes of `tree` it touches (a node
/// that ends at `lo` or starts at `hi` is not touched unless the range is
/// empty there).
fn top_level_cover(tree: &Tree, lo: usize, hi: usize) -> (usize, usize) {
    let root = tree.root_node();
    let mut cursor = root.walk();
    let (mut a, mut b) = (lo, hi);
    for top in root.children(&mut cursor) {
        let (s, e) = (top.start_byte(), top.end_byte());
        if s < hi.max(lo + 1) && e > lo {
            a = a.min(s);
            b = b.max(e);
        }
    }
    (a, b)
}

/// The problems of two versions of a file, for comparing them, where one
/// change (`start..old_end` became `start..new_end`, body offsets) is all
/// that differs: every ERROR and MISSING node of each (a walk that skips
/// error-free subtrees), and the indentation violations around the change
/// only ([`offside::around_change`]); the multiset difference is the same
/// as that of [`syntax_errors`] of both whole files, which is the fallback.
pub fn syntax_errors_around(
    lang: &Language,
    old: (&Tree, &str),
    new: (&Tree, &str),
    start: usize,
    old_end: usize,
    new_end: usize,
) -> (Vec<ErrorNode>, Vec<ErrorNode>) {
    // The compile rules hold within a top-level node: the region around
    // the change has the whole files' difference, unless error recovery
    // regrouped nodes beyond it (`y = (` left open takes a `def` header
    // and leaves its `return`s at module level, further down): with an
    // error in either tree, the whole files are compared.
    let (o, n) = if lang.config.rules.scoped.is_empty() && lang.config.rules.unique.is_empty() {
        (Vec::new(), Vec::new())
    } else if old.0.root_node().has_error() || new.0.root_node().has_error() {
        let all = |t: &Tree, body: &str| scoped::violations(lang, t, body, 0..body.len());
        (all(old.0, old.1), all(new.0, new.1))
    } else {
        let (from, old_to, new_to) = changed_region(old.0, new.0, start, old_end, new_end);
        (
            scoped::violations(lang, old.0, old.1, from..old_to),
            scoped::violations(lang, new.0, new.1, from..new_to),
        )
    };
    let Some(rules) = &lang.config.offside else {
        let with = |tree: &Tree, mut v: Vec<ErrorNode>| {
            v.extend(error_nodes(tree));
            v
        };
        return (with(old.0, o), with(new.0, n));
    };
    let Some((oo, no)) = offside::around_change(rules, old, new, start, old_end, new_end) else {
        return (
            syntax_errors(lang, old.0, old.1),
            syntax_errors(lang, new.0, new.1),
        );
    };
    let with = |tree: &Tree, mut v: Vec<ErrorNode>, more: Vec<ErrorNode>| {
        v.extend(error_nodes(tree));
        v.extend(more);
        v.sort_by_key(|e| (e.focus_byte, e.rule.is_some()));
        v
    };
    (with(old.0, oo, o), with(new.0, no, n))
}

/// Visit the nodes under `root` (itself included) in document order,
/// descending into a node's children only when `visit` returns true.
pub(crate) fn walk_preorder<'t>(root: Node<'t>, mut visit: impl FnMut(Node<'t>) -> bool) {
    walk_steps(root, |step| match step {
        Step::Visit(node) => visit(node),
        Step::Down(_) | Step::Up => true,
    });
}

/// [`walk_preorder`] of `top` (a child of `root`) that hands each node its
/// ancestors too, `root` first and the parent last. `Node::parent` finds a
/// parent by walking down from the root, so climbing from every node a
/// check looks at (each `return` of a file) costs a walk per level.
pub(crate) fn walk_with_ancestors<'t>(
    top: Node<'t>,
    root: Node<'t>,
    mut visit: impl FnMut(Node<'t>, &[Node<'t>]) -> bool,
) {
    let mut ancestors = vec![root];
    walk_steps(top, |step| match step {
        Step::Visit(node) => visit(node, &ancestors),
        Step::Down(node) => {
            ancestors.push(node);
            true
        }
        Step::Up => {
            ancestors.pop();
            true
        }
    });
}

/// What [`walk_steps`] tells its caller.
enum Step<'t> {
    /// A node, in preorder: answer whether to go into its children.
    Visit(Node<'t>),
    /// Going into the children of this node.
    Down(Node<'t>),
    /// Back out of the children of the node last gone down into.
    Up,
}

/// The one preorder walk of a subtree with a tree cursor, each step handed
/// to `step` ([`Step`]).
fn walk_steps<'t>(root: Node<'t>, mut step: impl FnMut(Step<'t>) -> bool) {
    let mut cursor = root.walk();
    loop {
        let node = cursor.node();
        if step(Step::Visit(node)) && cursor.goto_first_child() {
            step(Step::Down(node));
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return;
            }
            step(Step::Up);
        }
    }
}

/// Every outermost ERROR and MISSING node, in document order. Nodes inside
/// an ERROR node are not reported separately: the outer one covers them.
pub fn error_nodes(tree: &Tree) -> Vec<ErrorNode> {
    let root = tree.root_node();
    let mut out = Vec::new();
    if !root.has_error() {
        return out;
    }
    walk_preorder(root, |node| {
        let bad = node.is_error() || node.is_missing();
        if bad {
            let mut focus = node;
            let mut children = node.walk();
            if let Some(c) = node
                .children(&mut children)
                .find(|c| !c.is_named() || c.has_error() || c.is_missing())
            {
                focus = c;
            }
            out.push(ErrorNode::of(node, focus));
        }
        !bad && node.has_error()
    });
    out
}

/// Count ERROR and MISSING nodes (outermost only) and locate the first few.
pub fn collect_errors(tree: &Tree) -> (usize, Vec<ParseErrorLoc>) {
    let all = error_nodes(tree);
    let locs = all
        .iter()
        .take(MAX_ERROR_LOCATIONS)
        .map(|e| ParseErrorLoc {
            line: e.line,
            column: e.column,
            end_line: e.end_line,
            what: match &e.missing {
                Some(token) => format!("MISSING {token}"),
                None => "ERROR".to_string(),
            },
        })
        .collect();
    (all.len(), locs)
}

/// An indented dump of the syntax tree, for query authors
/// (`scalpel parse FILE --dump-tree`).
pub fn dump_tree(tree: &Tree, body: &str, max_text: usize) -> String {
    let mut out = String::new();
    let mut cursor = tree.root_node().walk();
    let mut depth = 0usize;
    loop {
        let node = cursor.node();
        if node.is_named() || node.is_missing() {
            let (s, e) = (node.start_position(), node.end_position());
            let field = cursor
                .field_name()
                .map(|f| format!("{f}: "))
                .unwrap_or_default();
            let kind = if node.is_missing() {
                format!("MISSING {}", node.kind())
            } else {
                node.kind().to_string()
            };
            out.push_str(&format!(
                "{:indent$}{field}{kind} [{}:{} - {}:{}]",
                "",
                s.row + 1,
                s.column + 1,
                e.row + 1,
                e.column + 1,
                indent = depth * 2
            ));
            if node.named_child_count() == 0 {
                let text = node_text(node, body);
                let mut shown: String = text.chars().take(max_text).collect();
                if shown.len() < text.len() {
                    shown.push('…');
                }
                out.push_str(&format!(" {shown:?}"));
            }
            out.push('\n');
        }
        if cursor.goto_first_child() {
            depth += 1;
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return out;
            }
            depth -= 1;
        }
    }
}

#[cfg(test)]
mod deadline_tests {
    use super::*;

    /// Time spent without the CPU (a loaded machine: here, asleep) does not
    /// use the budget; CPU time does; and the wall clock ends the work at
    /// [`WALL_FACTOR`] budgets whatever the CPU did.
    #[test]
    fn a_deadline_counts_the_threads_cpu_time() {
        let d = Deadline::after(Duration::from_millis(100));
        std::thread::sleep(Duration::from_millis(250));
        assert!(!d.passed(), "waiting for the CPU used the budget");
        let spin = Instant::now();
        let mut n = 0u64;
        while !d.passed() {
            n = std::hint::black_box(n.wrapping_add(1));
            assert!(spin.elapsed() < Duration::from_secs(10));
        }
        let d = Deadline::after(Duration::from_millis(20));
        std::thread::sleep(Duration::from_millis(20 * u64::from(WALL_FACTOR) + 20));
        assert!(d.passed(), "the wall clock ends it in any case");
    }
}

#[cfg(test)]
mod widen_tests {
    use super::*;
    use std::path::{Path, PathBuf};

    /// The leading trivia found along the roots walk are those a walk of
    /// its own finds (`widen_all`, what a query without roots uses) and
    /// those `widen` finds from the node alone, for every definition of
    /// every fixture file.
    #[test]
    fn widening_along_the_roots_walk_agrees_with_a_walk_of_its_own() {
        let registry = crate::lang::Registry::builtin();
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .filter(|d| d.path().is_dir())
            .flat_map(|d| std::fs::read_dir(d.path()).unwrap().flatten())
            .map(|f| f.path())
            .filter(|p| p.is_file())
            .collect();
        files.sort();
        let mut widened = 0;
        for path in files {
            let bytes = std::fs::read(&path).unwrap();
            let Ok(source) = crate::source::decode(&path, bytes) else {
                continue;
            };
            let Some(lang) = registry.detect(&path, Some(source.body())) else {
                continue;
            };
            let body = source.body();
            let tree = parse_tree(lang, body, None).unwrap();
            let mut along = Widener::new(lang, body, 0);
            let mut defs = Vec::new();
            let (done, went) =
                for_each_tag_along(lang, &tree, body, None, None, Some(&mut along), |m| {
                    defs.extend(m.definition.map(|d| d.0));
                })
                .unwrap();
            assert!(done && went, "{}", path.display());
            let alone = widen_all(lang, tree.root_node(), &defs, body);
            let span = |(a, b): (Node, Node)| (a.start_byte(), b.end_byte());
            for d in &defs {
                let (x, y) = (along.out.get(&d.id()), alone.get(&d.id()));
                let at = || format!("{} at byte {}", path.display(), d.start_byte());
                assert_eq!(x.copied().map(span), y.copied().map(span), "{}", at());
                // And what widening the node alone (`widen`, sibling by
                // sibling) finds.
                let one = span(widen(lang, *d, None, body));
                assert_eq!(x.copied().map(span), Some(one), "{}", at());
                widened += 1;
            }
        }
        assert!(widened > 500, "{widened}");
    }
}
