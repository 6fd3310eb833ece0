//! Walking directories the way a developer expects: `.gitignore`, `.ignore`
//! and `.scalpelignore` rules honoured (also outside a git repository),
//! hidden files and `.git` skipped, results in a stable order. The ignore
//! files are read by [`crate::disk::ignores`], bounded, never through a
//! symlink; the walker's own reading of them is off.

use crate::disk::ignores::Rules;
use ignore::{DirEntry, WalkBuilder};
use std::path::{Path, PathBuf};

pub use crate::disk::ignores::SCALPEL_IGNORE;

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

#[cfg(test)]
mod tests {
    use super::{SCALPEL_IGNORE, walker};
    use std::path::{Path, PathBuf};

    /// The files the `ignore` crate's own reading of the ignore files
    /// finds (how Scalpel walked before), from `dir`.
    fn crate_walk(dir: &Path) -> Vec<PathBuf> {
        let mut b = ignore::WalkBuilder::new(dir);
        b.hidden(true)
            .ignore(true)
            .git_ignore(true)
            .git_exclude(true)
            .git_global(true)
            .parents(true)
            .require_git(false)
            .add_custom_ignore_filename(SCALPEL_IGNORE)
            .filter_entry(|e| e.file_name() != ".git")
            .sort_by_file_path(|a, b| a.cmp(b));
        files(b)
    }

    fn files(b: ignore::WalkBuilder) -> Vec<PathBuf> {
        b.build()
            .flatten()
            .filter(|e| e.file_type().is_some_and(|t| t.is_file()))
            .map(|e| e.into_path())
            .collect()
    }

    fn put(root: &Path, files: &[(&str, &str)]) {
        for (path, text) in files {
            let p = root.join(path);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
    }

    #[test]
    fn regular_ignore_files_mean_what_the_walker_made_of_them() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path();
        put(
            root,
            &[
                (".git/info/exclude", "excluded.txt\n"),
                (".git/HEAD", "ref: refs/heads/main\n"),
                (".gitignore", "*.log\nbuild/\n!keep.log\nsub/deep/*.tmp\n"),
                (".ignore", "notes.md\n!b.log\n"),
                (".scalpelignore", "secret*\n!notes.md\n"),
                ("a.log", ""),
                ("b.log", ""),
                ("keep.log", ""),
                ("notes.md", ""),
                ("secret.py", ""),
                ("excluded.txt", ""),
                ("main.py", ""),
                ("build/out.py", ""),
                (".hidden.py", ""),
                ("sub/.gitignore", "!a.log\n/local.py\nx/\n"),
                ("sub/a.log", ""),
                ("sub/local.py", ""),
                ("sub/deep/local.py", ""),
                ("sub/deep/t.tmp", ""),
                ("sub/x/y.py", ""),
                ("sub/deep/.ignore", "*.py\n"),
                ("sub/deep/.gitignore", "!local.py\n"),
                ("sub/deep/ok.rs", ""),
                ("other/.scalpelignore", "*.rs\n"),
                ("other/.gitignore", "!*.rs\n*.py\n"),
                ("other/a.rs", ""),
                ("other/b.py", ""),
                ("other/c.txt", ""),
                ("other/excluded.txt", ""),
            ],
        );
        for dir in [root.to_path_buf(), root.join("sub"), root.join("sub/deep")] {
            let ours = files(walker(&dir, false));
            assert_eq!(ours, crate_walk(&dir), "from {}", dir.display());
            assert!(!ours.is_empty());
        }
    }

    #[test]
    fn an_ignore_file_that_is_a_symlink_or_no_file_is_skipped() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path();
        put(
            root,
            &[("real-ignore", "*.py\n"), ("a.py", ""), ("pkg/b.py", "")],
        );
        std::os::unix::fs::symlink(root.join("real-ignore"), root.join(".gitignore")).unwrap();
        std::fs::create_dir(root.join("pkg/.ignore")).unwrap();
        let found = files(walker(root, false));
        assert_eq!(
            found,
            [
                root.join("a.py"),
                root.join("pkg/b.py"),
                root.join("real-ignore")
            ]
        );
    }
}
