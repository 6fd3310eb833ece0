//! What the search tests and the search bench share: the shared test
//! model, the machine's Python standard library, copying a corpus.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The shared test model: `SCALPEL_TEST_MODEL`, else
/// `shared/models/minilm-static-256` in a folder above the crate (the
/// checkout sits next to `shared/`, in a work tree or a fresh clone).
pub fn test_model() -> PathBuf {
    std::env::var_os("SCALPEL_TEST_MODEL")
        .map(PathBuf::from)
        .or_else(|| {
            scalpel::index::model::find_upward(
                Path::new(env!("CARGO_MANIFEST_DIR")),
                "shared/models/minilm-static-256",
            )
        })
        .expect("the shared test model (shared/models/minilm-static-256 above the crate, or SCALPEL_TEST_MODEL)")
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
