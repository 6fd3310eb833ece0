//! Where the outline's time goes, per language (issue 29 item 7): on the
//! files `benches/outline.rs` measures, the CPU time of the bare parse, the
//! whole outline, the tags query alone, a walk of every node, and the tags
//! query with each pattern disabled in turn (the pattern's own cost), with
//! each pattern's match count.
//! Run: `cargo bench --bench outline_probe [-- N [LANG...]]`.

#[path = "../tests/common/mod.rs"]
mod common;
#[path = "../tests/provision/mod.rs"]
mod provision;
#[path = "../tests/trust_support/mod.rs"]
mod trust_support;

use scalpel::ops::engine::Engine;
use std::path::{Path, PathBuf};
use std::time::Duration;
use tree_sitter::{Query, QueryCursor, StreamingIterator};

const REPS: usize = 3;

fn cpu() -> Duration {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
}

fn best(mut f: impl FnMut()) -> Duration {
    (0..REPS)
        .map(|_| {
            let t = cpu();
            f();
            cpu() - t
        })
        .min()
        .unwrap_or_default()
}

fn largest(engine: &Engine, files: Vec<PathBuf>, language: &str, n: usize) -> Vec<PathBuf> {
    let mut files: Vec<(u64, PathBuf)> = files
        .into_iter()
        .filter(|p| {
            engine
                .registry
                .detect(p, None)
                .is_some_and(|l| l.name() == language)
        })
        .filter_map(|p| {
            let len = std::fs::metadata(&p).ok()?.len();
            (len <= engine.max_file_size).then_some((len, p))
        })
        .collect();
    files.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    files.into_iter().take(n).map(|f| f.1).collect()
}

/// Run `query` over every tree; returns matches per pattern.
fn run(query: &Query, trees: &[(tree_sitter::Tree, String)]) -> Vec<usize> {
    let mut counts = vec![0; query.pattern_count()];
    for (tree, body) in trees {
        let mut cursor = QueryCursor::new();
        let mut m = cursor.matches(query, tree.root_node(), body.as_bytes());
        while let Some(m) = m.next() {
            counts[m.pattern_index] += 1;
        }
    }
    counts
}

fn walk(trees: &[(tree_sitter::Tree, String)]) -> usize {
    let mut n = 0;
    for (tree, _) in trees {
        let mut c = tree.walk();
        'tree: loop {
            n += 1;
            if c.goto_first_child() {
                continue;
            }
            while !c.goto_next_sibling() {
                if !c.goto_parent() {
                    break 'tree;
                }
            }
        }
    }
    n
}

