//! Search index benchmarks and quality (`cargo bench --bench search`).
//!
//! Corpora are copied into temp folders (the index writes `.scalpel/`):
//! `stdlib` (the machine's Python standard library, site-packages left
//! out), `crates` (eight crates from the cargo registry) and, for the timing
//! of a mixed tree, the JavaScript corpus of the tests
//! (`SCALPEL_BENCH_JS`, default `target/tmp/js-corpus/node_modules/npm`)
//! next to both. The model is the repository's test model
//! (`fixtures/model`), or the folder `SCALPEL_BENCH_MODEL` names (e.g. the
//! 256-dimension model the test model was reduced from, for quality runs).
//!
//! Prints, per corpus: files, units, cold index (with the model), warm
//! start with nothing changed, re-index after one file changes, query
//! p50/p99, peak RSS, the resident memory of a fresh process after a warm
//! start (the warm start runs in a child process of this binary, so that
//! what it holds is the index alone, plus the model); and quality over `benches/data/search_eval.tsv`:
//! file-level NDCG@10 and Recall@5 for keyword only, keyword + structure,
//! hybrid (blend) and hybrid (RRF).
//!
//! `SCALPEL_BENCH_CORPORA=mixed` (a comma list) runs only those corpora;
//! `SCALPEL_BENCH_COPIES=10` adds `mixedN`: N copies of the mixed corpus
//! under different folder names (real files, duplicated: the same content
//! N times), for the memory of a 50,000-file index.
//! `SCALPEL_BENCH_COLD_ONLY=1` times only the cold index (no warm start,
//! queries or quality), e.g. to profile it.

#[path = "../tests/search_support/mod.rs"]
mod search_support;

use scalpel::index::live::load_model;
use scalpel::index::{Fusion, LiveIndex, SearchRequest};
use scalpel::ops::engine::Engine;
use search_support::{bench_model, copy_tree, stdlib};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const CRATES: &[&str] = &[
    "serde_json-1.0.154",
    "ryu-1.0.23",
    "itoa-1.0.18",
    "memchr-2.8.3",
    "strsim-0.11.1",
    "tempfile-3.27.0",
    "globset-0.4.21",
    "similar-3.2.1",
];

fn registry() -> PathBuf {
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(std::env::var_os("HOME").unwrap()).join(".cargo"));
    std::fs::read_dir(home.join("registry/src"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.join(CRATES[0]).is_dir())
        .expect("crate sources in the cargo registry")
}

/// A line of `/proc/self/status` in MB (`VmHWM:` peak, `VmRSS:` now).
fn status_mb(key: &str) -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with(key))
        .and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

/// CPU seconds (user + system, every thread) this process has used: what
/// the cold index costs whatever the machine's load.
fn cpu_s() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after = stat.rsplit(')').next().unwrap_or_default();
    let f: Vec<f64> = after
        .split_whitespace()
        .map(|x| x.parse().unwrap_or(0.0))
        .collect();
    // Fields 14 and 15 (utime, stime) in clock ticks: 11 and 12 after the ')'.
    (f.get(11).unwrap_or(&0.0) + f.get(12).unwrap_or(&0.0)) / 100.0
}

fn peak_rss_mb() -> f64 {
    status_mb("VmHWM:")
}

/// Resident set size now, in MB.
fn rss_mb() -> f64 {
    status_mb("VmRSS:")
}

/// The child process of [`warm_in_child`]: open the index of `root` with
/// the model, refresh (nothing changed), print the time and memory.
fn warm_child(root: &Path) {
    let model = load_model(Some(&bench_model())).unwrap();
    let before = rss_mb();
    let t = Instant::now();
    let ix = LiveIndex::open(root, Engine::default(), model);
    ix.refresh().unwrap();
    let warm = t.elapsed();
    assert_eq!(ix.status().files_read, 0);
    let after = rss_mb();
    let parts = ix
        .memory()
        .iter()
        .map(|(k, v)| format!("{k} {:.1}", *v as f64 / 1e6))
        .collect::<Vec<_>>()
        .join(", ");
    println!(
        "  fresh process: warm start {:.0} ms; RSS {:.0} MB before the index (binary + model), {:.0} MB after (index {:.0} MB; by part, MB: {parts})",
        ms(warm),
        before,
        after,
        after - before
    );
}

