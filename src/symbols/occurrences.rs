//! Every whole-word occurrence of a name in a parsed file, classified by the
//! language's `references.scm` (plus `tags.scm` for definitions and
//! `imports.scm` for import statements): a use of the name, a member after a
//! receiver, a definition, a local binding, or text that is not code at all
//! (a string, a comment). Pure: `find_references` and `rename_symbol` decide
//! what each occurrence means for their target.

use super::ParsedFile;
pub use super::deps::{Access, CALLABLE_KINDS};
use super::deps::{innermost_scopes, is_path};
use super::for_each_match;
use crate::error::Result;
use crate::lang::query::RefRole;
use crate::text::matcher::is_whole_word;
use std::ops::Range;

/// What an occurrence of the name is, syntactically.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Role {
    /// The name of a definition in the outline (index into `symbols`).
    Definition(usize),
    /// A name used on its own (`name`, `name()`, a type, an imported name).
    Reference,
    /// A name after a receiver (`x.name`, `X::name`), and how it is used.
    Member(Receiver, Access),
    /// A parameter or local binding of the same spelling (another variable).
    Local,
    /// A plain use that a parameter or local of the same spelling hides.
    Shadowed,
    /// A name the references query ignores (a keyword argument's name).
    Ignored,
    /// A word the references query says may be a use (`@reference.maybe`):
    /// undecided.
    Maybe,
    /// An identifier in a position no query describes (an object key, a label).
    Unclassified,
    /// Inside a string, a comment or other text that is not an identifier.
    NotCode,
}

/// The receiver of a member occurrence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Receiver {
    /// `self`, `this`, `Self`, `cls`.
    SelfLike,
    /// `super`, `super()`.
    Super,
    /// A name or path (`Point`, `io::Error`, `obj`).
    Named(String),
    /// Any other expression (`f().x`).
    Other,
}

/// One occurrence of the name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Occurrence {
    /// File offset of its first byte (BOM included).
    pub byte: usize,
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
    pub role: Role,
    /// Inside an import statement (`imports.scm`).
    pub in_import: bool,
}

impl Role {
    /// A use of the name in code that may refer to some definition of it.
    pub fn is_use(&self) -> bool {
        matches!(self, Role::Reference | Role::Member(..))
    }

    /// Why an occurrence that is not a use is left alone.
    pub fn why_not(&self) -> &'static str {
        match self {
            Role::Definition(_) => "defines another symbol of the same name",
            Role::Reference | Role::Member(..) => "a use of the name",
            Role::Local => "a parameter or local variable of the same name",
            Role::Shadowed => "a use of a local of the same name",
            Role::Ignored => "a keyword argument's name",
            Role::Maybe => "a word that may name it (a command argument, a symbol)",
            Role::Unclassified => "an identifier that is not a reference (a key, a label)",
            Role::NotCode => "in a string or comment",
        }
    }
}

/// Body offsets of every whole-word occurrence of `name` in `text`.
pub fn word_offsets(text: &str, name: &str) -> Vec<usize> {
    if name.is_empty() {
        return Vec::new();
    }
    memchr::memmem::find_iter(text.as_bytes(), name.as_bytes())
        .filter(|&i| is_whole_word(text, i, i + name.len()))
        .collect()
}

/// The byte ranges covering `offsets` (sorted, each a word of `len`
/// bytes), one per run of offsets inside the same child of `root`.
fn top_level_groups(
    root: tree_sitter::Node<'_>,
    offsets: &[usize],
    len: usize,
) -> Vec<Range<usize>> {
    let mut groups: Vec<(Option<usize>, Range<usize>)> = Vec::new();
    for &b in offsets {
        let owner = root
            .first_child_for_byte(b)
            .filter(|c| c.start_byte() <= b)
            .map(|c| c.id());
        match groups.last_mut() {
            Some((o, r)) if *o == owner && owner.is_some() => r.end = b + len,
            _ => groups.push((owner, b..b + len)),
        }
    }
    groups.into_iter().map(|g| g.1).collect()
}

