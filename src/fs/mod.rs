//! The workspace: everything that touches the disk. Reading and profiling
//! files lives here; so do the root sandbox, atomic writes, backups, the
//! journal and undo. Nothing here knows about MCP or clap.

pub mod commit;
pub mod door;
pub mod journal;
pub mod profile;
pub mod read;
pub mod search;
pub mod store;
pub mod transaction;
pub mod tree;
pub mod undo;
pub mod walk;
pub mod workspace;
pub mod write;

pub use commit::{DIFF_MAX_LINES, WriteMeta, WriteOutcome, check_expected_hash, commit_write};
pub use journal::{JournalEntry, Retention};
pub use profile::{
    DEFAULT_MAX_FILE_SIZE, Eol, FileProfile, Indent, SourceText, count_lines, decode, hash_bytes,
    profile_of, read_bytes, read_source,
};
pub use transaction::{FileChange, TxnOutcome, commit_files};
pub use undo::{UndoOutcome, history, undo};
pub use walk::{walk_files, walker};
pub use workspace::{Purpose, ResolvedPath, SCALPEL_DIR, Workspace};
pub use write::{FaultPlan, FileAttrs, WriteStep, atomic_write};
