//! Scalpel: symbol-aware, surgical code reading and editing for AI agents.
//!
//! See ARCHITECTURE.md for the bird's-eye view and the code map.

pub mod check;
pub mod cli;
pub mod disk;
pub mod edit;
pub mod error;
pub mod hint;
pub mod index;
pub mod lang;
pub mod lsp;
pub mod mcp;
pub mod ops;
pub mod refs;
pub mod render;
pub mod source;
pub mod symbols;
pub mod text;

pub use error::{Error, ErrorCode, Result};
