//! The search evaluation of issue 31 (`cargo bench --bench search_eval`).
//!
//! First `python3 benches/search_eval/corpus.py` (fetches the 22 pinned
//! repositories of `benches/search_eval/repos.toml` into
//! `target/search-eval/` and generates the doc-sentence queries). Then this
//! bench, for the repositories of one half (`SCALPEL_EVAL_HALF`: `held-out`
//! by default, `tuning`, or `all`; `SCALPEL_EVAL_REPOS=a,b` narrows it):
//!
//! - hand-written questions (`benches/search_eval/questions/<repo>.toml`)
//!   are asked of a copy of the repository as released, generated ones of
//!   the copy whose sampled docs are blanked;
//! - each is ranked by `keyword+structure` (no model), `hybrid` (the
//!   model of `SCALPEL_BENCH_MODEL`, by default the repository's small test
//!   model; quality runs name `../shared/models/minilm-static-256`), and
//!   `bm25-chunks` (the baseline: BM25 over 50-line chunks, `eval.rs`);
//! - NDCG@10 and Recall@5 counted per hit and per file (`eval.rs` says
//!   how), by language, by kind of question, by repository, and over all
//!   (the mean of the questions, and the mean of the repositories);
//! - query p50 / p99 of `search` as the server calls it (default limits).
//!
//! Prints markdown tables; writes every question's scores to
//! `target/search-eval/results-<half>.json` (to compare two runs).
//! `SCALPEL_EVAL_VERBOSE=1` prints each question that hybrid misses (its
//! first three hits with their kind and name path);
//! `SCALPEL_EVAL_KEYWORD_SHARE=0.6` weighs a prose question's keyword side
//! so instead of the default (to weigh another model without a rebuild).
//! `SCALPEL_EVAL_ORACLE=within-file` scores an oracle instead of the
//! ranking: each file's answering hits moved first into its own places
//! (`eval::answers_first_within_files`), what a perfect order of the units
//! within files would reach.
//! `SCALPEL_EVAL_DUMP=FILE` appends each question with its answers and
//! hybrid's 30 hits (path, lines, kind, name path, score, text) to `FILE`,
//! one JSON object a line: for trying a reranking offline.

#[path = "search_eval/eval.rs"]
mod eval;
#[path = "../tests/search_support/mod.rs"]
mod search_support;

use eval::{Answer, ChunkBm25, Ranked};
use scalpel::index::live::load_model;
use scalpel::index::{LiveIndex, SearchRequest};
use scalpel::ops::engine::Engine;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

const MODES: [&str; 3] = ["keyword+structure", "hybrid", "bm25-chunks"];
/// Extensions of the files the baseline reads (the languages Scalpel
/// parses).
const CODE: &[&str] = &[
    "py", "rs", "ts", "tsx", "mts", "cts", "js", "jsx", "mjs", "cjs", "go", "java", "c", "h", "cc",
    "cpp", "cxx", "hpp", "hh", "hxx",
];

#[derive(Deserialize)]
struct RepoEntry {
    name: String,
    lang: String,
    half: String,
    src: PathBuf,
    stripped: PathBuf,
    generated: PathBuf,
}

#[derive(Deserialize, Clone)]
struct AnswerData {
    path: String,
    #[serde(default)]
    lines: Option<(usize, usize)>,
}

#[derive(Deserialize, Clone)]
struct QuestionData {
    query: String,
    kind: String,
    answers: Vec<AnswerData>,
}

#[derive(Deserialize)]
struct QuestionFile {
    repo: String,
    q: Vec<QuestionData>,
}

/// One question's scores in one mode.
#[derive(serde::Serialize, Clone)]
struct Score {
    repo: String,
    lang: String,
    kind: String,
    mode: String,
    query: String,
    hit_ndcg: f64,
    hit_recall5: f64,
    file_ndcg: f64,
    file_recall5: f64,
}

