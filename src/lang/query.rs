//! Compiled queries and the legal capture vocabulary. Capture names are the
//! contract between `.scm` files and the engine: anything outside the legal
//! set is rejected when the query is compiled, with a message listing the
//! legal names, so a typo in a query never silently drops symbols.

use crate::error::{Error, ErrorCode, Result};
use tree_sitter::Query;

/// Symbol kinds, in LSP `DocumentSymbol` vocabulary plus the few kinds that
/// code in our languages needs (trait, type alias, macro, union, and `impl`
/// for a Rust implementation block).
pub const SYMBOL_KINDS: &[&str] = &[
    "module",
    "namespace",
    "package",
    "class",
    "method",
    "property",
    "field",
    "constructor",
    "enum",
    "enum_member",
    "interface",
    "function",
    "variable",
    "constant",
    "struct",
    "event",
    "operator",
    "type_parameter",
    "trait",
    "type",
    "macro",
    "union",
    "impl",
];

/// What a capture in `tags.scm` means to the engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TagRole {
    /// `@definition.<kind>`: the whole definition node.
    Definition(&'static str),
    /// `@name`: the identifier of the definition or scope.
    Name,
    /// `@doc`: documentation belonging to the definition (widens its range).
    Doc,
    /// `@scope`: a node that is not a symbol itself but contributes its
    /// `@name` to the name path of the definitions inside it (Rust `impl`).
    Scope,
    /// `@qualifier`: the owner a definition names outside its own name (a
    /// Go method's receiver type, a C++ `ns::Cls::` before an out-of-class
    /// definition). Its text, split like a name path, goes before the name
    /// in the symbol's name path; the name stays the `@name` text.
    Qualifier,
    /// `@_anything`: a helper capture for predicates; ignored.
    Private,
}

/// What a capture in `imports.scm` means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImportRole {
    /// `@import`: the whole import statement.
    Import,
    /// `@name`: a name the statement binds in this file.
    Name,
    Private,
}

/// What a capture in `references.scm` means: the uses of names inside a
/// symbol, for its same-file dependencies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefRole {
    /// `@reference` / `@reference.<kind>` (call, type, value, macro): a name
    /// used on its own, resolved lexically.
    Reference,
    /// `@reference.member`: a name after a receiver (`x.name`, `X::name`);
    /// its match also captures `@receiver` or `@receiver.self`.
    Member,
    /// `@reference.member.call`: a member that is called (`self.f()`): only
    /// methods, functions and constructors. Wins over `.field`.
    MemberCall,
    /// `@reference.member.field`: a member read or written, never called,
    /// in a language where methods are only called (Rust `self.len`): not a
    /// method.
    MemberField,
    /// `@receiver`: the expression before a member name.
    Receiver,
    /// `@receiver.self`: a receiver that is the enclosing type or instance
    /// (`self`, `this`, `Self`); the query's predicates decide which.
    SelfReceiver,
    /// `@receiver.super`: a receiver that is the enclosing type's base
    /// (`super`, `super()`): its members are looked up in the bases only.
    SuperReceiver,
    /// `@local.definition`: a parameter or local binding; it hides top-level
    /// names of the same spelling inside its scope.
    LocalDefinition,
    /// `@local.scope`: where the local definitions inside it are visible.
    LocalScope,
    /// `@local.type`: the type a `@local.definition` of the same match is
    /// declared with (`x: Foo`) or constructed from (`x = Foo()`,
    /// `new Foo()`); written only where that type is one named type.
    LocalType,
    /// `@ignore`: a name that is neither a use nor a binding (a keyword
    /// argument's name, ...).
    Ignore,
    /// `@reference.maybe`: a word that may or may not name a definition
    /// (a Bash command argument, a Ruby symbol): a node any other use
    /// capture also captures is that use; otherwise it is never left alone
    /// but undecided, so a rename that would need it is refused unless the
    /// caller decides.
    Maybe,
    /// `@base`: a type named in a class or impl header that the type
    /// derives from or implements (Python superclasses, TS `extends` /
    /// `implements`): a member of the same name in it is overridden.
    Base,
    /// `@base.whole`: a type whose members every member of the body
    /// implements (Rust `impl Trait for T`): each method is the trait's.
    BaseWhole,
    Private,
}

