//! Walking directories the way a developer expects: `.gitignore`, `.ignore`
//! and `.scalpelignore` rules honoured (also outside a git repository),
//! hidden files and `.git` skipped, results in a stable order.

use ignore::WalkBuilder;
use std::path::{Path, PathBuf};

/// Per-directory ignore file specific to Scalpel.
pub const SCALPEL_IGNORE: &str = ".scalpelignore";

/// A walker over `path` with the project's ignore rules.
pub fn walker(path: &Path, hidden: bool) -> WalkBuilder {
    let mut b = WalkBuilder::new(path);
    b.hidden(!hidden)
        .require_git(false)
        .add_custom_ignore_filename(SCALPEL_IGNORE)
        .filter_entry(|e| e.file_name() != ".git" && e.file_name() != ".scalpel")
        .sort_by_file_path(|a, b| a.cmp(b));
    b
}

/// Every regular file under `path`, in path order.
pub fn walk_files(path: &Path) -> Vec<PathBuf> {
    walker(path, false)
        .build()
        .flatten()
        .filter(|e| e.file_type().is_some_and(|t| t.is_file()))
        .map(|e| e.into_path())
        .collect()
}
