//! The module layering holds (ARCHITECTURE.md, "Layers").
//!
//! Reads `src/` with `syn` (so comments, doc comments and strings never
//! count, and a `use` after a module's doc comment is seen like any other)
//! and checks two rules:
//! - a top-level module imports only modules in a lower layer of
//!   [`LAYERS`] (`use` trees, `crate::`/`super::` paths in code and in macro
//!   arguments, test modules included: a test that reaches up is a layering
//!   break too);
//! - no two files import each other.
//!
//! Both are checked on what the source says, so the test fails the moment an
//! import goes the wrong way, before any behaviour changes; each rule is also
//! run on a planted crate, to show it can fail.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use syn::visit::Visit;

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
    "lsp",     // language servers as child processes (the semantic backend's transport)
    "refs",    // references across files: the binding rules
    "ops",     // operations on a Session: planners, the one write path, receipts
    "index",   // the search index
    "check",   // the pre-commit check
    "render",  // one rendering of every result, laid out by each adapter
    "mcp",     // the MCP adapter
    "cli",     // the CLI adapter
];

/// ARCHITECTURE.md's list of the layers ("**Layers.** … in this order:
/// `a`, `b`, …; and no two files …") is [`LAYERS`], in the same order.
#[test]
fn the_documented_layers_are_the_checked_ones() {
    let doc =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("ARCHITECTURE.md"))
            .unwrap();
    let from = doc
        .find("**Layers.**")
        .expect("ARCHITECTURE.md has a **Layers.** paragraph");
    // One paragraph, its lines joined.
    let paragraph = doc[from..].split("\n\n").next().unwrap().replace('\n', " ");
    let list = &paragraph[paragraph
        .find("in this order:")
        .expect("the paragraph gives the order")..];
    let list = &list[..list.find("; and").expect("the list ends with `; and`")];
    let documented: Vec<&str> = list.split('`').skip(1).step_by(2).collect();
    assert_eq!(
        documented, LAYERS,
        "ARCHITECTURE.md's layers differ from tests/layers.rs"
    );
}

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

/// The module path of a source file: `disk/journal.rs` → `disk::journal`,
/// `disk/mod.rs` → `disk`, `lib.rs` → ``.
fn module_of(rel: &Path) -> Vec<String> {
    let rel = rel.with_extension("");
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

/// One source file: its module path and its text.
struct Source {
    module: Vec<String>,
    text: String,
}

/// Every path a file names that may point into the crate, as written (first
/// segment `crate`, `super`, `self` or a plain name), with whether it is
/// re-exported (`pub use`). Found in `use` trees, in paths of code and
/// types, and in macro arguments (`crate::a::b` token sequences).
#[derive(Default)]
struct Paths {
    found: Vec<(Vec<String>, bool)>,
    in_pub_use: bool,
}

impl Paths {
    fn use_tree(&mut self, prefix: &mut Vec<String>, tree: &syn::UseTree) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.use_tree(prefix, &p.tree);
                prefix.pop();
            }
            syn::UseTree::Name(n) => {
                let mut path = prefix.clone();
                if n.ident != "self" {
                    path.push(n.ident.to_string());
                }
                self.found.push((path, self.in_pub_use));
            }
            syn::UseTree::Rename(r) => {
                let mut path = prefix.clone();
                path.push(r.ident.to_string());
                self.found.push((path, false));
            }
            syn::UseTree::Glob(_) => self.found.push((prefix.clone(), false)),
            syn::UseTree::Group(g) => {
                for t in &g.items {
                    self.use_tree(prefix, t);
                }
            }
        }
    }

    /// `crate :: a :: b` (or `super ::`) inside a macro's tokens.
    fn tokens(&mut self, tokens: proc_macro2::TokenStream) {
        let flat: Vec<proc_macro2::TokenTree> = tokens.into_iter().collect();
        let mut i = 0;
        while i < flat.len() {
            match &flat[i] {
                proc_macro2::TokenTree::Group(g) => self.tokens(g.stream()),
                proc_macro2::TokenTree::Ident(id) if id == "crate" || id == "super" => {
                    let mut path = vec![id.to_string()];
                    let mut j = i + 1;
                    while let (
                        Some(proc_macro2::TokenTree::Punct(a)),
                        Some(proc_macro2::TokenTree::Punct(b)),
                        Some(proc_macro2::TokenTree::Ident(next)),
                    ) = (flat.get(j), flat.get(j + 1), flat.get(j + 2))
                    {
                        if a.as_char() != ':' || b.as_char() != ':' {
                            break;
                        }
                        path.push(next.to_string());
                        j += 3;
                    }
                    if path.len() > 1 {
                        self.found.push((path, false));
                    }
                    i = j;
                    continue;
                }
                _ => {}
            }
            i += 1;
        }
    }
}

