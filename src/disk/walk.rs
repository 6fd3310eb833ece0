//! Walking directories the way a developer expects: `.gitignore`, `.ignore`
//! and `.scalpelignore` rules honoured (also outside a git repository),
//! hidden files and `.git` skipped, results in a stable order. The ignore
//! files are read by [`crate::disk::ignores`], bounded, never through a
//! symlink; the walker's own reading of them is off.

use crate::disk::ignores::Rules;
use ignore::{DirEntry, WalkBuilder};
use std::path::{Path, PathBuf};

/// Per-directory ignore file specific to Scalpel.
pub const SCALPEL_IGNORE: &str = ".scalpelignore";

/// A walker over `path` with the project's ignore rules.
pub fn walker(path: &Path, hidden: bool) -> WalkBuilder {
    let mut b = walker_with(path, hidden, |e| {
        e.file_name() != ".git" && e.file_name() != ".scalpel"
    });
    b.sort_by_file_path(|a, b| a.cmp(b));
    b
}

/// A walker over `path` with the project's ignore rules (hidden entries
/// too when `hidden`), entering only entries `keep` accepts (the walked
/// folder itself always). Symlinks are not followed.
pub fn walker_with(
    path: &Path,
    hidden: bool,
    keep: impl Fn(&DirEntry) -> bool + Send + Sync + 'static,
) -> WalkBuilder {
    let rules = Rules::new(!hidden);
    let mut b = WalkBuilder::new(path);
    b.hidden(false)
        .ignore(false)
        .git_ignore(false)
        .git_exclude(false)
        .git_global(false)
        .parents(false)
        .require_git(false)
        .follow_links(false)
        .filter_entry(move |e| {
            e.depth() == 0
                || (keep(e) && !rules.skips(e.path(), e.file_type().is_some_and(|t| t.is_dir())))
        });
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
