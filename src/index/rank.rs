//! Ranking: keyword (BM25F) and semantic (cosine) scores fused, then the
//! structural layer: a unit that defines a queried identifier is boosted,
//! file and folder names that match count, tests, examples, vendored or
//! generated code and `.d.ts` files are down-weighted, module-level blocks
//! count less than definitions, a file where several units match lifts
//! them (file-level evidence), one file fills at most [`PER_FILE`] places,
//! and ties break by path and line.

use super::model::{Model, Quantized};
use super::{Index, UnitRef, tokens};
use crate::error::Result;
use std::collections::HashMap;

/// Most results one file can have. 2 until issue 31: on the tuning half
/// of `benches/search_eval` (BENCHMARKS.md) hybrid NDCG@10 counted per hit
/// was 0.497 at 2, 0.530 at 4, 0.540 at 6, the same at 8: an answer in a
/// large file (`tinyxml2.cpp`, `cJSON.c`) was cut after two of its units.
pub const PER_FILE: usize = 6;
/// Candidates taken from each side before fusion.
const CANDIDATES: usize = 300;
/// Weight of a query word's other forms (`redirects` → `redirect`).
const VARIANT_WEIGHT: f32 = 0.8;
/// The keyword side's share of a blended score (the semantic side has the
/// rest), for a query that looks like an identifier and for prose.
/// Measured over the 102 questions of `benches/data/search_eval.tsv`
/// (BENCHMARKS.md, session 9, 600 rescored): prose at 0.55 (the first guess) gave hybrid
/// NDCG@10 0.818, below keyword + structure alone (0.828); 0.75 gave 0.820,
/// 0.8 0.838, 0.85 0.842, 0.9 0.837, 0.95 0.832. The model adds most as a
/// tie-breaker among keyword candidates, not as an equal voice. On the
/// tuning half of `benches/search_eval` (22 other repositories, issue 31)
/// with the same model, 0.7 was better than 0.85 (hybrid NDCG@10 per hit
/// 0.497 → 0.503 alone) and 0.6 worse than 0.7. A model trained for code
/// (`benches/code_model`, the default `potion-code-16M-v2` is one too)
/// earns more weight. With ours (final recipe), on the two sets weights may
/// be chosen on: the tuning half (hybrid NDCG@10 per hit) 0.586 at 0.7,
/// 0.603 at 0.55, 0.609 at 0.4, 0.610 at 0.3 (hand-written questions 0.700,
/// 0.716, 0.714, 0.706); the 102 questions (file level) 0.852 at 0.7, 0.854
/// at 0.55, 0.834 at 0.4. 0.55 is best on both together. BENCHMARKS.md,
/// session 25.
const KEYWORD_WEIGHT_PROSE: f32 = 0.55;
const KEYWORD_WEIGHT_IDENTIFIER: f32 = 0.9;
/// Kinds (the `@definition.*` names of the tags queries) that declare data
/// rather than code that does something.
const DATA_KINDS: [&str; 5] = ["field", "constant", "enum_member", "property", "variable"];
/// Their weight for a question in prose: "where are HTTP redirects
/// followed" asks for the code that follows them, not for
/// `HTTPStatus.TEMPORARY_REDIRECT` (a one-line member whose every word is
/// queried). Over the 102 questions: keyword + structure NDCG@10 0.828 →
/// 0.831 at 0.8 or 0.7, hybrid 0.845 → 0.848 (BENCHMARKS.md, session 9).
const DATA_WEIGHT_PROSE: f32 = 0.7;
/// Share of the best other units of its file that a unit gains
/// ([`file_evidence`]); tuning half of `benches/search_eval`: 0.15 raised
/// keyword + structure NDCG@10 per file 0.817 → 0.827, 0.3 to 0.834 but
/// cost hybrid per hit.
const FILE_EVIDENCE: f32 = 0.15;
/// Weight of a window of a file no grammar reads (README, docs): 0.6
/// until issue 31, 0.3 on the tuning half of `benches/search_eval`
/// (hand-written questions, hybrid NDCG@10 per file 0.838 → 0.850).
const TEXT_WEIGHT: f32 = 0.3;
/// Reciprocal rank fusion constant.
const RRF_K: f32 = 60.0;

