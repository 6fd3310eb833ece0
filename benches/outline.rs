//! Outline throughput next to a bare parse (issue 29 item 7), per language:
//! the twelve largest files of each language's corpus, in process, one
//! thread, counted in the thread's CPU time (so other work on the machine
//! does not inflate it), the best of `REPS` runs per file.
//!
//! - *bare parse*: tree-sitter alone (`symbols::parse_tree`);
//! - *outline*: the same parse, then the outline Scalpel builds on it
//!   (tags query, ranges, name paths, trivia: `symbols::outline`), what
//!   `list_symbols` and every symbol edit pay.
//!
//! Corpora: the Python standard library of `python3`, the crates of the
//! cargo registry (`~/.cargo/registry/src`), npm's JavaScript, TypeScript
//! and zod (`tests/provision`), and for every other language the pinned
//! corpus its front end judges in `tests/trust.rs`
//! (`tests/data/front_ends.toml`). Run: `cargo bench --bench outline`
//! (optional argument: how many files per language, default 12).

#[path = "../tests/provision/mod.rs"]
mod provision;
#[path = "../tests/trust_support/mod.rs"]
mod trust_support;

use scalpel::ops::engine::Engine;
use std::path::{Path, PathBuf};
use std::time::Duration;

const REPS: usize = 3;

fn cpu() -> Duration {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
}

/// The CPU time of the fastest of [`REPS`] runs of `f`.
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

/// The `n` largest of `files` that `engine` reads as `language`.
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

fn measure(engine: &Engine, language: &str, files: &[PathBuf]) {
    let (mut bytes, mut bare, mut full, mut symbols) = (0usize, Duration::ZERO, Duration::ZERO, 0);
    for f in files {
        let Ok(p) = engine.load(f, None) else {
            eprintln!("{language}: {} does not load", f.display());
            continue;
        };
        let (lang, source) = (p.language.clone(), p.source.clone());
        bytes += source.body().len();
        symbols += p.symbols.len();
        bare += best(|| {
            scalpel::symbols::parse_tree(&lang, source.body(), None).unwrap();
        });
        full += best(|| {
            let tree = scalpel::symbols::parse_tree(&lang, source.body(), None).unwrap();
            scalpel::symbols::outline(&lang, source.clone(), tree).unwrap();
        });
    }
    let mb = bytes as f64 / 1e6;
    println!(
        "| {language} | {} | {mb:.2} | {:.2} s — {:.1} MB/s | {:.2} s — **{:.1} MB/s** | **{:.2}×** | {symbols} |",
        files.len(),
        bare.as_secs_f64(),
        mb / bare.as_secs_f64(),
        full.as_secs_f64(),
        mb / full.as_secs_f64(),
        full.as_secs_f64() / bare.as_secs_f64(),
    );
}

fn main() {
    let n: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(12);
    let engine = Engine::default();
    let home = PathBuf::from(std::env::var("HOME").unwrap_or_default());
    let walk = |dir: &Path| scalpel::disk::walk_files(dir);
    let mut corpora: Vec<(String, Vec<PathBuf>)> = vec![
        ("python".into(), walk(&trust_support::stdlib_dir())),
        ("rust".into(), walk(&home.join(".cargo/registry/src"))),
        (
            "typescript".into(),
            walk(&provision::ts_corpus().join("node_modules")),
        ),
        ("javascript".into(), walk(&provision::js_corpus())),
    ];
    for fe in trust_support::command_front_ends() {
        let files = fe.corpus_files();
        corpora.push((fe.language, files));
    }
    println!(
        "| language | files | MB | bare parse (CPU) | parse + outline (CPU) | ratio | symbols |"
    );
    println!("|---|---:|---:|---|---|---:|---:|");
    for (language, files) in corpora {
        let files = largest(&engine, files, &language, n);
        if files.is_empty() {
            eprintln!("{language}: no files in its corpus");
            continue;
        }
        measure(&engine, &language, &files);
    }
}
