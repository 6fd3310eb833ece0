//! The module layering holds (ARCHITECTURE.md, "Layers").
//!
//! Reads `src/` as text and checks two rules:
//! - a top-level module imports only modules in a lower layer of
//!   [`LAYERS`] (`crate::x` paths, test modules included: a test that
//!   reaches up is a layering break too);
//! - no two files import each other.
//!
//! Both are checked on what the source says, so the test fails the moment an
//! import goes the wrong way, before any behaviour changes.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Top-level modules, lowest first. A module may import only the modules
/// before it. `main` and `lib` are the crate roots and may import anything.
const LAYERS: &[&str] = &[
    "hint",    // the vocabulary both interfaces render
    "error",   // typed failures
    "source",  // decoded text and its profile: pure, no disk
    "lang",    // the language registry (grammars, queries)
    "text",    // text matching and splicing: pure
    "symbols", // parsing, outlines, name paths: pure
    "edit",    // planning and validating symbol edits: pure
    "disk",    // the door to the disk: the only writer
    "receipt", // what a write did, and its one rendering
    "change",  // a planned change, written once: the one write path
    "refs",    // references and renames across files
    "engine",  // symbol operations over a workspace
    "textops", // text operations over a workspace
    "index",   // the search index
    "check",   // the pre-commit check
    "mcp",     // the MCP adapter
    "cli",     // the CLI adapter
];

fn src_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module path of a source file: `src/disk/journal.rs` → `disk::journal`,
/// `src/disk/mod.rs` → `disk`, `src/lib.rs` → ``.
fn module_of(file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src_dir()).unwrap().with_extension("");
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts
}

/// Every `crate::a::b::c` path in `text`, as its segments. Comments are
/// skipped so that doc links do not count as imports.
fn crate_paths(text: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for line in text.lines() {
        let code = line.trim_start();
        if code.starts_with("//") {
            continue;
        }
        let code = code.split("//").next().unwrap_or("");
        let mut rest = code;
        while let Some(at) = rest.find("crate::") {
            let before = rest[..at].chars().last();
            rest = &rest[at + "crate::".len()..];
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                continue; // `$crate::` or `somecrate::`
            }
            let path: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
                .collect();
            let segs: Vec<String> = path
                .split("::")
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect();
            if !segs.is_empty() {
                out.push(segs);
            }
        }
    }
    out
}

/// `use` lines of a file, braces expanded one level: `use crate::disk::{a,
/// b::C}` gives `disk::a` and `disk::b::C`. Also `super::x`.
fn imported_paths(file: &Path, text: &str) -> Vec<Vec<String>> {
    let module = module_of(file);
    let is_mod_rs = file.file_name().is_some_and(|n| n == "mod.rs");
    let mut out = crate_paths(text);
    let joined = text.replace('\n', " ");
    for stmt in joined.split(';') {
        let stmt = stmt.trim();
        let Some(body) = stmt
            .strip_prefix("use ")
            .or_else(|| stmt.strip_prefix("pub use "))
            .or_else(|| stmt.strip_prefix("pub(crate) use "))
        else {
            continue;
        };
        let (base, items): (&str, Vec<&str>) = match body.find('{') {
            Some(open) => {
                let inner = body[open + 1..].trim_end_matches('}');
                (&body[..open], inner.split(',').map(str::trim).collect())
            }
            None => (body, vec![""]),
        };
        let base = base.trim().trim_end_matches("::");
        let mut segs: Vec<String> = if let Some(rest) = base.strip_prefix("crate::") {
            rest.split("::").map(str::to_string).collect()
        } else if base == "crate" {
            Vec::new()
        } else if let Some(rest) = base.strip_prefix("super") {
            // `super` of `disk/journal.rs` is `disk`; of `disk/mod.rs` it is the crate.
            let mut parent = module.clone();
            let ups = if is_mod_rs { 1 } else { 0 };
            for _ in 0..=ups {
                parent.pop();
            }
            parent.extend(
                rest.trim_start_matches("::")
                    .split("::")
                    .filter(|s| !s.is_empty())
                    .map(str::to_string),
            );
            parent
        } else {
            continue;
        };
        if base.starts_with("crate") && items == [""] {
            continue; // already counted by crate_paths
        }
        for item in items {
            let mut p = segs.clone();
            p.extend(
                item.split("::")
                    .map(|s| s.split(" as ").next().unwrap_or("").trim())
                    .filter(|s| !s.is_empty() && *s != "self" && *s != "*")
                    .map(str::to_string),
            );
            if !p.is_empty() {
                out.push(p);
            }
        }
        segs.clear();
    }
    out
}

