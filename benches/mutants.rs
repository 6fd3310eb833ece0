//! How often Scalpel's validation of writes disagrees with the language's
//! own parser: false accepts (a write the language rejects, let through)
//! and false rejects (a write it accepts, refused), on labelled mutants of
//! real files.
//!
//! ```sh
//! cargo bench --bench mutants                        # Rust: 40 files, 60 mutants each
//! cargo bench --bench mutants -- rust 80 100         # 80 files, 100 mutants each
//! cargo bench --bench mutants -- python 40 60        # Python
//! MUTANTS_SHOW=1 cargo bench --bench mutants         # and print each disagreement
//! ```
//!
//! A mutant changes one token of the code (never inside a comment or
//! string): deleted, doubled, swapped with the next, replaced by another
//! token of the file, or preceded by a token of a fixed list per language;
//! the same seed gives the same mutants. Each mutant is validated as a write
//! is (`validate::reparse_grammar_only`: incremental reparse, problems
//! compared around the change, then the language's second opinion).
//!
//! **Rust.** The corpus: the `.rs` files of serde_json, regex-syntax,
//! similar, memchr and clap_builder in cargo's registry (as
//! `tests/trust.rs`), 2 to 60 KB, that tree-sitter reads without errors and
//! rustc's parser accepts, every k-th. The label is rustc's own parser, as
//! `rustfmt` (of the installed toolchain) runs it: rustfmt parses with
//! `rustc_parse` and refuses a file with any parse error (exit 1), without
//! expanding macros or checking names, as `rustc -Z parse-only` does on
//! nightly. rustfmt may also fail for reasons of its own; a mutant it
//! refuses whose message is not a parse error is dropped and counted.
//! Columns: the grammar alone, then the grammar and `syn` (what writes do).
//!
//! **Python.** The corpus: the standard library's top-level modules, 2 to
//! 60 KB, that tree-sitter reads without errors and `compile()` accepts. The
//! label is CPython's `compile()` (`python3` on PATH): a `SyntaxError`
//! (`IndentationError`, `TabError`) rejects. Columns: tree-sitter's own
//! ERROR and MISSING nodes alone, then what writes do (those, CPython's
//! indentation rules and its compile-time rules of `[[rules.*]]`).

#[path = "../tests/provision/mod.rs"]
mod provision;
#[path = "../tests/trust_support/mod.rs"]
mod trust_support;

use rayon::prelude::*;
use scalpel::edit::{Splice, validate};
use scalpel::symbols::{self, ParsedFile};
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;

/// What rustc's parser says about a text: accepted, rejected, or no
/// verdict (rustfmt failed for another reason).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Label {
    Valid,
    Invalid,
    Unknown,
}

fn label(language: &str, text: &str) -> Label {
    let (program, args): (&str, &[&str]) = match language {
        "rust" => ("rustfmt", &["--edition", "2021", "--emit", "stdout"]),
        _ => (
            "python3",
            &[
                "-c",
                "import sys; compile(sys.stdin.buffer.read(), '<mutant>', 'exec')",
            ],
        ),
    };
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("this needs {program} on PATH: {e}"));
    let mut stdin = child.stdin.take().unwrap();
    let owned = text.to_string();
    let writer = std::thread::spawn(move || stdin.write_all(owned.as_bytes()));
    let out = child.wait_with_output().unwrap();
    let _ = writer.join();
    if out.status.success() {
        return Label::Valid;
    }
    let err = String::from_utf8_lossy(&out.stderr);
    let rejected = match language {
        // rustc_parse's diagnostics point into the input (`--> <stdin>:l:c`).
        "rust" => err.contains("error") && err.contains("<stdin>:"),
        _ => ["SyntaxError", "IndentationError", "TabError"]
            .iter()
            .any(|e| err.contains(e)),
    };
    if rejected {
        Label::Invalid
    } else {
        Label::Unknown
    }
}

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Tokens inserted by the insertion mutant, per language.
fn inserted(language: &str) -> &'static [&'static str] {
    match language {
        "rust" => &[
            ";", ",", "{", "}", "(", ")", "[", "]", "::", "=>", "&", "'a", "mut", "pub", "?", "<",
        ],
        _ => &[
            ":", ",", "(", ")", "[", "]", "=", ".", "**", "lambda", "return", "yield", "def",
            "pass", "\\", "\n    ",
        ],
    }
}

