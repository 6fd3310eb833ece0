//! Real third-party code available offline: the Python standard library of
//! the machine's `python3` (checked against Python's own `ast`), the crate
//! sources cargo downloaded for this build, and the JavaScript of a pinned
//! npm release the test installs itself (tests/provision). Nothing may panic, every symbol's address must resolve back
//! to that symbol, ranges must agree with the bytes, and replacing a symbol
//! with its own extracted code must leave the file byte-identical.

mod provision;

use scalpel::ops::engine::Engine;
use scalpel::symbols::{self, ParsedFile};
use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn command_output(cmd: &str, args: &[&str]) -> String {
    let out = Command::new(cmd)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("the corpus test needs `{cmd}` on PATH: {e}"));
    assert!(out.status.success(), "{cmd} {args:?} failed");
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

fn files_under(dir: &Path, ext: &str, skip: &[&str]) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = scalpel::disk::walk_files(dir)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .filter(|p| {
            let s = p.to_string_lossy();
            !skip.iter().any(|k| s.contains(k))
        })
        .collect();
    v.sort();
    v
}

/// Invariants every parsed file must satisfy. Returns the symbol count.
fn check_invariants(file: &ParsedFile, path: &Path) -> usize {
    let text = &file.source.text;
    for s in &file.symbols {
        let span = s.full_span();
        let bare = s.bare_span();
        assert!(
            span.start_byte <= bare.start_byte && bare.end_byte <= span.end_byte,
            "{}: {}",
            path.display(),
            s.name_path
        );
        let line_of = |b: usize| text.as_bytes()[..b].iter().filter(|&&c| c == b'\n').count() + 1;
        assert_eq!(
            line_of(span.start_byte),
            span.start_line,
            "{}: {}",
            path.display(),
            s.name_path
        );
        let resolved = symbols::resolve(&file.symbols, s.address(), None).unwrap_or_else(|e| {
            panic!(
                "{}: address {} does not resolve: {}",
                path.display(),
                s.address(),
                e
            )
        });
        assert_eq!(
            resolved.full_span(),
            span,
            "{}: {} resolves elsewhere",
            path.display(),
            s.address()
        );
    }
    file.symbols.len()
}

fn run_corpus(files: &[PathBuf]) -> (usize, usize, Vec<(PathBuf, ParsedFile)>) {
    let engine = Engine::default();
    let mut parsed = Vec::new();
    let mut symbols = 0;
    let mut skipped = 0;
    for (n, f) in files.iter().enumerate() {
        match engine.load(f, None) {
            Ok(p) => {
                symbols += check_invariants(&p, f);
                // Dependencies of every symbol of one file in seven: no
                // panic, never the symbol itself.
                if n % 7 == 0 {
                    for (i, s) in p.symbols.iter().enumerate() {
                        let (_, picked) = symbols::dependencies(&p, s)
                            .unwrap_or_else(|e| panic!("{}: {}: {e}", f.display(), s.name_path));
                        assert!(!picked.contains(&i), "{}: {}", f.display(), s.name_path);
                    }
                }
                parsed.push((f.clone(), p));
            }
            // Non-UTF-8 and binary files are refused by design, not a panic.
            Err(e) => {
                assert!(
                    matches!(
                        e.code(),
                        scalpel::ErrorCode::Encoding
                            | scalpel::ErrorCode::BinaryFile
                            | scalpel::ErrorCode::TooLarge
                    ),
                    "{}: {e}",
                    f.display()
                );
                skipped += 1;
            }
        }
    }
    (symbols, skipped, parsed)
}

