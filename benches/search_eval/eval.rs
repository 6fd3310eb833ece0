//! The metrics of the search evaluation (issue 31), and its baseline: BM25
//! over 50-line chunks. Pure code over paths and lines, shared by the bench
//! (`benches/search_eval.rs`) and the test of the metrics
//! (`tests/search_eval_metrics.rs`).
#![allow(dead_code)]

use std::collections::HashMap;

/// What answers a question: a file, or lines of it (a function).
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    pub path: String,
    /// First and last line, 1-based, inclusive.
    pub lines: Option<(usize, usize)>,
}

/// One ranked result: a file and the lines it covers.
#[derive(Debug, Clone, PartialEq)]
pub struct Ranked {
    pub path: String,
    pub start: usize,
    pub end: usize,
}

/// Whether `hit` answers `a`: the same file, and where the answer has
/// lines, lines that overlap them.
pub fn answers(hit: &Ranked, a: &Answer) -> bool {
    hit.path == a.path && a.lines.is_none_or(|(s, e)| hit.start <= e && s <= hit.end)
}

fn discount(rank: usize) -> f64 {
    1.0 / ((rank + 2) as f64).log2()
}

fn ideal(n: usize, k: usize) -> f64 {
    (0..n.min(k)).map(discount).sum()
}

/// NDCG@10 and Recall@5 counted per hit: the hits as ranked (two hits of
/// one file are two places, not collapsed); a hit gains 1 when it answers
/// an answer no earlier hit answered, else 0 (a second hit inside the same
/// answer takes a place and gains nothing).
pub fn per_hit(hits: &[Ranked], expected: &[Answer]) -> (f64, f64) {
    let mut credited = vec![false; expected.len()];
    let mut dcg = 0.0;
    let mut found5 = 0;
    for (i, h) in hits.iter().take(10).enumerate() {
        if let Some(j) = (0..expected.len()).find(|&j| !credited[j] && answers(h, &expected[j])) {
            credited[j] = true;
            dcg += discount(i);
            if i < 5 {
                found5 += 1;
            }
        }
    }
    let n = expected.len().max(1);
    (dcg / ideal(n, 10), found5 as f64 / n as f64)
}

/// NDCG@10 and Recall@5 counted per file: the ranked files, each once (its
/// best place); a file gains 1 when an answer is in it, whatever its lines.
pub fn per_file(files: &[String], expected: &[Answer]) -> (f64, f64) {
    let mut want: Vec<&str> = Vec::new();
    for a in expected {
        if !want.contains(&a.path.as_str()) {
            want.push(&a.path);
        }
    }
    let mut seen: Vec<&str> = Vec::new();
    let mut dcg = 0.0;
    let mut found5 = 0;
    for f in files {
        if seen.contains(&f.as_str()) {
            continue;
        }
        let i = seen.len();
        if i >= 10 {
            break;
        }
        seen.push(f);
        if want.contains(&f.as_str()) {
            dcg += discount(i);
            if i < 5 {
                found5 += 1;
            }
        }
    }
    let n = want.len().max(1);
    (dcg / ideal(n, 10), found5 as f64 / n as f64)
}

/// The files of ranked hits, each once, in order of their best hit.
pub fn files_of(hits: &[Ranked]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for h in hits {
        if !out.contains(&h.path) {
            out.push(h.path.clone());
        }
    }
    out
}

/// An oracle: the hits with each file's answering hits moved first into
/// that file's own places (in their order; the other hits of the file
/// after them, in theirs). Every file keeps its places, so the files'
/// order is the ranking's: what a perfect order within files would score
/// (`SCALPEL_EVAL_ORACLE=within-file`; BENCHMARKS.md, session 44).
pub fn answers_first_within_files(hits: &mut [Ranked], expected: &[Answer]) {
    for f in files_of(hits) {
        let places: Vec<usize> = (0..hits.len()).filter(|&i| hits[i].path == f).collect();
        let mut mine: Vec<Ranked> = places.iter().map(|&i| hits[i].clone()).collect();
        // A stable sort: answering hits first, each group in rank order.
        mine.sort_by_key(|h| !expected.iter().any(|a| answers(h, a)));
        for (i, h) in places.into_iter().zip(mine) {
            hits[i] = h;
        }
    }
}