/// The byte ranges of the file's code tokens: leaves of its tree outside
/// comments and string literals.
fn tokens(file: &ParsedFile) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut cursor = file.tree.walk();
    'walk: loop {
        let n = cursor.node();
        let skip = n.is_extra() || n.kind().contains("string") || n.kind().contains("char");
        if !skip && n.child_count() == 0 && n.end_byte() > n.start_byte() {
            out.push((n.start_byte(), n.end_byte()));
        }
        if !skip && cursor.goto_first_child() {
            continue;
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                break 'walk;
            }
        }
    }
    out
}

/// One mutant of `text`: the new text and the splice that made it.
fn mutate(
    text: &str,
    toks: &[(usize, usize)],
    rng: &mut Rng,
    inserted: &[&str],
) -> (String, Splice) {
    let i = rng.below(toks.len() - 1);
    let (s, e) = toks[i];
    let tok = &text[s..e];
    let (start, old_end, insert) = match rng.below(5) {
        0 => (s, e, String::new()),
        1 => (s, e, format!("{tok} {tok}")),
        2 => {
            let (s2, e2) = toks[i + 1];
            (s, e2, format!("{}{}{tok}", &text[s2..e2], &text[e..s2]))
        }
        3 => {
            let (a, b) = toks[rng.below(toks.len())];
            (s, e, text[a..b].to_string())
        }
        _ => (s, s, format!("{} ", inserted[rng.below(inserted.len())])),
    };
    let new = format!("{}{insert}{}", &text[..start], &text[old_end..]);
    let change = Splice {
        start,
        old_end,
        new_end: start + insert.len(),
    };
    (new, change)
}

#[derive(Default, Debug)]
struct Counts {
    valid: usize,
    invalid: usize,
    unknown: usize,
    unchanged: usize,
    /// (first column, what writes do)
    false_accept: (usize, usize),
    false_reject: (usize, usize),
}

fn parse(language: &str, text: &str) -> Option<ParsedFile> {
    let reg = scalpel::lang::Registry::builtin();
    let lang = reg.by_name(language).unwrap().clone();
    let name = if language == "rust" { "x.rs" } else { "x.py" };
    let src = scalpel::source::decode(Path::new(name), text.as_bytes().to_vec()).ok()?;
    symbols::parse(&lang, Arc::new(src)).ok()
}

/// The corpus of `language`: files of 2 to 60 KB.
fn corpus_files(language: &str) -> Vec<std::path::PathBuf> {
    let mut files = match language {
        "rust" => trust_support::crate_files(),
        _ => trust_support::stdlib_files(false),
    };
    files.retain(|p| std::fs::metadata(p).is_ok_and(|m| (2_000..60_000).contains(&m.len())));
    files
}

