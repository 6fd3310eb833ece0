//! The language registry. Every language is data: `grammars/<lang>.toml`
//! (names, file types, separator, range rules) and `queries/<lang>/*.scm`.
//! Both are embedded at build time; an override directory with the same
//! layout (`--lang-dir` / `SCALPEL_LANG_DIR`) goes through the same loader
//! and replaces or adds files. Queries compile lazily, once per language.
//!
//! **Invariant:** no Rust code outside `grammars.rs` names a language, and no
//! Rust code anywhere names a node kind; node kinds live in the data files.

mod grammars;
pub mod query;
pub mod relax;
pub mod server;

use crate::error::{Error, ErrorCode, Result};
use query::{ImportsQuery, ReferencesQuery, TagsQuery};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::{Arc, OnceLock};

mod embedded {
    include!(concat!(env!("OUT_DIR"), "/embedded.rs"));
}

/// Environment variable naming an override directory.
pub const LANG_DIR_ENV: &str = "SCALPEL_LANG_DIR";

/// `grammars/<lang>.toml`.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct LanguageConfig {
    /// Canonical name, also the folder under `queries/`.
    pub name: String,
    #[serde(default)]
    pub aliases: Vec<String>,
    /// File extensions (without dot) that select this language.
    #[serde(default)]
    pub file_types: Vec<String>,
    /// Exact file names that select this language.
    #[serde(default)]
    pub filenames: Vec<String>,
    /// Interpreter names recognised on a `#!` first line.
    #[serde(default)]
    pub shebangs: Vec<String>,
    /// Files of another language's type that this language takes when
    /// their text says so (a `.h` is C's unless it reads as C++).
    #[serde(default)]
    pub claims: Vec<Claim>,
    /// Key into the compiled-in grammar table.
    pub grammar: String,
    /// Name-path separator used in output (`.` or `::`).
    pub separator: String,
    #[serde(default)]
    pub comment_tokens: Vec<String>,
    /// The built-in queries (`tags`, `references`, `imports`) compiled
    /// relaxed (`lang::relax`): the same matches, compiled in less time,
    /// where the measured run time did not grow (BENCHMARKS.md, session
    /// 43). A `--lang-dir` override's queries compile as written.
    #[serde(default)]
    pub relaxed_queries: Vec<String>,
    #[serde(default)]
    pub symbols: SymbolRules,
    #[serde(default)]
    pub edit: EditRules,
    /// Indentation rules of an offside-rule language (Python), checked as
    /// strictly as the language's own tokenizer. Absent: no such check.
    #[serde(default)]
    pub offside: Option<OffsideRules>,
    /// Second readings for constructs the grammar lacks (see [`Recovery`]).
    #[serde(default)]
    pub recover: Vec<Recovery>,
    /// What `search_files`' definition boost may assume (see [`SearchRules`]).
    #[serde(default)]
    pub search: SearchRules,
    /// What the references and rename rules may assume (see [`RefsRules`]).
    #[serde(default)]
    pub refs: RefsRules,
    /// Errors the language's compiler reports that its grammar accepts
    /// (see [`CompileRules`]).
    #[serde(default)]
    pub rules: CompileRules,
    /// The language server for semantic references and renames (`[lsp]`,
    /// see [`server::ServerConfig`]). Absent: the syntax backend only.
    #[serde(default)]
    pub lsp: Option<server::ServerConfig>,
}

/// Errors a language's compiler reports on text its grammar accepts
/// (`return` outside a function, a duplicate parameter), checked like parse
/// errors (`symbols::scoped`).
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct CompileRules {
    #[serde(default)]
    pub scoped: Vec<ScopeRule>,
    #[serde(default)]
    pub unique: Vec<UniqueRule>,
    #[serde(default)]
    pub order: Vec<OrderRule>,
}

/// A node of one of `kinds` whose nearest enclosing node of one of
/// `scopes` kinds (the root included) is not of an `allowed` kind breaks
/// the rule `message`.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ScopeRule {
    pub kinds: Vec<String>,
    pub scopes: Vec<String>,
    pub allowed: Vec<String>,
    pub message: String,
}

/// The named children of a node of one of `kinds` must have distinct
/// names (each child's first identifier, `symbols.identifiers`), or the
/// second of two breaks the rule `message`.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct UniqueRule {
    pub kinds: Vec<String>,
    pub message: String,
}

/// In a node of one of `kinds`, once a named child of an `after` kind has
/// come, every later named child must be of a `free` kind, or it breaks the
/// rule `message`; a child of an `until` kind ends the check (CPython's
/// "positional argument follows keyword argument" in an `argument_list`;
/// "non-default argument follows default argument" up to a `*`).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct OrderRule {
    pub kinds: Vec<String>,
    pub after: Vec<String>,
    pub free: Vec<String>,
    #[serde(default)]
    pub until: Vec<String>,
    /// Kinds that stand for their first named child (Python's
    /// `typed_parameter` holds `*args: T` as well as `b: int`).
    #[serde(default)]
    pub through: Vec<String>,
    pub message: String,
}

/// Language knowledge for `find_references` and `rename_symbol`.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RefsRules {
    /// Groups of symbol kinds that share a namespace (Rust: values, types
    /// and modules, macros). Two definitions of one name in one scope are
    /// one binding (overloads, accessors, declaration merging: renamed all
    /// or none) unless their kinds are in different groups. Empty: one
    /// namespace for every kind.
    #[serde(default)]
    pub namespaces: Vec<Vec<String>>,
    /// Node kinds no import statement is ever inside (Go's and Java's
    /// declarations: imports come first, at the top level): finding a
    /// file's imports does not walk into them.
    #[serde(default)]
    pub no_imports_in: Vec<String>,
    /// Bases that define no member a rename could target (Python
    /// `object`): a class deriving only from them has no unknown base.
    #[serde(default)]
    pub empty_bases: Vec<String>,
    /// Other languages whose files can use this one's definitions (a
    /// TypeScript file imports JavaScript). Files of any other language
    /// never bind to them.
    #[serde(default)]
    pub interop: Vec<String>,
    /// A bare name inside a method may name a member of its class (`this`
    /// is implicit: Java, C++): such a use of a member's name is
    /// undecided, never left alone.
    #[serde(default)]
    pub implicit_members: bool,
    /// A bare name inside a member can be a member of the enclosing type
    /// (Ruby's `foo` is `self.foo`, C#'s `Foo()` is `this.Foo()`): unless
    /// a local hides it, it is looked up as `self`'s member
    /// (bound when that type has it; `implicit_members` instead leaves
    /// every such use undecided).
    #[serde(default)]
    pub implicit_self: bool,
    /// A declaration and its definition can stand apart, also in two files
    /// (C and C++ prototypes in headers, methods defined outside their
    /// class): definitions of one name path, one of them without a body,
    /// are one binding.
    #[serde(default)]
    pub split_definitions: bool,
    /// Names the language itself calls (Python `__*__`: `__get__`,
    /// `__eq__`), one `*` standing for any text: a member of such a name
    /// is never renamed (no call site names it).
    #[serde(default)]
    pub protocol_names: Vec<String>,
    /// Top-level functions the language's runtime calls by name (Go's
    /// `main` and `init`): never renamed.
    #[serde(default)]
    pub entry_points: Vec<String>,
    /// A package is its folder (Go): files of one folder share their
    /// top-level names, and another folder's are reached as `pkg.Name`, a
    /// member access whose receiver an import binds (`import
    /// "example.com/m/pkg"`, or an alias). Such an access is a reference
    /// when the import's path ends in the definition's folder, another
    /// package's name when it names another folder, and undecided when it
    /// cannot tell (same last folder name, or a package named unlike its
    /// folder); a receiver no import can bind is a value.
    #[serde(default)]
    pub folder_packages: bool,
    /// A type implements every interface whose methods it has, without
    /// naming it (Go): a method of the target's name declared in any
    /// interface may be the one the target implements, so it is an
    /// undecided definition (refused unless the caller decides).
    #[serde(default)]
    pub structural_interfaces: bool,
    /// Definitions named after another by a convention the language's own
    /// tools check (Go: `go vet` requires `ExampleF` and `ExampleT_M`, each
    /// maybe with a `_suffix`, to name an identifier of the package): a
    /// rename renames the part of their names that names the target.
    #[serde(default)]
    pub named_after: Vec<NamedAfter>,
    /// Where the root folder's import path is written (Go: the `module`
    /// line of `go.mod`): how an import names a package at the root.
    #[serde(default)]
    pub root_module: Option<RootModule>,
}