impl<'ast> Visit<'ast> for Paths {
    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        self.in_pub_use = matches!(u.vis, syn::Visibility::Public(_));
        self.use_tree(&mut Vec::new(), &u.tree);
        self.in_pub_use = false;
    }

    fn visit_path(&mut self, p: &'ast syn::Path) {
        let segs: Vec<String> = p.segments.iter().map(|s| s.ident.to_string()).collect();
        if segs.len() > 1 && (segs[0] == "crate" || segs[0] == "super") {
            self.found.push((segs, false));
        }
        syn::visit::visit_path(self, p);
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        self.tokens(m.tokens.clone());
        syn::visit::visit_macro(self, m);
    }
}

struct Crate {
    /// Module path → file (relative to `src/`).
    files: BTreeMap<Vec<String>, PathBuf>,
    /// Per module, the absolute crate paths it names.
    imports: BTreeMap<Vec<String>, Vec<Vec<String>>>,
    /// Re-exports: (module, name) → the module that defines it.
    reexports: BTreeMap<(Vec<String>, String), Vec<String>>,
}

impl Crate {
    /// The crate in `src/`.
    fn load() -> Crate {
        let mut paths = Vec::new();
        rust_files(&src_dir(), &mut paths);
        let files = paths
            .iter()
            .map(|f| {
                let rel = f.strip_prefix(src_dir()).unwrap();
                (rel.to_path_buf(), std::fs::read_to_string(f).unwrap())
            })
            .collect();
        Crate::from_files(files)
    }

    /// A crate of `(path under src/, text)` pairs.
    fn from_files(sources: Vec<(PathBuf, String)>) -> Crate {
        let sources: Vec<(PathBuf, Source)> = sources
            .into_iter()
            .map(|(rel, text)| {
                let module = module_of(&rel);
                (rel, Source { module, text })
            })
            .collect();
        let files: BTreeMap<Vec<String>, PathBuf> = sources
            .iter()
            .map(|(rel, s)| (s.module.clone(), rel.clone()))
            .collect();
        let mut krate = Crate {
            files,
            imports: BTreeMap::new(),
            reexports: BTreeMap::new(),
        };
        for (rel, src) in &sources {
            let ast = syn::parse_file(&src.text)
                .unwrap_or_else(|e| panic!("src/{} does not parse: {e}", rel.display()));
            let mut found = Paths::default();
            found.visit_file(&ast);
            let mut absolute = Vec::new();
            for (path, public) in found.found {
                let Some(abs) = krate.absolute(src, &path) else {
                    continue;
                };
                if public
                    && let Some(name) = abs.last()
                    && let Some(defining) = krate.module_prefix(&abs[..abs.len() - 1])
                    && defining != src.module
                {
                    krate
                        .reexports
                        .insert((src.module.clone(), name.clone()), defining);
                }
                absolute.push(abs);
            }
            krate.imports.insert(src.module.clone(), absolute);
        }
        krate
    }

    /// `path` as written in `src`, from the crate root; `None` for another
    /// crate's path.
    fn absolute(&self, src: &Source, path: &[String]) -> Option<Vec<String>> {
        let first = path.first()?;
        let mut base = match first.as_str() {
            "crate" => Vec::new(),
            "self" => src.module.clone(),
            // `super` of `disk/journal.rs` and of `disk/mod.rs` alike: one
            // step up the module path (`disk`, the crate).
            "super" => {
                let mut m = src.module.clone();
                m.pop();
                m
            }
            // `use journal::X` inside `disk/mod.rs`: a child module.
            name => {
                let mut child = src.module.clone();
                child.push(name.to_string());
                if !self.files.contains_key(&child) {
                    return None;
                }
                let mut out = child;
                out.extend(path[1..].iter().cloned());
                return Some(out);
            }
        };
        let mut rest = &path[1..];
        while rest.first().is_some_and(|s| s == "super") {
            base.pop();
            rest = &rest[1..];
        }
        base.extend(rest.iter().cloned());
        Some(base)
    }