fn main() {
    let raw: Vec<String> = std::env::args().skip(1).collect();
    let language = raw
        .iter()
        .find(|a| a.parse::<usize>().is_err() && !a.starts_with('-'))
        .map_or("rust", String::as_str)
        .to_string();
    assert!(
        language == "rust" || language == "python",
        "languages: rust, python (not {language})"
    );
    let args: Vec<usize> = raw.iter().filter_map(|a| a.parse().ok()).collect();
    let (n_files, per_file) = (
        args.first().copied().unwrap_or(40),
        args.get(1).copied().unwrap_or(60),
    );
    let files = corpus_files(&language);
    let step = (files.len() / (n_files * 2)).max(1);
    let corpus: Vec<(String, ParsedFile)> = files
        .into_iter()
        .step_by(step)
        .filter_map(|p| {
            let text = std::fs::read_to_string(&p).ok()?;
            let parsed = parse(&language, &text).filter(|f| f.parse_error_count == 0)?;
            (label(&language, &text) == Label::Valid).then_some((text, parsed))
        })
        .take(n_files)
        .collect();
    let judge = match language.as_str() {
        "rust" => "rustc's parser via rustfmt",
        _ => "CPython's compile()",
    };
    eprintln!(
        "{} {language} files, {} mutants each ({judge} labels them)",
        corpus.len(),
        per_file
    );
    let reg = scalpel::lang::Registry::builtin();
    let lang = reg.by_name(&language).unwrap();
    let parser = lang.config.edit.second_opinion.clone();
    let inserted = inserted(&language);
    let results: Vec<Counts> = corpus
        .par_iter()
        .enumerate()
        .map(|(k, (text, file))| {
            let mut c = Counts::default();
            let toks = tokens(file);
            let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ (k as u64 + 1));
            for _ in 0..per_file {
                let (new, change) = mutate(text, &toks, &mut rng, inserted);
                if new == *text {
                    c.unchanged += 1;
                    continue;
                }
                let label = label(&language, &new);
                let (tree, grammar) =
                    validate::reparse_grammar_only(lang, &file.tree, text, &new, change).unwrap();
                // What writes do: the grammar, then the second opinion
                // around the change, or overruling the grammar when it
                // takes the whole new file.
                let (_, judged) =
                    validate::reparse_against(lang, &file.tree, text, &new, change).unwrap();
                let before = match &parser {
                    // The grammar alone.
                    Some(_) => grammar.is_empty(),
                    // tree-sitter's own ERROR and MISSING nodes alone
                    // (writes add CPython's indentation and compile rules).
                    None => {
                        symbols::error_nodes(&tree).len() <= symbols::error_nodes(&file.tree).len()
                    }
                };
                let after = judged.is_empty();
                let second = before && !after;
                let wrong = match label {
                    Label::Valid => !after,
                    Label::Invalid => after,
                    Label::Unknown => false,
                };
                if (wrong || before != after) && std::env::var_os("MUTANTS_SHOW").is_some() {
                    let at = change.start;
                    let ls = text[..at].rfind('\n').map_or(0, |p| p + 1);
                    let le = new[at..].find('\n').map_or(new.len(), |p| at + p);
                    let why = match (&grammar.first(), second, judged.overruled.first()) {
                        (Some(p), _, Some(_)) => format!("grammar overruled: {}", p.what),
                        (Some(p), _, None) => format!("grammar: {}", p.what),
                        (None, true, _) => "second opinion".to_string(),
                        _ => "accepted".to_string(),
                    };
                    let verdict = if wrong { "wrong" } else { "right" };
                    eprintln!("{verdict}: {label:?} mutant, {why}: {:?}", &new[ls..le]);
                }
                match label {
                    Label::Unknown => c.unknown += 1,
                    Label::Valid => {
                        c.valid += 1;
                        c.false_reject.0 += usize::from(!before);
                        c.false_reject.1 += usize::from(!after);
                    }
                    Label::Invalid => {
                        c.invalid += 1;
                        c.false_accept.0 += usize::from(before);
                        c.false_accept.1 += usize::from(after);
                    }
                }
            }
            c
        })
        .collect();
    let mut t = Counts::default();
    for c in results {
        t.valid += c.valid;
        t.invalid += c.invalid;
        t.unknown += c.unknown;
        t.unchanged += c.unchanged;
        t.false_accept.0 += c.false_accept.0;
        t.false_accept.1 += c.false_accept.1;
        t.false_reject.0 += c.false_reject.0;
        t.false_reject.1 += c.false_reject.1;
    }
    let pct = |n: usize, of: usize| 100.0 * n as f64 / of.max(1) as f64;
    println!(
        "{language} mutants: {} valid, {} invalid ({judge}); {} without a verdict, {} unchanged, left out",
        t.valid, t.invalid, t.unknown, t.unchanged
    );
    let row = |what: &str, (fa, fr): (usize, usize)| {
        println!(
            "{what}: false accept {fa} of {} invalid ({:.2} %), false reject {fr} of {} valid ({:.2} %)",
            t.invalid,
            pct(fa, t.invalid),
            t.valid,
            pct(fr, t.valid)
        )
    };
    let (first, then) = match &parser {
        Some(p) => (
            "grammar alone".to_string(),
            format!(
                "grammar and {p} (around the change; overruling the grammar when it takes the file)"
            ),
        ),
        None => (
            "tree-sitter's ERROR/MISSING nodes alone".to_string(),
            "writes' validation (indentation and compile rules too)".to_string(),
        ),
    };
    row(&first, (t.false_accept.0, t.false_reject.0));
    row(&then, (t.false_accept.1, t.false_reject.1));
}