/// `[refs.root_module]`: the line of `file` (at the root) that starts with
/// `keyword` names the root folder's import path.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RootModule {
    pub file: String,
    pub keyword: String,
}

/// One `[[refs.named_after]]` convention: a definition of a kind in
/// `kinds`, in a file of the target's folder matching `files`, named
/// `prefix` + the target's name path joined by `join`, then nothing or
/// `join` and more (`Example` + `Buffer_Grow` + `_second`).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct NamedAfter {
    pub prefix: String,
    pub join: String,
    /// A glob over the file's name (`*_test.go`).
    pub files: String,
    /// Symbol kinds of tags.scm (`function`).
    pub kinds: Vec<String>,
}

impl RefsRules {
    /// Is `name` one the language calls itself (`protocol_names`)?
    pub fn is_protocol_name(&self, name: &str) -> bool {
        self.protocol_names.iter().any(|p| match p.split_once('*') {
            Some((pre, suf)) => {
                name.len() >= pre.len() + suf.len() && name.starts_with(pre) && name.ends_with(suf)
            }
            None => name == p,
        })
    }
}

/// Language knowledge for `search_files`' definition boost.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SearchRules {
    /// Regexes of the lines a definition's name can stand on, `{name}`
    /// standing for the searched words: a necessary condition, never a
    /// verdict. A candidate file whose keyword lines match none of them is
    /// not parsed (it cannot define a keyword); one that matches is parsed
    /// and the tags query decides. Empty: every candidate is parsed.
    #[serde(default)]
    pub definition_lines: Vec<String>,
}

/// A second reading of text the grammar cannot parse although the language
/// accepts it (a gap in the grammar's release, such as tree-sitter-
/// typescript 0.23's missing `in`/`out` variance annotations). When a parse
/// has errors, the text is parsed again with each match's `at` group read
/// as `read_as` (one ASCII character per byte; line breaks stay), and that
/// tree is kept when it has fewer errors. Byte offsets and lines are the
/// same in both readings, so everything built on the tree addresses the
/// real text.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Recovery {
    /// A regular expression with a named group `at`.
    pub pattern: String,
    /// What each byte of the `at` group is read as: `" "` (the text is
    /// skipped) or a one-character token such as `";"`.
    pub read_as: String,
}

/// What the offside-rule check needs to know about a language: which
/// tokens nest (brackets), which nodes are single tokens for layout
/// (strings, whose inner lines are not lines of code), and what opens a
/// block. See `symbols::offside`.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct OffsideRules {
    /// The token that ends a block header (`:`): the next logical line
    /// must be indented deeper.
    pub block_opener: String,
    /// Opening and closing bracket tokens: lines inside them are
    /// continuation lines, free of indentation rules.
    pub brackets: Vec<[String; 2]>,
    /// Node kinds laid out as one token (multi-line strings).
    #[serde(default)]
    pub atomic: Vec<String>,
    /// The explicit line-joining token at the end of a line (`\\`).
    #[serde(default)]
    pub line_continuation: Option<String>,
    /// Columns a tab advances to (CPython: 8); indentation is also compared
    /// with tabs counted as 1 column to find inconsistent tabs and spaces.
    #[serde(default = "eight")]
    pub tab_size: usize,
    /// The deepest bracket nesting the tokenizer takes (CPython's
    /// `MAXLEVEL`, 200: one more is "too many nested parentheses").
    #[serde(default)]
    pub max_bracket_depth: Option<usize>,
    /// Node kinds whose children may begin a logical line (the parents of
    /// statements: `module`, `block`), and with `line_nodes` the kinds
    /// that may begin one themselves (`else_clause`). A logical line that
    /// begins anything else goes on with a statement the tokenizer has
    /// ended ("invalid syntax": tree-sitter-python reads `x = `, a line
    /// break and `f()` as one assignment). Empty: not checked.
    #[serde(default)]
    pub line_parents: Vec<String>,
    #[serde(default)]
    pub line_nodes: Vec<String>,
}

fn eight() -> usize {
    8
}

/// Layout conventions for inserted code, used when the file itself shows
/// none (a definition without siblings).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct EditRules {
    /// Blank lines between definitions inside a class, impl, module, ...
    #[serde(default = "one")]
    pub blank_lines: usize,
    /// Blank lines between top-level definitions.
    #[serde(default = "one")]
    pub top_level_blank_lines: usize,
    /// Node kinds whose text is content (multi-line string literals): the
    /// lines inside them are never re-indented. A string that is a
    /// statement of its own (the `symbols.docstring` shape) is
    /// documentation laid out with the code, and moves with it.
    #[serde(default)]
    pub verbatim: Vec<String>,
    /// A parser stricter than the grammar that judges writes too (one of
    /// [`SECOND_OPINIONS`]): what it parsed around a change it
    /// must parse after it.
    #[serde(default)]
    pub second_opinion: Option<String>,
    /// Text put before top-level code parsed apart from its file (PHP's
    /// `<?php `: without it the grammar reads code as HTML text).
    #[serde(default)]
    pub region_prefix: String,
}

impl Default for EditRules {
    fn default() -> Self {
        EditRules {
            blank_lines: 1,
            top_level_blank_lines: 1,
            verbatim: Vec::new(),
            second_opinion: None,
            region_prefix: String::new(),
        }
    }
}