/// The `@reference.<kind>` suffixes a references query may use.
pub const REFERENCE_KINDS: &[&str] = &["call", "type", "value", "macro"];

/// A compiled query plus the role of each capture index.
pub struct Compiled<R> {
    pub query: Query,
    pub roles: Vec<R>,
    /// The node kinds every match starts at, when the query says so
    /// plainly ([`Roots`]).
    pub roots: Option<Roots>,
    /// The `#has-parent?` and `#kind?` predicates of each pattern.
    kind_rules: Vec<Vec<KindRule>>,
}

/// `(#has-parent? @capture kind ...)`: the captured node's parent is of one
/// of the kinds. One pattern with this predicate says what a pattern per
/// parent kind said (`(translation_unit (declaration ...))`, then the same
/// under `declaration_list`, `preproc_if`, ...), and tree-sitter analyses
/// a query pattern by pattern when it compiles it: C++'s definitions were
/// 2 s of every command that read a C++ file. Evaluated by the engine on
/// every match ([`Compiled::admits`]); the kinds are checked against the
/// grammar when the query is compiled.
///
/// `(#kind? @capture kind ...)`: the captured node itself is of one of the
/// kinds. A wildcard `(_ ...)` is not analysed when the query compiles, so
/// `(field_declaration_list (_ declarator: ...) @d)` with `(#kind? @d
/// function_definition field_declaration)` says what a pattern per kind
/// said, for a fraction of the compile.
struct KindRule {
    capture: u32,
    /// The captured node's parent is checked (`#has-parent?`), or the node
    /// itself (`#kind?`).
    parent: bool,
    kinds: super::KindSet,
}

impl<R> Compiled<R> {
    /// Whether match `m` passes its pattern's `#has-parent?` and `#kind?`
    /// predicates (tree-sitter checks the text predicates itself). A
    /// capture the match does not hold (it is in another branch of an
    /// alternation) passes.
    pub fn admits(&self, m: &tree_sitter::QueryMatch<'_, '_>) -> bool {
        let Some(rules) = self.kind_rules.get(m.pattern_index) else {
            return true;
        };
        rules.iter().all(|rule| {
            m.captures()
                .iter()
                .filter(|c| c.index == rule.capture)
                .all(|c| {
                    let node = if rule.parent {
                        c.node.parent()
                    } else {
                        Some(c.node)
                    };
                    node.is_some_and(|n| rule.kinds.contains(&n))
                })
        })
    }
}

/// The `#has-parent?` and `#kind?` predicates of every pattern of
/// `query`; an error for any other predicate tree-sitter leaves to its host
/// (a misspelt one would otherwise be ignored, and every match admitted).
fn kind_rules(
    query: &Query,
    grammar: &tree_sitter::Language,
    lang: &str,
    file: &str,
) -> Result<Vec<Vec<KindRule>>> {
    use tree_sitter::QueryPredicateArg;
    let bad = |what: String| {
        Error::new(ErrorCode::InvalidArgument, format!("query {file} for {lang}: {what}"))
            .with_suggestion(
                "write (#has-parent? @capture kind ...) or (#kind? @capture kind ...) with node kinds of the grammar, or a predicate tree-sitter knows (#eq?, #match?, #any-of?)",
            )
            .with_details(serde_json::json!({"language": lang, "file": file}))
    };
    // The grammar's kinds by name, read when a pattern first needs them.
    let mut names = None;
    let mut all = Vec::with_capacity(query.pattern_count());
    for i in 0..query.pattern_count() {
        let mut rules = Vec::new();
        for p in query.general_predicates(i) {
            let op = p.operator.as_ref();
            if op != "has-parent?" && op != "kind?" {
                return Err(bad(format!("unknown predicate #{op}")));
            }
            let (Some(QueryPredicateArg::Capture(capture)), kinds) = (p.args.first(), &p.args[1..])
            else {
                return Err(bad(format!("#{op} takes a capture first")));
            };
            if kinds.is_empty() {
                return Err(bad(format!("#{op} names no node kind")));
            }
            let names = names.get_or_insert_with(|| super::KindNames::new(grammar));
            // A parent, or a captured node, is a named node a tree shows.
            let shown =
                |id: u16| grammar.node_kind_is_named(id) && grammar.node_kind_is_visible(id);
            let mut wanted = Vec::new();
            for k in kinds {
                let QueryPredicateArg::String(kind) = k else {
                    return Err(bad(format!("#{op} takes node kinds after its capture")));
                };
                if !names.ids(kind).iter().any(|&id| shown(id)) {
                    return Err(bad(format!(
                        "#{op} names `{kind}`, not a node kind of the grammar"
                    )));
                }
                wanted.push(kind.to_string());
            }
            rules.push(KindRule {
                capture: *capture,
                parent: op == "has-parent?",
                kinds: super::KindSet::resolve_where(names, &wanted, shown),
            });
        }
        all.push(rules);
    }
    Ok(all)
}

