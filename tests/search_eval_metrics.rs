//! The metrics of the search evaluation (`benches/search_eval/eval.rs`,
//! issue 31) on small cases worked out by hand: what the held-out figures
//! in BENCHMARKS.md mean.

#[path = "../benches/search_eval/eval.rs"]
mod eval;

use eval::{Answer, ChunkBm25, Ranked, answers_first_within_files, per_file, per_hit};

fn hit(path: &str, start: usize, end: usize) -> Ranked {
    Ranked {
        path: path.to_string(),
        start,
        end,
    }
}

fn lines(path: &str, start: usize, end: usize) -> Answer {
    Answer {
        path: path.to_string(),
        lines: Some((start, end)),
    }
}

fn file(path: &str) -> Answer {
    Answer {
        path: path.to_string(),
        lines: None,
    }
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

#[test]
fn a_hit_counts_only_where_it_overlaps_the_answers_lines() {
    let want = [lines("a.py", 10, 20)];
    // The right file, other lines: nothing per hit, everything per file.
    let (ndcg, recall) = per_hit(&[hit("a.py", 30, 40)], &want);
    assert_eq!((ndcg, recall), (0.0, 0.0));
    let (ndcg, recall) = per_file(&["a.py".to_string()], &want);
    assert_eq!((ndcg, recall), (1.0, 1.0));
    // Touching the last line is an overlap.
    assert_eq!(per_hit(&[hit("a.py", 20, 25)], &want), (1.0, 1.0));
}

#[test]
fn a_second_hit_in_the_same_answer_takes_a_place_and_gains_nothing() {
    // Two answers; the first hit answers A, the second is inside A again,
    // the third answers B: DCG = 1/log2(2) + 1/log2(4), ideal = 1 + 1/log2(3).
    let want = [lines("a.rs", 1, 50), file("b.rs")];
    let hits = [hit("a.rs", 1, 10), hit("a.rs", 20, 30), hit("b.rs", 5, 6)];
    let (ndcg, recall) = per_hit(&hits, &want);
    let expected = (1.0 + 1.0 / 4f64.log2()) / (1.0 + 1.0 / 3f64.log2());
    assert!(close(ndcg, expected), "{ndcg} != {expected}");
    assert_eq!(recall, 1.0);
    // Per file the duplicate collapses: a.rs then b.rs, the ideal order.
    let files = eval::files_of(&hits);
    assert_eq!(files, ["a.rs", "b.rs"]);
    assert!(close(per_file(&files, &want).0, 1.0));
}

#[test]
fn recall_at_5_ignores_what_comes_after_the_fifth_place() {
    let want = [file("x.go")];
    let mut hits: Vec<Ranked> = (0..5).map(|i| hit(&format!("n{i}.go"), 1, 2)).collect();
    hits.push(hit("x.go", 1, 2));
    let (ndcg, recall) = per_hit(&hits, &want);
    assert_eq!(recall, 0.0);
    assert!(close(ndcg, 1.0 / 7f64.log2()));
    // Beyond ten places nothing counts at all.
    let mut far: Vec<Ranked> = (0..10).map(|i| hit(&format!("n{i}.go"), 1, 2)).collect();
    far.push(hit("x.go", 1, 2));
    assert_eq!(per_hit(&far, &want), (0.0, 0.0));
}

#[test]
fn the_baseline_ranks_the_chunk_with_the_query_words_first() {
    let mut b = ChunkBm25::default();
    let mut text = String::new();
    for i in 0..120 {
        if i == 75 {
            text.push_str("def parseHttpRedirect(location): follow redirect\n");
        } else {
            text.push_str(&format!("value_{i} = compute(value_{i})\n"));
        }
    }
    b.add_file("web/client.py", &text);
    b.add_file("other.py", "print('the redirect of nothing')\n");
    b.finish();
    let hits = b.search("where is an http redirect parsed", 5);
    // Lines 51-100 hold line 76; the camelCase parts of `parseHttpRedirect` match `http` and `redirect`.
    assert_eq!(hits[0], hit("web/client.py", 51, 100));
    assert_eq!(hits[1].path, "other.py");
    assert_eq!(hits.len(), 2);
}

/// The oracle of session 44: within each file, its answering hits take the
/// file's first places; the files keep theirs.
#[test]
fn the_within_file_oracle_moves_answers_up_only_inside_their_file() {
    let want = [lines("a.py", 50, 60), lines("b.py", 1, 5)];
    let mut hits = vec![
        hit("a.py", 1, 10),
        hit("b.py", 20, 30),
        hit("a.py", 20, 30),
        hit("a.py", 50, 60),
        hit("b.py", 1, 5),
    ];
    answers_first_within_files(&mut hits, &want);
    assert_eq!(
        hits,
        [
            hit("a.py", 50, 60),
            hit("b.py", 1, 5),
            hit("a.py", 1, 10),
            hit("a.py", 20, 30),
            hit("b.py", 20, 30),
        ]
    );
    // Both answers now first and second: a perfect score.
    let (ndcg, recall) = per_hit(&hits, &want);
    assert!(close(ndcg, 1.0) && close(recall, 1.0), "{ndcg} {recall}");
    // A file without an answer, and an answer not among the hits, move
    // nothing.
    let mut other = vec![hit("c.py", 1, 2), hit("c.py", 3, 4)];
    answers_first_within_files(&mut other, &want);
    assert_eq!(other, [hit("c.py", 1, 2), hit("c.py", 3, 4)]);
}
