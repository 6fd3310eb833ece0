//! The workspace: everything that touches the disk. Reading and profiling
//! files lives here; so do the root sandbox, atomic writes, backups, the
//! journal and undo. Nothing here knows about MCP or clap.

pub mod profile;
pub mod read;
pub mod search;
pub mod tree;

pub use profile::{
    DEFAULT_MAX_FILE_SIZE, Eol, FileProfile, Indent, SourceText, count_lines, decode, hash_bytes,
    profile_of, read_source,
};