fn manifest() -> Vec<RepoEntry> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/search-eval/manifest.json");
    let text = std::fs::read_to_string(&p).unwrap_or_else(|_| {
        panic!(
            "{} is missing: run `python3 benches/search_eval/corpus.py` first",
            p.display()
        )
    });
    serde_json::from_str(&text).expect("manifest.json")
}

fn hand_questions(repo: &str) -> Vec<QuestionData> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("benches/search_eval/questions")
        .join(format!("{repo}.toml"));
    let Ok(text) = std::fs::read_to_string(&p) else {
        return Vec::new();
    };
    let f: QuestionFile = toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    assert_eq!(f.repo, repo, "{}", p.display());
    f.q
}

fn answers(q: &QuestionData, root: &Path) -> Vec<Answer> {
    q.answers
        .iter()
        .map(|a| {
            assert!(
                root.join(&a.path).is_file(),
                "{:?}: answer {} is not a file of the corpus",
                q.query,
                a.path
            );
            Answer {
                path: a.path.clone(),
                lines: a.lines,
            }
        })
        .collect()
}

fn baseline(root: &Path) -> ChunkBm25 {
    let mut b = ChunkBm25::default();
    let mut files = scalpel::disk::walk_files(root);
    files.sort();
    for f in files {
        if !f
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| CODE.contains(&e))
        {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(&f) else {
            continue;
        };
        let rel = f
            .strip_prefix(root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        b.add_file(&rel, &text);
    }
    b.finish();
    b
}

/// Ask `questions` of a copy of `corpus`; push their scores.
fn evaluate(
    repo: &RepoEntry,
    corpus: &Path,
    questions: &[QuestionData],
    model: &scalpel::Result<std::result::Result<std::sync::Arc<scalpel::index::Model>, String>>,
    out: &mut Vec<Score>,
    latency: &mut BTreeMap<&'static str, Vec<f64>>,
) {
    if questions.is_empty() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join(&repo.name);
    search_support::copy_tree(corpus, &root);
    let t = Instant::now();
    let ix = LiveIndex::open(
        &root,
        Engine::default(),
        model.as_ref().map_err(|e| e.to_string()).unwrap().clone(),
    );
    ix.refresh().unwrap();
    let indexed = t.elapsed();
    let base = baseline(&root);
    let verbose = std::env::var_os("SCALPEL_EVAL_VERBOSE").is_some();
    eprintln!(
        "{}: {} files, {} units, indexed in {:.1} s; {} questions",
        repo.name,
        ix.status().indexed_files,
        ix.status().units,
        indexed.as_secs_f64(),
        questions.len()
    );
    // Read once for the repository, not once per question.
    let modes = std::env::var("SCALPEL_EVAL_MODES").unwrap_or_default();
    let oracle = oracle();
    let dump = std::env::var_os("SCALPEL_EVAL_DUMP");
    let keyword_share = std::env::var("SCALPEL_EVAL_KEYWORD_SHARE")
        .ok()
        .and_then(|v| v.parse::<f32>().ok());
    for q in questions {
        let expected = answers(q, &root);
        for mode in MODES {
            if !modes.is_empty() && !modes.split(',').any(|m| m == mode) {
                continue;
            }
            let mut labels: Vec<String> = Vec::new();
            let mut dumped: Vec<serde_json::Value> = Vec::new();
            let hits: Vec<Ranked> = if mode == "bm25-chunks" {
                base.search(&q.query, 30)
            } else {
                let mut req = SearchRequest::new(q.query.clone());
                req.semantic = mode == "hybrid";
                req.keyword_share = keyword_share;
                // As the server asks (default limits), timed.
                let t = Instant::now();
                let _ = ix.search(&req, scalpel::index::answer::DEFAULT_MAX_TOKENS);
                latency
                    .entry(mode)
                    .or_default()
                    .push(t.elapsed().as_secs_f64() * 1000.0);
                req.max_results = 30;
                ix.search(&req, 1_000_000)
                    .unwrap()
                    .results
                    .into_iter()
                    .map(|h| {
                        if dump.is_some() {
                            dumped.push(dumped_hit(&root, &h));
                        }
                        labels.push(format!("{} {}", h.kind, h.name_path));
                        Ranked {
                            path: h.path,
                            start: h.start_line,
                            end: h.end_line,
                        }
                    })
                    .collect()
            };
            if let Some(d) = dump.as_ref().filter(|_| mode == "hybrid") {
                dump_question(d, repo, q, &expected, dumped);
            }
            let mut hits = hits;
            if oracle {
                eval::answers_first_within_files(&mut hits, &expected);
            }
            let (hit_ndcg, hit_recall5) = eval::per_hit(&hits, &expected);
            let (file_ndcg, file_recall5) = eval::per_file(&eval::files_of(&hits), &expected);
            if verbose && mode == "hybrid" && hit_ndcg < 1.0 {
                let top: Vec<String> = hits
                    .iter()
                    .take(3)
                    .zip(&labels)
                    .map(|(h, l)| format!("{}:{}-{} {l}", h.path, h.start, h.end))
                    .collect();
                eprintln!(
                    "  {hit_ndcg:.2} [{}] {:?} want {:?} got {top:?}",
                    q.kind,
                    q.query,
                    expected
                        .iter()
                        .map(|a| format!("{}:{:?}", a.path, a.lines))
                        .collect::<Vec<_>>()
                );
            }
            out.push(Score {
                repo: repo.name.clone(),
                lang: repo.lang.clone(),
                kind: q.kind.clone(),
                mode: mode.to_string(),
                query: q.query.clone(),
                hit_ndcg,
                hit_recall5,
                file_ndcg,
                file_recall5,
            });
        }
    }
}

/// One hit for `SCALPEL_EVAL_DUMP`: where it is, what it is, its score
/// and its lines' text.
fn dumped_hit(root: &Path, h: &scalpel::index::answer::Hit) -> serde_json::Value {
    let text = std::fs::read_to_string(root.join(&h.path)).unwrap_or_default();
    let lines: Vec<&str> = text
        .lines()
        .skip(h.start_line.saturating_sub(1))
        .take(h.end_line + 1 - h.start_line)
        .collect();
    serde_json::json!({
        "path": h.path, "start": h.start_line, "end": h.end_line, "kind": h.kind,
        "name_path": h.name_path, "score": h.score, "text": lines.join("\n"),
    })
}

/// Append one question, its answers and its hybrid hits to the dump file.
fn dump_question(
    file: &std::ffi::OsStr,
    repo: &RepoEntry,
    q: &QuestionData,
    expected: &[Answer],
    hits: Vec<serde_json::Value>,
) {
    use std::io::Write;
    let answers: Vec<serde_json::Value> = expected
        .iter()
        .map(|a| serde_json::json!({"path": a.path, "lines": a.lines}))
        .collect();
    let line = serde_json::json!({
        "repo": repo.name, "lang": repo.lang, "kind": q.kind, "query": q.query,
        "expected": answers, "hits": hits,
    });
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(file)
        .expect("SCALPEL_EVAL_DUMP names a file that can be written");
    writeln!(f, "{line}").expect("SCALPEL_EVAL_DUMP is written");
}

fn mean(xs: impl Iterator<Item = f64>) -> f64 {
    let v: Vec<f64> = xs.collect();
    if v.is_empty() {
        return f64::NAN;
    }
    v.iter().sum::<f64>() / v.len() as f64
}

/// One markdown table: a row per group, NDCG@10 per hit / per file and
/// Recall@5 per hit for each mode.
fn table(title: &str, scores: &[Score], group: impl Fn(&Score) -> String) {
    let mut groups: Vec<String> = scores.iter().map(&group).collect();
    groups.sort();
    groups.dedup();
    println!("\n{title}\n");
    print!("| {title} | questions |");
    for m in MODES {
        print!(" {m}: NDCG@10 per hit / per file, Recall@5 per hit |");
    }
    println!();
    println!("|---|---:|{}", "---:|".repeat(MODES.len()));
    for g in groups {
        let n = scores
            .iter()
            .filter(|s| group(s) == g && s.mode == MODES[0])
            .count();
        print!("| {g} | {n} |");
        for m in MODES {
            let of = || scores.iter().filter(|s| group(s) == g && s.mode == m);
            print!(
                " {:.3} / {:.3}, {:.3} |",
                mean(of().map(|s| s.hit_ndcg)),
                mean(of().map(|s| s.file_ndcg)),
                mean(of().map(|s| s.hit_recall5))
            );
        }
        println!();
    }
}

fn percentile(v: &mut [f64], q: f64) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(((v.len().max(1) - 1) as f64 * q) as usize)
        .copied()
        .unwrap_or(f64::NAN)
}

