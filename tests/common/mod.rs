//! Helpers shared by the integration tests.
#![allow(dead_code)]

use scalpel::ops::engine::FileSymbols;
use std::path::{Path, PathBuf};

pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

/// Every fixture file, in path order: the files of `fixtures/<language>/`
/// for each language of the registry (`fixtures/model` is the test
/// embedding model, not code).
pub fn fixture_files() -> Vec<PathBuf> {
    let registry = scalpel::lang::Registry::builtin();
    let mut v: Vec<PathBuf> = std::fs::read_dir(fixtures())
        .unwrap()
        .flatten()
        .filter(|d| d.path().is_dir())
        .filter(|d| registry.by_name(&d.file_name().to_string_lossy()).is_some())
        .flat_map(|d| {
            std::fs::read_dir(d.path())
                .unwrap()
                .flatten()
                .map(|f| f.path())
        })
        .filter(|p| p.is_file())
        .collect();
    v.sort();
    v
}

/// One line per symbol: `kind address lines @name_line [context] | signature`.
pub fn compact(fs: &FileSymbols) -> String {
    let mut out = format!(
        "{} ({}) parse_errors={}\n",
        fs.path, fs.language, fs.parse_errors
    );
    for s in &fs.symbols {
        let depth = s.depth();
        let ctx = s
            .context
            .as_ref()
            .map(|c| format!(" [{c}]"))
            .unwrap_or_default();
        out.push_str(&format!(
            "{:indent$}{} {} {}-{} @{}{ctx} | {}\n",
            "",
            s.kind,
            s.address.as_deref().unwrap_or(&s.name_path),
            s.start_line,
            s.end_line,
            s.name_line,
            s.signature,
            indent = depth * 2
        ));
    }
    out
}

/// A xorshift generator seeded from the clock: random kill moments for the
/// crash tests (each run tries other moments).
pub fn rng() -> impl FnMut() -> u64 {
    let mut seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos() as u64
        | 1;
    move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    }
}

/// Every tag match of `file` as `for_each_tag` hands them out (the query
/// run from each root node its patterns start at) and as one run of the
/// query cursor over the whole tree finds them, sorted: they must agree.
pub fn tags_both_ways(file: &scalpel::symbols::ParsedFile) -> (Vec<String>, Vec<String>) {
    use scalpel::lang::query::TagRole;
    use tree_sitter::StreamingIterator;
    let (lang, body) = (&file.language, file.source.body());
    let at =
        |role: &str, n: tree_sitter::Node| format!("{role} {}-{}", n.start_byte(), n.end_byte());
    let key = |pattern: usize, mut caps: Vec<String>| {
        caps.sort();
        format!("{pattern}: {}", caps.join(", "))
    };
    let mut rooted = Vec::new();
    scalpel::symbols::for_each_tag(lang, &file.tree, body, None, None, |m| {
        let mut caps = Vec::new();
        caps.extend(m.definition.map(|(n, k)| at(k, n)));
        caps.extend(m.scope.map(|n| at("scope", n)));
        caps.extend(m.names.iter().map(|&n| at("name", n)));
        caps.extend(m.doc.map(|n| at("doc", n)));
        caps.extend(m.qualifiers.iter().map(|&n| at("qualifier", n)));
        rooted.push(key(m.pattern, caps));
    })
    .unwrap();
    let query = lang.tags_query().unwrap();
    let mut whole = Vec::new();
    let mut cursor = tree_sitter::QueryCursor::new();
    let mut matches = cursor.matches(&query.query, file.tree.root_node(), body.as_bytes());
    while let Some(m) = matches.next() {
        if !query.admits(m) {
            continue;
        }
        let mut caps = Vec::new();
        for c in m.captures() {
            match query.roles[c.index as usize] {
                TagRole::Definition(k) => caps.push(at(k, c.node)),
                TagRole::Scope => caps.push(at("scope", c.node)),
                TagRole::Name => caps.push(at("name", c.node)),
                TagRole::Doc => caps.push(at("doc", c.node)),
                TagRole::Qualifier => caps.push(at("qualifier", c.node)),
                TagRole::Private => {}
            }
        }
        whole.push(key(m.pattern_index, caps));
    }
    rooted.sort();
    whole.sort();
    (rooted, whole)
}
