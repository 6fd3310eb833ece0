//! What the search tests and the search bench share: the test model, the
//! machine's Python standard library, copying a corpus.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The repository's own small test model (`fixtures/model`, derived from a
/// pinned PyPI package by `fixtures/model/derive.py`): the tests need nothing
/// outside the checkout. A bench may name another model folder in
/// `SCALPEL_BENCH_MODEL` (a quality run with a larger model); the tests
/// never read it.
pub fn test_model() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/model")
}

/// The model of a bench: `SCALPEL_BENCH_MODEL`, else [`test_model`].
pub fn bench_model() -> PathBuf {
    std::env::var_os("SCALPEL_BENCH_MODEL")
        .map(PathBuf::from)
        .unwrap_or_else(test_model)
}

/// The machine's Python standard library.
pub fn stdlib() -> PathBuf {
    let out = std::process::Command::new("python3")
        .args([
            "-c",
            "import sysconfig; print(sysconfig.get_paths()['stdlib'])",
        ])
        .output()
        .expect("python3");
    PathBuf::from(String::from_utf8(out.stdout).unwrap().trim())
}

/// Copy a folder, leaving out `__pycache__` and `site-packages`.
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let p = e.path();
        let name = e.file_name();
        if name == "__pycache__" || name == "site-packages" {
            continue;
        }
        let t = to.join(&name);
        let Ok(ft) = e.file_type() else { continue };
        if ft.is_dir() {
            copy_tree(&p, &t);
        } else if ft.is_file() {
            let _ = std::fs::copy(&p, &t);
        }
    }
}
