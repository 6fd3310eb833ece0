//! How lenient each grammar is next to its language's own checker: mutants
//! of real files (a line deleted, a line's last character deleted), each
//! judged by the checker of `tests/data/front_ends.toml` and by tree-sitter
//! (Scalpel's write validation refuses an edit that adds a parse error).
//! A mutant the checker rejects and tree-sitter reads without error is an
//! error Scalpel's own validation misses; one tree-sitter flags and the
//! checker accepts is a false alarm.
//!
//! ```sh
//! cargo bench --profile dev --bench lenience            # every language
//! cargo bench --profile dev --bench lenience -- bash 40 # 40 files
//! ```

#[path = "../tests/provision/mod.rs"]
mod provision;
#[path = "../tests/trust_support/mod.rs"]
mod trust_support;

use std::path::PathBuf;
use trust_support::*;

/// Mutants of `text`: every `step`-th line deleted, and its last
/// non-blank character deleted.
fn mutants(text: &str, step: usize) -> Vec<String> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut out = Vec::new();
    for i in (0..lines.len()).step_by(step.max(1)) {
        if lines[i].trim().is_empty() {
            continue;
        }
        let mut deleted = lines.clone();
        deleted.remove(i);
        out.push(deleted.concat());
        let body = lines[i].trim_end();
        let cut = body.char_indices().last().map_or(body.len(), |(at, _)| at);
        let mut shortened = lines.clone();
        let rest = format!("{}{}", &body[..cut], &lines[i][body.len()..]);
        shortened[i] = &rest;
        out.push(shortened.concat());
    }
    out
}

fn main() {
    let args = bench_args();
    let only = args.first().map(String::as_str);
    let limit: usize = args.get(1).and_then(|n| n.parse().ok()).unwrap_or(40);
    for fe in command_front_ends() {
        if only.is_some_and(|o| o != fe.language) {
            continue;
        }
        fe.require();
        let files: Vec<PathBuf> = fe.accepts(sample(fe.corpus_files(), limit * 2));
        let files: Vec<PathBuf> = files
            .into_iter()
            .filter(|f| {
                std::fs::read_to_string(f)
                    .ok()
                    .and_then(|t| parse(&fe.language, &t))
                    .is_some_and(|p| p.parse_error_count == 0)
            })
            .take(limit)
            .collect();
        let dir = tempfile::tempdir().unwrap();
        let mut paths = Vec::new();
        let mut ts_flags = Vec::new();
        for (fi, f) in files.iter().enumerate() {
            let text = std::fs::read_to_string(f).unwrap();
            let step = (text.lines().count() / 15).max(1);
            for (mi, m) in mutants(&text, step).into_iter().enumerate() {
                let p = dir.path().join(format!("m{fi}_{mi}.{}", fe.ext));
                let flagged = parse(&fe.language, &m).is_none_or(|p| p.parse_error_count > 0);
                std::fs::write(&p, m).unwrap();
                paths.push(p);
                ts_flags.push(flagged);
            }
        }
        let rejected: std::collections::HashSet<String> = fe
            .rejects(&paths, None)
            .into_iter()
            .map(|l| l.split(" | ").next().unwrap_or("").to_string())
            .collect();
        let (mut rej, mut missed, mut alarms) = (0, 0, 0);
        for (p, flagged) in paths.iter().zip(&ts_flags) {
            let r = rejected.contains(&p.display().to_string());
            rej += r as usize;
            missed += (r && !flagged) as usize;
            alarms += (!r && *flagged) as usize;
        }
        println!(
            "{}: {} files, {} mutants; `{}` rejects {rej}; tree-sitter misses {missed} of them ({:.1} %); \
             {alarms} false alarms (tree-sitter errors on mutants the checker accepts)",
            fe.language,
            files.len(),
            paths.len(),
            fe.command.join(" "),
            100.0 * missed as f64 / rej.max(1) as f64
        );
    }
}