/// The node kinds a query's matches can start at: the root node of each of
/// its patterns, read from the pattern's text. A match can then be looked
/// for only from the nodes of those kinds (a run of the query cursor that
/// starts no match deeper than where it starts) rather than by one run over
/// the whole tree, which pays for every node the cursor walks through; a
/// plain walk of the tree to find those nodes costs a fraction of that.
///
/// Only for a query of rooted patterns (one node at the top, or an
/// alternation of such nodes) whose roots are named, visible node kinds:
/// a wildcard `(_)`, a string, a supertype or a top-level sequence of
/// siblings has no such set, and the query then runs over the whole tree.
/// A kind id that merely shares a root's name is kept too: a run from a
/// node that starts no match costs little and finds nothing.
#[derive(Debug, Clone)]
pub struct Roots(Vec<bool>);

impl Roots {
    /// Can a match start at a node of kind `id`?
    pub fn contains(&self, id: u16) -> bool {
        self.0.get(id as usize).copied().unwrap_or(false)
    }

    /// The roots of `query` (compiled from `source` for `grammar`), or
    /// `None` when some pattern's root is not one plain named kind.
    fn of(query: &Query, grammar: &tree_sitter::Language, source: &str) -> Option<Roots> {
        let mut table = vec![false; grammar.node_kind_count()];
        for i in 0..query.pattern_count() {
            if !query.is_pattern_rooted(i) || query.is_pattern_non_local(i) {
                return None;
            }
            let text =
                source.get(query.start_byte_for_pattern(i)..query.end_byte_for_pattern(i))?;
            let mut kinds = Vec::new();
            let rest = pattern_roots(text.as_bytes(), &mut kinds)?;
            // Nothing but captures and predicates... may follow: a second
            // node at the top would make the pattern a sequence.
            if kinds.is_empty() || !skip_space(rest).is_empty() {
                return None;
            }
            for kind in kinds {
                let mut found = false;
                for id in 0..table.len() as u16 {
                    if grammar.node_kind_for_id(id) == Some(kind) {
                        if !grammar.node_kind_is_visible(id) || grammar.node_kind_is_supertype(id) {
                            return None;
                        }
                        table[id as usize] = true;
                        found = true;
                    }
                }
                if !found {
                    return None;
                }
            }
        }
        Some(Roots(table))
    }
}

/// Skip whitespace and `;` comments.
fn skip_space(mut s: &[u8]) -> &[u8] {
    loop {
        match s.first() {
            Some(c) if c.is_ascii_whitespace() => s = &s[1..],
            Some(b';') => {
                let end = s.iter().position(|&c| c == b'\n').unwrap_or(s.len());
                s = &s[end..];
            }
            _ => return s,
        }
    }
}