    /// The longest prefix of `path` that is a module of the crate.
    fn module_prefix(&self, path: &[String]) -> Option<Vec<String>> {
        (0..=path.len())
            .rev()
            .map(|n| &path[..n])
            .find(|p| self.files.contains_key(*p))
            .map(<[String]>::to_vec)
    }

    /// The file a path points into: its longest prefix that is a module,
    /// followed through that module's re-export of the next name.
    fn target(&self, path: &[String]) -> Option<Vec<String>> {
        let module = self.module_prefix(path)?;
        if let Some(next) = path.get(module.len())
            && let Some(child) = self.reexports.get(&(module.clone(), next.clone()))
        {
            return Some(child.clone());
        }
        Some(module)
    }

    /// Imports that go up the layers, as text lines.
    fn upward_imports(&self) -> Vec<String> {
        let rank = |m: &str| LAYERS.iter().position(|l| *l == m);
        let mut breaks = BTreeSet::new();
        for (module, paths) in &self.imports {
            let Some(top) = module.first() else { continue };
            if top == "main" {
                continue;
            }
            let Some(own) = rank(top) else {
                panic!("module `{top}` is not in LAYERS: place it in tests/layers.rs");
            };
            for path in paths {
                let Some(other) = path.first() else { continue };
                if other == top {
                    continue;
                }
                if let Some(theirs) = rank(other)
                    && theirs > own
                {
                    breaks.insert(format!(
                        "src/{} imports crate::{} (layer {theirs} > {own})",
                        self.files[module].display(),
                        path.join("::")
                    ));
                }
            }
        }
        breaks.into_iter().collect()
    }

    /// Pairs of files that import each other, as text lines.
    fn cycles(&self) -> Vec<String> {
        let mut edges: BTreeSet<(Vec<String>, Vec<String>)> = BTreeSet::new();
        for (module, paths) in &self.imports {
            for path in paths {
                if let Some(to) = self.target(path)
                    && &to != module
                    && !to.is_empty()
                {
                    edges.insert((module.clone(), to));
                }
            }
        }
        edges
            .iter()
            .filter(|(a, b)| a < b && edges.contains(&(b.clone(), a.clone())))
            // A parent module declares its children; that is not an import.
            .filter(|(a, b)| !(b.starts_with(a) || a.starts_with(b)))
            .map(|(a, b)| format!("{} <-> {}", a.join("::"), b.join("::")))
            .collect()
    }

    /// Every import of `module`, joined, for the tests below.
    fn imports_of(&self, module: &str) -> Vec<String> {
        let key: Vec<String> = module.split("::").map(str::to_string).collect();
        self.imports[&key].iter().map(|p| p.join("::")).collect()
    }
}

#[test]
fn modules_import_only_lower_layers() {
    let breaks = Crate::load().upward_imports();
    assert!(
        breaks.is_empty(),
        "imports that go up the layers:\n{}",
        breaks.join("\n")
    );
}

#[test]
fn no_two_files_import_each_other() {
    let cycles = Crate::load().cycles();
    assert!(
        cycles.is_empty(),
        "files that import each other:\n{}",
        cycles.join("\n")
    );
}

