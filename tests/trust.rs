//! Edits shaped the way agents send them, judged by each language's own
//! front end.
//!
//! For every function and method of the fixtures and of real third-party
//! code (a sample of the Python standard library, crate sources from
//! cargo's registry, TypeScript from an npm package), new code is made in each shape agents use: as
//! `extract_code` printed it, without its decorators/attributes/doc
//! comments, dedented to column 0, with every line at the target's
//! indentation, with CRLF, with tabs, with a one-line body, with a body that
//! starts with a docstring or comment. Each goes through the same planning
//! and validation `update_symbol` uses, and:
//! - adds no parse problem;
//! - changes no byte outside the symbol's range;
//! - keeps the symbol's leading trivia when the code brings none;
//! - reproduces the original byte for byte when the code is the original in
//!   another shape;
//! - compiles: Python with CPython's `compile()`, Rust with `syn`,
//!   TypeScript (zod's sources, from npm) with the `typescript` compiler's
//!   parser.

use scalpel::edit::{self, Operation};
use scalpel::lang::Registry;
use scalpel::symbols::{self, ParsedFile, Symbol};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;

mod provision;

struct Lang {
    name: &'static str,
    /// A statement that is a whole body, and a comment/docstring first line.
    one_line: &'static str,
    doc_first: &'static str,
    /// Wraps a body for brace languages (`{` + body + `}`).
    braces: bool,
}

const PYTHON: Lang = Lang {
    name: "python",
    one_line: "pass",
    doc_first: "\"\"\"Doc.\"\"\"",
    braces: false,
};
const RUST: Lang = Lang {
    name: "rust",
    one_line: "unimplemented!()",
    doc_first: "// A comment first.",
    braces: true,
};

fn ws_len(line: &str) -> usize {
    line.len() - line.trim_start_matches([' ', '\t']).len()
}