/// Skip one balanced `(...)` or `[...]` (strings and comments inside
/// included); `None` when it is not closed.
fn skip_balanced(s: &[u8]) -> Option<&[u8]> {
    let mut depth = 0usize;
    let mut i = 0;
    while i < s.len() {
        match s[i] {
            b'(' | b'[' => depth += 1,
            b')' | b']' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(&s[i + 1..]);
                }
            }
            b'"' => {
                i += 1;
                while i < s.len() && s[i] != b'"' {
                    if s[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
            }
            b';' => {
                while i < s.len() && s[i] != b'\n' {
                    i += 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// Skip the captures (`@name`) after a node.
fn skip_captures(mut s: &[u8]) -> &[u8] {
    loop {
        s = skip_space(s);
        if s.first() != Some(&b'@') {
            return s;
        }
        let end = s
            .iter()
            .position(|&c| c.is_ascii_whitespace() || matches!(c, b'(' | b')' | b'[' | b']'))
            .unwrap_or(s.len());
        s = &s[end..];
    }
}

/// Push the root kinds of the node at the start of `s` (after whitespace)
/// to `out` and return what follows it and its captures: a named node
/// `(kind ...)`, a grouping `((kind ...) ...)` or an alternation
/// `[(a ...) (b ...)]`. `None` for anything else (a wildcard, a string, a
/// quantifier, a supertype `(a/b)`).
fn pattern_roots<'s>(s: &'s [u8], out: &mut Vec<&'s str>) -> Option<&'s [u8]> {
    let s = skip_space(s);
    let rest = match s.first()? {
        b'[' => {
            let mut inner = skip_space(&s[1..]);
            while inner.first() != Some(&b']') {
                inner = skip_space(pattern_roots(inner, out)?);
            }
            &inner[1..]
        }
        b'(' => {
            let inner = skip_space(&s[1..]);
            match inner.first()? {
                // A grouping: its first node is the root (the pattern is
                // rooted, so what follows are predicates).
                b'(' | b'[' => {
                    pattern_roots(inner, out)?;
                }
                _ => {
                    let end = inner
                        .iter()
                        .position(|&c| {
                            c.is_ascii_whitespace() || matches!(c, b'(' | b')' | b'[' | b']' | b'@')
                        })
                        .unwrap_or(inner.len());
                    let kind = std::str::from_utf8(&inner[..end]).ok()?;
                    let plain = !kind.is_empty()
                        && kind != "_"
                        && kind.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_');
                    if !plain || kind.starts_with('_') {
                        return None;
                    }
                    out.push(kind);
                }
            }
            skip_balanced(s)?
        }
        _ => return None,
    };
    let rest = skip_captures(rest);
    match rest.first() {
        Some(b'*' | b'+' | b'?') => None,
        _ => Some(rest),
    }
}

impl<R: std::fmt::Debug> std::fmt::Debug for Compiled<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Compiled")
            .field("patterns", &self.query.pattern_count())
            .field("roles", &self.roles)
            .finish()
    }
}

pub type TagsQuery = Compiled<TagRole>;
pub type ImportsQuery = Compiled<ImportRole>;
pub type ReferencesQuery = Compiled<RefRole>;

pub fn tag_role(capture: &str) -> Option<TagRole> {
    if capture.starts_with('_') {
        return Some(TagRole::Private);
    }
    match capture {
        "name" => Some(TagRole::Name),
        "doc" => Some(TagRole::Doc),
        "scope" => Some(TagRole::Scope),
        "qualifier" => Some(TagRole::Qualifier),
        _ => {
            let kind = capture.strip_prefix("definition.")?;
            SYMBOL_KINDS
                .iter()
                .find(|k| **k == kind)
                .map(|k| TagRole::Definition(k))
        }
    }
}

pub fn import_role(capture: &str) -> Option<ImportRole> {
    if capture.starts_with('_') {
        return Some(ImportRole::Private);
    }
    match capture {
        "import" => Some(ImportRole::Import),
        "name" => Some(ImportRole::Name),
        _ => None,
    }
}

pub fn reference_role(capture: &str) -> Option<RefRole> {
    if capture.starts_with('_') {
        return Some(RefRole::Private);
    }
    match capture {
        "reference" => Some(RefRole::Reference),
        "reference.member" => Some(RefRole::Member),
        "reference.member.call" => Some(RefRole::MemberCall),
        "reference.member.field" => Some(RefRole::MemberField),
        "reference.maybe" => Some(RefRole::Maybe),
        "receiver" => Some(RefRole::Receiver),
        "receiver.self" => Some(RefRole::SelfReceiver),
        "receiver.super" => Some(RefRole::SuperReceiver),
        "local.definition" => Some(RefRole::LocalDefinition),
        "local.scope" => Some(RefRole::LocalScope),
        "local.type" => Some(RefRole::LocalType),
        "ignore" => Some(RefRole::Ignore),
        "base" => Some(RefRole::Base),
        "base.whole" => Some(RefRole::BaseWhole),
        _ => capture
            .strip_prefix("reference.")
            .filter(|k| REFERENCE_KINDS.contains(k))
            .map(|_| RefRole::Reference),
    }
}

pub fn legal_reference_captures() -> Vec<String> {
    let mut v: Vec<String> = [
        "@reference",
        "@reference.member",
        "@reference.member.call",
        "@reference.member.field",
        "@reference.maybe",
        "@receiver",
        "@receiver.self",
        "@receiver.super",
        "@local.definition",
        "@local.scope",
        "@ignore",
        "@base",
        "@base.whole",
        "@_<helper>",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    v.extend(REFERENCE_KINDS.iter().map(|k| format!("@reference.{k}")));
    v
}

pub fn legal_tag_captures() -> Vec<String> {
    let mut v: Vec<String> = ["@name", "@doc", "@scope", "@qualifier", "@_<helper>"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    v.extend(SYMBOL_KINDS.iter().map(|k| format!("@definition.{k}")));
    v
}

pub fn legal_import_captures() -> Vec<String> {
    ["@import", "@name", "@_<helper>"]
        .iter()
        .map(|s| s.to_string())
        .collect()
}

/// Compile `source` for `lang` and map every capture to a role; reject
/// unknown captures with the list of legal ones. With `relax`, the source
/// tree-sitter compiles is [`super::relax::relax`]'s (the same matches,
/// for a fraction of the compile); when that does not compile, the source
/// as written does, and says what is wrong.
pub fn compile<R>(
    lang: &str,
    file: &str,
    grammar: &tree_sitter::Language,
    source: &str,
    role_of: fn(&str) -> Option<R>,
    legal: fn() -> Vec<String>,
    relax: bool,
) -> Result<Compiled<R>> {
    if let Some(relaxed) = relax.then(|| super::relax::relax(source)).flatten() {
        match compile_written(lang, file, grammar, &relaxed, role_of, legal) {
            Ok(compiled) => return Ok(compiled),
            Err(e) => tracing::debug!(lang, file, error = %e, "relaxed query"),
        }
    }
    compile_written(lang, file, grammar, source, role_of, legal)
}

fn compile_written<R>(
    lang: &str,
    file: &str,
    grammar: &tree_sitter::Language,
    source: &str,
    role_of: fn(&str) -> Option<R>,
    legal: fn() -> Vec<String>,
) -> Result<Compiled<R>> {
    let query = Query::new(grammar, source).map_err(|e| {
        Error::new(
            ErrorCode::InvalidArgument,
            format!(
                "query {file} for {lang} does not compile: {:?} error at row {}, column {}: {}",
                e.kind,
                e.row + 1,
                e.column + 1,
                e.message.lines().next().unwrap_or("")
            ),
        )
        .with_suggestion("fix the query; `scalpel parse FILE --dump-tree` shows the node kinds the grammar produces")
        .with_details(serde_json::json!({
            "language": lang, "file": file, "row": e.row + 1, "column": e.column + 1,
            "kind": format!("{:?}", e.kind), "message": e.message,
        }))
    })?;
    let mut roles = Vec::new();
    for name in query.capture_names() {
        match role_of(name) {
            Some(r) => roles.push(r),
            None => {
                let legal = legal();
                return Err(Error::new(
                    ErrorCode::InvalidArgument,
                    format!("query {file} for {lang} uses unknown capture @{name}"),
                )
                .with_suggestion(format!("use one of: {}", legal.join(", ")))
                .with_details(serde_json::json!({
                    "language": lang, "file": file, "capture": name, "legal": legal,
                })));
            }
        }
    }
    let roots = Roots::of(&query, grammar, source);
    let kind_rules = kind_rules(&query, grammar, lang, file)?;
    Ok(Compiled {
        query,
        roles,
        roots,
        kind_rules,
    })
}