/// How keyword and semantic scores are combined.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fusion {
    /// Normalised scores blended, weighted by the query's shape.
    Blend,
    /// Reciprocal rank fusion.
    Rrf,
}

/// What to rank.
#[derive(Debug, Clone)]
pub struct SearchRequest {
    pub query: String,
    /// Only units under this folder or in this file (root-relative).
    pub path: Option<String>,
    pub include: Vec<String>,
    pub exclude: Vec<String>,
    pub kind: Option<String>,
    pub language: Option<String>,
    pub max_results: usize,
    /// Use the embedding model (when there is one).
    pub semantic: bool,
    /// Apply the structural layer.
    pub structure: bool,
    pub fusion: Fusion,
    /// The keyword side's share of a blended score for a question in prose,
    /// instead of [`KEYWORD_WEIGHT_PROSE`]: how a model is weighed without
    /// a rebuild (`SCALPEL_EVAL_KEYWORD_SHARE` of `benches/search_eval`).
    pub keyword_share: Option<f32>,
}

impl SearchRequest {
    pub fn new(query: impl Into<String>) -> SearchRequest {
        SearchRequest {
            query: query.into(),
            path: None,
            include: Vec::new(),
            exclude: Vec::new(),
            kind: None,
            language: None,
            max_results: 10,
            semantic: true,
            structure: true,
            fusion: Fusion::Blend,
            keyword_share: None,
        }
    }
}

struct Filter {
    path: Option<String>,
    include: Option<crate::disk::grep::Globs>,
    exclude: Option<crate::disk::grep::Globs>,
    kind: Option<String>,
    language: Option<String>,
    /// Nothing is filtered out.
    none: bool,
}

impl Filter {
    fn new(req: &SearchRequest) -> Result<Filter> {
        let path = req
            .path
            .as_deref()
            .map(|p| p.trim_start_matches("./").trim_end_matches('/').to_string())
            .filter(|p| !p.is_empty() && p != ".");
        let include = crate::disk::grep::globs(&req.include, "include")?;
        let exclude = crate::disk::grep::globs(&req.exclude, "exclude")?;
        let none = path.is_none()
            && include.is_none()
            && exclude.is_none()
            && req.kind.is_none()
            && req.language.is_none();
        Ok(Filter {
            path,
            include,
            exclude,
            kind: req.kind.clone(),
            language: req.language.clone(),
            none,
        })
    }

    fn keeps(&self, u: &UnitRef) -> bool {
        let root = std::path::Path::new("");
        let p = std::path::Path::new(u.path);
        self.path.as_ref().is_none_or(|d| {
            u.path == d.as_str()
                || (u.path.starts_with(d.as_str()) && u.path[d.len()..].starts_with('/'))
        }) && self.kind.as_ref().is_none_or(|k| u.kind == k.as_str())
            && self
                .language
                .as_ref()
                .is_none_or(|l| u.language == l.as_str())
            && self.include.as_ref().is_none_or(|g| g.is_match(root, p))
            && !self.exclude.as_ref().is_some_and(|g| {
                // A folder glob excludes everything under it.
                p.ancestors()
                    .any(|a| !a.as_os_str().is_empty() && g.is_match(root, a))
            })
    }
}