/// Strip `col` columns of indentation from every line after the first (as
/// far as each line has them).
fn dedent(code: &str, col: usize) -> String {
    code.split('\n')
        .enumerate()
        .map(|(i, l)| {
            if i == 0 {
                l.to_string()
            } else {
                l[ws_len(l).min(col)..].to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn column_of(text: &str, byte: usize) -> usize {
    let ls = text[..byte].rfind('\n').map_or(0, |p| p + 1);
    ws_len(&text[ls..])
}

struct Shape {
    name: &'static str,
    code: String,
    /// The code is the original symbol in another shape: the result must be
    /// the original file.
    identity: bool,
}

fn shapes(lang: &Lang, file: &ParsedFile, s: &Symbol, unit: usize) -> Vec<Shape> {
    let text = file.source.text.as_str();
    let full = s.full_span();
    let bare = s.bare_span();
    let col = column_of(text, full.start_byte);
    let full_code = &text[full.start_byte..full.end_byte];
    let bare_code = &text[bare.start_byte..full.end_byte];
    let crlf = text.contains("\r\n");
    let mut out = vec![
        Shape {
            name: "extract",
            code: full_code.to_string(),
            identity: true,
        },
        Shape {
            name: "dedented",
            code: dedent(full_code, col),
            identity: true,
        },
    ];
    if bare.start_byte > full.start_byte {
        out.push(Shape {
            name: "extract_no_trivia",
            code: bare_code.to_string(),
            identity: true,
        });
        out.push(Shape {
            name: "dedented_no_trivia",
            code: dedent(bare_code, col),
            identity: true,
        });
    }
    if col > 0 {
        out.push(Shape {
            name: "at_target",
            code: format!(
                "{}{full_code}",
                &text[full.start_byte - col..full.start_byte]
            ),
            identity: true,
        });
    }
    let ded = dedent(bare_code, col);
    out.push(Shape {
        name: "other_line_endings",
        code: if crlf {
            ded.replace("\r\n", "\n")
        } else {
            ded.replace('\n', "\r\n")
        },
        identity: true,
    });
    if !text.contains('\t') && unit > 0 {
        let tabbed: Vec<String> = ded
            .split('\n')
            .map(|l| {
                let w = ws_len(l);
                format!(
                    "{}{}{}",
                    "\t".repeat(w / unit),
                    " ".repeat(w % unit),
                    &l[w..]
                )
            })
            .collect();
        out.push(Shape {
            name: "tabs",
            code: tabbed.join("\n"),
            identity: true,
        });
    }
    // A new body under the original header (no trivia: it must be kept).
    let node = file
        .tree
        .root_node()
        .descendant_for_byte_range(
            bare.start_byte - file.source.body_offset(),
            bare.end_byte - file.source.body_offset(),
        )
        .unwrap();
    let mut def = node;
    while let Some(p) = def.parent() {
        if p.start_byte() == def.start_byte() && p.end_byte() == def.end_byte() {
            def = p;
        } else {
            break;
        }
    }
    let body = file
        .language
        .rules()
        .body_fields
        .iter()
        .find_map(|f| def.child_by_field_name(f));
    if let Some(body) = body {
        let off = file.source.body_offset();
        let header = text[bare.start_byte..body.start_byte() + off].trim_end();
        let header = dedent(header, col);
        let ind = " ".repeat(unit);
        let make = |stmts: &[&str]| {
            let lines: String = stmts.iter().map(|l| format!("\n{ind}{l}")).collect();
            if lang.braces {
                format!("{header} {{{lines}\n}}")
            } else {
                format!("{header}{lines}")
            }
        };
        out.push(Shape {
            name: "one_line_body",
            code: make(&[lang.one_line]),
            identity: false,
        });
        out.push(Shape {
            name: "doc_first",
            code: make(&[lang.doc_first, lang.one_line]),
            identity: false,
        });
    }
    out
}

/// Trivia lines above the definition line, trimmed.
fn trivia_lines(text: &str, s: &Symbol) -> Vec<String> {
    let bare_line = text[..s.bare_span().start_byte]
        .rfind('\n')
        .map_or(0, |p| p + 1)
        .max(s.full_span().start_byte);
    text[s.full_span().start_byte..bare_line]
        .lines()
        .map(|l| l.trim().to_string())
        .filter(|l| !l.is_empty())
        .collect()
}

#[derive(Default)]
struct Tally {
    cases: usize,
    identity_cases: usize,
    identity_kept: usize,
    failures: Vec<String>,
    /// New files the front end must accept: (label, text).
    judged: Vec<(String, String)>,
}

fn parse(lang: &str, text: &str) -> Option<ParsedFile> {
    let reg = Registry::builtin();
    let l = reg.by_name(lang).unwrap().clone();
    let src = scalpel::source::decode(Path::new("x"), text.as_bytes().to_vec()).ok()?;
    symbols::parse(&l, Arc::new(src)).ok()
}

fn run_file(lang: &Lang, path: &Path, max_symbols: usize, t: &mut Tally) {
    let Ok(text) = std::fs::read_to_string(path) else {
        return;
    };
    let Some(file) = parse(lang.name, &text) else {
        return;
    };
    if file.parse_error_count > 0 {
        return;
    }
    let unit = edit::indent::unit(file.source.profile.indent);
    let targets: Vec<&Symbol> = file
        .symbols
        .iter()
        .filter(|s| s.kind == "function" || s.kind == "method")
        .collect();
    let step = (targets.len() / max_symbols.max(1)).max(1);
    for s in targets.into_iter().step_by(step).take(max_symbols) {
        for shape in shapes(lang, &file, s, unit) {
            t.cases += 1;
            let label = format!(
                "{}:{} {} [{}]",
                path.display(),
                s.start_line,
                s.name_path,
                shape.name
            );
            let prepared =
                match edit::symbol::prepare(&file, s, Operation::Replace, Some(&shape.code)) {
                    Ok(p) => p,
                    Err(e) => {
                        t.failures.push(format!("{label}: {e}"));
                        continue;
                    }
                };
            let new = &prepared.checked.edit.new_text;
            if !prepared.checked.introduced.is_empty() {
                t.failures.push(format!(
                    "{label}: new problems {:?}",
                    prepared.checked.introduced
                ));
                continue;
            }
            let full = s.full_span();
            let tail = &text[full.end_byte..];
            if new[..full.start_byte] != text[..full.start_byte] || !new.ends_with(tail) {
                t.failures
                    .push(format!("{label}: bytes outside the symbol changed"));
                continue;
            }
            // The trivia rule, read from the new file's own outline.
            let Some(after) = parse(lang.name, new) else {
                t.failures.push(format!("{label}: new file does not parse"));
                continue;
            };
            let moved = after
                .symbols
                .iter()
                .find(|a| a.full_span().start_byte == full.start_byte && a.name == s.name);
            match moved {
                Some(a) if trivia_lines(new, a) == trivia_lines(&text, s) => {}
                _ => {
                    t.failures.push(format!("{label}: leading trivia not kept"));
                    continue;
                }
            }
            if shape.identity {
                t.identity_cases += 1;
                if *new == text {
                    t.identity_kept += 1;
                } else {
                    t.judged.push((label, new.clone()));
                }
            } else {
                t.judged.push((label, new.clone()));
            }
        }
    }
}

fn report(what: &str, t: &Tally) {
    eprintln!(
        "{what}: {} cases, {} failures; identity {}/{}; {} new files judged by the front end",
        t.cases,
        t.failures.len(),
        t.identity_kept,
        t.identity_cases,
        t.judged.len()
    );
    assert!(
        t.failures.is_empty(),
        "{what}: {} of {} cases failed, first: {:#?}",
        t.failures.len(),
        t.cases,
        &t.failures[..t.failures.len().min(8)]
    );
    assert!(t.cases >= 200, "{what}: only {} cases", t.cases);
    // The original in another shape comes back as the original, except
    // where a multi-line string sits left of the code (it cannot be
    // dedented, so it moves); allow 2 %.
    assert!(
        t.identity_kept * 50 >= t.identity_cases * 49,
        "{what}: identity {}/{}",
        t.identity_kept,
        t.identity_cases
    );
}

fn fixture_files(lang: &str, ext: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(lang);
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .collect();
    v.sort();
    v
}

/// Every k-th file of `files` between 2 and 80 KB, `n` of them.
fn sample(mut files: Vec<PathBuf>, n: usize) -> Vec<PathBuf> {
    files.retain(|p| std::fs::metadata(p).is_ok_and(|m| (2_000..80_000).contains(&m.len())));
    files.sort();
    let step = (files.len() / n).max(1);
    files.into_iter().step_by(step).take(n).collect()
}

/// The files CPython compiles (only those can be judged by it).
fn compiling(files: Vec<PathBuf>) -> Vec<PathBuf> {
    let out = Command::new("python3")
        .arg("-c")
        .arg(
            "import sys\nfor p in sys.argv[1:]:\n    \
             try: compile(open(p,'rb').read(), p, 'exec', dont_inherit=True); print(p)\n    \
             except (SyntaxError, ValueError): pass\n",
        )
        .args(&files)
        .output()
        .expect("this test needs python3");
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(PathBuf::from)
        .collect()
}

#[test]
fn python_shapes_compile() {
    let out = Command::new("python3")
        .args([
            "-c",
            "import sysconfig; print(sysconfig.get_paths()['stdlib'])",
        ])
        .output()
        .expect("this test needs python3");
    let stdlib = PathBuf::from(String::from_utf8(out.stdout).unwrap().trim());
    let std_files: Vec<PathBuf> = std::fs::read_dir(&stdlib)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "py"))
        .collect();
    let mut t = Tally::default();
    for f in compiling(fixture_files("python", "py")) {
        run_file(&PYTHON, &f, 200, &mut t);
    }
    for f in compiling(sample(std_files, 24)) {
        run_file(&PYTHON, &f, 12, &mut t);
    }
    report("python", &t);
    judge_all(&t, "py", "CPython", cpython_rejects);
}

/// Files CPython's `compile()` rejects, among `paths`, as `path | message`.
fn cpython_rejects(paths: &[PathBuf]) -> Vec<String> {
    let mut cmd = Command::new("python3");
    cmd.args([
        "-c",
        "import sys\nfor p in sys.stdin.read().split('\\n'):\n    \
         if not p: continue\n    \
         try: compile(open(p,'rb').read(), p, 'exec', dont_inherit=True)\n    \
         except SyntaxError as e: print(p, '|', e)\n",
    ]);
    run_judge(cmd, paths)
}

/// Run a front end that reads file paths on stdin and prints a
/// `path | message` line for each file it rejects.
fn run_judge(mut cmd: Command, paths: &[PathBuf]) -> Vec<String> {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?} (python3 and node are needed): {e}"));
    let list: String = paths.iter().map(|p| format!("{}\n", p.display())).collect();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(list.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{cmd:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

/// Write every new file of `t` (extension `ext`) to a temporary folder, let
/// `rejects` (the language's own front end, one process for all) judge
/// them, and fail with the labels of any it rejects.
fn judge_all(t: &Tally, ext: &str, judge: &str, rejects: impl Fn(&[PathBuf]) -> Vec<String>) {
    let dir = tempfile::tempdir().unwrap();
    let mut names = Vec::new();
    for (i, (label, text)) in t.judged.iter().enumerate() {
        let p = dir.path().join(format!("n{i}.{ext}"));
        std::fs::write(&p, text).unwrap();
        names.push((p, label.as_str()));
    }
    let paths: Vec<PathBuf> = names.iter().map(|(p, _)| p.clone()).collect();
    let bad: Vec<String> = rejects(&paths)
        .into_iter()
        .map(|l| {
            let p = l.split(" | ").next().unwrap_or("");
            let label = names
                .iter()
                .find(|(n, _)| n.display().to_string() == p)
                .map_or("?", |(_, l)| *l);
            format!("{label}: {l}")
        })
        .collect();
    assert!(
        bad.is_empty(),
        "{judge} rejects {} of {} edited files: {:#?}",
        bad.len(),
        names.len(),
        &bad[..bad.len().min(8)]
    );
}

#[test]
fn rust_shapes_parse_with_syn() {
    let cargo_home = std::env::var("CARGO_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|_| PathBuf::from(std::env::var("HOME").unwrap()).join(".cargo"));
    let mut crate_files = Vec::new();
    for index in std::fs::read_dir(cargo_home.join("registry/src"))
        .unwrap()
        .flatten()
    {
        for krate in std::fs::read_dir(index.path()).unwrap().flatten() {
            let name = krate.file_name().to_string_lossy().to_string();
            if [
                "serde_json-",
                "regex-syntax-",
                "similar-",
                "memchr-",
                "clap_builder-",
            ]
            .iter()
            .any(|p| name.starts_with(p))
            {
                crate_files.extend(
                    scalpel::fs::walk_files(&krate.path().join("src"))
                        .into_iter()
                        .filter(|p| p.extension().is_some_and(|e| e == "rs")),
                );
            }
        }
    }
    assert!(crate_files.len() >= 20, "too few crate sources found");
    let crate_files: Vec<PathBuf> = crate_files
        .into_iter()
        .filter(|p| std::fs::read_to_string(p).is_ok_and(|s| syn::parse_file(&s).is_ok()))
        .collect();
    let mut t = Tally::default();
    let fixtures: Vec<PathBuf> = fixture_files("rust", "rs")
        .into_iter()
        .filter(|p| syn::parse_file(&std::fs::read_to_string(p).unwrap()).is_ok())
        .collect();
    for f in fixtures {
        run_file(&RUST, &f, 200, &mut t);
    }
    for f in sample(crate_files, 24) {
        run_file(&RUST, &f, 12, &mut t);
    }
    report("rust", &t);
    let rejected: Vec<String> = t
        .judged
        .iter()
        .filter_map(|(label, text)| syn::parse_file(text).err().map(|e| format!("{label}: {e}")))
        .collect();
    assert!(
        rejected.is_empty(),
        "syn rejects {} of {} edited files: {:#?}",
        rejected.len(),
        t.judged.len(),
        &rejected[..rejected.len().min(8)]
    );
}

const TYPESCRIPT: Lang = Lang {
    name: "typescript",
    one_line: "throw new Error(\"todo\");",
    doc_first: "// A comment first.",
    braces: true,
};

/// Files the TypeScript compiler's parser rejects, among `paths`.
fn tsc_rejects(ts: &Path, paths: &[PathBuf]) -> Vec<String> {
    let script = "const ts = require(process.argv[1]);\n\
        const fs = require('fs');\n\
        for (const p of fs.readFileSync(0, 'utf8').split('\\n')) {\n\
          if (!p) continue;\n\
          const sf = ts.createSourceFile(p, fs.readFileSync(p, 'utf8'), ts.ScriptTarget.Latest, true,\n\
            p.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);\n\
          for (const d of sf.parseDiagnostics) {\n\
            console.log(p + ' | ' + ts.flattenDiagnosticMessageText(d.messageText, ' '));\n\
            break;\n\
          }\n\
        }\n";
    let mut cmd = Command::new("node");
    cmd.arg("-e").arg(script).arg(ts);
    run_judge(cmd, paths)
}

#[test]
fn typescript_shapes_parse_with_tsc() {
    let corpus = provision::ts_corpus();
    let ts = corpus.join("node_modules/typescript");
    let mut files: Vec<PathBuf> = scalpel::fs::walk_files(&corpus.join("node_modules/zod/src/v3"))
        .into_iter()
        .filter(|p| {
            p.extension().is_some_and(|e| e == "ts") && !p.to_string_lossy().ends_with(".d.ts")
        })
        .collect();
    files.extend(fixture_files("typescript", "ts"));
    // Only what the compiler itself accepts can be judged by it.
    let rejected: std::collections::HashSet<String> = tsc_rejects(&ts, &files)
        .into_iter()
        .map(|l| l.split(" | ").next().unwrap().to_string())
        .collect();
    files.retain(|p| !rejected.contains(&p.display().to_string()));
    let mut t = Tally::default();
    for f in sample(files, 30) {
        run_file(&TYPESCRIPT, &f, 15, &mut t);
    }
    report("typescript", &t);
    judge_all(&t, "ts", "tsc", |paths| tsc_rejects(&ts, paths));
}

/// The judges can say no: a broken file is rejected by each.
#[test]
fn the_judges_reject_broken_code() {
    let dir = tempfile::tempdir().unwrap();
    let py = dir.path().join("bad.py");
    std::fs::write(&py, "def f():\nreturn 1\n").unwrap();
    assert_eq!(cpython_rejects(&[py]).len(), 1);
    assert!(syn::parse_file("fn f() { let x = ; }").is_err());
}
