//! The CLI as a person meets it: every `--help` entry says what it does,
//! `--op` lists each value once, the name-path syntax is in the help of the
//! commands that take one, paging notes can be pasted as they are, commands
//! that read stdin say so in a terminal, the root's history is found from any
//! folder inside it, counts agree with their nouns, and every writing
//! command prints its diff before its summary.

use assert_cmd::Command;
use std::path::Path;
use std::time::Duration;

fn scalpel(cwd: &Path) -> Command {
    let mut c = Command::cargo_bin("scalpel").unwrap();
    c.current_dir(cwd)
        .env_remove("SCALPEL_LANG_DIR")
        .timeout(Duration::from_secs(60));
    c
}

fn stdout(c: &mut Command) -> String {
    let out = c.output().unwrap();
    assert!(
        out.status.success(),
        "{c:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn help(args: &[&str]) -> String {
    stdout(scalpel(Path::new(".")).args(args).arg("--help"))
}

/// The subcommands listed by `scalpel --help` (and `hook`'s own).
fn subcommands() -> Vec<Vec<String>> {
    let top = help(&[]);
    let mut cmds: Vec<Vec<String>> = section(&top, "Commands:")
        .into_iter()
        .map(|(name, _)| name)
        .filter(|n| n != "help")
        .map(|n| vec![n])
        .collect();
    for action in section(&help(&["hook"]), "Commands:") {
        if action.0 != "help" {
            cmds.push(vec!["hook".into(), action.0]);
        }
    }
    cmds
}

/// The entries of one section of a help text: (what, its description).
/// Handles both layouts clap uses: the description on the same line, or on
/// the following, further indented lines.
fn section(help: &str, title: &str) -> Vec<(String, String)> {
    let mut entries = Vec::new();
    let mut lines = help
        .lines()
        .skip_while(|l| l.trim_end() != title)
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .peekable();
    while let Some(line) = lines.next() {
        let body = line.trim_start();
        let (what, mut text) = match body.find("  ") {
            Some(i) => (body[..i].to_string(), body[i..].trim().to_string()),
            None => (body.to_string(), String::new()),
        };
        let indent = line.len() - body.len();
        while let Some(next) = lines.peek() {
            if next.len() - next.trim_start().len() <= indent {
                break;
            }
            text.push(' ');
            text.push_str(next.trim());
            lines.next();
        }
        entries.push((what, text.trim().to_string()));
    }
    entries
}

#[test]
fn every_help_entry_is_documented() {
    let cmds = subcommands();
    assert!(cmds.len() > 12, "{cmds:?}");
    let mut undocumented = Vec::new();
    for cmd in std::iter::once(Vec::new()).chain(cmds) {
        let args: Vec<&str> = cmd.iter().map(String::as_str).collect();
        let text = help(&args);
        for title in ["Arguments:", "Options:", "Commands:"] {
            for (what, description) in section(&text, title) {
                // `[default: …]` or `[possible values: …]` alone says nothing.
                if description.is_empty() || description.starts_with('[') {
                    undocumented.push(format!("scalpel {} {what}", cmd.join(" ")));
                }
            }
        }
    }
    assert!(
        undocumented.is_empty(),
        "entries without a description: {undocumented:#?}"
    );
}

#[test]
fn op_lists_each_value_once_and_accepts_both_spellings() {
    let text = help(&["update"]);
    assert!(
        text.contains("[possible values: replace, insert-before, insert-after, delete]"),
        "{text}"
    );
    assert!(!text.contains("insert_before"), "{text}");
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("m.py"), "def f():\n    return 1\n").unwrap();
    for op in ["insert_after", "insert-after"] {
        let out = stdout(
            scalpel(dir.path())
                .args(["update", "m.py", "f", "--op", op, "--dry-run"])
                .write_stdin("def g():\n    return 2\n"),
        );
        assert!(out.contains("would apply insert_after"), "{out}");
    }
}

#[test]
fn extract_and_update_help_show_the_name_path_syntax() {
    for cmd in ["extract", "update"] {
        let text = help(&[cmd]);
        for form in ["Outer.inner", "/Top", "#N", "::"] {
            assert!(text.contains(form), "`scalpel {cmd} --help` lacks {form}");
        }
    }
}

/// The flags a cut read's head (on stderr) tells the user to add, split
/// like a shell would for plain words.
fn suggested_flags(stderr: &str) -> Vec<String> {
    let flags = stderr
        .lines()
        .find_map(|l| l.split_once("continue at `").map(|(_, c)| c))
        .and_then(|c| c.split_once('`').map(|(f, _)| f))
        .unwrap_or_else(|| panic!("no continuation in {stderr}"));
    flags.split_whitespace().map(String::from).collect()
}

#[test]
fn paging_notes_work_when_pasted() {
    let dir = tempfile::tempdir().unwrap();
    let text: String = (1..=2500).map(|i| format!("line {i}\n")).collect();
    std::fs::write(dir.path().join("long.txt"), text).unwrap();
    let mut args = vec!["scalpel".to_string(), "read".into(), "long.txt".into()];
    let mut next = 1;
    for _ in 0..3 {
        assert_eq!(args[0], "scalpel");
        let out = scalpel(dir.path()).args(&args[1..]).output().unwrap();
        assert!(out.status.success());
        let shown = String::from_utf8(out.stdout).unwrap();
        let first = shown.lines().next().unwrap();
        assert_eq!(first, format!("line {next}"), "{args:?}");
        next += shown.lines().count();
        let stderr = String::from_utf8(out.stderr).unwrap();
        if next > 2500 {
            assert!(!stderr.contains("continue"), "{stderr}");
            break;
        }
        args.truncate(3);
        args.extend(suggested_flags(&stderr));
    }
    assert_eq!(next, 2501, "the pasted commands read the whole file");

    // A fragment over its budget names the lines it left out as flags.
    let out = scalpel(dir.path())
        .args(["read", "long.txt", "--lines", "1-3,10-12", "--context", "0"])
        .args(["--max-lines", "2"])
        .output()
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("`--lines 3-3,10-12`"), "{stderr}");
    let again = stdout(scalpel(dir.path()).args([
        "read",
        "long.txt",
        "--lines",
        "3-3,10-12",
        "--context",
        "0",
    ]));
    for n in [3, 10, 11, 12] {
        assert!(again.contains(&format!("line {n}\n")), "{again}");
    }
}