fn one() -> usize {
    1
}

/// How definition ranges are widened and references found, per language.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SymbolRules {
    /// Parent node kinds that belong to the definition they wrap (Python
    /// `decorated_definition`, TS `export_statement`).
    #[serde(default)]
    pub wrappers: Vec<String>,
    /// Preceding sibling nodes attached to a definition when they touch it
    /// (no blank line between): attributes, decorators, doc comments.
    #[serde(default)]
    pub leading: Vec<LeadingRule>,
    /// Leaf node kinds that are references to names (for dependencies).
    #[serde(default)]
    pub identifiers: Vec<String>,
    /// Field names of a definition's body; the signature is the text before it.
    #[serde(default = "default_body_fields")]
    pub body_fields: Vec<String>,
    /// Definitions that scope the rest of their parent (C#'s `namespace
    /// N;`, PHP's `namespace N;`): each ends where the next of its kind
    /// starts, or with its parent, and holds the declarations after it.
    #[serde(default)]
    pub to_end: Vec<String>,
    /// Leading characters of a one-capture `@name` that are not part of the
    /// name (Ruby `attr_reader :sku` names `sku`).
    #[serde(default)]
    pub name_sigils: Vec<String>,
    /// Node kinds from a body's first statement down to a docstring
    /// (Python: an `expression_statement` holding a `string`). A docstring
    /// is part of the body; a replacement that drops one is warned about.
    #[serde(default)]
    pub docstring: Vec<String>,
    /// Node kinds that never hold a symbol the tags query finds (TS's type
    /// annotations): a whole-file outline does not walk into them. Only
    /// kinds whose insides the language itself rejects any definition in
    /// belong here; `cargo bench --bench outline_probe` with
    /// `PROBE_KINDS=1` shows what each kind would save.
    #[serde(default)]
    pub opaque: Vec<String>,
}

impl Default for SymbolRules {
    fn default() -> Self {
        SymbolRules {
            wrappers: Vec::new(),
            leading: Vec::new(),
            identifiers: Vec::new(),
            body_fields: default_body_fields(),
            docstring: Vec::new(),
            opaque: Vec::new(),
            to_end: Vec::new(),
            name_sigils: Vec::new(),
        }
    }
}

fn default_body_fields() -> Vec<String> {
    vec!["body".to_string()]
}

/// `[[claims]]`: a file whose extension is one of `file_types` (another
/// language's) belongs to this language when `content` matches its first
/// [`CLAIM_WINDOW`] bytes.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Claim {
    pub file_types: Vec<String>,
    pub content: String,
}

/// How much of a file a claim's `content` reads: what decides a header's
/// language is near its top, and a bounded read keeps detection cheap on
/// a generated megabyte header.
pub const CLAIM_WINDOW: usize = 64 * 1024;

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct LeadingRule {
    pub kind: String,
    /// Optional regex the node's text must match (e.g. `^///` for doc comments).
    #[serde(default)]
    pub text: Option<String>,
}

/// A regex of a language's TOML: its syntax checked when the language
/// loads (`regex_syntax`, no compiling), compiled when first used, so that
/// starting Scalpel compiles none (the start of `scalpel serve` spent three
/// quarters of its time compiling regexes no request had asked for yet).
struct LazyRegex {
    pattern: String,
    compiled: OnceLock<regex::Regex>,
}

impl LazyRegex {
    /// `pattern`, its syntax checked when `check`; the error says what is
    /// wrong with it.
    fn new(pattern: &str, check: bool) -> std::result::Result<LazyRegex, String> {
        if check {
            regex_syntax::Parser::new()
                .parse(pattern)
                .map_err(|e| e.to_string())?;
        }
        Ok(LazyRegex {
            pattern: pattern.to_string(),
            compiled: OnceLock::new(),
        })
    }

    fn get(&self) -> &regex::Regex {
        self.compiled.get_or_init(|| {
            regex::Regex::new(&self.pattern).expect(
                "its syntax was checked when the language loaded, or by the embedded data's test",
            )
        })
    }
}

/// A loaded language: its configuration, grammar and (lazily) its queries.
pub struct Language {
    pub config: LanguageConfig,
    grammar: tree_sitter::Language,
    kinds: OnceLock<Kinds>,
    leading: Vec<(String, Option<LazyRegex>)>,
    recover: Vec<(LazyRegex, u8)>,
    claims: Vec<(Vec<String>, LazyRegex)>,
    sources: BTreeMap<String, (String, String)>,
    /// Compile the `relaxed_queries` relaxed (`lang::relax`): the embedded
    /// data, whose queries as written are checked by the tests, not a
    /// `--lang-dir` override's.
    relax_queries: bool,
    tags: OnceLock<Result<Arc<TagsQuery>>>,
    imports: OnceLock<Result<Option<Arc<ImportsQuery>>>>,
    references: OnceLock<Result<Option<Arc<ReferencesQuery>>>>,
}

/// Node kinds named by a language file, resolved to the grammar's ids once
/// at load (a kind name can stand for several ids: aliases), so a walk
/// compares numbers, not strings, on every node: a bit per id (a binary
/// search per node was a fortieth of a declaration file's outline).
/// Empty (no words) when no id is in it.
#[derive(Debug, Clone, Default)]
pub struct KindSet(Vec<u64>);

/// A grammar's node kinds by name, read once per language load: every
/// name lookup is then a hash probe. Asking the grammar instead costs a
/// scan of all its kinds per name (`ts_language_symbol_for_name`) or a
/// `strlen` and UTF-8 check per kind and list (`node_kind_for_id`), and
/// that was most of what a command paid to load the languages.
struct KindNames<'g> {
    grammar: &'g tree_sitter::Language,
    ids: HashMap<&'g str, Vec<u16>>,
}

impl<'g> KindNames<'g> {
    fn new(grammar: &'g tree_sitter::Language) -> Self {
        let mut ids: HashMap<&'g str, Vec<u16>> = HashMap::new();
        for id in 0..grammar.node_kind_count() as u16 {
            if let Some(name) = grammar.node_kind_for_id(id) {
                ids.entry(name).or_default().push(id);
            }
        }
        KindNames { grammar, ids }
    }

    /// The ids named `name`, in id order.
    fn ids(&self, name: &str) -> &[u16] {
        self.ids.get(name).map_or(&[], |v| v.as_slice())
    }

    /// Whether the grammar has a kind `name` a tree can show, named or
    /// anonymous as asked: what `Language::id_for_node_kind` finds
    /// (visible or supertype kinds; `ERROR` always).
    fn exists(&self, name: &str, named: bool) -> bool {
        name == "ERROR"
            || self.ids(name).iter().any(|&id| {
                let g = self.grammar;
                // A supertype is named, though the binding's `is_named`
                // (the symbol's type) says `Supertype`, not `Regular`.
                let supertype = g.node_kind_is_supertype(id);
                (g.node_kind_is_named(id) || supertype) == named
                    && (g.node_kind_is_visible(id) || supertype)
            })
    }
}