/// Units ranked for `req`: `(unit id, score)`, best first.
pub fn rank(index: &Index, model: Option<&Model>, req: &SearchRequest) -> Result<Vec<(u32, f32)>> {
    let filter = Filter::new(req)?;
    let q_tokens = tokens::query_tokens(&req.query);
    let mut terms: Vec<(String, f32, usize)> = q_tokens
        .iter()
        .enumerate()
        .map(|(i, t)| (t.clone(), 1.0, i))
        .collect();
    for (i, t) in q_tokens.iter().enumerate() {
        for v in tokens::variants(t) {
            if !terms.iter().any(|(x, ..)| *x == v) && index.bm25.idf(&v) > 0.0 {
                terms.push((v, VARIANT_WEIGHT, i));
            }
        }
    }
    // Units matching more of the query's words come first (coordination).
    let words_asked = q_tokens.len().clamp(1, 64) as f32;
    let mut kw: Vec<(u32, f32)> = index
        .bm25
        .score(&terms)
        .into_iter()
        .filter(|(id, ..)| index.unit(*id).is_some_and(|u| filter.keeps(&u)))
        .map(|(id, score, words)| {
            let coord = words.count_ones() as f32 / words_asked;
            (id, score * coord)
        })
        .collect();
    best(index, &mut kw, CANDIDATES);

    let mut sem: Vec<(u32, f32)> = Vec::new();
    if let Some(m) = model.filter(|_| req.semantic) {
        let q = Quantized::new(&m.embed(&tokens::plain_words(&req.query, 64)));
        // (A removed unit has no vector: no need to look at units when
        // nothing is filtered.)
        sem = index.vectors.scan(&q, |id| {
            filter.none || index.unit(id).is_some_and(|u| filter.keeps(&u))
        });
        best(index, &mut sem, CANDIDATES);
    }

    let words: Vec<&str> = tokens::words(&req.query).collect();
    let identifier_query = words.iter().any(|w| tokens::is_identifier_like(w))
        || req.query.contains("::")
        || req.query.contains('.') && !req.query.contains(' ');
    let mut fused = fuse(&kw, &sem, req.fusion, identifier_query, req.keyword_share);
    if req.structure {
        let lower: Vec<String> = words.iter().map(|w| w.to_lowercase()).collect();
        let mentions_tests = q_tokens
            .iter()
            .any(|t| t.starts_with("test") || t == "spec");
        // Each query word with its other forms, computed once.
        let forms: Vec<Vec<String>> = q_tokens
            .iter()
            .map(|q| {
                let mut f = tokens::variants(q);
                f.push(q.clone());
                f
            })
            .collect();
        for (id, score) in fused.iter_mut() {
            if let Some(u) = index.unit(*id) {
                *score *= structure(
                    &u,
                    &lower,
                    &q_tokens,
                    &forms,
                    identifier_query,
                    mentions_tests,
                );
            }
        }
    }
    if req.structure {
        file_evidence(index, &mut fused, FILE_EVIDENCE);
        named_first_within_files(index, &mut fused, &req.query);
    }
    sort(index, &mut fused);
    let mut per_file: HashMap<&str, usize> = HashMap::new();
    let mut out = Vec::new();
    for (id, score) in fused {
        let Some(u) = index.unit(id) else { continue };
        let n = per_file.entry(u.path).or_default();
        if *n == PER_FILE {
            continue;
        }
        *n += 1;
        out.push((id, score));
        if out.len() == req.max_results {
            break;
        }
    }
    Ok(out)
}

/// File-level aggregation: each unit gains `weight` times the scores of
/// the other best units of its file (at most [`FILE_UNITS`] of them), so
/// that a file where several units match ranks above a lone match.
fn file_evidence(index: &Index, fused: &mut [(u32, f32)], weight: f32) {
    if weight <= 0.0 {
        return;
    }
    let mut tops: HashMap<&str, Vec<f32>> = HashMap::new();
    for &(id, s) in fused.iter() {
        if let Some(u) = index.unit(id) {
            tops.entry(u.path).or_default().push(s);
        }
    }
    let sums: HashMap<&str, f32> = tops
        .into_iter()
        .map(|(p, mut v)| {
            v.sort_by(|a, b| b.total_cmp(a));
            (p, v.iter().take(FILE_UNITS).sum())
        })
        .collect();
    for (id, s) in fused.iter_mut() {
        if let Some(u) = index.unit(*id) {
            let others = (sums[u.path] - *s).max(0.0);
            *s += weight * others;
        }
    }
}

/// Units of a file that count towards its evidence.
const FILE_UNITS: usize = 3;

