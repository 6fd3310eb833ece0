//! Python indentation, judged by CPython: indentation-only mutants of real
//! files (the fixtures and a sample of the machine's standard library) are
//! labelled with `compile()`, then `scalpel check` must refuse the ones
//! CPython refuses (false accepts at most 2 %) and never refuse one CPython
//! accepts. The generator is `tests/support/indent_mutants.py`; the same
//! script with more files is the benchmark in BENCHMARKS.md.

use std::path::{Path, PathBuf};
use std::process::Command;

fn stdlib_sample(n: usize) -> Vec<PathBuf> {
    let out = Command::new("python3")
        .args([
            "-c",
            "import sysconfig; print(sysconfig.get_paths()['stdlib'])",
        ])
        .output()
        .expect("this test needs python3 on PATH");
    let dir = PathBuf::from(String::from_utf8(out.stdout).unwrap().trim());
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "py"))
        .collect();
    files.sort();
    // Every k-th file, so the sample spreads over the alphabet.
    let step = (files.len() / n).max(1);
    files.into_iter().step_by(step).take(n).collect()
}

/// The repository's Python fixtures.
fn python_fixtures() -> Vec<PathBuf> {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/python");
    std::fs::read_dir(&fixtures)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "py"))
        .collect()
}

#[test]
fn check_agrees_with_cpython_on_indentation_mutants() {
    let mut files = python_fixtures();
    files.extend(stdlib_sample(40));
    let out_dir = tempfile::tempdir().unwrap();
    let out = Command::new("python3")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/indent_mutants.py"))
        .arg(env!("CARGO_BIN_EXE_scalpel"))
        .arg(out_dir.path())
        .args(["11", "2"])
        .args(&files)
        .output()
        .expect("run the mutant generator");
    assert!(
        out.status.success(),
        "generator failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let invalid = r["invalid"].as_u64().unwrap();
    let false_accept = r["false_accept"].as_u64().unwrap();
    assert!(invalid >= 100, "too few invalid mutants to judge: {r}");
    assert!(
        r["valid"].as_u64().unwrap() >= 30,
        "too few valid mutants: {r}"
    );
    assert_eq!(
        r["false_reject"], 0,
        "valid code refused: {}",
        r["examples_false_reject"]
    );
    assert!(
        false_accept * 50 <= invalid,
        "false accepts {false_accept}/{invalid} over 2 %: {}",
        r["examples_false_accept"]
    );
}

/// Every writer refuses indentation CPython refuses, and leaves the file as
/// it was: `edit` (a line shifted), `write` (a body dedented), `update` (a
/// line indented under a simple statement).
#[test]
fn every_writer_refuses_bad_python_indentation() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("m.py");
    let original = "def f(x):\n    y = x + 1\n    return y\n";
    std::fs::write(&f, original).unwrap();
    let new_code = dir.path().join("new.py");
    std::fs::write(&new_code, "def f(x):\n    y = x + 2\n        return y\n").unwrap();
    let whole = dir.path().join("whole.py");
    std::fs::write(&whole, "def f(x):\ny = x + 1\nreturn y\n").unwrap();
    let cases: Vec<(Vec<String>, &str)> = vec![
        (
            vec![
                "edit".into(),
                "m.py".into(),
                "--old".into(),
                "    return y".into(),
                "--new".into(),
                "  return y".into(),
            ],
            "unindent does not match",
        ),
        (
            vec![
                "write".into(),
                "m.py".into(),
                "--from".into(),
                whole.display().to_string(),
            ],
            "expected an indented block",
        ),
        (
            vec![
                "update".into(),
                "m.py".into(),
                "f".into(),
                "--code-file".into(),
                new_code.display().to_string(),
            ],
            // Every reading of this code is refused; which rule the
            // least bad one breaks first is not the point.
            "indent",
        ),
    ];
    for (args, rule) in cases {
        let out = Command::new(env!("CARGO_BIN_EXE_scalpel"))
            .args(&args)
            .args(["--root", dir.path().to_str().unwrap(), "--json"])
            .current_dir(dir.path())
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {text}");
        assert!(
            text.contains("SYNTAX_ERROR") && text.contains(rule),
            "{args:?}: {text}"
        );
        assert_eq!(std::fs::read_to_string(&f).unwrap(), original, "{args:?}");
    }
}