struct Crate {
    /// Module path → file.
    files: BTreeMap<Vec<String>, PathBuf>,
    /// `mod.rs` re-exports: (module, name) → the child module that defines it.
    reexports: BTreeMap<(Vec<String>, String), Vec<String>>,
}

impl Crate {
    fn load() -> Crate {
        let mut paths = Vec::new();
        rust_files(&src_dir(), &mut paths);
        let mut files = BTreeMap::new();
        let mut reexports = BTreeMap::new();
        for f in &paths {
            let module = module_of(f);
            let text = std::fs::read_to_string(f).unwrap();
            for stmt in text.replace('\n', " ").split(';') {
                let stmt = stmt.trim();
                let Some(body) = stmt.strip_prefix("pub use ") else {
                    continue;
                };
                let Some(open) = body.find("::{") else {
                    if let Some((child, name)) = body.rsplit_once("::")
                        && !child.contains("::")
                    {
                        let mut m = module.clone();
                        m.push(child.to_string());
                        reexports.insert((module.clone(), name.trim().to_string()), m);
                    }
                    continue;
                };
                let child = &body[..open];
                if child.contains("::") || child.starts_with("crate") {
                    continue;
                }
                for name in body[open + 3..].trim_end_matches('}').split(',') {
                    let name = name.trim();
                    if !name.is_empty() {
                        let mut m = module.clone();
                        m.push(child.to_string());
                        reexports.insert((module.clone(), name.to_string()), m);
                    }
                }
            }
            files.insert(module, f.clone());
        }
        Crate { files, reexports }
    }

    /// The file a path points into: its longest prefix that is a module,
    /// followed through a parent's re-export.
    fn target(&self, path: &[String]) -> Option<Vec<String>> {
        let mut best = None;
        for n in (1..=path.len()).rev() {
            if self.files.contains_key(&path[..n]) {
                best = Some(path[..n].to_vec());
                break;
            }
        }
        let module = best?;
        if let Some(next) = path.get(module.len())
            && let Some(child) = self.reexports.get(&(module.clone(), next.clone()))
        {
            return Some(child.clone());
        }
        Some(module)
    }
}

#[test]
fn modules_import_only_lower_layers() {
    let krate = Crate::load();
    let rank = |m: &str| LAYERS.iter().position(|l| *l == m);
    let mut breaks = BTreeSet::new();
    for (module, file) in &krate.files {
        let Some(top) = module.first() else { continue };
        if top == "main" {
            continue;
        }
        let Some(own) = rank(top) else {
            panic!("module `{top}` is not in LAYERS: place it in tests/layers.rs");
        };
        let text = std::fs::read_to_string(file).unwrap();
        for path in crate_paths(&text) {
            let other = &path[0];
            if other == top {
                continue;
            }
            if let Some(theirs) = rank(other)
                && theirs > own
            {
                breaks.insert(format!(
                    "{} imports crate::{} (layer {theirs} > {own})",
                    file.strip_prefix(src_dir()).unwrap().display(),
                    path.join("::")
                ));
            }
        }
    }
    assert!(
        breaks.is_empty(),
        "imports that go up the layers:\n{}",
        breaks.into_iter().collect::<Vec<_>>().join("\n")
    );
}