impl KindSet {
    /// Every id of the grammar named one of `names` (named nodes only).
    fn resolve(kinds: &KindNames<'_>, names: &[String]) -> KindSet {
        KindSet::resolve_where(kinds, names, |id| kinds.grammar.node_kind_is_named(id))
    }

    /// Every id of the grammar named one of `names`, named or anonymous.
    fn resolve_any(kinds: &KindNames<'_>, names: &[String]) -> KindSet {
        KindSet::resolve_where(kinds, names, |_| true)
    }

    fn resolve_where(
        kinds: &KindNames<'_>,
        names: &[String],
        keep: impl Fn(u16) -> bool,
    ) -> KindSet {
        let mut bits: Vec<u64> = Vec::new();
        for &id in names.iter().flat_map(|n| kinds.ids(n)) {
            if keep(id) {
                let word = id as usize / 64;
                if bits.len() <= word {
                    bits.resize(word + 1, 0);
                }
                bits[word] |= 1 << (id % 64);
            }
        }
        KindSet(bits)
    }

    pub fn contains(&self, node: &tree_sitter::Node) -> bool {
        self.has(node.kind_id())
    }

    /// Is kind id `id` in the set (for a caller that has the id already)?
    pub fn has(&self, id: u16) -> bool {
        let id = id as usize;
        self.0.get(id / 64).is_some_and(|w| w >> (id % 64) & 1 != 0)
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Whether `node` or one of its ancestors is of these kinds.
    pub fn encloses(&self, node: tree_sitter::Node) -> bool {
        let mut n = Some(node);
        while let Some(x) = n {
            if self.contains(&x) {
                return true;
            }
            n = x.parent();
        }
        false
    }
}

/// The kinds of the language file's node lists, as [`KindSet`]s.
#[derive(Debug, Clone, Default)]
pub struct Kinds {
    /// `symbols.wrappers`
    pub wrappers: KindSet,
    /// `symbols.identifiers`
    pub identifiers: KindSet,
    /// `edit.verbatim`
    pub verbatim: KindSet,
    /// `symbols.to_end`
    pub to_end: KindSet,
    /// `symbols.opaque`
    pub opaque: KindSet,
    /// `refs.no_imports_in`
    pub no_imports_in: KindSet,
    /// every kind a compile rule (`rules.scoped`, `rules.unique`) is about
    pub ruled: KindSet,
    /// `lsp.unseen`: what the language server does not bind inside
    pub unseen: KindSet,
    /// `symbols.body_fields` as field ids (a field looked up by name is a
    /// scan of the grammar's field names, for every definition)
    pub body_fields: Vec<u16>,
    /// the kinds of `symbols.leading`, named or not: an outline asks of
    /// every sibling before a definition whether it is leading trivia, and
    /// an id is compared faster than a kind's name
    pub leading: KindSet,
}

impl Kinds {
    fn resolve(config: &LanguageConfig, kinds: &KindNames<'_>) -> Kinds {
        let grammar = kinds.grammar;
        Kinds {
            wrappers: KindSet::resolve(kinds, &config.symbols.wrappers),
            identifiers: KindSet::resolve(kinds, &config.symbols.identifiers),
            verbatim: KindSet::resolve(kinds, &config.edit.verbatim),
            to_end: KindSet::resolve(kinds, &config.symbols.to_end),
            opaque: KindSet::resolve(kinds, &config.symbols.opaque),
            no_imports_in: KindSet::resolve(kinds, &config.refs.no_imports_in),
            ruled: KindSet::resolve(
                kinds,
                &(config.rules.scoped.iter().map(|r| &r.kinds))
                    .chain(config.rules.unique.iter().map(|r| &r.kinds))
                    .chain(config.rules.order.iter().map(|r| &r.kinds))
                    .flatten()
                    .cloned()
                    .collect::<Vec<String>>(),
            ),
            unseen: KindSet::resolve(kinds, config.lsp.as_ref().map_or(&[][..], |l| &l.unseen)),
            body_fields: config
                .symbols
                .body_fields
                .iter()
                .filter_map(|f| grammar.field_id_for_name(f))
                .map(|id| id.get())
                .collect(),
            leading: KindSet::resolve_any(
                kinds,
                &config
                    .symbols
                    .leading
                    .iter()
                    .map(|r| r.kind.clone())
                    .collect::<Vec<String>>(),
            ),
        }
    }
}

impl std::fmt::Debug for Language {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Language")
            .field("name", &self.config.name)
            .finish()
    }
}

impl Language {
    pub fn name(&self) -> &str {
        &self.config.name
    }

    pub fn grammar(&self) -> &tree_sitter::Language {
        &self.grammar
    }

    pub fn separator(&self) -> &str {
        &self.config.separator
    }

    pub fn rules(&self) -> &SymbolRules {
        &self.config.symbols
    }

    /// The node kinds of the language file, resolved to ids (on first use:
    /// most commands need the kinds of one language, or none).
    pub fn kinds(&self) -> &Kinds {
        self.kinds
            .get_or_init(|| Kinds::resolve(&self.config, &KindNames::new(&self.grammar)))
    }

    /// `text` as the language's `recover` rules read it (same length, same
    /// line breaks), or `None` when no rule matches.
    pub fn recovered_text(&self, text: &str) -> Option<String> {
        let mut bytes: Option<Vec<u8>> = None;
        for (re, read_as) in &self.recover {
            let re = re.get();
            let mut pos = 0;
            while let Some(caps) = re.captures_at(text, pos) {
                let Some(at) = caps.name("at") else { break };
                let out = bytes.get_or_insert_with(|| text.as_bytes().to_vec());
                for b in &mut out[at.start()..at.end()] {
                    if *b != b'\n' && *b != b'\r' {
                        *b = *read_as;
                    }
                }
                // The next match may start on the line this one rewrote (a
                // rule's context can be the previous line, as for the
                // second of two overloads): resume one character after this
                // match's start, not after its `at`. Rewriting an `at` twice
                // writes the same bytes.
                let start = caps.get(0).map_or(at.start(), |m| m.start());
                pos = start + text[start..].chars().next().map_or(1, char::len_utf8);
            }
        }
        // Every replaced byte is ASCII, and whole characters are replaced.
        bytes.map(|b| String::from_utf8(b).expect("ASCII replacements keep UTF-8"))
    }

    /// Regex templates of the lines a definition's name can stand on
    /// (`{name}` for the name; see [`SearchRules`]).
    pub fn definition_lines(&self) -> &[String] {
        &self.config.search.definition_lines
    }

    /// Do two symbol kinds share a namespace (`refs.namespaces`)?
    pub fn same_namespace(&self, a: &str, b: &str) -> bool {
        let group = |k: &str| {
            self.config
                .refs
                .namespaces
                .iter()
                .position(|g| g.iter().any(|x| x == k))
        };
        group(a) == group(b)
    }

