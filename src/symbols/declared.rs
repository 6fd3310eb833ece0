//! The local bindings of a file with the type each is declared with or
//! constructed from, as the language's `references.scm` writes them
//! (`@local.definition` with `@local.type` in the same match): what the
//! syntax backend reads to know the type of a receiver (`x.m()` where
//! `x: Foo` or `x = Foo()`).

use super::ParsedFile;
use super::bases::type_name;
use crate::error::Result;
use crate::lang::query::RefRole;
use std::collections::BTreeMap;
use tree_sitter::{QueryCursor, StreamingIterator};

/// One local binding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Local {
    /// Body offset of its name.
    pub byte: usize,
    /// The named type it is declared with or constructed from, if written.
    pub ty: Option<String>,
    /// What qualifies that type's name, as written (`cmp` of `cmp.Path`).
    pub qualifier: Option<String>,
}

/// Every local binding of `file`, by name, in file order.
pub fn locals(file: &ParsedFile) -> Result<BTreeMap<String, Vec<Local>>> {
    let mut out: BTreeMap<String, Vec<Local>> = BTreeMap::new();
    let Some(q) = file.language.references_query()? else {
        return Ok(out);
    };
    let body = file.source.body();
    type Typed = (Option<String>, Option<String>);
    let mut found: BTreeMap<usize, (String, Typed)> = BTreeMap::new();
    let mut cursor = QueryCursor::new();
    let mut it = cursor.matches(&q.query, file.tree.root_node(), body.as_bytes());
    while let Some(m) = it.next() {
        if !q.admits(m) {
            continue;
        }
        let mut def = None;
        let mut ty = None;
        for c in m.captures() {
            let text = &body[c.node.start_byte()..c.node.end_byte()];
            match q.roles[c.index as usize] {
                RefRole::LocalDefinition => def = Some((c.node.start_byte(), text.to_string())),
                RefRole::LocalType => {
                    ty = Some(type_name(text))
                        .filter(|t| !t.is_empty())
                        .map(|t| (Some(t), qualifier(text)))
                }
                _ => {}
            }
        }
        if let Some((byte, name)) = def {
            let e = found.entry(byte).or_insert((name, (None, None)));
            if let Some(t) = ty {
                e.1 = t;
            }
        }
    }
    for (byte, (name, (ty, qualifier))) in found {
        out.entry(name).or_default().push(Local {
            byte,
            ty,
            qualifier,
        });
    }
    Ok(out)
}

/// The qualifier of a written type's name: `cmp` of `cmp.Path`,
/// `std::fmt` of `std::fmt::Display<T>`; `None` for a bare name.
fn qualifier(text: &str) -> Option<String> {
    let head = text
        .split(|c: char| matches!(c, '<' | '[' | '(') || c.is_whitespace())
        .next()
        .unwrap_or("");
    let cut = head.rfind(['.', ':'])?;
    let q = head[..cut].trim_end_matches([':', '.']);
    (!q.is_empty()).then(|| q.to_string())
}
