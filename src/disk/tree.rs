//! `list_directory`: a token-lean tree view of a folder.
//!
//! Agents orient themselves by looking at a project's layout; `ls -R` on a
//! real project floods the context with build output and dependencies. This
//! view uses the same ignore rules as `search_files` (`.gitignore`, `.ignore`,
//! `.scalpelignore`, hidden files, never `.git`), stops at a depth, and
//! spends an item budget breadth-first: every level is shown before deeper
//! levels take what is left, and a folder that does not fit ends with a
//! "… N more" line, so the agent knows what it is not seeing and where.

use crate::disk::grep::{rel_path, resolve_dir, walk_builder};
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, VecDeque};
use std::path::PathBuf;

pub const DEFAULT_TREE_DEPTH: usize = 3;
pub const DEFAULT_TREE_MAX_ITEMS: usize = 200;

/// What to list.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TreeParams {
    /// Folder, relative to the root (default: the root).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// Levels below the folder to show (default 3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth: Option<usize>,
    /// Most entries shown (default 200); the rest are counted in "… N more" lines.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_items: Option<usize>,
    /// Show file sizes.
    #[serde(default)]
    pub sizes: bool,
    /// Include hidden files and folders (never `.git`).
    #[serde(default)]
    pub hidden: bool,
}

/// The rendered tree.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TreeListing {
    /// One entry per line: `├── name`, folders with a trailing `/`.
    pub text: String,
    /// Entries shown.
    pub entries: usize,
    /// True when some entries were left out (see the "… N more" lines).
    pub truncated: bool,
    /// How to see what was left out.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

struct Node {
    name: String,
    is_dir: bool,
    size: Option<u64>,
    link: Option<String>,
    children: Vec<usize>,
    /// Children shown (a prefix of the sorted `children`).
    shown: usize,
}

/// List `params.path` (default: the root) as a tree.
pub fn list_directory(root: &std::path::Path, params: &TreeParams) -> Result<TreeListing> {
    let (root, dir) = resolve_dir(root, params.path.as_deref())?;
    if !dir.is_dir() {
        return Err(Error::invalid_argument(format!(
            "{} is a file, not a folder",
            rel_path(&root, &dir)
        ))
        .with_suggestion("use ⟦read_file⟧ for a file, or pass its folder"));
    }
    let depth = params.depth.unwrap_or(DEFAULT_TREE_DEPTH).max(1);
    let max_items = params.max_items.unwrap_or(DEFAULT_TREE_MAX_ITEMS);

    let mut builder = walk_builder(&root, &dir, params.hidden, None);
    builder.max_depth(Some(depth));
    let mut nodes = vec![Node {
        name: String::new(),
        is_dir: true,
        size: None,
        link: None,
        children: Vec::new(),
        shown: 0,
    }];
    let mut index: HashMap<PathBuf, usize> = HashMap::from([(dir.clone(), 0)]);
    let mut unreadable = 0usize;
    // The handle of the last listed entry's folder, opened through the door
    // (`None`: it is no longer the folder the walk listed).
    let mut folder: Option<(PathBuf, Option<std::os::fd::OwnedFd>)> = None;
    for entry in builder.build() {
        let Ok(entry) = entry else {
            unreadable += 1;
            continue;
        };
        if entry.depth() == 0 {
            continue;
        }
        let path = entry.path();
        let Some(&parent) = path.parent().and_then(|p| index.get(p)) else {
            continue;
        };
        let ft = entry.file_type();
        let is_dir = ft.is_some_and(|t| t.is_dir());
        let is_link = ft.is_some_and(|t| t.is_symlink());
        if !still_inside(&mut folder, path, is_dir) {
            continue;
        }
        let id = nodes.len();
        nodes.push(Node {
            name: entry.file_name().to_string_lossy().into_owned(),
            is_dir,
            size: (params.sizes && !is_dir && !is_link)
                .then(|| entry.metadata().ok().map(|m| m.len()))
                .flatten(),
            link: is_link.then(|| link_label(&root, path)),
            children: Vec::new(),
            shown: 0,
        });
        nodes[parent].children.push(id);
        if is_dir {
            index.insert(path.to_path_buf(), id);
        }
    }
    for i in 0..nodes.len() {
        let mut kids = std::mem::take(&mut nodes[i].children);
        kids.sort_by(|&a, &b| {
            let (a, b) = (&nodes[a], &nodes[b]);
            b.is_dir
                .cmp(&a.is_dir)
                .then_with(|| a.name.to_lowercase().cmp(&b.name.to_lowercase()))
                .then_with(|| a.name.cmp(&b.name))
        });
        nodes[i].children = kids;
    }

    // Spend the budget breadth-first.
    let mut left = max_items;
    let mut queue = VecDeque::from([0usize]);
    while let Some(n) = queue.pop_front() {
        let take = nodes[n].children.len().min(left);
        left -= take;
        nodes[n].shown = take;
        queue.extend(
            nodes[n].children[..take]
                .iter()
                .copied()
                .filter(|&c| nodes[c].is_dir),
        );
    }

    let top = rel_path(&root, &dir);
    let mut text = if top == "." {
        "./\n".to_string()
    } else {
        format!("{top}/\n")
    };
    let mut entries = 0;
    let mut hidden_total = 0;
    render(&nodes, 0, "", &mut text, &mut entries, &mut hidden_total);
    if unreadable > 0 {
        text.push_str(&format!("({unreadable} entries could not be read)\n"));
    }
    let truncated = hidden_total > 0;
    Ok(TreeListing {
        text,
        entries,
        truncated,
        hint: truncated.then(|| {
            format!("{hidden_total} entries not shown; raise ⟦max_items⟧, or list a sub-folder")
        }),
    })
}

