//! The shape property of `tests/trust.rs` over the whole corpora, not a
//! sample: every function and method of every file of
//! - the Python standard library (every folder but `site-packages`; the
//!   files CPython compiles), judged by `compile()`;
//! - the sources of serde_json, regex-syntax, similar, memchr and
//!   clap_builder in cargo's registry (the files `syn` parses), judged by
//!   `syn`;
//! - zod's whole `src` (the pinned npm corpus of the tests) and, when
//!   present, effect's `src` (`$TRUST_EFFECT_SRC`, or where
//!   `benches/ts_symbols.sh` installs it), the files the `typescript`
//!   compiler accepts, judged by it.
//!
//! - every language with a checker command in `tests/data/front_ends.toml`
//!   (Go: `gofmt -e`, Java: javac's parser, C and C++: `clang
//!   -fsyntax-only`, Bash, Ruby, PHP, C#): every file of its pinned corpus
//!   the checker accepts, judged by it; `update(S, extract(S).code)` is
//!   also checked for every symbol of every kind.
//!
//! Files tree-sitter itself reads with errors are counted as skipped.
//!
//! ```sh
//! cargo bench --bench trust_corpus                 # all of them
//! cargo bench --bench trust_corpus -- ruby         # one language by name
//! cargo bench --bench trust_corpus -- python 200   # the first 200 files
//! TRUST_ONLY=regex-syntax cargo bench --bench trust_corpus -- rust
//! TRUST_ONLY='SunJCE.java|FileReader.java' cargo bench --bench trust_corpus -- java
//! TRUST_PER_FILE=30 cargo bench --bench trust_corpus -- python
//! TRUST_ONLY=BigDecimal.java TRUST_SHOW='writeObject [width_2]' cargo bench --bench trust_corpus -- java
//! ```
//!
//! `TRUST_LIST=all` lists every failure, not the first 20.
//!
//! `TRUST_FROM=N` leaves out the N largest files (files run largest first,
//! and stderr counts them as they finish): a whole run that had to stop
//! goes on where it was (the Go corpus's ten largest files, its generated
//! SSA rewrite rules, are over two hours of one core on their own).
//! `TRUST_TO=M` runs only the M largest files (`TRUST_FROM=10 TRUST_TO=169`:
//! the 11th to the 169th largest).
//!
//! `TRUST_SHOW=text` prints, for each case whose label holds `text`, the
//! code sent and the symbol written (on stderr).
//!
//! `TRUST_PER_FILE=N` runs at most N functions of each file, spread evenly
//! over it (the same ones each run). A case reparses its file, so the
//! whole standard library (59,000 `def`s, 4.2 G bytes × functions) costs
//! about 3 h of both cores here; with a cap every file is still reached.
//! `TRUST_PART=k/n` runs only the functions whose place in their file is
//! `k` modulo `n`: the runs of `0/n` to `n-1/n`, in separate sessions,
//! together take every function (`TRUST_PART=0/4 … python`, then `1/4`...).

#[path = "../tests/provision/mod.rs"]
mod provision;
#[path = "../tests/trust_support/mod.rs"]
mod trust_support;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;
use trust_support::*;

/// Files per batch: each batch's new files are judged by one front-end
/// process (`syn` judges in process), then dropped. The compiler's start
/// costs seconds, so its batches are larger; small batches keep both
/// cores busy to the end.
fn batch(judge: &Judge) -> usize {
    match judge {
        Judge::Tsc(_) | Judge::Command(_) => 40,
        _ => 8,
    }
}

/// New files held for judging before a batch is full.
const JUDGE_BYTES: usize = 256 << 20;

fn run(what: &str, lang: &Lang, files: Vec<PathBuf>, judge_with: &Judge) -> Tally {
    run_checked(what, lang, files, judge_with, false)
}