/// How much a unit named in the question's words counts within its file
/// ([`named_first_within_files`]). On the tuning half of
/// `benches/search_eval` (hybrid NDCG@10 per hit, 306 questions): 0.606
/// without, 0.619 at 1.3, 0.620 at 2, 0.622 at 4; counting a name half
/// made of the question's words (weighted by the square of the share) did
/// less (0.613–0.615), single-word names cost (0.605: `close`, `get`),
/// three words or more gained less (0.610), a name part that begins a
/// question's word (`ref`, `reference`) or the reverse changed nothing
/// (0.619–0.621). Also tried within files and dropped: data and module
/// blocks after their file's code for a question in prose, 0.620 → 0.630
/// on the tuning half but 0.580 → 0.582 held-out, and the mean of the
/// held-out repositories fell (0.590 → 0.586). BENCHMARKS.md, session 39.
const NAMED_WITHIN_FILE: f32 = 2.0;

/// Within each file, the units whose own name is made of two or more
/// words, every one of them a word of the question (stop words and other
/// forms count: "Returns true if the value is a draft" names `isDraft`),
/// weigh [`NAMED_WITHIN_FILE`] times more, and the file's units take its
/// places in that order. The places themselves do not move: a file keeps
/// the scores its units earned, so the files' order is the same with or
/// without this (the 102 file-level questions of `benches/search` cannot
/// change), only which of a file's units is shown first. Across files the
/// same rule pushed short generic names (`write_file`, `parse_string`)
/// above the answer's file: −0.028 on those 102.
fn named_first_within_files(index: &Index, fused: &mut [(u32, f32)], query: &str) {
    let mut forms: Vec<String> = Vec::new();
    tokens::for_each_token(query, |t| {
        forms.extend(tokens::variants(t));
        forms.push(t.to_string());
    });
    let named = |name: &str| {
        let mut parts = 0;
        let mut all = true;
        tokens::for_each_part(name, |p| {
            if p.len() >= 2 {
                parts += 1;
                // The forms are lower case (`for_each_token`).
                all &= if p.is_ascii() {
                    forms.iter().any(|f| f.eq_ignore_ascii_case(p))
                } else {
                    let p = p.to_lowercase();
                    forms.contains(&p)
                };
            }
        });
        all && parts >= 2
    };
    let mut files: HashMap<&str, Vec<usize>> = HashMap::new();
    let mut weight: Vec<f32> = Vec::with_capacity(fused.len());
    for (i, &(id, s)) in fused.iter().enumerate() {
        let mut w = s;
        if let Some(u) = index.unit(id) {
            if !u.name_path.is_empty() && named(u.name) {
                w *= NAMED_WITHIN_FILE;
            }
            files.entry(u.path).or_default().push(i);
        }
        weight.push(w);
    }
    for places in files.into_values() {
        if places.len() < 2 || places.iter().all(|&i| weight[i] == fused[i].1) {
            continue;
        }
        let mut scores: Vec<f32> = places.iter().map(|&i| fused[i].1).collect();
        scores.sort_by(|a, b| b.total_cmp(a));
        let mut units: Vec<(u32, f32, f32)> = places
            .iter()
            .map(|&i| (fused[i].0, weight[i], fused[i].1))
            .collect();
        units.sort_by(|a, b| {
            b.1.total_cmp(&a.1)
                .then_with(|| order(index, &(a.0, a.2), &(b.0, b.2)))
        });
        for ((&i, unit), score) in places.iter().zip(units).zip(scores) {
            fused[i] = (unit.0, score);
        }
    }
}

/// The order of results: best first; ties by path, then line.
fn order(index: &Index, a: &(u32, f32), b: &(u32, f32)) -> std::cmp::Ordering {
    b.1.total_cmp(&a.1).then_with(|| {
        let key = |id| index.table.key(id);
        key(a.0).cmp(&key(b.0)).then(a.0.cmp(&b.0))
    })
}

/// Best first; ties by path, then line.
fn sort(index: &Index, v: &mut [(u32, f32)]) {
    v.sort_by(|a, b| order(index, a, b));
}