    /// Can a file of language `other` use this language's definitions?
    pub fn binds_with(&self, other: &Language) -> bool {
        other.name() == self.name() || self.config.refs.interop.iter().any(|l| l == other.name())
    }

    /// The `refs` rules of the language's TOML.
    pub fn refs_rules(&self) -> &RefsRules {
        &self.config.refs
    }

    /// Does `node` (a preceding sibling) match a leading-trivia rule?
    pub fn is_leading(&self, kind: &str, text: &str) -> bool {
        self.leading
            .iter()
            .any(|(k, re)| k == kind && re.as_ref().is_none_or(|re| re.get().is_match(text)))
    }

    /// Names of the query files this language has (`tags`, `imports`, ...).
    pub fn query_files(&self) -> impl Iterator<Item = &str> {
        self.sources.keys().map(|s| s.as_str())
    }

    /// The text of query file `stem` (`tags`, `imports`, ...), its
    /// inherited files included.
    pub fn query_source(&self, stem: &str) -> Option<&str> {
        self.sources.get(stem).map(|(_, src)| src.as_str())
    }

    /// The compiled `tags.scm` (compiled on first use, then cached).
    pub fn tags_query(&self) -> Result<Arc<TagsQuery>> {
        self.tags
            .get_or_init(|| {
                let (file, src) = self.sources.get("tags").ok_or_else(|| {
                    Error::new(
                        ErrorCode::UnsupportedLanguage,
                        format!("language {} has no tags.scm", self.name()),
                    )
                    .with_suggestion(format!("add queries/{}/tags.scm", self.name()))
                })?;
                query::compile(
                    self.name(),
                    file,
                    &self.grammar,
                    src,
                    query::tag_role,
                    query::legal_tag_captures,
                    self.relaxed("tags"),
                )
                .map(Arc::new)
            })
            .clone()
    }

    /// The compiled `imports.scm`, if the language has one.
    pub fn imports_query(&self) -> Result<Option<Arc<ImportsQuery>>> {
        self.optional_query(
            &self.imports,
            "imports",
            query::import_role,
            query::legal_import_captures,
        )
    }

    /// The compiled `references.scm`, if the language has one.
    pub fn references_query(&self) -> Result<Option<Arc<ReferencesQuery>>> {
        self.optional_query(
            &self.references,
            "references",
            query::reference_role,
            query::legal_reference_captures,
        )
    }

    /// Whether query `stem` compiles relaxed.
    fn relaxed(&self, stem: &str) -> bool {
        self.relax_queries && self.config.relaxed_queries.iter().any(|s| s == stem)
    }

    /// Compile the optional query file `stem` once and cache it in `cell`.
    fn optional_query<R: Clone>(
        &self,
        cell: &OnceLock<Result<Option<Arc<query::Compiled<R>>>>>,
        stem: &str,
        role_of: fn(&str) -> Option<R>,
        legal: fn() -> Vec<String>,
    ) -> Result<Option<Arc<query::Compiled<R>>>> {
        cell.get_or_init(|| {
            let Some((file, src)) = self.sources.get(stem) else {
                return Ok(None);
            };
            query::compile(
                self.name(),
                file,
                &self.grammar,
                src,
                role_of,
                legal,
                self.relaxed(stem),
            )
            .map(|q| Some(Arc::new(q)))
        })
        .clone()
    }
}

/// The parsers `[edit] second_opinion` may name (`edit::second`).
pub const SECOND_OPINIONS: &[&str] = &["syn"];

/// Every node kind a language file names must exist in its grammar: a
/// typo would otherwise make a rule silently never apply.
fn check_node_kinds(path: &str, config: &LanguageConfig, kinds: &KindNames<'_>) -> Result<()> {
    let grammar = kinds.grammar;
    let rules = &config.symbols;
    let named = rules
        .wrappers
        .iter()
        .map(|k| ("symbols.wrappers", k))
        .chain(rules.leading.iter().map(|r| ("symbols.leading", &r.kind)))
        .chain(rules.to_end.iter().map(|k| ("symbols.to_end", k)))
        .chain(rules.opaque.iter().map(|k| ("symbols.opaque", k)))
        .chain((config.refs.no_imports_in.iter()).map(|k| ("refs.no_imports_in", k)))
        .chain(rules.identifiers.iter().map(|k| ("symbols.identifiers", k)))
        .chain(rules.docstring.iter().map(|k| ("symbols.docstring", k)))
        .chain(config.edit.verbatim.iter().map(|k| ("edit.verbatim", k)))
        .chain(config.rules.scoped.iter().flat_map(|r| {
            r.kinds
                .iter()
                .chain(&r.scopes)
                .chain(&r.allowed)
                .map(|k| ("rules.scoped", k))
        }))
        .chain(
            config
                .rules
                .unique
                .iter()
                .flat_map(|r| r.kinds.iter().map(|k| ("rules.unique", k))),
        )
        .chain(config.rules.order.iter().flat_map(|r| {
            r.kinds
                .iter()
                .chain(&r.after)
                .chain(&r.free)
                .chain(&r.until)
                .chain(&r.through)
                .map(|k| ("rules.order", k))
        }))
        .chain(config.offside.iter().flat_map(|o| {
            o.atomic
                .iter()
                .chain(&o.line_parents)
                .chain(&o.line_nodes)
                .map(|k| ("offside", k))
        }))
        .chain(
            config
                .lsp
                .iter()
                .flat_map(|l| l.unseen.iter().map(|k| ("lsp.unseen", k))),
        );
    let anonymous = config.offside.iter().flat_map(|o| {
        o.brackets
            .iter()
            .flatten()
            .chain(std::iter::once(&o.block_opener))
            .map(|k| ("offside", k))
    });
    let bad = |(key, kind): (&str, &String), is_named: bool| {
        (!kinds.exists(kind, is_named)).then(|| format!("{key}: `{kind}`"))
    };
    // Field names too: a misspelt body field would make every signature
    // and docstring rule silently never apply.
    let fields = rules
        .body_fields
        .iter()
        .filter(|f| grammar.field_id_for_name(f.as_str()).is_none())
        .map(|f| format!("symbols.body_fields: `{f}`"));
    let unknown: Vec<String> = named
        .filter_map(|k| bad(k, true))
        .chain(anonymous.filter_map(|k| bad(k, false)))
        .chain(fields)
        .collect();
    if let Some(p) = &config.edit.second_opinion
        && !SECOND_OPINIONS.contains(&p.as_str())
    {
        return Err(Error::invalid_argument(format!(
            "{path}: edit.second_opinion: unknown parser `{p}`"
        ))
        .with_suggestion(format!(
            "set edit.second_opinion to one of {}, or remove it",
            SECOND_OPINIONS.join(", ")
        )));
    }
    if unknown.is_empty() {
        return Ok(());
    }
    Err(Error::invalid_argument(format!(
        "{path}: node kind(s) or field(s) not in the `{}` grammar: {}",
        config.grammar,
        unknown.join(", ")
    ))
    .with_suggestion("check the spelling with `scalpel parse FILE --dump-tree`")
    .with_details(serde_json::json!({"file": path, "unknown": unknown})))
}