/// A warm start in a fresh process (this binary, `SCALPEL_BENCH_WARM`).
fn warm_in_child(root: &Path) {
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .env("SCALPEL_BENCH_WARM", root)
        .output()
        .unwrap();
    print!("{}", String::from_utf8_lossy(&out.stdout));
    if !out.status.success() {
        println!(
            "  fresh process failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

struct Case {
    corpus: String,
    query: String,
    expected: Vec<String>,
}

fn eval_set() -> Vec<Case> {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/data/search_eval.tsv"),
    )
    .unwrap();
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            Case {
                corpus: f[0].to_string(),
                query: f[1].to_string(),
                expected: f[2].split(',').map(str::to_string).collect(),
            }
        })
        .collect()
}

/// File-level NDCG@10 and Recall@5 of one ranked file list.
fn scores(files: &[String], expected: &[String]) -> (f64, f64) {
    let dcg: f64 = files
        .iter()
        .take(10)
        .enumerate()
        .filter(|(_, f)| expected.contains(f))
        .map(|(i, _)| 1.0 / (i as f64 + 2.0).log2())
        .sum();
    let ideal: f64 = (0..expected.len().min(10))
        .map(|i| 1.0 / (i as f64 + 2.0).log2())
        .sum();
    let found = expected
        .iter()
        .filter(|e| files.iter().take(5).any(|f| f == *e))
        .count();
    (dcg / ideal, found as f64 / expected.len() as f64)
}