/// The `k` best of `v`, sorted (the same as sorting all and cutting: the
/// order is total).
fn best(index: &Index, v: &mut Vec<(u32, f32)>, k: usize) {
    if v.len() > k && k > 0 {
        v.select_nth_unstable_by(k - 1, |a, b| order(index, a, b));
        v.truncate(k);
    }
    sort(index, v);
}

fn fuse(
    kw: &[(u32, f32)],
    sem: &[(u32, f32)],
    fusion: Fusion,
    identifier: bool,
    prose_share: Option<f32>,
) -> Vec<(u32, f32)> {
    let mut out: HashMap<u32, f32> = HashMap::new();
    if sem.is_empty() {
        let max = kw.first().map_or(1.0, |x| x.1).max(f32::EPSILON);
        return kw.iter().map(|&(id, s)| (id, s / max)).collect();
    }
    match fusion {
        Fusion::Rrf => {
            for list in [kw, sem] {
                for (rank, &(id, _)) in list.iter().enumerate() {
                    *out.entry(id).or_default() += 1.0 / (RRF_K + rank as f32 + 1.0);
                }
            }
        }
        Fusion::Blend => {
            let alpha = if identifier {
                KEYWORD_WEIGHT_IDENTIFIER
            } else {
                prose_share.unwrap_or(KEYWORD_WEIGHT_PROSE)
            };
            let max = kw.first().map_or(1.0, |x| x.1).max(f32::EPSILON);
            for &(id, s) in kw {
                *out.entry(id).or_default() += alpha * s / max;
            }
            let top = sem.first().map_or(0.0, |x| x.1);
            let floor = sem.last().map_or(0.0, |x| x.1);
            let span = (top - floor).max(f32::EPSILON);
            for &(id, s) in sem {
                *out.entry(id).or_default() += (1.0 - alpha) * (s - floor) / span;
            }
        }
    }
    out.into_iter().collect()
}

/// The structural multiplier of one unit.
fn structure(
    u: &UnitRef,
    words: &[String],
    q_tokens: &[String],
    forms: &[Vec<String>],
    identifier_query: bool,
    mentions_tests: bool,
) -> f32 {
    let mut m = 1.0;
    let name = u.name.to_lowercase();
    // Defines a queried identifier (`follow_redirects`, `Client`).
    if !u.name_path.is_empty() && name.len() >= 3 && words.contains(&name) {
        m *= if identifier_query { 2.5 } else { 1.6 };
    } else if !u.name_path.is_empty() && !q_tokens.is_empty() {
        // Its name, or its parent's, made of queried words
        // (`HTTPRedirectHandler.http_error_302` for "http redirects").
        let mut parts = Vec::new();
        tokens::for_each_part(u.name, |p| parts.push(p.to_lowercase()));
        if let Some(parent) = u.parent {
            for w in tokens::words(parent) {
                tokens::for_each_part(w, |p| parts.push(p.to_lowercase()));
            }
        }
        let hit = forms
            .iter()
            .filter(|f| parts.iter().any(|p| f.contains(p)))
            .count();
        if hit > 0 {
            m *= 1.0 + 0.2 * hit.min(3) as f32;
        }
    }
    // File and folder names.
    let mut path_tokens = Vec::new();
    tokens::for_each_token(u.path, |t| path_tokens.push(t.to_string()));
    let in_path = q_tokens.iter().filter(|t| path_tokens.contains(t)).count();
    if in_path > 0 {
        m *= 1.0 + 0.15 * in_path.min(3) as f32;
    }
    let f = u.flags;
    if !mentions_tests {
        if f.test {
            m *= 0.45;
        }
        if f.example {
            m *= 0.6;
        }
    }
    if f.vendored {
        m *= 0.4;
    }
    if f.dts {
        m *= 0.5;
    }
    if u.name_path.is_empty() {
        m *= if u.kind == "text" { TEXT_WEIGHT } else { 0.75 };
    }
    if !identifier_query && DATA_KINDS.contains(&u.kind) {
        m *= DATA_WEIGHT_PROSE;
    }
    m
}