/// All known languages.
#[derive(Debug)]
pub struct Registry {
    languages: Vec<Arc<Language>>,
}

static BUILTIN: OnceLock<Arc<Registry>> = OnceLock::new();

impl Registry {
    /// The embedded languages only. Their data passes every check of
    /// [`Registry::from_files`] (tested:
    /// `embedded_language_data_passes_every_load_check`), so the checks
    /// that cost most, the node kinds named and the regexes' syntax, are
    /// not made again at every start: they were most of what a command
    /// paid before its work began.
    pub fn builtin() -> Arc<Registry> {
        BUILTIN
            .get_or_init(|| {
                Arc::new(
                    Registry::load(embedded_files(), false)
                        .expect("embedded language data is valid (tested)"),
                )
            })
            .clone()
    }

    /// Embedded languages with the files of `dir` laid over them (same
    /// layout: `grammars/*.toml`, `queries/<lang>/*.scm`).
    pub fn with_override(dir: Option<&Path>) -> Result<Arc<Registry>> {
        let Some(dir) = dir else {
            return Ok(Registry::builtin());
        };
        let mut files: BTreeMap<String, String> = embedded_files().into_iter().collect();
        let found = read_override_dir(dir)?;
        if found.is_empty() {
            return Err(Error::invalid_argument(format!(
                "language override directory {} holds no grammars/*.toml or queries/*/*.scm",
                dir.display()
            ))
            .with_suggestion("lay it out like the built-in data: grammars/<lang>.toml and queries/<lang>/tags.scm"));
        }
        files.extend(found);
        Registry::from_files(files.into_iter().collect()).map(Arc::new)
    }

    /// Build a registry from `(relative path, content)` pairs, every node
    /// kind, field and regex they name checked.
    pub fn from_files(files: Vec<(String, String)>) -> Result<Registry> {
        Registry::load(files, true)
    }

    /// [`Registry::from_files`] without the load checks, and with the
    /// `relaxed_queries` relaxed, as [`Registry::builtin`] loads the
    /// embedded data: for the benches, which time the built-in data
    /// changed (`benches/queries.rs`). Not for data a user gave.
    #[doc(hidden)]
    pub fn from_trusted_files(files: Vec<(String, String)>) -> Result<Registry> {
        Registry::load(files, false)
    }

    /// [`Registry::from_files`]; without `check`, the node kinds, fields
    /// and regexes are taken as valid (only for data tested to be).
    fn load(files: Vec<(String, String)>, check: bool) -> Result<Registry> {
        let mut configs = Vec::new();
        let mut queries: BTreeMap<String, BTreeMap<String, (String, String)>> = BTreeMap::new();
        for (path, content) in &files {
            let parts: Vec<&str> = path.split('/').collect();
            match parts.as_slice() {
                ["grammars", file] if file.ends_with(".toml") => {
                    let cfg: LanguageConfig = toml::from_str(content).map_err(|e| {
                        Error::invalid_argument(format!(
                            "{path}: {}",
                            e.message().lines().next().unwrap_or("invalid TOML")
                        ))
                        .with_suggestion(
                            "fix the language definition; see grammars/python.toml for the keys",
                        )
                        .with_details(serde_json::json!({"file": path, "error": e.to_string()}))
                    })?;
                    configs.push((path.clone(), cfg));
                }
                ["queries", lang, file] if file.ends_with(".scm") => {
                    let stem = file.trim_end_matches(".scm").to_string();
                    queries
                        .entry(lang.to_string())
                        .or_default()
                        .insert(stem, (path.clone(), content.clone()));
                }
                _ => {}
            }
        }
        let mut languages = Vec::new();
        for (path, config) in configs {
            let grammar = grammars::grammar(&config.grammar).ok_or_else(|| {
                Error::invalid_argument(format!("{path}: unknown grammar `{}`", config.grammar))
                    .with_suggestion(format!(
                        "use one of the compiled-in grammars: {}",
                        grammars::names().collect::<Vec<_>>().join(", ")
                    ))
            })?;
            if check {
                check_node_kinds(&path, &config, &KindNames::new(&grammar))?;
            }
            if let Some(lsp) = &config.lsp {
                lsp.check(&path)?;
            }
            let mut leading = Vec::new();
            for rule in &config.symbols.leading {
                let re = match &rule.text {
                    Some(t) => Some(LazyRegex::new(t, check).map_err(|e| {
                        Error::invalid_argument(format!("{path}: bad regex in leading rule: {e}"))
                            .with_suggestion(
                                "fix the `text` regex of that `[[symbols.leading]]` rule",
                            )
                    })?),
                    None => None,
                };
                leading.push((rule.kind.clone(), re));
            }
            let mut recover = Vec::new();
            for rule in &config.recover {
                let bad = |why: String| {
                    Error::invalid_argument(format!("{path}: bad recover rule: {why}"))
                        .with_suggestion("`pattern` is a regex with a group `(?P<at>...)`; `read_as` one ASCII character")
                };
                let re = LazyRegex::new(&rule.pattern, check).map_err(bad)?;
                if !rule.pattern.contains("(?P<at>") && !rule.pattern.contains("(?<at>") {
                    return Err(bad(format!("`{}` has no group `at`", rule.pattern)));
                }
                let &[read_as] = rule.read_as.as_bytes() else {
                    return Err(bad(format!(
                        "read_as `{}` is not one character",
                        rule.read_as
                    )));
                };
                if !read_as.is_ascii() || read_as == b'\n' {
                    return Err(bad(format!("read_as `{}` is not ASCII", rule.read_as)));
                }
                recover.push((re, read_as));
            }
            let mut claims = Vec::new();
            for claim in &config.claims {
                let re = LazyRegex::new(&claim.content, check).map_err(|e| {
                    Error::invalid_argument(format!("{path}: bad regex in a claim: {e}"))
                        .with_suggestion("fix the `content` regex of that `[[claims]]` entry")
                })?;
                let types = claim.file_types.iter().map(|t| t.to_ascii_lowercase());
                claims.push((types.collect(), re));
            }
            for k in config.refs.namespaces.iter().flatten() {
                if !query::SYMBOL_KINDS.contains(&k.as_str()) {
                    return Err(Error::invalid_argument(format!(
                        "{path}: refs.namespaces names `{k}`, which is not a symbol kind"
                    ))
                    .with_suggestion(format!(
                        "use the kinds of tags.scm: {}",
                        query::SYMBOL_KINDS.join(", ")
                    )));
                }
            }
            for n in &config.refs.named_after {
                let bad = |why: String| {
                    Error::invalid_argument(format!("{path}: bad refs.named_after rule: {why}"))
                        .with_suggestion("`prefix` and `join` are non-empty texts, `files` a glob over file names, `kinds` symbol kinds of tags.scm")
                };
                if n.prefix.is_empty() || n.join.is_empty() {
                    return Err(bad("an empty `prefix` or `join`".into()));
                }
                globset::Glob::new(&n.files).map_err(|e| bad(format!("`files`: {e}")))?;
                if let Some(k) =
                    (n.kinds.iter()).find(|k| !query::SYMBOL_KINDS.contains(&k.as_str()))
                {
                    return Err(bad(format!("`{k}` is not a symbol kind")));
                }
                if n.kinds.is_empty() {
                    return Err(bad("no `kinds`".into()));
                }
            }
            if let Some(m) = &config.refs.root_module {
                let plain = !m.file.is_empty() && !m.file.contains(['/', '\\']) && m.file != "..";
                if !plain || m.keyword.trim().is_empty() {
                    return Err(Error::invalid_argument(format!(
                        "{path}: bad refs.root_module: `file` must name a file at the root, `keyword` a word"
                    ))
                    .with_suggestion("write e.g. root_module = { file = \"go.mod\", keyword = \"module\" }"));
                }
            }
            for t in &config.search.definition_lines {
                let bad = |why: String| {
                    Error::invalid_argument(format!(
                        "{path}: bad search.definition_lines entry `{t}`: {why}"
                    ))
                    .with_suggestion(
                        "each entry is a regex with `{name}` where the definition's name stands",
                    )
                };
                if !t.contains("{name}") {
                    return Err(bad("it has no `{name}`".to_string()));
                }
                LazyRegex::new(&t.replace("{name}", "x"), check).map_err(bad)?;
            }
            let mut sources = BTreeMap::new();
            for (stem, (qpath, _)) in queries.get(&config.name).into_iter().flatten() {
                let text = resolve_inherits(&queries, &config.name, stem, 0)?;
                sources.insert(stem.clone(), (qpath.clone(), text));
            }
            const STEMS: [&str; 3] = ["tags", "references", "imports"];
            if check
                && let Some(stem) =
                    (config.relaxed_queries.iter()).find(|s| !STEMS.contains(&s.as_str()))
            {
                return Err(Error::invalid_argument(format!(
                    "{path}: relaxed_queries names `{stem}`, not a query"
                ))
                .with_suggestion(format!("name some of: {}", STEMS.join(", ")))
                .with_details(serde_json::json!({"file": path, "query": stem})));
            }
            languages.push(Arc::new(Language {
                kinds: OnceLock::new(),
                config,
                grammar,
                leading,
                recover,
                claims,
                sources,
                relax_queries: !check,
                tags: OnceLock::new(),
                imports: OnceLock::new(),
                references: OnceLock::new(),
            }));
        }
        languages.sort_by(|a, b| a.name().cmp(b.name()));
        // A claim is on another language's files: one on a type nobody
        // reads would never be asked, and belongs in `file_types`.
        for l in &languages {
            for (types, _) in &l.claims {
                for t in types {
                    let owner = languages.iter().any(|o| o.config.file_types.contains(t));
                    if !owner {
                        return Err(Error::invalid_argument(format!(
                            "grammars/{}.toml claims `.{t}`, which no language reads",
                            l.name()
                        ))
                        .with_suggestion(format!("put `{t}` in its `file_types` instead")));
                    }
                }
            }
        }
        Ok(Registry { languages })
    }