fn bit(r: RefRole) -> u16 {
    1 << (r as u16)
}

/// Classify every whole-word occurrence of `name` in `file`.
pub fn occurrences(file: &ParsedFile, name: &str) -> Result<Vec<Occurrence>> {
    let body = file.source.body();
    let offset = file.source.body_offset();
    let offsets = word_offsets(body, name);
    if offsets.is_empty() {
        return Ok(Vec::new());
    }
    // Roles and receivers captured at each occurrence, and the scopes of
    // local bindings of the name.
    let mut roles = vec![0u16; offsets.len()];
    let mut receivers: Vec<Option<(Receiver, u8)>> = vec![None; offsets.len()];
    let mut scopes: Vec<Range<usize>> = Vec::new();
    let at = |b: usize| offsets.binary_search(&b).ok();
    if let Some(q) = file.language.references_query()? {
        let root = file.tree.root_node();
        let deadline = file.walk_deadline();
        let mut each = |m: &tree_sitter::QueryMatch<'_, '_>| {
            let receiver = m
                .captures()
                .iter()
                .filter_map(|c| {
                    let text = &body[c.node.start_byte()..c.node.end_byte()];
                    match q.roles[c.index as usize] {
                        RefRole::SelfReceiver => Some((Receiver::SelfLike, 3)),
                        RefRole::SuperReceiver => Some((Receiver::Super, 2)),
                        RefRole::Receiver if is_path(text) => {
                            Some((Receiver::Named(text.to_string()), 1))
                        }
                        RefRole::Receiver => Some((Receiver::Other, 1)),
                        _ => None,
                    }
                })
                .max_by_key(|r| r.1);
            for c in m.captures() {
                let role = q.roles[c.index as usize];
                if role == RefRole::LocalScope {
                    scopes.push(c.node.start_byte()..c.node.end_byte());
                    continue;
                }
                if c.node.end_byte() - c.node.start_byte() != name.len() {
                    continue;
                }
                let Some(i) = at(c.node.start_byte()) else {
                    continue;
                };
                roles[i] |= bit(role);
                if matches!(
                    role,
                    RefRole::Member | RefRole::MemberCall | RefRole::MemberField
                ) && receiver.as_ref().map(|r| r.1) > receivers[i].as_ref().map(|r| r.1)
                {
                    receivers[i] = receiver.clone();
                }
                if matches!(
                    role,
                    RefRole::Member | RefRole::MemberCall | RefRole::MemberField
                ) && receivers[i].is_none()
                {
                    receivers[i] = Some(receiver.clone().unwrap_or((Receiver::Other, 0)));
                }
            }
        };
        // The query runs over the occurrences' top-level declarations, one
        // range each, not from the first occurrence to the last: a range
        // starts matches only at nodes overlapping it (every ancestor of an
        // occurrence does, so its roles, receiver and scopes are found the
        // same), and the cursor does not go into the declarations between
        // (a name used at both ends of a file was a walk of all of it).
        for range in top_level_groups(root, &offsets, name.len()) {
            if !for_each_match(&q, root, body, Some(range), Some(&deadline), &mut each) {
                return Err(deadline.error(&file.language, body.len(), "finding the occurrences"));
            }
        }
    }
    let has = |i: usize, r: RefRole| roles[i] & bit(r) != 0;
    // The innermost scope around each occurrence.
    let spans: Vec<Range<usize>> = offsets.iter().map(|&b| b..b + name.len()).collect();
    let around = innermost_scopes(scopes, &spans);
    let innermost = |i: usize| around[i].clone();
    // Local bindings of the name and the scope each is visible in.
    let definitions: Vec<(usize, usize)> = file
        .symbols_named(name)
        .iter()
        .map(|&s| (file.symbols[s].name_byte - offset, s))
        .collect();
    // A local binding that is also a symbol of the outline (a function
    // declared with `const f = () => ...` inside another function) is a
    // definition: its uses are references to that symbol, decided by the
    // symbols' scopes, not hidden as uses of some other local.
    let locals: Vec<Range<usize>> = (0..offsets.len())
        .filter(|&i| has(i, RefRole::LocalDefinition))
        .filter(|&i| !definitions.iter().any(|d| d.0 == offsets[i]))
        .filter_map(innermost)
        .collect();
    let imports = file.imports()?;
    let lines = LineStarts::new(body);
    let mut out = Vec::with_capacity(offsets.len());
    for (i, &b) in offsets.iter().enumerate() {
        let role = if let Some(&(_, s)) = definitions.iter().find(|d| d.0 == b) {
            Role::Definition(s)
        } else if has(i, RefRole::LocalDefinition) {
            // A binding outside every scope (module level) rebinds the name.
            if innermost(i).is_some() {
                Role::Local
            } else {
                Role::Reference
            }
        } else if has(i, RefRole::Ignore) {
            Role::Ignored
        } else if has(i, RefRole::Member)
            || has(i, RefRole::MemberCall)
            || has(i, RefRole::MemberField)
        {
            let access = if has(i, RefRole::MemberCall) {
                Access::Call
            } else if has(i, RefRole::MemberField) {
                Access::Field
            } else {
                Access::Any
            };
            Role::Member(
                receivers[i].clone().map_or(Receiver::Other, |r| r.0),
                access,
            )
        } else if has(i, RefRole::Reference) {
            if locals.iter().any(|s| s.start <= b && b < s.end) {
                Role::Shadowed
            } else {
                Role::Reference
            }
        } else if has(i, RefRole::Maybe) {
            Role::Maybe
        } else {
            let root = file.tree.root_node();
            match root.descendant_for_byte_range(b, b + name.len()) {
                Some(n)
                    if n.start_byte() == b
                        && n.end_byte() == b + name.len()
                        && n.child_count() == 0 =>
                {
                    // An identifier kind of the language's TOML; anything
                    // else (a string's content, a keyword) is not code.
                    if file.language.kinds().identifiers.contains(&n) {
                        Role::Unclassified
                    } else {
                        Role::NotCode
                    }
                }
                _ => Role::NotCode,
            }
        };
        let (line, column) = lines.position(body, b);
        out.push(Occurrence {
            byte: b + offset,
            line,
            column,
            role,
            in_import: imports.iter().any(|s| s.start_byte <= b && b < s.end_byte),
        });
    }
    Ok(out)
}

