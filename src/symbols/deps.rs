//! What a symbol depends on inside its own file: the definitions elsewhere in
//! the file whose names it uses, and the import statements that bind names it
//! uses. Syntactic (no type resolution): the uses come from the language's
//! `references.scm` (plain names, members after a receiver, parameters and
//! locals that hide file-level names); a language without one falls back to
//! every leaf whose kind it lists in `symbols.identifiers`.

use super::{ParsedFile, Symbol, for_each_match, for_each_rooted_match};
use crate::error::Result;
use crate::lang::query::{ImportRole, RefRole};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use tree_sitter::Node;

/// Kinds that live inside another definition and are reached through it.
const MEMBER_KINDS: &[&str] = &["method", "constructor", "field", "property", "enum_member"];
/// Kinds whose nested definitions are locals, invisible from outside.
const LOCAL_SCOPE_KINDS: &[&str] = &["function", "method", "constructor"];

#[derive(Debug, Clone, Serialize)]
pub struct DependencySymbol {
    pub name_path: String,
    /// Pass this to extract_code to get its code.
    pub address: String,
    pub kind: String,
    pub start_line: usize,
    pub end_line: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct ImportRef {
    pub start_line: usize,
    pub end_line: usize,
    /// The import statement as written.
    pub code: String,
    /// The names it binds that the symbol uses.
    pub names: Vec<String>,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct Dependencies {
    pub symbols: Vec<DependencySymbol>,
    pub imports: Vec<ImportRef>,
}

/// Indices of `target`'s dependencies in `file.symbols`, and the imports.
///
/// Uses come from the language's `references.scm`, run over the symbol's
/// own bytes only: plain names resolve lexically to the definitions visible
/// from the symbol (top level and enclosing scopes), unless a parameter or
/// local of the same spelling hides them; `self.x` / `this.x` / `Self::x`
/// resolve to the members of the enclosing type, else of its same-file
/// bases; `X.y` / `X::y` to the member `y` of the same-file `X`; a member
/// after any other receiver is not resolved.
pub fn dependencies(file: &ParsedFile, target: &Symbol) -> Result<(Dependencies, Vec<usize>)> {
    let body = file.source.body();
    let offset = file.source.body_offset();
    let span = target.full_span();
    let range = span.start_byte - offset..span.end_byte - offset;
    // The names being defined inside the span are not uses of anything.
    // Sorted (symbols are in document order), for binary search.
    let defined: Vec<usize> = file
        .symbols
        .iter()
        .filter(|s| s.name_byte >= span.start_byte && s.name_byte < span.end_byte)
        .map(|s| s.name_byte - offset)
        .collect();
    let uses = scan(file, range.clone(), &defined)?;
    let index = Index::new(file, target);

    let target_index = file
        .symbols
        .iter()
        .position(|s| s.full == target.full && s.name_path == target.name_path);
    let related = |i: usize| {
        let s = &file.symbols[i];
        Some(i) == target_index || s.contains(target) || target.contains(s)
    };
    // Plain names: definitions visible from the target.
    let plain: HashSet<&str> = uses
        .plain
        .iter()
        .filter(|(b, n)| !uses.shadowed(n, *b))
        .map(|(_, n)| *n)
        .collect();
    let mut picked: BTreeSet<usize> = plain
        .iter()
        .flat_map(|n| index.named(n).iter().copied())
        .filter(|&i| visible(file, i, target) && !related(i))
        .collect();
    // Members after a receiver.
    for m in &uses.members {
        let found = match &m.receiver {
            Receiver::SelfLike => {
                self_members(file, &index, m.byte + offset, m.name, m.wants, false)
            }
            Receiver::Super => self_members(file, &index, m.byte + offset, m.name, m.wants, true),
            Receiver::Named(text) => named_members(file, &index, target, &uses, text, m),
            Receiver::Other => Vec::new(),
        };
        picked.extend(found.into_iter().filter(|&i| !related(i)));
    }
    let picked: Vec<usize> = picked.into_iter().collect();
    let symbols = picked
        .iter()
        .map(|&i| {
            let s = &file.symbols[i];
            DependencySymbol {
                name_path: s.name_path.clone(),
                address: s.address().to_string(),
                kind: s.kind.to_string(),
                start_line: s.start_line,
                end_line: s.end_line,
            }
        })
        .collect();

    let imports = file
        .imports()?
        .iter()
        // An import inside the symbol is already part of its code.
        .filter(|i| !(i.start_byte >= range.start && i.end_byte <= range.end))
        .filter_map(|i| {
            let names: Vec<String> = i
                .names
                .iter()
                .filter(|n| plain.contains(n.as_str()))
                .cloned()
                .collect();
            (!names.is_empty()).then(|| ImportRef {
                start_line: i.start_line,
                end_line: i.end_line,
                code: body[i.start_byte..i.end_byte].to_string(),
                names,
            })
        })
        .collect();
    Ok((Dependencies { symbols, imports }, picked))
}

/// Lookups for one call: symbols by name (the file's cached index), and the
/// symbols around the target (its ancestors, itself and its descendants),
/// where `self` can be.
struct Index<'a> {
    file: &'a ParsedFile,
    around: Vec<usize>,
    /// `bases` of a symbol, computed once per call.
    bases: std::cell::RefCell<HashMap<usize, Vec<usize>>>,
}

impl<'a> Index<'a> {
    fn new(file: &'a ParsedFile, target: &Symbol) -> Index<'a> {
        let around = file
            .symbols
            .iter()
            .enumerate()
            .filter(|(_, s)| {
                s.full.start_byte < target.full.end_byte && target.full.start_byte < s.full.end_byte
            })
            .map(|(i, _)| i)
            .collect();
        Index {
            file,
            around,
            bases: Default::default(),
        }
    }

    fn named(&self, name: &str) -> &'a [usize] {
        self.file.symbols_named(name)
    }
}

/// Who a member access goes through.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Receiver<'a> {
    /// `self`, `this`, `Self`.
    SelfLike,
    /// `super`, `super()`.
    Super,
    /// A receiver written as a name or path (`Point`, `io::Error`, `x`).
    Named(&'a str),
    /// Anything else (`f().x`, `a[0].x`).
    Other,
}

struct MemberUse<'a> {
    /// Body offset of the member name.
    byte: usize,
    name: &'a str,
    receiver: Receiver<'a>,
    wants: Access,
}

