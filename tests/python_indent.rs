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

#[test]
fn check_agrees_with_cpython_on_indentation_mutants() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/python");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&fixtures)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "py"))
        .collect();
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
            vec!["edit".into(), "m.py".into(), "--old".into(), "    return y".into(), "--new".into(), "  return y".into()],
            "unindent does not match",
        ),
        (
            vec!["write".into(), "m.py".into(), "--from".into(), whole.display().to_string()],
            "expected an indented block",
        ),
        (
            vec!["update".into(), "m.py".into(), "f".into(), "--code-file".into(), new_code.display().to_string()],
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
        assert!(text.contains("SYNTAX_ERROR") && text.contains(rule), "{args:?}: {text}");
        assert_eq!(std::fs::read_to_string(&f).unwrap(), original, "{args:?}");
    }
}