/// `PROBE_KINDS`: per node kind, the nodes inside its outermost
/// occurrences: what the walk for the tags query would skip if that kind
/// were `[symbols] opaque`.
fn kinds(trees: &[(tree_sitter::Tree, String)]) {
    let mut under: std::collections::HashMap<String, usize> = Default::default();
    let mut open: Vec<u16> = Vec::new();
    for (tree, _) in trees {
        let language = tree.language();
        let mut c = tree.walk();
        let mut stack: Vec<u16> = Vec::new();
        'tree: loop {
            for k in &stack {
                if !open.contains(k) {
                    open.push(*k);
                }
            }
            for k in open.drain(..) {
                let name = language.node_kind_for_id(k).unwrap_or("?");
                *under.entry(name.to_string()).or_default() += 1;
            }
            let kind = c.node().kind_id();
            if c.goto_first_child() {
                stack.push(kind);
                continue;
            }
            while !c.goto_next_sibling() {
                if !c.goto_parent() {
                    break 'tree;
                }
                stack.pop();
            }
        }
    }
    let mut v: Vec<_> = under.into_iter().collect();
    v.sort_by_key(|k| std::cmp::Reverse(k.1));
    println!("| kind | nodes below its occurrences |");
    println!("|---|---:|");
    for (k, n) in v.into_iter().take(40) {
        println!("| `{k}` | {n} |");
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// `PROBE_CHECK`: the tags `for_each_tag` finds (from the root nodes) are
/// those of one run over the whole tree, on every file.
fn check(engine: &Engine, language: &str, files: &[PathBuf]) {
    let (mut n, mut bad) = (0, 0);
    for f in files {
        let Ok(p) = engine.load(f, None) else {
            continue;
        };
        n += 1;
        let (rooted, whole) = common::tags_both_ways(&p);
        if rooted != whole {
            bad += 1;
            eprintln!("{language}: {} differs", f.display());
        }
    }
    println!("{language}: {n} files checked, {bad} differ");
}

fn measure(engine: &Engine, language: &str, files: &[PathBuf]) {
    let mut trees = Vec::new();
    let mut sources = Vec::new();
    let mut lang = None;
    for f in files {
        let Ok(p) = engine.load(f, None) else {
            continue;
        };
        lang = Some(p.language.clone());
        sources.push(p.source.clone());
        trees.push((p.tree.clone(), p.source.body().to_string()));
    }
    let Some(lang) = lang else { return };
    if std::env::var_os("PROBE_KINDS").is_some() {
        kinds(&trees);
        return;
    }
    if std::env::var_os("PROBE_PERF").is_some() {
        // Only the outlines, for `perf record`.
        for _ in 0..REPS {
            for ((tree, _), s) in trees.iter().zip(&sources) {
                scalpel::symbols::outline(&lang, s.clone(), tree.clone()).unwrap();
            }
        }
        return;
    }
    let bare = best(|| {
        for (_, body) in &trees {
            scalpel::symbols::parse_tree(&lang, body, None).unwrap();
        }
    });
    let outline = best(|| {
        for ((tree, _), s) in trees.iter().zip(&sources) {
            scalpel::symbols::outline(&lang, s.clone(), tree.clone()).unwrap();
        }
    });
    let src = lang.query_source("tags").unwrap();
    let query = Query::new(lang.grammar(), src).unwrap();
    let counts = run(&query, &trees);
    let whole = best(|| {
        run(&query, &trees);
    });
    let walked = best(|| {
        walk(&trees);
    });
    let mut none = Query::new(lang.grammar(), src).unwrap();
    for i in 0..none.pattern_count() {
        none.disable_pattern(i);
    }
    let empty = best(|| {
        run(&none, &trees);
    });
    println!(
        "## {language}: bare parse {:.0} ms, outline (no parse) {:.0} ms, tags query {:.0} ms, \
         query with every pattern disabled {:.0} ms, node walk {:.0} ms, {} nodes",
        ms(bare),
        ms(outline),
        ms(whole),
        ms(empty),
        ms(walked),
        walk(&trees)
    );
    if std::env::var_os("PROBE_PATTERNS").is_none() {
        return;
    }
    println!("| pattern | line | matches | saved when disabled (ms) |");
    println!("|---:|---:|---:|---:|");
    for i in 0..query.pattern_count() {
        let mut q = Query::new(lang.grammar(), src).unwrap();
        q.disable_pattern(i);
        let t = best(|| {
            run(&q, &trees);
        });
        let line = src[..query.start_byte_for_pattern(i)].lines().count() + 1;
        let head: String = src[query.start_byte_for_pattern(i)..]
            .lines()
            .next()
            .unwrap_or("")
            .chars()
            .take(60)
            .collect();
        println!(
            "| {i} | {line} `{head}` | {} | {:.1} |",
            counts[i],
            ms(whole) - ms(t)
        );
    }
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let n: usize = args.iter().find_map(|a| a.parse().ok()).unwrap_or(12);
    let only: Vec<&String> = args
        .iter()
        .filter(|a| a.parse::<usize>().is_err())
        .collect();
    // `PROBE_LANG_DIR`: a language override directory (queries to try).
    let mut engine = Engine::default();
    if let Some(dir) = std::env::var_os("PROBE_LANG_DIR") {
        engine.registry = scalpel::lang::Registry::with_override(Some(Path::new(&dir))).unwrap();
    }
    let home = PathBuf::from(std::env::var("HOME").unwrap_or_default());
    let walk = |dir: &Path| scalpel::disk::walk_files(dir);
    let want = |l: &str| only.is_empty() || only.iter().any(|o| *o == l);
    let mut corpora: Vec<(String, Vec<PathBuf>)> = Vec::new();
    if want("python") {
        corpora.push(("python".into(), walk(&trust_support::stdlib_dir())));
    }
    if want("rust") {
        corpora.push(("rust".into(), walk(&home.join(".cargo/registry/src"))));
    }
    if want("typescript") {
        corpora.push((
            "typescript".into(),
            walk(&provision::ts_corpus().join("node_modules")),
        ));
    }
    if want("javascript") {
        corpora.push(("javascript".into(), walk(&provision::js_corpus())));
    }
    for fe in trust_support::command_front_ends() {
        if want(&fe.language) {
            let files = fe.corpus_files();
            corpora.push((fe.language, files));
        }
    }
    for (language, files) in corpora {
        let files = largest(&engine, files, &language, n);
        if std::env::var_os("PROBE_CHECK").is_some() {
            check(&engine, &language, &files);
        } else if !files.is_empty() {
            measure(&engine, &language, &files);
        }
    }
}