/// Writes compare a candidate's problems with the old file's around the
/// change only (`syntax_errors_around`): on every kind of edit agents get
/// wrong (a line shifted, dedented, deleted; a line inserted deeper; a block
/// header with no body; an unclosed bracket), at every 5th line of real
/// files, the problems it says the edit adds are exactly those a comparison
/// of the two whole files finds.
#[test]
fn comparing_around_the_change_equals_comparing_whole_files() {
    use scalpel::edit::validate::{Splice, reparse_tree};
    use scalpel::symbols::{ErrorNode, parse_tree, syntax_errors, syntax_errors_around};
    use std::collections::BTreeMap;

    let reg = scalpel::lang::Registry::builtin();
    let py = reg.by_name("python").unwrap();
    let mut files = python_fixtures();
    files.extend(stdlib_sample(10));
    // What the new version adds: messages counted in `after`, less those
    // `before` already had.
    let added = |before: &[ErrorNode], b: &str, after: &[ErrorNode], a: &str| {
        let mut count: BTreeMap<String, i64> = BTreeMap::new();
        for e in after {
            *count.entry(e.message(a)).or_default() += 1;
        }
        for e in before {
            *count.entry(e.message(b)).or_default() -= 1;
        }
        count.retain(|_, n| *n > 0);
        count
    };
    let (mut cases, mut adding, mut windowed) = (0, 0, 0);
    for f in &files {
        let old = std::fs::read_to_string(f).unwrap();
        let old_tree = parse_tree(py, &old, None).unwrap();
        let whole_before = syntax_errors(py, &old_tree, &old);
        let starts: Vec<usize> = std::iter::once(0)
            .chain(old.match_indices('\n').map(|(i, _)| i + 1))
            .filter(|&s| s < old.len())
            .collect();
        for &ls in starts.iter().step_by(5) {
            let le = old[ls..].find('\n').map_or(old.len(), |p| ls + p + 1);
            let line = &old[ls..le];
            let ws = line.len() - line.trim_start_matches([' ', '\t']).len();
            let edits: [(usize, usize, String); 6] = [
                (ls, ls, "  ".into()),
                (ls, ls + ws.min(4), String::new()),
                (ls, le, String::new()),
                (ls, ls, format!("{}    x = 1\n", &line[..ws])),
                (ls, ls, format!("{}if x:\n", &line[..ws])),
                (ls, ls, "y = (\n".into()),
            ];
            for (start, end, text) in edits {
                let new = format!("{}{text}{}", &old[..start], &old[end..]);
                let splice = Splice {
                    start,
                    old_end: end,
                    new_end: start + text.len(),
                };
                let new_tree = reparse_tree(py, &old_tree, &old, &new, splice).unwrap();
                let whole = added(
                    &whole_before,
                    &old,
                    &syntax_errors(py, &new_tree, &new),
                    &new,
                );
                let (b, a) = syntax_errors_around(
                    py,
                    (&old_tree, &old),
                    (&new_tree, &new),
                    splice.start,
                    splice.old_end,
                    splice.new_end,
                );
                let around = added(&b, &old, &a, &new);
                // Count the comparisons that really were made around the
                // change (the rest fell back to whole files).
                let rules = py.config.offside.as_ref().unwrap();
                windowed += usize::from(
                    scalpel::symbols::offside::around_change(
                        rules,
                        (&old_tree, &old),
                        (&new_tree, &new),
                        splice.start,
                        splice.old_end,
                        splice.new_end,
                    )
                    .is_some(),
                );
                assert_eq!(
                    around,
                    whole,
                    "{}: line at byte {ls}, edit {start}..{end} -> {text:?}",
                    f.display()
                );
                cases += 1;
                adding += usize::from(!whole.is_empty());
            }
        }
    }
    eprintln!("{cases} cases, {adding} add problems, {windowed} compared around the change");
    assert!(
        cases >= 3000 && adding * 3 >= cases,
        "{cases} cases, {adding} add problems"
    );
    assert!(
        windowed * 10 >= cases * 7,
        "only {windowed} of {cases} compared around the change"
    );
}