#[test]
fn no_two_files_import_each_other() {
    let krate = Crate::load();
    let mut edges: BTreeSet<(Vec<String>, Vec<String>)> = BTreeSet::new();
    for (module, file) in &krate.files {
        let text = std::fs::read_to_string(file).unwrap();
        for path in imported_paths(file, &text) {
            if let Some(to) = krate.target(&path)
                && &to != module
                && !to.is_empty()
            {
                edges.insert((module.clone(), to));
            }
        }
    }
    let cycles: Vec<String> = edges
        .iter()
        .filter(|(a, b)| a < b && edges.contains(&(b.clone(), a.clone())))
        // A parent module declares its children; that is not an import.
        .filter(|(a, b)| !(b.starts_with(a) || a.starts_with(b)))
        .map(|(a, b)| format!("{} <-> {}", a.join("::"), b.join("::")))
        .collect();
    assert!(
        cycles.is_empty(),
        "files that import each other:\n{}",
        cycles.join("\n")
    );
}

#[test]
fn the_checker_sees_imports() {
    // The parser this test rests on finds the forms the crate uses.
    let text = "use crate::disk::{self, Purpose, read::Window};\nuse super::journal::Retention;\nfn f() { crate::text::lines::strip(); } // crate::cli::x\n";
    let paths = imported_paths(&src_dir().join("disk/workspace.rs"), text);
    let has = |p: &str| paths.iter().any(|x| x.join("::") == p);
    assert!(has("disk::Purpose"), "{paths:?}");
    assert!(has("disk::read::Window"), "{paths:?}");
    assert!(has("disk::journal::Retention"), "{paths:?}");
    assert!(has("text::lines::strip"), "{paths:?}");
    assert!(!paths.iter().any(|x| x[0] == "cli"), "{paths:?}");
}

/// Calls that write to the disk. Outside `src/disk/` none may appear in
/// non-test code: `disk` is the only writer (edits through the journal, the
/// hook and models through `disk::install`, the index through `disk::store`).
const WRITES: &[&str] = &[
    "atomic_write",
    "atomic_remove",
    "std::fs::write",
    "File::create",
    "OpenOptions",
    "create_dir",
    "remove_file",
    "remove_dir",
    "std::fs::rename",
    "std::fs::copy",
    "set_permissions",
    "tempfile::",
];

/// Non-test code lines outside `allowed` (files or folders under `src/`)
/// that contain one of `calls`, as `file:line: text`.
fn calls_outside(allowed: &[&str], calls: &[&str]) -> Vec<String> {
    let mut files = Vec::new();
    rust_files(&src_dir(), &mut files);
    let mut found = Vec::new();
    for f in files {
        if allowed.iter().any(|a| f.starts_with(src_dir().join(a))) {
            continue;
        }
        let text = std::fs::read_to_string(&f).unwrap();
        // Test modules come last in every file and may write fixtures.
        let code = text.split("#[cfg(test)]").next().unwrap_or("");
        for (n, line) in code.lines().enumerate() {
            if line.trim_start().starts_with("//") {
                continue;
            }
            for w in calls {
                if line.contains(w) {
                    found.push(format!(
                        "{}:{}: {}",
                        f.strip_prefix(src_dir()).unwrap().display(),
                        n + 1,
                        line.trim()
                    ));
                }
            }
        }
    }
    found
}

#[test]
fn only_disk_writes() {
    let found = calls_outside(&["disk"], WRITES);
    assert!(
        found.is_empty(),
        "writes outside src/disk (route them through disk):\n{}",
        found.join("\n")
    );
}

/// Every planner's change reaches the disk through `change` (one
/// `Change`, committed once, one receipt): nothing else calls the disk's
/// two committing functions. Undo lives inside `disk`.
#[test]
fn every_change_is_committed_by_change() {
    let found = calls_outside(&["disk", "change.rs"], &["commit_write(", "commit_files("]);
    assert!(
        found.is_empty(),
        "commits outside src/change.rs (build a change::Change and commit it):\n{}",
        found.join("\n")
    );
}