/// How a member is used, where the language's query tells
/// (`@reference.member.call` / `.field`): Rust calls methods and reads
/// fields apart, so `self.len` is never the method `len()`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// The query does not say (`x.name` in Python, TypeScript).
    Any,
    /// Called: a method, function or constructor.
    Call,
    /// Read or written, never called: not a method.
    Field,
}

impl Access {
    /// Can a definition of `kind` be reached this way?
    pub fn reaches(self, kind: &str) -> bool {
        match self {
            Access::Any => true,
            Access::Call => CALLABLE_KINDS.contains(&kind),
            Access::Field => !CALLABLE_KINDS.contains(&kind),
        }
    }
}

/// Kinds a call can reach.
pub const CALLABLE_KINDS: &[&str] = &["method", "function", "constructor"];

/// The uses of names over a byte range (body offsets).
struct Uses<'a> {
    /// Plain names and where they are.
    plain: Vec<(usize, &'a str)>,
    members: Vec<MemberUse<'a>>,
    /// Local bindings: name and the scope they are visible in.
    locals: Vec<(&'a str, std::ops::Range<usize>)>,
}

impl Uses<'_> {
    /// Is `name` at `byte` a parameter or local rather than a file-level name?
    fn shadowed(&self, name: &str, byte: usize) -> bool {
        self.locals
            .iter()
            .any(|(n, scope)| *n == name && scope.contains(&byte))
    }
}

struct NodeUse<'t> {
    node: Node<'t>,
    /// Bit set of the `RefRole`s this node was captured with.
    roles: u16,
    receiver: Option<(Node<'t>, Receiving)>,
}

/// How a member's receiver was captured (a self-like capture wins).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Receiving {
    Plain,
    Super,
    SelfLike,
}

fn bit(r: RefRole) -> u16 {
    1 << (r as u16)
}

