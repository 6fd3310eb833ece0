//! The door to the disk, and nothing else: the root sandbox, reading files
//! (bounded, through [`door`]), the only writer (commit, transactions, atomic
//! replace, backups, the journal, undo, recovery), listings and the text
//! search over files. Decoding and profiling text is pure and lives below, in
//! [`crate::source`]; line windows in [`crate::text::window`]. Nothing here
//! knows about MCP or clap.

pub(crate) mod codec;
pub mod commit;
pub mod current;
pub mod door;
pub mod grep;
pub mod ignores;
pub mod install;
pub mod journal;
pub mod locks;
pub mod read;
pub mod recover;
pub mod store;
pub(crate) mod tracked;
pub mod transaction;
pub mod tree;
pub(crate) mod turns;
pub mod undo;
pub mod walk;
pub mod workspace;
pub mod write;

pub use commit::{WriteMeta, WriteOutcome, check_expected_hash, commit_write};
pub use current::DIFF_MAX_LINES;
pub use journal::JournalEntry;
pub use locks::{Held, WrittenHook};
pub use read::{DEFAULT_MAX_FILE_SIZE, read_bytes, read_source};
pub use transaction::{FileChange, TxnOutcome, commit_files};
pub use undo::{UndoOutcome, history, undo};
pub use walk::{walk_files, walker};
pub use workspace::{Purpose, ResolvedPath, Retention, SCALPEL_DIR, Workspace};
pub use write::{FaultPlan, FileAttrs, WriteStep};