/// Whether the walked entry `path` is really in the folder the sandbox
/// resolved. The walker lists folders by path, so a folder swapped for a
/// symlink to the outside mid-walk would list outside names: each entry is
/// checked in its folder's handle, opened through [`crate::disk::door`] (which
/// follows no symlink), and dropped unless it exists there, as the same kind.
fn still_inside(
    folder: &mut Option<(PathBuf, Option<std::os::fd::OwnedFd>)>,
    path: &std::path::Path,
    is_dir: bool,
) -> bool {
    let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
        return false;
    };
    // One handle at a time (the last entry's folder): a wide tree must not
    // hold a descriptor per folder.
    if folder.as_ref().is_none_or(|(p, _)| p != parent) {
        *folder = Some((
            parent.to_path_buf(),
            crate::disk::door::open_dir(parent).ok(),
        ));
    }
    let Some((_, Some(fd))) = folder.as_ref() else {
        return false;
    };
    match rustix::fs::statat(fd, name, rustix::fs::AtFlags::SYMLINK_NOFOLLOW) {
        Ok(st) => {
            (rustix::fs::FileType::from_raw_mode(st.st_mode) == rustix::fs::FileType::Directory)
                == is_dir
        }
        Err(_) => false,
    }
}

/// What a symlink's line shows after ` -> `: its real target relative to
/// the root when that is inside the root; otherwise only that it leads
/// nowhere Scalpel can go, without saying where, or whether it exists.
fn link_label(root: &std::path::Path, link: &std::path::Path) -> String {
    match std::fs::canonicalize(link) {
        Ok(t) if t.starts_with(root) => rel_path(root, &t),
        _ => OUTSIDE_LINK.to_string(),
    }
}

/// The target shown for a symlink that leaves the root or is broken.
pub const OUTSIDE_LINK: &str = "(outside the root or missing)";

fn render(
    nodes: &[Node],
    n: usize,
    prefix: &str,
    out: &mut String,
    shown: &mut usize,
    hidden: &mut usize,
) {
    let node = &nodes[n];
    let more = node.children.len() - node.shown;
    for (i, &c) in node.children[..node.shown].iter().enumerate() {
        let last = i + 1 == node.shown && more == 0;
        let child = &nodes[c];
        out.push_str(prefix);
        out.push_str(if last { "└── " } else { "├── " });
        out.push_str(&child.name);
        if child.is_dir {
            out.push('/');
        }
        if let Some(t) = &child.link {
            out.push_str(" -> ");
            out.push_str(t);
        }
        if let Some(s) = child.size {
            out.push_str(&format!(" ({})", human_size(s)));
        }
        out.push('\n');
        *shown += 1;
        if child.is_dir {
            let deeper = format!("{prefix}{}", if last { "    " } else { "│   " });
            render(nodes, c, &deeper, out, shown, hidden);
        }
    }
    if more > 0 {
        *hidden += more;
        out.push_str(&format!("{prefix}└── … {more} more\n"));
    }
}