#[test]
fn commands_reading_stdin_say_so_in_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("m.py"), "def f():\n    return 1\n").unwrap();
    let exe = assert_cmd::cargo::cargo_bin("scalpel");
    for (args, notice) in [
        ("update m.py f --dry-run", "reading the new code"),
        ("write new.txt --dry-run", "reading the new content"),
    ] {
        // `script` runs the command on a pseudo-terminal; Ctrl-D ends stdin.
        let out = std::process::Command::new("script")
            .args(["-qec", &format!("{} {args}", exe.display()), "/dev/null"])
            .current_dir(dir.path())
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .and_then(|mut child| {
                use std::io::Write;
                let mut stdin = child.stdin.take().unwrap();
                std::thread::sleep(Duration::from_millis(500));
                stdin.write_all(b"def f():\n    return 2\n\x04")?;
                std::thread::sleep(Duration::from_millis(500));
                drop(stdin);
                child.wait_with_output()
            })
            .expect("`script` (util-linux) runs the command on a terminal");
        let shown = String::from_utf8_lossy(&out.stdout);
        assert!(shown.contains(notice), "{args}: {shown}");
        // Piped stdin: no notice.
        let piped = scalpel(dir.path())
            .args(args.split(' '))
            .write_stdin("def f():\n    return 2\n")
            .output()
            .unwrap();
        assert!(piped.status.success());
        assert!(!String::from_utf8_lossy(&piped.stderr).contains("reading"));
    }
}

#[test]
fn history_is_found_from_a_subfolder_outside_git() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("proj");
    std::fs::create_dir_all(root.join("sub/deeper")).unwrap();
    assert!(
        !root.ancestors().any(|d| d.join(".git").exists()),
        "the test needs a folder outside git"
    );
    std::fs::write(root.join("a.py"), "x = 1\n").unwrap();
    stdout(scalpel(&root).args(["edit", "a.py", "--old", "x = 1", "--new", "x = 2"]));
    let deeper = root.join("sub/deeper");
    let history = stdout(scalpel(&deeper).arg("history"));
    assert!(history.contains("a.py"), "{history}");
    let undone = stdout(scalpel(&deeper).args(["undo", "../../a.py"]));
    assert!(undone.contains("undid"), "{undone}");
    assert_eq!(
        std::fs::read_to_string(root.join("a.py")).unwrap(),
        "x = 1\n"
    );
}

#[test]
fn counts_agree_with_their_nouns() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("one.py"), "def f():\n    return 1\n").unwrap();
    std::fs::write(dir.path().join("bad.py"), "def f(:\n    return 1\n").unwrap();
    let symbols = stdout(scalpel(dir.path()).args(["symbols", "one.py"]));
    assert!(symbols.contains("(python, 1 symbol, hash "), "{symbols}");
    let parse = stdout(scalpel(dir.path()).args(["parse", "one.py"]));
    assert!(parse.contains("1 symbol, 0 parse errors"), "{parse}");
    // The unit edits re-indent new code to.
    assert!(parse.contains("\nindentation: 4 spaces\n"), "{parse}");
    let bad = scalpel(dir.path())
        .args(["parse", "bad.py"])
        .output()
        .unwrap();
    let bad = String::from_utf8(bad.stdout).unwrap();
    assert!(bad.contains(" 1 parse error\n"), "{bad}");
    let search = scalpel(dir.path())
        .args(["search", "return", "--include", "one.py"])
        .output()
        .unwrap();
    let (out, err) = (
        String::from_utf8(search.stdout).unwrap(),
        String::from_utf8(search.stderr).unwrap(),
    );
    assert!(out.starts_with("1 match in 1 file ("), "{out}");
    assert!(out.contains("one.py (1 match)"), "{out}");
    assert!(err.is_empty(), "{err}");
}

#[test]
fn writing_commands_print_the_diff_before_the_summary() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("m.py"), "def f():\n    return 1\n").unwrap();
    let runs: [(&[&str], Option<&str>, &str); 4] = [
        (
            &["edit", "m.py", "--old", "1", "--new", "2"],
            None,
            "applied 1 edit to m.py",
        ),
        (
            &["update", "m.py", "f"],
            Some("def f():\n    return 3\n"),
            "applied replace",
        ),
        (
            &["write", "m.py"],
            Some("def f():\n    return 4\n"),
            "wrote m.py",
        ),
        (&["undo", "m.py"], None, "undid"),
    ];
    for (args, input, summary) in runs {
        let mut c = scalpel(dir.path());
        c.args(args);
        if let Some(i) = input {
            c.write_stdin(i);
        }
        let out = stdout(&mut c);
        let diff = out.find("--- a/m.py").unwrap_or_else(|| panic!("{out}"));
        let said = out.find(summary).unwrap_or_else(|| panic!("{out}"));
        assert!(diff < said, "{args:?}: the diff comes first:\n{out}");
    }
}