/// Run `references.scm` over `range` (or, for a language without one, take
/// every identifier leaf as a plain use).
fn scan<'a>(
    file: &'a ParsedFile,
    range: std::ops::Range<usize>,
    defined: &[usize],
) -> Result<Uses<'a>> {
    let body = file.source.body();
    let text = |n: Node| &body[n.start_byte()..n.end_byte()];
    let inside = |n: Node| n.start_byte() >= range.start && n.end_byte() <= range.end;
    let mut uses = Uses {
        plain: Vec::new(),
        members: Vec::new(),
        locals: Vec::new(),
    };
    let Some(q) = file.language.references_query()? else {
        let idents = &file.language.kinds().identifiers;
        for_each_node_in(file.tree.root_node(), range.start, range.end, &mut |n| {
            if idents.contains(&n) && defined.binary_search(&n.start_byte()).is_err() {
                uses.plain.push((n.start_byte(), text(n)));
            }
        });
        return Ok(uses);
    };
    let mut captured: Vec<NodeUse> = Vec::new();
    let mut scopes: Vec<std::ops::Range<usize>> = Vec::new();
    // Start at the smallest node around the range, not at the root.
    let root = file.tree.root_node();
    let start = root
        .descendant_for_byte_range(range.start, range.end)
        .unwrap_or(root);
    let deadline = file.walk_deadline();
    let finished = for_each_match(&q, start, body, Some(range.clone()), Some(&deadline), |m| {
        let receiver = m
            .captures()
            .iter()
            .filter_map(|c| match q.roles[c.index as usize] {
                RefRole::SelfReceiver => Some((c.node, Receiving::SelfLike)),
                RefRole::SuperReceiver => Some((c.node, Receiving::Super)),
                RefRole::Receiver => Some((c.node, Receiving::Plain)),
                _ => None,
            })
            .max_by_key(|r| r.1);
        for c in m.captures() {
            let role = q.roles[c.index as usize];
            match role {
                RefRole::LocalScope => {
                    scopes.push(c.node.start_byte()..c.node.end_byte());
                }
                RefRole::Receiver
                | RefRole::SelfReceiver
                | RefRole::SuperReceiver
                | RefRole::Base
                | RefRole::BaseWhole
                | RefRole::Private => {}
                _ if !inside(c.node) || defined.binary_search(&c.node.start_byte()).is_ok() => {}
                _ => {
                    let member = matches!(
                        role,
                        RefRole::Member | RefRole::MemberCall | RefRole::MemberField
                    );
                    captured.push(NodeUse {
                        node: c.node,
                        roles: bit(role),
                        receiver: if member { receiver } else { None },
                    });
                }
            }
        }
    });
    if !finished {
        return Err(deadline.error(&file.language, body.len(), "finding the dependencies"));
    }
    // One entry per node: the union of its roles; a self or super receiver
    // from any pattern wins over a plain one.
    captured.sort_unstable_by_key(|n| (n.node.start_byte(), n.node.id()));
    let mut nodes: Vec<NodeUse> = Vec::with_capacity(captured.len());
    for n in captured {
        match nodes.last_mut() {
            Some(last) if last.node.id() == n.node.id() => {
                last.roles |= n.roles;
                if n.receiver.map(|r| r.1) > last.receiver.map(|r| r.1) {
                    last.receiver = n.receiver;
                }
            }
            _ => nodes.push(n),
        }
    }
    // The innermost scope around each binding; a binding outside every
    // scope (a class attribute) hides nothing.
    let spans: Vec<std::ops::Range<usize>> = nodes
        .iter()
        .map(|n| n.node.start_byte()..n.node.end_byte())
        .collect();
    let around = innermost_scopes(scopes, &spans);
    for (n, around) in nodes.iter().zip(around) {
        let node = n.node;
        let has = |r: RefRole| n.roles & bit(r) != 0;
        let name = text(node);
        if has(RefRole::LocalDefinition) {
            if let Some(scope) = around {
                uses.locals.push((name, scope));
            }
        } else if has(RefRole::Ignore) {
        } else if has(RefRole::Member) || has(RefRole::MemberCall) || has(RefRole::MemberField) {
            let wants = if has(RefRole::MemberCall) {
                Access::Call
            } else if has(RefRole::MemberField) {
                Access::Field
            } else {
                Access::Any
            };
            let receiver = match n.receiver {
                Some((_, Receiving::SelfLike)) => Receiver::SelfLike,
                Some((_, Receiving::Super)) => Receiver::Super,
                Some((r, Receiving::Plain)) if r.child_count() == 0 || is_path(text(r)) => {
                    Receiver::Named(text(r))
                }
                _ => Receiver::Other,
            };
            uses.members.push(MemberUse {
                byte: node.start_byte(),
                name,
                receiver,
                wants,
            });
        } else if has(RefRole::Reference) {
            uses.plain.push((node.start_byte(), name));
        }
    }
    Ok(uses)
}