fn main() {
    let cold_only = std::env::var_os("SCALPEL_BENCH_COLD_ONLY").is_some();
    if let Some(root) = std::env::var_os("SCALPEL_BENCH_WARM") {
        warm_child(Path::new(&root));
        return;
    }
    let only: Option<Vec<String>> = std::env::var("SCALPEL_BENCH_CORPORA")
        .ok()
        .map(|v| v.split(',').map(str::to_string).collect());
    let copies: usize = std::env::var("SCALPEL_BENCH_COPIES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let cases = eval_set();
    let model = load_model(Some(&bench_model())).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let stdlib_root = tmp.path().join("stdlib");
    copy_tree(&stdlib(), &stdlib_root);
    let crates_root = tmp.path().join("crates");
    let reg = registry();
    for c in CRATES {
        copy_tree(&reg.join(c), &crates_root.join(c));
    }
    let js = std::env::var_os("SCALPEL_BENCH_JS")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR")).join("target/tmp/js-corpus/node_modules/npm")
        });
    let mixed_root = tmp.path().join("mixed");
    if js.is_dir() {
        copy_tree(&stdlib_root, &mixed_root.join("stdlib"));
        copy_tree(&crates_root, &mixed_root.join("crates"));
        copy_tree(&js, &mixed_root.join("npm"));
    }
    let many_name = format!("mixed{copies}");
    let many_root = tmp.path().join(&many_name);
    if copies > 0 && mixed_root.is_dir() {
        for i in 0..copies {
            copy_tree(&mixed_root, &many_root.join(format!("copy{i}")));
        }
    }

    let mut modes: Vec<(&str, Vec<(f64, f64)>)> = vec![
        ("keyword", Vec::new()),
        ("keyword+structure", Vec::new()),
        ("hybrid (blend)", Vec::new()),
        ("hybrid (rrf)", Vec::new()),
    ];
    for (name, root) in [
        ("stdlib", &stdlib_root),
        ("crates", &crates_root),
        ("mixed", &mixed_root),
        (many_name.as_str(), &many_root),
    ] {
        if only.as_ref().is_some_and(|o| !o.iter().any(|x| x == name)) {
            continue;
        }
        if !root.is_dir() {
            println!("{name}: skipped (corpus missing)");
            continue;
        }
        let engine = Engine::default();
        let (t, cpu) = (Instant::now(), cpu_s());
        let ix = LiveIndex::open(root, engine.clone(), model.clone());
        ix.refresh().unwrap();
        let cold = t.elapsed();
        let cold_cpu = cpu_s() - cpu;
        let status = ix.status();
        drop(ix);
        if cold_only {
            println!(
                "{name}: {} files, {} units; cold index {:.2} s (CPU {:.1} s)",
                status.indexed_files,
                status.units,
                cold.as_secs_f64(),
                cold_cpu
            );
            continue;
        }
        let t = Instant::now();
        let ix = LiveIndex::open(root, engine.clone(), model.clone());
        ix.refresh().unwrap();
        let warm = t.elapsed();
        assert_eq!(ix.status().files_read, 0);
        // One file changes: until searchable.
        let changed = walk_one(root);
        let mut code = std::fs::read_to_string(&changed).unwrap();
        code.push_str("\n# bench_marker_token\n");
        std::fs::write(&changed, code).unwrap();
        let t = Instant::now();
        ix.update_paths(std::slice::from_ref(&changed));
        let one = t.elapsed();
        let mut lat = Vec::new();
        let queries: Vec<&Case> = cases.iter().collect();
        for _ in 0..3 {
            for c in &queries {
                let mut req = SearchRequest::new(c.query.clone());
                req.max_results = 10;
                let t = Instant::now();
                let _ = ix.search(&req, 2000).unwrap();
                lat.push(t.elapsed());
            }
        }
        lat.sort();
        let p = |q: f64| ms(lat[((lat.len() - 1) as f64 * q) as usize]);
        println!(
            "{name}: {} files, {} units; cold index {:.2} s (CPU {:.1} s); warm start {:.0} ms; one changed file {:.1} ms; query p50 {:.1} ms, p99 {:.1} ms ({} queries); peak RSS {:.0} MB",
            status.indexed_files,
            status.units,
            cold.as_secs_f64(),
            cold_cpu,
            ms(warm),
            ms(one),
            p(0.5),
            p(0.99),
            lat.len(),
            peak_rss_mb()
        );
        ix.save_if_dirty();
        warm_in_child(root);
        if name.starts_with("mixed") {
            continue;
        }
        for c in cases.iter().filter(|c| c.corpus == name) {
            for (mode, acc) in modes.iter_mut() {
                let mut req = SearchRequest::new(c.query.clone());
                req.max_results = 30;
                req.semantic = mode.starts_with("hybrid");
                req.structure = *mode != "keyword";
                // As in benches/search_eval: another keyword share without a rebuild.
                req.keyword_share = std::env::var("SCALPEL_EVAL_KEYWORD_SHARE")
                    .ok()
                    .and_then(|v| v.parse().ok());
                req.fusion = if mode.contains("rrf") {
                    Fusion::Rrf
                } else {
                    Fusion::Blend
                };
                let files = ix.ranked_files(&req).unwrap();
                let s = scores(&files, &c.expected);
                if std::env::var_os("SCALPEL_BENCH_VERBOSE").is_some() && *mode == "hybrid (blend)"
                {
                    println!(
                        "  {:.2} {:.2} {:?} -> {:?}",
                        s.0,
                        s.1,
                        c.query,
                        &files[..files.len().min(3)]
                    );
                }
                acc.push(s);
            }
        }
    }
    if modes[0].1.is_empty() {
        return;
    }
    println!("quality over {} questions (file level):", modes[0].1.len());
    for (mode, acc) in &modes {
        let n = acc.len().max(1) as f64;
        let ndcg: f64 = acc.iter().map(|s| s.0).sum::<f64>() / n;
        let recall: f64 = acc.iter().map(|s| s.1).sum::<f64>() / n;
        println!("  {mode:<18} NDCG@10 {ndcg:.3}  Recall@5 {recall:.3}");
    }
}

/// Some source file of the corpus, to change.
fn walk_one(root: &Path) -> PathBuf {
    scalpel::disk::walk_files(root)
        .into_iter()
        .find(|p| p.extension().is_some_and(|e| e == "py" || e == "rs"))
        .expect("a source file")
}
