//! What a symbol depends on inside its own file: the definitions elsewhere in
//! the file whose names it uses, and the import statements that bind names it
//! uses. Name-based (no type resolution): a reference is any leaf whose kind
//! the language lists in `symbols.identifiers`.

use super::{ParsedFile, Span, Symbol};
use crate::error::Result;
use crate::lang::query::ImportRole;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet, HashSet};
use tree_sitter::{Node, QueryCursor, StreamingIterator};

/// Kinds that live inside another definition and are reached through it.
const MEMBER_KINDS: &[&str] = &["method", "constructor", "field", "property", "enum_member"];
/// Kinds whose nested definitions are locals, invisible from outside.
const LOCAL_SCOPE_KINDS: &[&str] = &["function", "method", "constructor"];

#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct DependencySymbol {
    pub name_path: String,
    /// Pass this to extract_code to get its code.
    pub address: String,
    pub kind: String,
    pub start_line: usize,
    pub end_line: usize,
}

#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ImportRef {
    pub start_line: usize,
    pub end_line: usize,
    /// The import statement as written.
    pub code: String,
    /// The names it binds that the symbol uses.
    pub names: Vec<String>,
}

#[derive(Debug, Clone, Default, Serialize, schemars::JsonSchema)]
pub struct Dependencies {
    pub symbols: Vec<DependencySymbol>,
    pub imports: Vec<ImportRef>,
}

/// Indices of `target`'s dependencies in `file.symbols`, and the imports.
pub fn dependencies(file: &ParsedFile, target: &Symbol) -> Result<(Dependencies, Vec<usize>)> {
    let body = file.source.body();
    let offset = file.source.body_offset();
    let span = target.full_span();
    let local = Span {
        start_byte: span.start_byte - offset,
        end_byte: span.end_byte - offset,
        ..span
    };
    // The names being defined inside the span are not uses of anything.
    let defined: HashSet<usize> = file
        .symbols
        .iter()
        .filter(|s| s.name_byte >= span.start_byte && s.name_byte < span.end_byte)
        .map(|s| s.name_byte - offset)
        .collect();
    let mut refs: HashSet<&str> = HashSet::new();
    let idents = &file.language.rules().identifiers;
    for_each_node_in(
        file.tree.root_node(),
        local.start_byte,
        local.end_byte,
        &mut |n| {
            if idents.iter().any(|k| k == n.kind()) && !defined.contains(&n.start_byte()) {
                refs.insert(&body[n.start_byte()..n.end_byte()]);
            }
        },
    );

    let target_index = file
        .symbols
        .iter()
        .position(|s| s.full == target.full && s.name_path == target.name_path);
    let mut picked = Vec::new();
    for (i, s) in file.symbols.iter().enumerate() {
        if Some(i) == target_index
            || !refs.contains(s.name.as_str())
            || s.contains(target)
            || target.contains(s)
            || is_local(file, i)
        {
            continue;
        }
        // Members are reached through their owner: only siblings of the
        // target count (`self.helper()` in Python, `Self::helper` in Rust).
        if MEMBER_KINDS.contains(&s.kind.as_str()) && s.parent != target.parent {
            continue;
        }
        picked.push(i);
    }
    let symbols = picked
        .iter()
        .map(|&i| {
            let s = &file.symbols[i];
            DependencySymbol {
                name_path: s.name_path.clone(),
                address: s.address().to_string(),
                kind: s.kind.clone(),
                start_line: s.start_line,
                end_line: s.end_line,
            }
        })
        .collect();

    let imports = file
        .imports()?
        .iter()
        // An import inside the symbol is already part of its code.
        .filter(|i| !(i.start_byte >= local.start_byte && i.end_byte <= local.end_byte))
        .filter_map(|i| {
            let names: Vec<String> = i
                .names
                .iter()
                .filter(|n| refs.contains(n.as_str()))
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
    let Some(q) = file.language.imports_query()? else {
        return Ok(Vec::new());
    };
    let body = file.source.body();
    let mut by_stmt: BTreeMap<usize, ImportStmt> = BTreeMap::new();
    let mut cursor = QueryCursor::new();
    let mut it = cursor.matches(&q.query, file.tree.root_node(), body.as_bytes());
    while let Some(m) = it.next() {
        let Some(stmt) = m
            .captures()
            .iter()
            .find(|c| q.roles[c.index as usize] == ImportRole::Import)
            .map(|c| c.node)
        else {
            continue;
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
    }
    Ok(by_stmt.into_values().collect())
}

/// Is symbol `i` nested in a function (a local, invisible from outside)?
fn is_local(file: &ParsedFile, i: usize) -> bool {
    let mut p = file.symbols[i].parent_index;
    while let Some(j) = p {
        if LOCAL_SCOPE_KINDS.contains(&file.symbols[j].kind.as_str()) {
            return true;
        }
        p = file.symbols[j].parent_index;
    }
    false
}

/// Visit every node overlapping `[start, end)`, descending only where needed.
fn for_each_node_in<'t>(root: Node<'t>, start: usize, end: usize, f: &mut impl FnMut(Node<'t>)) {
    let mut cursor = root.walk();
    loop {
        let node = cursor.node();
        let overlaps = node.start_byte() < end && node.end_byte() > start;
        if overlaps {
            if node.start_byte() >= start && node.end_byte() <= end {
                f(node);
            }
            if cursor.goto_first_child() {
                continue;
            }
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return;
            }
        }
    }
}