/// For each of `spans` (sorted by start), the
/// smallest of `scopes` (syntax nodes: nested or apart) that contains it,
/// in one sweep: a test of every span against every scope is quadratic in
/// the nesting (a local in each of 50,000 nested blocks).
pub(crate) fn innermost_scopes(
    mut scopes: Vec<std::ops::Range<usize>>,
    spans: &[std::ops::Range<usize>],
) -> Vec<Option<std::ops::Range<usize>>> {
    scopes.sort_by(|a, b| a.start.cmp(&b.start).then(b.end.cmp(&a.end)));
    scopes.dedup();
    let mut next = scopes.iter().peekable();
    // The scopes open at the sweep's position, each inside the one below.
    let mut open: Vec<&std::ops::Range<usize>> = Vec::new();
    spans
        .iter()
        .map(|s| {
            while let Some(scope) = next.next_if(|c| c.start <= s.start) {
                while open.last().is_some_and(|t| t.end < scope.end) {
                    open.pop();
                }
                open.push(scope);
            }
            // Closed before this span starts: no later span is in it.
            while open.last().is_some_and(|t| t.end < s.start) {
                open.pop();
            }
            // Above the one around the span, only scopes starting where it
            // starts (inside it, or ending in it): a step or two.
            open.iter()
                .rev()
                .find(|t| t.start <= s.start && s.end <= t.end)
                .map(|t| (*t).clone())
        })
        .collect()
}

/// A receiver written as a plain path (`a`, `a.b`, `a::b`), nothing else.
pub(crate) fn is_path(text: &str) -> bool {
    !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '$' | '.' | ':'))
}

/// Is symbol `i` reachable by its bare name from `target`: not a member,
/// and defined at the top level or in a scope that encloses the target?
fn visible(file: &ParsedFile, i: usize, target: &Symbol) -> bool {
    let s = &file.symbols[i];
    if MEMBER_KINDS.contains(&s.kind) {
        // A class-body field may use a sibling field by its bare name.
        return s.parent == target.parent
            && !LOCAL_SCOPE_KINDS.contains(&target.kind)
            && MEMBER_KINDS.contains(&target.kind);
    }
    match s.parent_index {
        None => true,
        Some(p) => file.symbols[p].contains(target) || file.symbols[p].full == target.full,
    }
}

/// Symbols named `owner + [name]`, for each path in `owners`.
fn members_of(
    file: &ParsedFile,
    index: &Index,
    owners: &[Vec<String>],
    name: &str,
    wants: Access,
) -> Vec<usize> {
    index
        .named(name)
        .iter()
        .copied()
        .filter(|&i| {
            let segs = &file.symbols[i].segments;
            wants.reaches(file.symbols[i].kind)
                && owners
                    .iter()
                    .any(|o| segs.len() == o.len() + 1 && segs[..o.len()] == o[..])
        })
        .collect()
}

/// `self.name` at `byte` (file offset): a member of the type around the
/// innermost member (method, field, ...) containing it, else of that type's
/// same-file bases, nearest first (`super.name`: the bases only).
fn self_members(
    file: &ParsedFile,
    index: &Index,
    byte: usize,
    name: &str,
    wants: Access,
    bases_only: bool,
) -> Vec<usize> {
    let Some(method) = index
        .around
        .iter()
        .map(|&i| &file.symbols[i])
        .filter(|s| {
            MEMBER_KINDS.contains(&s.kind) && s.full.start_byte <= byte && byte < s.full.end_byte
        })
        .min_by_key(|s| s.full.end_byte - s.full.start_byte)
    else {
        return Vec::new();
    };
    let owner = method.segments[..method.segments.len() - 1].to_vec();
    let mut level = vec![owner];
    let mut holders: Vec<usize> = method.parent_index.into_iter().collect();
    let mut seen: HashSet<Vec<String>> = level.iter().cloned().collect();
    for depth in 0..MAX_BASE_DEPTH {
        let found = if bases_only && depth == 0 {
            Vec::new()
        } else {
            members_of(file, index, &level, name, wants)
        };
        if !found.is_empty() {
            return found;
        }
        // The next level: same-file types named in the holders' headers.
        let mut next_holders = Vec::new();
        let mut next = Vec::new();
        for &h in &holders {
            let found = index
                .bases
                .borrow_mut()
                .entry(h)
                .or_insert_with(|| bases(file, index, h))
                .clone();
            for b in found {
                if seen.insert(file.symbols[b].segments.clone()) {
                    next.push(file.symbols[b].segments.clone());
                    next_holders.push(b);
                }
            }
        }
        if next.is_empty() {
            break;
        }
        level = next;
        holders = next_holders;
    }
    Vec::new()
}