/// `512 B`, `1.2 KB`, `3.4 MB`.
pub fn human_size(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KB", "MB", "GB", "TB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut v = bytes as f64 / 1024.0;
    let mut unit = 0;
    while v >= 1024.0 && unit + 1 < UNITS.len() {
        v /= 1024.0;
        unit += 1;
    }
    format!("{v:.1} {}", UNITS[unit])
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn tree() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let r = dir.path();
        let write = |p: &str, s: &str| {
            let p = r.join(p);
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(p, s).unwrap();
        };
        write(".gitignore", "target/\n");
        write(".scalpelignore", "*.gen\n");
        write("Cargo.toml", "[package]\n");
        write("README.md", "hello\n");
        write("src/lib.rs", &"x".repeat(2048));
        write("src/a/b/c/deep.rs", "");
        write("src/api.gen", "");
        write("target/out", "");
        write(".hidden", "");
        write(".git/HEAD", "");
        dir
    }

    #[test]
    fn renders_a_sorted_ignore_aware_tree() {
        let dir = tree();
        let t = list_directory(dir.path(), &TreeParams::default()).unwrap();
        let want = "./\n\
                    ├── src/\n\
                    │   ├── a/\n\
                    │   │   └── b/\n\
                    │   └── lib.rs\n\
                    ├── Cargo.toml\n\
                    └── README.md\n";
        assert_eq!(t.text, want);
        assert_eq!((t.entries, t.truncated), (6, false));
    }

    #[test]
    fn sizes_hidden_depth_and_path() {
        let dir = tree();
        let p = TreeParams {
            sizes: true,
            hidden: true,
            depth: Some(1),
            ..TreeParams::default()
        };
        let t = list_directory(dir.path(), &p).unwrap();
        assert!(t.text.contains("├── .hidden (0 B)\n"), "{}", t.text);
        assert!(t.text.contains(".gitignore"));
        assert!(!t.text.contains(".git/"));
        assert!(!t.text.contains("lib.rs"));
        let p = TreeParams {
            path: Some("src".into()),
            sizes: true,
            ..TreeParams::default()
        };
        let t = list_directory(dir.path(), &p).unwrap();
        assert!(t.text.starts_with("src/\n"));
        assert!(t.text.contains("└── lib.rs (2.0 KB)\n"), "{}", t.text);
        assert!(
            t.text.contains("└── c/\n") && !t.text.contains("deep.rs"),
            "{}",
            t.text
        );
        let p = TreeParams {
            path: Some("src/lib.rs".into()),
            ..TreeParams::default()
        };
        assert!(list_directory(dir.path(), &p).is_err());
    }

    #[test]
    fn budget_is_spent_breadth_first_with_more_lines() {
        let dir = tempfile::tempdir().unwrap();
        for d in ["a", "b"] {
            for i in 0..5 {
                let p = dir.path().join(d).join(format!("f{i}.txt"));
                fs::create_dir_all(p.parent().unwrap()).unwrap();
                fs::write(p, "").unwrap();
            }
        }
        fs::write(dir.path().join("top.txt"), "").unwrap();
        let p = TreeParams {
            max_items: Some(6),
            ..TreeParams::default()
        };
        let t = list_directory(dir.path(), &p).unwrap();
        let want = "./\n\
                    ├── a/\n\
                    │   ├── f0.txt\n\
                    │   ├── f1.txt\n\
                    │   ├── f2.txt\n\
                    │   └── … 2 more\n\
                    ├── b/\n\
                    │   └── … 5 more\n\
                    └── top.txt\n";
        assert_eq!(t.text, want);
        assert_eq!((t.entries, t.truncated), (6, true));
        assert!(t.hint.unwrap().contains("7 entries not shown"));
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_are_shown_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir(dir.path().join("d")).unwrap();
        std::os::unix::fs::symlink(dir.path().join("d"), dir.path().join("d/loop")).unwrap();
        let t = list_directory(dir.path(), &TreeParams::default()).unwrap();
        assert!(t.text.contains("└── loop -> "), "{}", t.text);
        assert_eq!(t.entries, 2);
    }

    /// A link's target is shown only when it is inside the root, as a path
    /// from the root; a link out of the root (existing or not) shows neither
    /// the target nor whether it exists.
    #[cfg(unix)]
    #[test]
    fn outside_link_targets_are_not_shown() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("repo");
        fs::create_dir_all(root.join("src")).unwrap();
        fs::write(root.join("src/lib.rs"), "").unwrap();
        fs::write(dir.path().join("secret-outside.txt"), "").unwrap();
        let link = |target: &std::path::Path, name: &str| {
            std::os::unix::fs::symlink(target, root.join(name)).unwrap()
        };
        link(&dir.path().join("secret-outside.txt"), "a-out");
        link(&dir.path().join("missing-outside.txt"), "b-out-missing");
        link(std::path::Path::new("../secret-outside.txt"), "c-out-rel");
        link(std::path::Path::new("src/lib.rs"), "d-in");
        link(std::path::Path::new("/proc/self/environ"), "e-proc");
        let t = list_directory(&root, &TreeParams::default()).unwrap();
        assert!(!t.text.contains("outside.txt"), "{}", t.text);
        assert!(!t.text.contains("/proc"), "{}", t.text);
        for name in ["a-out", "b-out-missing", "c-out-rel", "e-proc"] {
            assert!(
                t.text.contains(&format!("{name} -> {OUTSIDE_LINK}\n")),
                "{name}: {}",
                t.text
            );
        }
        assert!(t.text.contains("d-in -> src/lib.rs\n"), "{}", t.text);
    }

    #[test]
    fn human_sizes() {
        assert_eq!(human_size(0), "0 B");
        assert_eq!(human_size(1536), "1.5 KB");
        assert_eq!(human_size(5 * 1024 * 1024), "5.0 MB");
    }
}
