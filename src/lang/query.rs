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
/// unknown captures with the list of legal ones.
pub fn compile<R>(
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
    Ok(Compiled { query, roles })
}