/// How many levels of same-file base classes `self.x` looks through.
const MAX_BASE_DEPTH: usize = 4;

/// Same-file definitions named in the header of symbol `h` (before its
/// body): the bases of a class, the trait of an `impl`, supertraits.
fn bases(file: &ParsedFile, index: &Index, h: usize) -> Vec<usize> {
    let holder = &file.symbols[h];
    let offset = file.source.body_offset();
    let (start, end) = (
        holder.bare.start_byte - offset,
        holder.bare.end_byte - offset,
    );
    let Some(node) = file.tree.root_node().descendant_for_byte_range(start, end) else {
        return Vec::new();
    };
    let Some(body) = file
        .language
        .rules()
        .body_fields
        .iter()
        .find_map(|f| node.child_by_field_name(f))
    else {
        return Vec::new();
    };
    let Ok(uses) = scan(file, start..body.start_byte(), &[]) else {
        return Vec::new();
    };
    let mut found: Vec<usize> = uses
        .plain
        .iter()
        .flat_map(|(_, n)| index.named(n).iter().copied())
        .filter(|&i| {
            let s = &file.symbols[i];
            i != h
                && s.segments != holder.segments
                && !MEMBER_KINDS.contains(&s.kind)
                && visible(file, i, holder)
        })
        .collect();
    found.sort_unstable();
    found.dedup();
    found
}

/// `X.name` / `X::name` / `a::X::name`: the member `name` of the same-file
/// symbol the receiver names (its first segment resolved like a plain name).
fn named_members(
    file: &ParsedFile,
    index: &Index,
    target: &Symbol,
    uses: &Uses,
    receiver: &str,
    m: &MemberUse,
) -> Vec<usize> {
    let segments = super::namepath::split_path(receiver);
    let Some(first) = segments.first() else {
        return Vec::new();
    };
    if uses.shadowed(first, m.byte) {
        return Vec::new();
    }
    let owners: Vec<Vec<String>> = index
        .named(first)
        .iter()
        .map(|&i| (i, &file.symbols[i]))
        .filter(|(i, s)| !MEMBER_KINDS.contains(&s.kind) && visible(file, *i, target))
        .map(|(_, s)| {
            let mut path = s.segments.clone();
            path.extend(segments[1..].iter().cloned());
            path
        })
        .collect();
    members_of(file, index, &owners, m.name, m.wants)
}

/// An import statement of a file and the names it binds (body offsets).
#[derive(Debug, Clone)]
pub struct ImportStmt {
    pub start_byte: usize,
    pub end_byte: usize,
    pub start_line: usize,
    pub end_line: usize,
    pub names: BTreeSet<String>,
}

/// Every import statement of the file, from `imports.scm` (empty when the
/// language has none). Runs the query once; `ParsedFile::imports` caches it.
pub(crate) fn collect_imports(file: &ParsedFile) -> Result<Vec<ImportStmt>> {
    collect_imports_with(file, true)
}

/// [`collect_imports`], from the query's roots or (`rooted` false, for the
/// test that the two agree) by one run over the whole tree.
fn collect_imports_with(file: &ParsedFile, rooted: bool) -> Result<Vec<ImportStmt>> {
    let Some(q) = file.language.imports_query()? else {
        return Ok(Vec::new());
    };
    let body = file.source.body();
    let mut by_stmt: BTreeMap<usize, ImportStmt> = BTreeMap::new();
    let deadline = file.walk_deadline();
    let root = file.tree.root_node();
    let mut each = |m: &tree_sitter::QueryMatch<'_, '_>| {
        let Some(stmt) = m
            .captures()
            .iter()
            .find(|c| q.roles[c.index as usize] == ImportRole::Import)
            .map(|c| c.node)
        else {
            return;
        };
        let entry = by_stmt
            .entry(stmt.start_byte())
            .or_insert_with(|| ImportStmt {
                start_byte: stmt.start_byte(),
                end_byte: stmt.end_byte(),
                start_line: stmt.start_position().row + 1,
                end_line: stmt.end_position().row + 1,
                names: BTreeSet::new(),
            });
        for c in m.captures() {
            if q.roles[c.index as usize] == ImportRole::Name {
                entry
                    .names
                    .insert(body[c.node.start_byte()..c.node.end_byte()].to_string());
            }
        }
    };
    // From the import statements' own nodes when the query says which they
    // are: a walk of the tree costs a fraction of the query cursor's.
    let finished = match q.roots.as_ref().filter(|_| rooted) {
        Some(roots) => {
            let skip = &file.language.kinds().no_imports_in;
            for_each_rooted_match(
                &q,
                roots,
                skip,
                root,
                body,
                Some(&deadline),
                &mut (),
                |m, _| each(m),
            )
        }
        None => for_each_match(&q, root, body, None, Some(&deadline), each),
    };
    if !finished {
        return Err(deadline.error(&file.language, body.len(), "finding the imports"));
    }
    Ok(by_stmt.into_values().collect())
}