fn main() {
    let half = std::env::var("SCALPEL_EVAL_HALF").unwrap_or_else(|_| "held-out".to_string());
    let only: Option<Vec<String>> = std::env::var("SCALPEL_EVAL_REPOS")
        .ok()
        .map(|v| v.split(',').map(str::to_string).collect());
    let model_dir = search_support::bench_model();
    let model = load_model(Some(&model_dir));
    let mut scores = Vec::new();
    let mut latency = BTreeMap::new();
    for repo in manifest() {
        if half != "all" && repo.half != half {
            continue;
        }
        if only.as_ref().is_some_and(|o| !o.contains(&repo.name)) {
            continue;
        }
        let hand = hand_questions(&repo.name);
        evaluate(&repo, &repo.src, &hand, &model, &mut scores, &mut latency);
        let generated: Vec<QuestionData> =
            serde_json::from_str(&std::fs::read_to_string(&repo.generated).unwrap()).unwrap();
        evaluate(
            &repo,
            &repo.stripped,
            &generated,
            &model,
            &mut scores,
            &mut latency,
        );
    }
    println!(
        "search evaluation, half `{half}`, model {} (hybrid only){}",
        model_dir.display(),
        if oracle() {
            "; ORACLE: each file's answering hits first in its places"
        } else {
            ""
        }
    );
    let set = |s: &Score| {
        if s.kind == "generated" {
            "generated".to_string()
        } else {
            "hand-written".to_string()
        }
    };
    table("all", &scores, |_| "all (mean of questions)".to_string());
    table("set", &scores, set);
    table("language", &scores, |s| s.lang.clone());
    table("kind", &scores, |s| s.kind.clone());
    table("repository", &scores, |s| {
        format!("{} ({})", s.repo, s.lang)
    });
    // The mean of the repositories (each repository weighs the same).
    println!("\nmean of repositories (NDCG@10 per hit / per file):");
    for m in MODES {
        let mut repos: Vec<&str> = scores.iter().map(|s| s.repo.as_str()).collect();
        repos.sort();
        repos.dedup();
        let of = |f: fn(&Score) -> f64| {
            mean(
                repos
                    .iter()
                    .map(|r| mean(scores.iter().filter(|s| s.repo == *r && s.mode == m).map(f))),
            )
        };
        println!(
            "  {m:<18} {:.3} / {:.3}",
            of(|s| s.hit_ndcg),
            of(|s| s.file_ndcg)
        );
    }
    for (mode, v) in latency.iter_mut() {
        println!(
            "query latency, {mode} (in process, the server's search with default limits): p50 {:.1} ms, p99 {:.1} ms ({} queries)",
            percentile(v, 0.5),
            percentile(v, 0.99),
            v.len()
        );
    }
    let out = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(format!("target/search-eval/results-{half}.json"));
    std::fs::write(&out, serde_json::to_string_pretty(&scores).unwrap()).unwrap();
    println!("scores of every question: {}", out.display());
}

/// Whether `SCALPEL_EVAL_ORACLE=within-file` asks for the oracle (any other
/// value is refused, so that a misspelt one is not taken for a ranking).
fn oracle() -> bool {
    match std::env::var("SCALPEL_EVAL_ORACLE").as_deref() {
        Err(_) => false,
        Ok("within-file") => true,
        Ok(other) => panic!("SCALPEL_EVAL_ORACLE={other:?}: the one oracle is `within-file`"),
    }
}
