//! What relaxing a query (`lang::relax`) saves when it compiles and costs
//! when it runs (`cargo bench --bench queries`).
//!
//! For every language (or `SCALPEL_BENCH_LANGS=python,go`) and each of its
//! three queries: the compile as written and relaxed (`Query::new`, best
//! of 5 in one process), and the run over files as the engine runs it
//! (the tags query from the pattern roots, as the outline does; the
//! references and imports queries by one cursor over the whole tree),
//! both forms interleaved, best of 7 rounds. The files are the fixtures, or
//! the paths listed one per line in `SCALPEL_BENCH_FILES`. Relaxing is
//! computed for every query, whether or not the language lists it in
//! `relaxed_queries`: the table is what that list is chosen from.

use scalpel::lang::query::Compiled;
use scalpel::lang::{Language, Registry, relax};
use std::io::BufRead;
use std::path::PathBuf;
use std::time::Instant;
use tree_sitter::{Query, QueryCursor, StreamingIterator};

const STEMS: [&str; 3] = ["tags", "references", "imports"];

fn best_compile(lang: &Language, source: &str) -> f64 {
    (0..5)
        .map(|_| {
            let t = Instant::now();
            let q = Query::new(lang.grammar(), source);
            std::hint::black_box(q.is_ok());
            t.elapsed().as_secs_f64() * 1000.0
        })
        .fold(f64::MAX, f64::min)
}

fn files() -> Vec<PathBuf> {
    if let Some(list) = std::env::var_os("SCALPEL_BENCH_FILES") {
        let f = std::fs::File::open(list).expect("SCALPEL_BENCH_FILES: a file of paths");
        return std::io::BufReader::new(f)
            .lines()
            .map(|l| PathBuf::from(l.unwrap()))
            .collect();
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let mut out = Vec::new();
    for dir in std::fs::read_dir(root).unwrap().flatten() {
        for f in std::fs::read_dir(dir.path())
            .into_iter()
            .flatten()
            .flatten()
        {
            out.push(f.path());
        }
    }
    out.sort();
    out
}

/// One run of query `stem` of `lang` over `trees`, as the engine runs it;
/// the matches admitted.
fn run(lang: &Language, stem: &str, trees: &[(String, tree_sitter::Tree)]) -> usize {
    match stem {
        "tags" => {
            let mut n = 0;
            for (text, tree) in trees {
                scalpel::symbols::for_each_tag(lang, tree, text, None, None, |_| n += 1).unwrap();
            }
            n
        }
        "references" => lang
            .references_query()
            .unwrap()
            .map_or(0, |q| whole_tree(&q, trees)),
        _ => lang
            .imports_query()
            .unwrap()
            .map_or(0, |q| whole_tree(&q, trees)),
    }
}

/// One cursor over each whole tree; the matches admitted.
fn whole_tree<R>(q: &Compiled<R>, trees: &[(String, tree_sitter::Tree)]) -> usize {
    let mut n = 0;
    for (text, tree) in trees {
        let mut cursor = QueryCursor::new();
        let mut it = cursor.matches(&q.query, tree.root_node(), text.as_bytes());
        while let Some(m) = it.next() {
            n += usize::from(q.admits(m));
        }
    }
    n
}

fn main() {
    let relaxed_all = {
        // Every query relaxed, to measure those the data does not list.
        let mut files = scalpel::lang::embedded_files();
        for (path, text) in &mut files {
            if path.starts_with("grammars/") {
                // A top-level key: after `separator`, before any table.
                let mut out = String::new();
                for line in text.lines().filter(|l| !l.starts_with("relaxed_queries")) {
                    out.push_str(line);
                    out.push('\n');
                    if line.starts_with("separator") {
                        out.push_str("relaxed_queries = [\"tags\", \"references\", \"imports\"]\n");
                    }
                }
                *text = out;
            }
        }
        Registry::from_trusted_files(files).unwrap()
    };
    let written = Registry::from_files(scalpel::lang::embedded_files()).unwrap();
    let builtin = Registry::builtin();
    let only: Option<Vec<String>> = std::env::var("SCALPEL_BENCH_LANGS")
        .ok()
        .map(|s| s.split(',').map(str::to_string).collect());
    // Parsed once, by language.
    let mut by_lang: std::collections::BTreeMap<String, Vec<(String, tree_sitter::Tree)>> =
        Default::default();
    for path in files() {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let Some(lang) = builtin.detect(&path, Some(&text)) else {
            continue;
        };
        let Ok(tree) = scalpel::symbols::parse_tree(lang, &text, None) else {
            continue;
        };
        by_lang
            .entry(lang.name().to_string())
            .or_default()
            .push((text, tree));
    }
    println!(
        "| language | query | listed | compile as written | relaxed | run as written | relaxed | files | matches |"
    );
    println!("|---|---|---|---:|---:|---:|---:|---:|---:|");
    for lang in builtin.languages() {
        let name = lang.name();
        if only.as_ref().is_some_and(|o| !o.iter().any(|l| l == name)) {
            continue;
        }
        let trees = by_lang.get(name).map_or(&[][..], |v| v.as_slice());
        for stem in STEMS {
            let Some(source) = lang.query_source(stem) else {
                continue;
            };
            let Some(relaxed_source) = relax::relax(source) else {
                println!("| {name} | {stem} | | nothing to relax | | | | | |");
                continue;
            };
            let compile = [
                best_compile(lang, source),
                best_compile(lang, &relaxed_source),
            ];
            let forms = [
                written.by_name(name).unwrap(),
                relaxed_all.by_name(name).unwrap(),
            ];
            let mut runs = [f64::MAX; 2];
            let mut counts = [0; 2];
            for _ in 0..7 {
                for (i, l) in forms.iter().enumerate() {
                    let t = Instant::now();
                    counts[i] = run(l, stem, trees);
                    runs[i] = runs[i].min(t.elapsed().as_secs_f64() * 1000.0);
                }
            }
            // The same matches but where the query as written misses some
            // from the roots (TypeScript's tags: ARCHITECTURE.md, "Queries
            // compiled relaxed").
            let matches = if counts[0] == counts[1] {
                counts[0].to_string()
            } else {
                format!("{} / {}", counts[0], counts[1])
            };
            let listed = lang.config.relaxed_queries.iter().any(|s| s == stem);
            println!(
                "| {name} | {stem} | {} | {:.1} ms | {:.1} ms | {:.1} ms | {:.1} ms | {} | {matches} |",
                if listed { "yes" } else { "" },
                compile[0],
                compile[1],
                runs[0],
                runs[1],
                trees.len()
            );
        }
    }
}