/// Line starts of a text, for 1-based line and character column lookups.
pub struct LineStarts(Vec<usize>);

impl LineStarts {
    pub fn new(text: &str) -> LineStarts {
        let mut v = vec![0];
        v.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1));
        LineStarts(v)
    }

    /// 1-based line and character column of body offset `b`.
    pub fn position(&self, text: &str, b: usize) -> (usize, usize) {
        let line = self.0.partition_point(|&s| s <= b);
        let start = self.0[line - 1];
        (line, text[start..b].chars().count() + 1)
    }

    /// The line holding body offset `b`, and `b`'s offset in it.
    pub fn line_of<'t>(&self, text: &'t str, b: usize) -> (&'t str, usize) {
        let line = self.0.partition_point(|&s| s <= b);
        let start = self.0[line - 1];
        let end = self.0.get(line).copied().unwrap_or(text.len());
        (&text[start..end], b - start)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_words_only() {
        assert_eq!(word_offsets("add adder add_x xadd add", "add"), vec![0, 21]);
        assert!(word_offsets("abc", "").is_empty());
    }

    #[test]
    fn positions() {
        let t = "ab\ncé d\n";
        let l = LineStarts::new(t);
        assert_eq!(l.position(t, 0), (1, 1));
        assert_eq!(l.position(t, 3), (2, 1));
        assert_eq!(l.position(t, 7), (2, 4));
        assert_eq!(l.line_of(t, 7), ("cé d\n", 4));
    }
}