    pub fn languages(&self) -> &[Arc<Language>] {
        &self.languages
    }

    /// Look a language up by name or alias (case-insensitive).
    pub fn by_name(&self, name: &str) -> Option<&Arc<Language>> {
        let name = name.to_ascii_lowercase();
        self.languages
            .iter()
            .find(|l| l.config.name == name || l.config.aliases.contains(&name))
    }

    /// Detect a file's language from its name, then (given its `text`) a
    /// language's claim on its content, then its extension, then its `#!`
    /// line.
    pub fn detect(&self, path: &Path, text: Option<&str>) -> Option<&Arc<Language>> {
        let file_name = path.file_name().and_then(|f| f.to_str()).unwrap_or("");
        if let Some(l) = self
            .languages
            .iter()
            .find(|l| l.config.filenames.iter().any(|f| f == file_name))
        {
            return Some(l);
        }
        if let Some(ext) = path.extension().and_then(|e| e.to_str()) {
            let ext = ext.to_ascii_lowercase();
            if let Some(text) = text {
                let mut end = text.len().min(CLAIM_WINDOW);
                while !text.is_char_boundary(end) {
                    end -= 1;
                }
                let window = &text[..end];
                if let Some(l) = self.languages.iter().find(|l| {
                    l.claims
                        .iter()
                        .any(|(types, re)| types.contains(&ext) && re.get().is_match(window))
                }) {
                    return Some(l);
                }
            }
            if let Some(l) = self
                .languages
                .iter()
                .find(|l| l.config.file_types.contains(&ext))
            {
                return Some(l);
            }
        }
        let interpreter = shebang_interpreter(text?.lines().next()?)?;
        self.languages
            .iter()
            .find(|l| l.config.shebangs.contains(&interpreter))
    }

    /// Whether a file like `path` may change language with its content
    /// (another language claims its extension), so that detecting it by
    /// name alone is not the last word.
    pub fn decided_by_content(&self, path: &Path) -> bool {
        let Some(ext) = path.extension().and_then(|e| e.to_str()) else {
            return false;
        };
        let ext = ext.to_ascii_lowercase();
        self.languages
            .iter()
            .any(|l| l.claims.iter().any(|(types, _)| types.contains(&ext)))
    }

    /// `UNSUPPORTED_LANGUAGE` for `path`, naming what is supported.
    pub fn unsupported(&self, path: &Path) -> Error {
        let supported: Vec<String> = self
            .languages
            .iter()
            .map(|l| format!("{} (.{})", l.name(), l.config.file_types.join(", .")))
            .collect();
        Error::new(
            ErrorCode::UnsupportedLanguage,
            format!("no grammar for {}", path.display()),
        )
        .with_suggestion(format!(
            "supported: {}; pass ⟦language⟧ to force one, or use ⟦read_fragment⟧ and ⟦edit_file⟧",
            supported.join("; ")
        ))
        .with_details(serde_json::json!({
            "path": path.display().to_string(),
            "supported": self.languages.iter().map(|l| l.name()).collect::<Vec<_>>(),
        }))
    }
}

/// `#!/usr/bin/env python3 -u` → `python3`; `#!/bin/node` → `node`.
fn shebang_interpreter(line: &str) -> Option<String> {
    let rest = line.strip_prefix("#!")?.trim();
    let mut words = rest.split_whitespace();
    let mut prog = words.next()?;
    if prog.ends_with("/env") {
        prog = words.find(|w| !w.starts_with('-'))?;
    }
    let base = prog.rsplit('/').next()?;
    Some(base.to_string())
}