#[test]
fn python_stdlib_agrees_with_ast() {
    let stdlib = PathBuf::from(command_output(
        "python3",
        &[
            "-c",
            "import sysconfig; print(sysconfig.get_paths()['stdlib'])",
        ],
    ));
    let files = files_under(
        &stdlib,
        "py",
        &[
            "/site-packages/",
            "/test/",
            "/tests/",
            "/idle_test/",
            "lib2to3",
        ],
    );
    assert!(
        files.len() > 500,
        "found only {} stdlib files under {}",
        files.len(),
        stdlib.display()
    );
    let (count, skipped, parsed) = run_corpus(&files);

    // Ask Python's own parser for the definitions of the same files.
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/ast_defs.py");
    let mut child = Command::new("python3")
        .arg(script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    {
        let mut stdin = child.stdin.take().unwrap();
        for (f, _) in &parsed {
            writeln!(stdin, "{}", f.display()).unwrap();
        }
    }
    let out = child.wait_with_output().unwrap();
    let mut expected = 0usize;
    let mut found = 0usize;
    let mut ours_total = 0usize;
    let mut ours_matched = 0usize;
    let mut tolerant = 0usize;
    let mut misses = Vec::new();
    for (line, (path, file)) in String::from_utf8(out.stdout).unwrap().lines().zip(&parsed) {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(v["path"].as_str().unwrap(), path.to_str().unwrap());
        let Some(defs) = v["defs"].as_array() else {
            continue;
        };
        let ours: HashSet<(String, usize, usize)> = file
            .symbols
            .iter()
            .filter(|s| matches!(s.kind, "function" | "method" | "class"))
            .map(|s| (s.name.clone(), s.name_line, s.bare_span().end_line))
            .collect();
        let theirs: HashSet<(String, usize, usize)> = defs
            .iter()
            .map(|d| {
                (
                    d[0].as_str().unwrap().to_string(),
                    d[1].as_u64().unwrap() as usize,
                    d[2].as_u64().unwrap() as usize,
                )
            })
            .collect();
        expected += theirs.len();
        ours_total += ours.len();
        let lines: Vec<&str> = file.source.text.lines().collect();
        // tree-sitter keeps comments indented at body level inside the body;
        // `ast` ends at the last statement. Same definition, wider range.
        let only_comments = |from: usize, to: usize| {
            (from..to).all(|l| {
                lines
                    .get(l)
                    .is_some_and(|t| t.trim().is_empty() || t.trim_start().starts_with('#'))
            })
        };
        let close = |d: &(String, usize, usize), o: &(String, usize, usize)| {
            o.0 == d.0 && o.1 == d.1 && o.2 >= d.2 && only_comments(d.2, o.2)
        };
        for d in &theirs {
            if ours.contains(d) {
                found += 1;
                tolerant += 1;
            } else if ours.iter().any(|o| close(d, o)) {
                tolerant += 1;
            } else if misses.len() < 10 {
                misses.push(format!("{}: {d:?}", path.display()));
            }
        }
        ours_matched += ours
            .iter()
            .filter(|o| theirs.contains(*o) || theirs.iter().any(|d| close(d, o)))
            .count();
    }
    let exact = found as f64 / expected as f64;
    let recall = tolerant as f64 / expected as f64;
    let precision = ours_matched as f64 / ours_total as f64;
    println!(
        "python stdlib: {} files ({skipped} refused as non-UTF-8), {count} symbols; vs ast: {tolerant}/{expected} definitions found, recall {:.4} ({:.4} with identical end lines), precision {:.4}",
        parsed.len(),
        recall,
        exact,
        precision
    );
    for m in &misses {
        println!("  missed {m}");
    }
    assert!(expected > 10_000, "ast found only {expected} definitions");
    assert!(recall >= 0.995, "recall {recall:.4}: {misses:#?}");
    assert!(precision >= 0.995, "precision {precision:.4}");
}

#[test]
fn rust_crate_sources() {
    let cargo_home = std::env::var("CARGO_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|_| PathBuf::from(std::env::var("HOME").unwrap()).join(".cargo"));
    let registry = cargo_home.join("registry/src");
    let mut files = Vec::new();
    for index in std::fs::read_dir(&registry).unwrap().flatten() {
        for krate in std::fs::read_dir(index.path()).unwrap().flatten() {
            let name = krate.file_name().to_string_lossy().to_string();
            // Crates this build always downloads: a fixed, varied sample.
            if [
                "tokio-1",
                "serde_core-",
                "regex-syntax-",
                "ignore-",
                "clap_builder-",
                "rmcp-3",
                "tree-sitter-0",
            ]
            .iter()
            .any(|p| name.starts_with(p))
            {
                files.extend(files_under(&krate.path(), "rs", &[]));
            }
        }
    }
    assert!(
        files.len() > 400,
        "found only {} crate files under {}",
        files.len(),
        registry.display()
    );
    let (count, skipped, parsed) = run_corpus(&files);
    let with_errors = parsed
        .iter()
        .filter(|(_, p)| p.parse_error_count > 0)
        .count();
    println!(
        "rust crates: {} files, {count} symbols, {with_errors} with parse errors, {skipped} refused",
        parsed.len()
    );
    assert!(count > 20_000);
    assert!(
        with_errors * 50 < parsed.len(),
        "{with_errors} files with parse errors"
    );
}

#[test]
fn javascript_of_npm() {
    let root = provision::js_corpus();
    let files = files_under(&root, "js", &[]);
    assert!(
        files.len() > 300,
        "found only {} files under {}",
        files.len(),
        root.display()
    );
    let (count, skipped, parsed) = run_corpus(&files);
    let with_errors = parsed
        .iter()
        .filter(|(_, p)| p.parse_error_count > 0)
        .count();
    println!(
        "npm javascript: {} files, {count} symbols, {with_errors} with parse errors, {skipped} refused",
        parsed.len()
    );
    assert!(count > 5_000);
}

/// A prerequisite of the tests that is missing fails the test that needs
/// it with a message naming it and the package that brings it (README, "Try
/// it"): here with a `PATH` that holds nothing.
#[test]
fn a_missing_prerequisite_is_named() {
    let empty = tempfile::tempdir().unwrap();
    for (program, package) in [("npm", "apt-get install npm"), ("python3", "python3-venv")] {
        let e = provision::run(
            Command::new(program)
                .arg("--version")
                .env("PATH", empty.path()),
        )
        .unwrap_err();
        assert!(e.contains(package), "{program}: {e}");
        assert!(e.contains("README"), "{program}: {e}");
    }
}
