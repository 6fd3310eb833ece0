//! The bases of a type: the names in a class or impl header that it derives
//! from or implements, captured by the language's `references.scm` as
//! `@base` (a member of the same name there is overridden: Python
//! superclasses, TypeScript `extends` / `implements`) or `@base.whole`
//! (every member of the body is the base's: Rust `impl Trait for T`).

use super::ParsedFile;
use crate::error::Result;
use crate::lang::query::RefRole;
use tree_sitter::{QueryCursor, StreamingIterator};

/// One base named in a header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Base {
    /// The type's own name: the last path segment, generics dropped
    /// (`Display` for `std::fmt::Display`, `From` for `From<T>`).
    pub name: String,
    /// Every member of the body implements the base's (`@base.whole`).
    pub whole: bool,
    /// 1-based line where it is named.
    pub line: usize,
}

/// The bases named in the header of `file.symbols[holder]` (before its
/// body), in order.
pub fn bases(file: &ParsedFile, holder: usize) -> Result<Vec<Base>> {
    let Some(q) = file.language.references_query()? else {
        return Ok(Vec::new());
    };
    let body = file.source.body();
    let offset = file.source.body_offset();
    let span = file.symbols[holder].bare;
    let (start, end) = (span.start_byte - offset, span.end_byte - offset);
    let root = file.tree.root_node();
    let Some(node) = root.descendant_for_byte_range(start, end) else {
        return Ok(Vec::new());
    };
    // The header ends where the body starts.
    let header_end = file
        .language
        .rules()
        .body_fields
        .iter()
        .find_map(|f| node.child_by_field_name(f))
        .map_or(end, |b| b.start_byte());
    let mut out = Vec::new();
    let mut cursor = QueryCursor::new();
    cursor.set_byte_range(start..header_end);
    let mut it = cursor.matches(&q.query, node, body.as_bytes());
    while let Some(m) = it.next() {
        if !q.admits(m) {
            continue;
        }
        for c in m.captures() {
            let whole = match q.roles[c.index as usize] {
                RefRole::Base => false,
                RefRole::BaseWhole => true,
                _ => continue,
            };
            if c.node.start_byte() < start || c.node.end_byte() > header_end {
                continue;
            }
            let name = type_name(&body[c.node.start_byte()..c.node.end_byte()]);
            let line = c.node.start_position().row + 1;
            if !name.is_empty() && !out.iter().any(|b: &Base| b.name == name) {
                out.push(Base { name, whole, line });
            }
        }
    }
    Ok(out)
}

/// A type's own name as written in a header: generics and arguments
/// dropped, the last segment of a path.
pub fn type_name(text: &str) -> String {
    let head = text
        .split(|c: char| matches!(c, '<' | '[' | '(') || c.is_whitespace())
        .next()
        .unwrap_or("");
    head.rsplit(['.', ':'])
        .find(|s| !s.is_empty())
        .unwrap_or("")
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::type_name;

    #[test]
    fn type_names() {
        assert_eq!(type_name("std::fmt::Display"), "Display");
        assert_eq!(type_name("From<T>"), "From");
        assert_eq!(type_name("mod.Base"), "Base");
        assert_eq!(type_name("Generic"), "Generic");
    }
}