/// Query files may start with `; inherits: a, b` to prepend other
/// languages' query of the same name (TSX inherits TypeScript, ...).
fn resolve_inherits(
    all: &BTreeMap<String, BTreeMap<String, (String, String)>>,
    lang: &str,
    stem: &str,
    depth: usize,
) -> Result<String> {
    let (path, src) = all.get(lang).and_then(|m| m.get(stem)).ok_or_else(|| {
        Error::invalid_argument(format!("no queries/{lang}/{stem}.scm to inherit"))
            .with_suggestion("name a language that has this query in `; inherits:`")
    })?;
    if depth > 8 {
        return Err(Error::invalid_argument(format!(
            "{path}: `; inherits:` chain too deep (a cycle?)"
        ))
        .with_suggestion("remove the cycle from the `; inherits:` lines"));
    }
    let mut out = String::new();
    if let Some(first) = src.lines().next()
        && let Some(list) = first.trim().strip_prefix("; inherits:")
    {
        for parent in list.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            out.push_str(&resolve_inherits(all, parent, stem, depth + 1)?);
            out.push('\n');
        }
    }
    out.push_str(src);
    Ok(out)
}

/// The built-in language data, `(relative path, content)`: what
/// [`Registry::builtin`] loads, for [`Registry::from_files`] to load with
/// every check (and its queries as written).
pub fn embedded_files() -> Vec<(String, String)> {
    embedded::EMBEDDED
        .iter()
        .map(|(p, c)| (p.to_string(), c.to_string()))
        .collect()
}

fn read_override_dir(dir: &Path) -> Result<Vec<(String, String)>> {
    let mut out = Vec::new();
    let read = |p: &Path| std::fs::read_to_string(p).map_err(|e| Error::io("read", p, &e));
    let grammars = dir.join("grammars");
    if let Ok(rd) = std::fs::read_dir(&grammars) {
        for e in rd.flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "toml") {
                let name = p
                    .file_name()
                    .unwrap_or_default()
                    .to_string_lossy()
                    .to_string();
                out.push((format!("grammars/{name}"), read(&p)?));
            }
        }
    }
    if let Ok(rd) = std::fs::read_dir(dir.join("queries")) {
        for lang in rd.flatten().filter(|e| e.path().is_dir()) {
            let lname = lang.file_name().to_string_lossy().to_string();
            for q in std::fs::read_dir(lang.path())
                .into_iter()
                .flatten()
                .flatten()
            {
                let p = q.path();
                if p.extension().is_some_and(|x| x == "scm") {
                    let name = p
                        .file_name()
                        .unwrap_or_default()
                        .to_string_lossy()
                        .to_string();
                    out.push((format!("queries/{lname}/{name}"), read(&p)?));
                }
            }
        }
    }
    if !dir.is_dir() {
        return Err(Error::io(
            "read",
            dir,
            &std::io::Error::new(std::io::ErrorKind::NotFound, "override directory not found"),
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `Registry::builtin` skips the load checks its data passes: this is
    /// where it is shown to pass them.
    #[test]
    fn embedded_language_data_passes_every_load_check() {
        let checked = Registry::from_files(embedded_files()).expect("every check passes");
        let names = |r: &Registry| {
            r.languages()
                .iter()
                .map(|l| l.name().to_string())
                .collect::<Vec<_>>()
        };
        assert_eq!(names(&checked), names(&Registry::builtin()));
    }

    /// The kind table answers what the grammar's own lookups answer, for
    /// every kind name of every grammar, named and anonymous.
    #[test]
    fn the_kind_table_agrees_with_the_grammar() {
        for lang in Registry::builtin().languages() {
            let grammar = &lang.grammar;
            let table = KindNames::new(grammar);
            for id in 0..grammar.node_kind_count() as u16 {
                let Some(name) = grammar.node_kind_for_id(id) else {
                    continue;
                };
                assert!(table.ids(name).contains(&id), "{}: {name}", lang.name());
                // tree-sitter compares a name with `ERROR` by the name's
                // length, so "E" is found as `ERROR` there: not a kind.
                if name != "ERROR" && "ERROR".starts_with(name) {
                    continue;
                }
                for named in [true, false] {
                    assert_eq!(
                        table.exists(name, named),
                        grammar.id_for_node_kind(name, named) != 0,
                        "{}: {name:?} named {named}",
                        lang.name()
                    );
                }
            }
        }
    }

    #[test]
    fn a_claim_decides_by_content_and_only_with_it() {
        let reg = Registry::builtin();
        let at = |text: Option<&str>| reg.detect(Path::new("x/a.h"), text).unwrap().name();
        assert_eq!(at(None), "c");
        assert_eq!(at(Some("int f(void);\n")), "c");
        assert_eq!(
            at(Some("#pragma once\nnamespace geo {\nint f();\n}\n")),
            "cpp"
        );
        assert_eq!(at(Some("template <typename T>\nT id(T t);\n")), "cpp");
        // `#ifdef __cplusplus` / `extern "C" {` alone is a C header.
        assert_eq!(
            at(Some(
                "#ifdef __cplusplus\nextern \"C\" {\n#endif\nint f(void);\n"
            )),
            "c"
        );
        // Only the first window is read.
        let late = format!(
            "{}\nnamespace geo {{}}\n",
            "int x;\n".repeat(CLAIM_WINDOW / 7 + 1)
        );
        assert_eq!(at(Some(&late)), "c");
        // The claim is on `.h` only.
        assert_eq!(
            reg.detect(Path::new("a.c"), Some("namespace x {}\n"))
                .unwrap()
                .name(),
            "c"
        );
        assert!(reg.decided_by_content(Path::new("a.H")));
        assert!(!reg.decided_by_content(Path::new("a.c")));
    }

    #[test]
    fn a_claim_on_a_type_no_language_reads_is_refused_at_load() {
        let mut files = embedded_files();
        let (_, c) = files
            .iter_mut()
            .find(|(p, _)| p == "grammars/c.toml")
            .unwrap();
        *c = c.replacen(
            "shebangs = []",
            "shebangs = []\nclaims = [{ file_types = [\"zz\"], content = 'x' }]",
            1,
        );
        let err = Registry::from_files(files).expect_err("a claim nobody can be asked");
        assert!(err.to_string().contains("claims `.zz`"), "{err}");
    }

    #[test]
    fn shebangs() {
        assert_eq!(
            shebang_interpreter("#!/usr/bin/env python3 -u").as_deref(),
            Some("python3")
        );
        assert_eq!(
            shebang_interpreter("#!/usr/bin/env -S node --x").as_deref(),
            Some("node")
        );
        assert_eq!(
            shebang_interpreter("#!/bin/python").as_deref(),
            Some("python")
        );
        assert_eq!(shebang_interpreter("# not"), None);
    }
}