/// A small planted crate: `disk/journal.rs` whose first `use` follows the
/// module's doc comment, a re-export, a test module reaching up, a path in
/// a macro, and a comment and a string that name modules without importing
/// them.
fn planted(extra: &[(&str, &str)]) -> Crate {
    let mut files = vec![
        ("lib.rs", "pub mod disk;\npub mod text;\npub mod cli;\n"),
        (
            "disk/mod.rs",
            "//! The door.\npub mod journal;\npub mod workspace;\npub use workspace::{Purpose, Workspace};\n",
        ),
        (
            "disk/journal.rs",
            "//! The journal.\n//! More doc.\nuse super::workspace::Workspace;\nuse crate::text::{self, lines::strip as s};\n// crate::cli::x in a comment\nfn f() { let _ = \"crate::cli::y\"; crate::text::lines::strip(); tracing::warn!(\"{}\", crate::text::preview::p()); }\n#[cfg(test)]\nmod tests { use crate::disk::Purpose; }\n",
        ),
        (
            "disk/workspace.rs",
            "pub struct Workspace;\npub enum Purpose { Read }\n",
        ),
        ("text/mod.rs", "pub mod lines;\npub mod preview;\n"),
        ("text/lines.rs", "pub fn strip() {}\n"),
        ("text/preview.rs", "pub fn p() {}\n"),
        ("cli/mod.rs", "use crate::disk::Workspace;\n"),
    ];
    files.extend_from_slice(extra);
    Crate::from_files(
        files
            .into_iter()
            .map(|(p, t)| (PathBuf::from(p), t.to_string()))
            .collect(),
    )
}

#[test]
fn the_checker_sees_every_import() {
    let krate = planted(&[]);
    let seen = krate.imports_of("disk::journal");
    for want in [
        "disk::workspace::Workspace",
        "text",
        "text::lines::strip",
        "text::preview::p",
        "disk::Purpose",
    ] {
        assert!(seen.iter().any(|p| p == want), "{want} not in {seen:?}");
    }
    assert!(!seen.iter().any(|p| p.starts_with("cli")), "{seen:?}");
    // `disk::Purpose` is `disk/workspace.rs`, through the re-export.
    assert_eq!(
        krate.target(&["disk".into(), "Purpose".into()]),
        Some(vec!["disk".to_string(), "workspace".to_string()])
    );
    assert!(
        krate.upward_imports().is_empty(),
        "{:?}",
        krate.upward_imports()
    );
    assert!(krate.cycles().is_empty(), "{:?}", krate.cycles());
}

#[test]
fn the_checker_fails_on_a_planted_upward_import_and_cycle() {
    // `text` (layer below `disk`) reaching up, in the first `use` after a
    // doc comment: the form the line-based reader of the past missed.
    let up = planted(&[(
        "text/lines.rs",
        "//! Lines.\nuse crate::disk::journal;\npub fn strip() {}\n",
    )]);
    let breaks = up.upward_imports();
    assert!(
        breaks
            .iter()
            .any(|b| b.starts_with("src/text/lines.rs imports crate::disk::journal")),
        "{breaks:?}"
    );
    // Two files of one module importing each other through `super`.
    let cycle = planted(&[(
        "disk/workspace.rs",
        "//! Workspace.\nuse super::journal;\npub struct Workspace;\npub enum Purpose { Read }\n",
    )]);
    assert_eq!(cycle.cycles(), ["disk::journal <-> disk::workspace"]);
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
        // A `tests.rs` is a test module (`#[cfg(test)] mod tests;`) and may
        // write fixtures, like the test modules that come last in a file.
        if f.file_name().is_some_and(|n| n == "tests.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&f).unwrap();
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

/// Only the MCP adapter knows the wire schema (#26 item 7): the library's
/// types are serializable payloads, but no schema or schema text below
/// `mcp/` (rust-analyzer's rule: only the protocol layer speaks protocol).
#[test]
fn only_mcp_knows_the_schema() {
    let found = calls_outside(&["mcp"], &["schemars", "JsonSchema"]);
    assert!(
        found.is_empty(),
        "schemas outside src/mcp (put the wire type in src/mcp/params.rs):\n{}",
        found.join("\n")
    );
}

/// Every planner's change reaches the disk through `change` (one
/// `Change`, committed once, one receipt): nothing else calls the disk's
/// two committing functions. Undo lives inside `disk`.
#[test]
fn every_change_is_committed_by_change() {
    let found = calls_outside(
        &["disk", "ops/change.rs"],
        &["commit_write(", "commit_files("],
    );
    assert!(
        found.is_empty(),
        "commits outside src/ops/change.rs (build an ops::change::Change and commit it):\n{}",
        found.join("\n")
    );
}