/// [`run`], and with `every_symbol` the extract-then-update identity of
/// every symbol of every file too.
fn run_checked(
    what: &str,
    lang: &Lang,
    mut files: Vec<PathBuf>,
    judge_with: &Judge,
    every_symbol: bool,
) -> Tally {
    let started = Instant::now();
    let pick = Pick {
        part: std::env::var("TRUST_PART")
            .ok()
            .and_then(|p| {
                let (k, n) = p.split_once('/')?;
                Some((k.parse().ok()?, n.parse().ok()?))
            })
            .filter(|&(k, n)| n > 0 && k < n)
            .unwrap_or((0, 1)),
        per_file: std::env::var("TRUST_PER_FILE")
            .ok()
            .and_then(|n| n.parse().ok())
            .unwrap_or(usize::MAX),
    };
    if pick.part != (0, 1) || pick.per_file != usize::MAX {
        println!("{what}: {pick:?}");
    }
    // Largest first, each worker taking the next file as it is free (not
    // fixed batches: rayon's chunks put the 40 largest TypeScript files in
    // one sequential batch, and effect's run spent most of an hour on one
    // core). A file's cost grows with the square of its size (its
    // functions times a reparse each), so a large file left for the end
    // would keep one core busy while the other has nothing left to do.
    files.sort_by_cached_key(|f| std::cmp::Reverse(std::fs::metadata(f).map_or(0, |m| m.len())));
    // `TRUST_FROM=N` leaves out the N largest: a whole run stopped after N
    // files goes on from there.
    let from: usize = std::env::var("TRUST_FROM")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    // `TRUST_TO=M` keeps only the M largest (before `TRUST_FROM`'s cut): a
    // run of the largest files alone, beside one of the rest.
    let to: usize = std::env::var("TRUST_TO")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(usize::MAX);
    if to < files.len() {
        println!("{what}: only the {to} largest files (TRUST_TO)");
        files.truncate(to);
    }
    if from > 0 {
        println!("{what}: the {from} largest files left out (TRUST_FROM)");
        files.drain(..from.min(files.len()));
    }
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    // Each worker's new files are judged by one front-end process per
    // batch of files (`syn` judges in process), or sooner when they hold
    // more than JUDGE_BYTES, then dropped.
    let flush = |pending: &mut Tally, files_in: &mut usize, all: &mut Tally| {
        judge(pending, judge_with);
        // Progress and findings as they come, on stderr: a whole run
        // takes long enough to be stopped before its summary.
        let n = done.fetch_add(*files_in, Ordering::Relaxed) + *files_in;
        eprintln!(
            "{what}: {n}/{} files, {:.0} s",
            files.len(),
            started.elapsed().as_secs_f64()
        );
        for finding in pending
            .failures
            .iter()
            .chain(&pending.identity_lost)
            .chain(&pending.rejected)
        {
            eprintln!("  {finding}");
        }
        all.merge(std::mem::take(pending));
        *files_in = 0;
    };
    let worker = || {
        let (mut all, mut pending, mut files_in) = (Tally::default(), Tally::default(), 0);
        while let Some(f) = files.get(next.fetch_add(1, Ordering::Relaxed)) {
            if every_symbol {
                every_symbol_identity(lang.name, f, &mut pending);
            }
            run_file_picked(lang, f, pick, &mut pending);
            files_in += 1;
            let bytes: usize = pending.judged.iter().map(|(_, text)| text.len()).sum();
            if files_in == batch(judge_with) || bytes > JUDGE_BYTES {
                flush(&mut pending, &mut files_in, &mut all);
            }
        }
        if files_in > 0 {
            flush(&mut pending, &mut files_in, &mut all);
        }
        all
    };
    let tallies: Vec<Tally> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..rayon::current_num_threads().max(1))
            .map(|_| s.spawn(worker))
            .collect();
        workers.into_iter().map(|w| w.join().unwrap()).collect()
    });
    let mut t = Tally::default();
    for part in tallies {
        t.merge(part);
    }
    println!(
        "{} in {:.0} s",
        t.line(what),
        started.elapsed().as_secs_f64()
    );
    for (title, list) in [
        ("failures", &t.failures),
        ("identity lost", &t.identity_lost),
        ("rejected by the front end", &t.rejected),
    ] {
        if !list.is_empty() {
            // `TRUST_LIST=all` prints every one (a whole-corpus run's list
            // is the work list of the next session).
            let shown = match std::env::var("TRUST_LIST").as_deref() {
                Ok("all") => list.len(),
                _ => list.len().min(20),
            };
            println!("  {title} (first {shown} of {}):", list.len());
            for l in list.iter().take(shown) {
                println!("    {l}");
            }
        }
    }
    t
}

fn main() {
    let args = bench_args();
    let only = args.first().map(String::as_str);
    let limit: usize = args
        .get(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(usize::MAX);
    let wanted = |name: &str| only.is_none_or(|o| o == name);
    // `TRUST_ONLY=regex-syntax` keeps the files whose path contains it (to
    // run again what a whole run found); `TRUST_ONLY='a.java|b.java'`, the
    // files whose path contains any of them.
    let only_paths = std::env::var("TRUST_ONLY").unwrap_or_default();
    let only_paths: Vec<&str> = only_paths.split('|').collect();
    let take = |files: Vec<PathBuf>| {
        files
            .into_iter()
            .filter(|f| {
                let f = f.to_string_lossy();
                only_paths.iter().any(|p| f.contains(p))
            })
            .take(limit)
            .collect::<Vec<_>>()
    };
    let mut failed = false;
    if wanted("python") {
        let files = compiling(take(stdlib_files(true)));
        failed |= !run("python (stdlib)", &PYTHON, files, &Judge::CPython).clean();
    }
    if wanted("rust") {
        let files = syn_parses(take(crate_files()));
        failed |= !run("rust (crates)", &RUST, files, &Judge::Syn).clean();
    }
    if wanted("typescript") {
        let corpus = provision::ts_corpus();
        let ts = corpus.join("node_modules/typescript");
        let mut files = ts_files(&corpus.join("node_modules/zod/src"));
        let effect = std::env::var("TRUST_EFFECT_SRC")
            .map(PathBuf::from)
            .unwrap_or_else(|_| PathBuf::from("/tmp/scalpel-ts-symbols/node_modules/effect/src"));
        let with_effect = effect.is_dir();
        if with_effect {
            files.extend(ts_files(&effect));
        }
        let files = tsc_accepts(&ts, take(files));
        let what = if with_effect {
            "typescript (zod + effect)"
        } else {
            "typescript (zod)"
        };
        failed |= !run(what, &TYPESCRIPT, files, &Judge::Tsc(Path::new(&ts))).clean();
    }
    for fe in command_front_ends() {
        if !wanted(&fe.language) {
            continue;
        }
        fe.require();
        let mut files = fe.fixtures();
        files.extend(take(fe.corpus_files()));
        let files = fe.accepts(files);
        let what = format!("{} ({})", fe.language, fe.command.join(" "));
        failed |= !run_checked(&what, &fe.lang(), files, &Judge::Command(&fe), true).clean();
    }
    if failed {
        std::process::exit(1);
    }
}