/// Visit every node overlapping `[start, end)`, descending only where needed.
fn for_each_node_in<'t>(root: Node<'t>, start: usize, end: usize, f: &mut impl FnMut(Node<'t>)) {
    super::walk_preorder(root, |node| {
        let overlaps = node.start_byte() < end && node.end_byte() > start;
        if overlaps && node.start_byte() >= start && node.end_byte() <= end {
            f(node);
        }
        overlaps
    });
}

#[cfg(test)]
mod tests {
    use super::innermost_scopes;
    use std::ops::Range;

    /// The imports found from the import query's roots are those of one
    /// run over the whole tree, on every fixture, and every built-in
    /// language's imports query can run so.
    #[test]
    fn rooted_imports_are_those_of_one_run_over_the_tree() {
        let registry = crate::lang::Registry::builtin();
        for lang in registry.languages() {
            if let Some(q) = lang.imports_query().unwrap() {
                assert!(
                    q.roots.is_some(),
                    "{}: imports.scm has an unrooted pattern",
                    lang.name()
                );
            }
        }
        let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
        let mut compared = 0;
        for dir in std::fs::read_dir(&fixtures).unwrap().flatten() {
            for f in std::fs::read_dir(dir.path())
                .into_iter()
                .flatten()
                .flatten()
            {
                let path = f.path();
                let Ok(bytes) = std::fs::read(&path) else {
                    continue;
                };
                let Ok(source) = crate::source::decode(&path, bytes) else {
                    continue;
                };
                let Some(lang) = registry.detect(&path, Some(source.body())) else {
                    continue;
                };
                let source = std::sync::Arc::new(source);
                let Ok(file) = crate::symbols::parse(lang, source) else {
                    continue;
                };
                let show = |v: Vec<super::ImportStmt>| -> Vec<String> {
                    v.iter()
                        .map(|i| format!("{}-{} {:?}", i.start_byte, i.end_byte, i.names))
                        .collect()
                };
                let rooted = show(super::collect_imports_with(&file, true).unwrap());
                let whole = show(super::collect_imports_with(&file, false).unwrap());
                assert_eq!(rooted, whole, "{}", path.display());
                compared += usize::from(!whole.is_empty());
            }
        }
        assert!(compared > 20, "{compared} fixtures with imports");
    }

    /// The smallest scope containing `s`, by testing every one.
    fn brute(scopes: &[Range<usize>], s: &Range<usize>) -> Option<Range<usize>> {
        scopes
            .iter()
            .filter(|t| t.start <= s.start && s.end <= t.end)
            .min_by_key(|t| t.end - t.start)
            .cloned()
    }

    #[test]
    fn the_innermost_scope_of_each_span_in_one_sweep() {
        // Scopes as syntax nodes make them: nested or apart, some equal,
        // some sharing a start; spans are leaves, one inside another.
        let scopes = vec![
            0..100,
            2..40,
            2..10,
            12..30,
            12..30,
            14..20,
            50..90,
            60..61,
            95..100,
        ];
        let spans = vec![
            0..1,
            2..3,
            11..12,
            12..13,
            15..16,
            21..29,
            22..23,
            31..32,
            45..46,
            60..61,
            70..71,
            96..97,
            100..101,
        ];
        let got = innermost_scopes(scopes.clone(), &spans);
        for (s, g) in spans.iter().zip(got) {
            assert_eq!(g, brute(&scopes, s), "{s:?}");
        }
        // 50,000 nested scopes, a span in each: linear, not 2.5e9 tests.
        let n = 50_000;
        let nested: Vec<Range<usize>> = (0..n).map(|i| i..2 * n - i).collect();
        let leaves: Vec<Range<usize>> = (0..n).map(|i| i..i + 1).collect();
        let got = innermost_scopes(nested, &leaves);
        assert!(
            got.iter()
                .enumerate()
                .all(|(i, g)| g == &Some(i..2 * n - i))
        );
    }
}
