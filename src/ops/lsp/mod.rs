//! The operations of the semantic backend (#27): `rename_symbol` and
//! `find_references` asked of a language server ([`crate::lsp`]), falling
//! back to the syntax backend ([`crate::ops::rename`], [`crate::refs`]).

pub mod refs;
pub mod rename;
mod target;