/// Lines of a chunk of the baseline.
pub const CHUNK_LINES: usize = 50;

/// Words that say nothing about code in a question.
const STOP: &[&str] = &[
    "a", "an", "the", "of", "to", "in", "is", "are", "be", "and", "or", "for", "on", "by", "with",
    "it", "its", "this", "that", "how", "what", "where", "which", "does", "do", "when", "from",
    "as", "at", "into", "if", "not", "can", "given",
];

/// Terms of a text for the baseline: lowercased words split at
/// non-alphanumerics, with the parts of `camelCase` and `snake_case` words
/// as well as the whole word.
pub fn terms(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for word in text.split(|c: char| !c.is_alphanumeric() && c != '_') {
        if word.is_empty() {
            continue;
        }
        let lower = word.to_lowercase();
        let mut parts: Vec<String> = Vec::new();
        let mut cur = String::new();
        let mut prev_lower = false;
        for c in word.chars() {
            if c == '_' || (c.is_uppercase() && prev_lower) {
                if !cur.is_empty() {
                    parts.push(cur.to_lowercase());
                }
                cur.clear();
            }
            if c != '_' {
                cur.push(c);
            }
            prev_lower = c.is_lowercase() || c.is_ascii_digit();
        }
        if !cur.is_empty() {
            parts.push(cur.to_lowercase());
        }
        if parts.len() > 1 {
            out.extend(parts.into_iter().filter(|p| p != &lower));
        }
        out.push(lower);
    }
    out
}

/// BM25 over fixed chunks of [`CHUNK_LINES`] lines of every file: the
/// plain baseline a search tool without a parser would be.
#[derive(Default)]
pub struct ChunkBm25 {
    chunks: Vec<(String, usize, usize, usize)>, // path, start, end, length in terms
    postings: HashMap<String, Vec<(u32, u32)>>, // term → (chunk, count)
    avg_len: f64,
}

impl ChunkBm25 {
    pub fn add_file(&mut self, path: &str, text: &str) {
        let lines: Vec<&str> = text.split('\n').collect();
        for (k, window) in lines.chunks(CHUNK_LINES).enumerate() {
            let id = self.chunks.len() as u32;
            let mut counts: HashMap<String, u32> = HashMap::new();
            let mut len = 0;
            for t in terms(&window.join("\n")) {
                len += 1;
                *counts.entry(t).or_default() += 1;
            }
            for (t, c) in counts {
                self.postings.entry(t).or_default().push((id, c));
            }
            let start = k * CHUNK_LINES + 1;
            self.chunks
                .push((path.to_string(), start, start + window.len() - 1, len));
        }
    }

    pub fn finish(&mut self) {
        let n = self.chunks.len().max(1) as f64;
        self.avg_len = self.chunks.iter().map(|c| c.3 as f64).sum::<f64>() / n;
    }

    pub fn search(&self, query: &str, k: usize) -> Vec<Ranked> {
        let (k1, b) = (1.2, 0.75);
        let n = self.chunks.len() as f64;
        let mut score: HashMap<u32, f64> = HashMap::new();
        let mut q = terms(query);
        q.retain(|t| !STOP.contains(&t.as_str()));
        q.sort();
        q.dedup();
        for t in &q {
            let Some(list) = self.postings.get(t) else {
                continue;
            };
            let df = list.len() as f64;
            let idf = ((n - df + 0.5) / (df + 0.5) + 1.0).ln();
            for &(id, c) in list {
                let len = self.chunks[id as usize].3 as f64;
                let tf = c as f64;
                *score.entry(id).or_default() +=
                    idf * tf * (k1 + 1.0) / (tf + k1 * (1.0 - b + b * len / self.avg_len));
            }
        }
        let mut ranked: Vec<(u32, f64)> = score.into_iter().collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        ranked
            .into_iter()
            .take(k)
            .map(|(id, _)| {
                let c = &self.chunks[id as usize];
                Ranked {
                    path: c.0.clone(),
                    start: c.1,
                    end: c.2,
                }
            })
            .collect()
    }
}
