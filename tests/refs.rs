//! `find_references` on real code, judged by each language's own front end:
//! CPython's tokenizer for the standard library's `email` package, the
//! TypeScript compiler's parser for the npm CLI's sources. Every whole-word
//! occurrence the judge calls code must be found (as a reference, or left
//! alone with a code reason such as "a local of the same name"), and none it
//! calls a string or comment may be a reference. Tiers are checked on a
//! small hand-labelled project.

use scalpel::disk::Workspace;
use scalpel::engine::Engine;
use scalpel::refs::rename::rename_symbol;
use scalpel::refs::{References, RefsRequest, Tier, find_references};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

mod provision;

type Pos = (String, usize, usize);

fn refs(root: &Path, req: RefsRequest) -> References {
    let engine = Engine::default();
    let ws = Workspace::new(root).unwrap();
    find_references(&ws, &engine.registry, &req, &|p| {
        engine.load(p, None).map(Arc::new)
    })
    .unwrap_or_else(|e| panic!("{req:?}: {e}"))
}

fn symbol(path: &str, symbol: &str) -> RefsRequest {
    RefsRequest {
        path: Some(path.into()),
        symbol: Some(symbol.into()),
        max_results: Some(1_000_000),
        ..RefsRequest::default()
    }
}

/// Occurrences found in code: references and code positions left alone.
fn found_code(r: &References) -> BTreeSet<Pos> {
    let mut s: BTreeSet<Pos> = r
        .references
        .iter()
        .map(|x| (x.path.clone(), x.line, x.column))
        .collect();
    s.extend(
        r.left_alone
            .iter()
            .filter(|l| l.why != "in a string or comment")
            .map(|l| (l.path.clone(), l.line, l.column)),
    );
    s
}

/// The judge's code positions, and lines it cannot judge (f-strings).
fn judge(cmd: &mut Command) -> (BTreeSet<Pos>, BTreeSet<(String, usize)>) {
    let out = cmd.output().expect("python3 and node are needed");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut code = BTreeSet::new();
    let mut unjudged = BTreeSet::new();
    for l in String::from_utf8(out.stdout).unwrap().lines() {
        let f: Vec<&str> = l.split(' ').collect();
        match f[0] {
            "code" => {
                code.insert((
                    f[1].to_string(),
                    f[2].parse().unwrap(),
                    f[3].parse().unwrap(),
                ));
            }
            _ => {
                unjudged.insert((f[1].to_string(), f[2].parse().unwrap()));
            }
        }
    }
    (code, unjudged)
}

struct Row {
    what: String,
    judged: usize,
    found: usize,
    precision: f64,
    recall: f64,
    tiers: [usize; 3],
}

fn score(what: String, r: &References, judged: &(BTreeSet<Pos>, BTreeSet<(String, usize)>)) -> Row {
    let (code, unjudged) = judged;
    let found: BTreeSet<Pos> = found_code(r)
        .into_iter()
        .filter(|p| code.contains(p) || !unjudged.contains(&(p.0.clone(), p.1)))
        .collect();
    let hit = found.intersection(code).count();
    let missed: Vec<&Pos> = code.difference(&found).take(5).collect();
    let extra: Vec<&Pos> = found.difference(code).take(5).collect();
    assert!(
        missed.is_empty(),
        "{what}: code occurrences not found: {missed:?}"
    );
    assert!(extra.is_empty(), "{what}: found outside code: {extra:?}");
    // No reference is in a string or a comment.
    for x in &r.references {
        let p = (x.path.clone(), x.line, x.column);
        assert!(
            code.contains(&p) || unjudged.contains(&(p.0.clone(), p.1)),
            "{what}: reference not in code: {x:?}"
        );
    }
    Row {
        what,
        judged: code.len(),
        found: found.len(),
        precision: hit as f64 / found.len().max(1) as f64,
        recall: hit as f64 / code.len().max(1) as f64,
        tiers: [r.tiers.qualified, r.tiers.same_file, r.tiers.name_only],
    }
}

fn print(rows: &[Row]) {
    eprintln!(
        "| symbol | code occurrences (judge) | found in code | precision | recall | qualified / same file / name only |"
    );
    eprintln!("|---|---|---|---|---|---|");
    for r in rows {
        eprintln!(
            "| {} | {} | {} | {:.3} | {:.3} | {} / {} / {} |",
            r.what, r.judged, r.found, r.precision, r.recall, r.tiers[0], r.tiers[1], r.tiers[2]
        );
    }
}

fn stdlib() -> PathBuf {
    let out = Command::new("python3")
        .args([
            "-c",
            "import sysconfig; print(sysconfig.get_paths()['stdlib'])",
        ])
        .output()
        .expect("python3 is needed");
    PathBuf::from(String::from_utf8(out.stdout).unwrap().trim())
}

/// A copy of a stdlib package as a root of its own.
fn copy_package(name: &str) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let src = stdlib().join(name);
    let dst = tmp.path().join(name);
    std::fs::create_dir_all(&dst).unwrap();
    for e in std::fs::read_dir(&src).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "py") {
            std::fs::copy(&p, dst.join(p.file_name().unwrap())).unwrap();
        }
    }
    tmp
}

fn support(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/support")
        .join(name)
}

#[test]
fn python_stdlib_references_match_the_tokenizer() {
    let tmp = copy_package("email");
    let root = tmp.path();
    let cases = [
        ("email/message.py", "Message.get_payload"),
        ("email/message.py", "Message.get_content_type"),
        ("email/message.py", "Message.set_param"),
        ("email/message.py", "_splitparam"),
        ("email/charset.py", "Charset"),
        ("email/header.py", "decode_header"),
    ];
    let mut rows = Vec::new();
    for (file, sym) in cases {
        let r = refs(root, symbol(file, sym));
        assert_eq!(r.references[0].tier, Tier::Definition, "{sym}");
        let j = judge(
            Command::new("python3")
                .arg(support("py_names.py"))
                .arg(root)
                .arg(&r.name),
        );
        rows.push(score(format!("python `{sym}`"), &r, &j));
    }
    print(&rows);
}

#[test]
fn javascript_references_match_the_typescript_parser() {
    let npm = provision::js_corpus();
    let ts = provision::ts_corpus().join("node_modules/typescript");
    let root = npm.join("lib");
    let cases = [
        ("utils/display.js", "Display"),
        ("utils/display.js", "setBlocking"),
        ("utils/format-bytes.js", "formatBytes"),
        ("utils/did-you-mean.js", "didYouMean"),
        ("utils/log-file.js", "LogFiles"),
        ("utils/explain-dep.js", "explainNode"),
    ];
    let mut rows = Vec::new();
    for (file, sym) in cases {
        let r = refs(&root, symbol(file, sym));
        assert_eq!(r.references[0].tier, Tier::Definition, "{sym}");
        let j = judge(
            Command::new("node")
                .arg(support("js_names.js"))
                .arg(&ts)
                .arg(&root)
                .arg(&r.name),
        );
        rows.push(score(format!("javascript `{sym}`"), &r, &j));
    }
    print(&rows);
}

/// Byte offset of 1-based `line` and character `column` in `text`.
fn offset_of(text: &str, line: usize, column: usize) -> usize {
    let start: usize = text
        .split_inclusive('\n')
        .take(line - 1)
        .map(str::len)
        .sum();
    start
        + text[start..]
            .chars()
            .take(column - 1)
            .map(char::len_utf8)
            .sum::<usize>()
}

/// Rename a method used across the `email` package: the dry run writes
/// nothing, the result compiles, differs from a plain whole-word rename of
/// every file exactly where the dry run said it would leave the name alone,
/// and one undo restores every file byte-exact.
#[test]
fn rename_a_method_across_a_stdlib_package() {
    let tmp = copy_package("email");
    let root = tmp.path();
    let engine = Engine::default();
    let ws = Workspace::new(root).unwrap();
    let load = |p: &Path| engine.load(p, None).map(Arc::new);
    let files: Vec<PathBuf> = std::fs::read_dir(root.join("email"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    let read_all = || -> Vec<Vec<u8>> { files.iter().map(|p| std::fs::read(p).unwrap()).collect() };
    let before = read_all();
    let req = symbol("email/message.py", "Message.get_content_type");
    let (old, new) = ("get_content_type", "content_type_of");
    let dry = rename_symbol(&ws, &engine.registry, &req, new, true, true, &load).unwrap();
    assert!(dry.edit_id.is_none() && dry.dry_run);
    assert!(dry.files.len() >= 3, "{:?}", dry.files);
    assert_eq!(read_all(), before, "a dry run writes nothing");
    let found = refs(root, req.clone());

    let done = rename_symbol(&ws, &engine.registry, &req, new, true, false, &load).unwrap();
    let id = done.edit_id.clone().unwrap();
    assert_eq!(done.renamed, dry.renamed);
    assert_eq!(done.renamed, found.total);
    let changed: Vec<&str> = done.files.iter().map(|f| f.path.as_str()).collect();
    let dry_files: Vec<&str> = dry.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(changed, dry_files);
    // Each file's receipt is the one every write gives: what was planned
    // (its occurrences), the validation, the hashes, the diff.
    assert_eq!(
        done.files
            .iter()
            .map(|f| f.planned.occurrences)
            .sum::<usize>(),
        done.renamed
    );
    for f in &done.files {
        assert_eq!(f.validation.status, "ok", "{}", f.path);
        assert!(f.changed && f.previous_hash.is_some() && f.diff.contains(new));
        assert!(f.edit_id.is_some(), "each file has its journal entry");
        assert!(f.planned.occurrences > 0 && f.planned.new_name == new);
    }

    // The manual rename, except where the dry run left the name alone.
    for (p, old_bytes) in files.iter().zip(&before) {
        let rel = p
            .strip_prefix(root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let text = String::from_utf8(old_bytes.clone()).unwrap();
        let alone: BTreeSet<usize> = found
            .left_alone
            .iter()
            .filter(|l| l.path == rel)
            .map(|l| offset_of(&text, l.line, l.column))
            .collect();
        let mut expected = String::new();
        let mut last = 0;
        for b in scalpel::symbols::occurrences::word_offsets(&text, old) {
            if !alone.contains(&b) {
                expected.push_str(&text[last..b]);
                expected.push_str(new);
                last = b + old.len();
            }
        }
        expected.push_str(&text[last..]);
        assert_eq!(std::fs::read_to_string(p).unwrap(), expected, "{rel}");
    }
    // CPython still compiles every file.
    let out = Command::new("python3")
        .args([
            "-c",
            "import sys\nfor p in sys.argv[1:]:\n    compile(open(p, encoding='utf-8').read(), p, 'exec')",
        ])
        .args(&files)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let u = scalpel::disk::undo(&ws, Path::new("email/message.py"), Some(&id), false).unwrap();
    assert_eq!(u.files, changed);
    assert_eq!(read_all(), before, "undo restores every file byte-exact");
}

/// Refusals: an ambiguous target, a keyword or non-identifier as the new
/// name, a name already defined in the same scope; nothing is written.
#[test]
fn rename_refuses_what_it_cannot_do_safely() {
    let tmp = copy_package("email");
    let root = tmp.path();
    let engine = Engine::default();
    let ws = Workspace::new(root).unwrap();
    let load = |p: &Path| engine.load(p, None).map(Arc::new);
    let req = symbol("email/message.py", "Message.get_content_type");
    for bad in ["class", "two words", "1abc", "get-type"] {
        let e = rename_symbol(&ws, &engine.registry, &req, bad, false, false, &load).unwrap_err();
        assert_eq!(
            e.code(),
            scalpel::ErrorCode::InvalidArgument,
            "{bad}: {e:?}"
        );
    }
    let e = rename_symbol(
        &ws,
        &engine.registry,
        &req,
        "get_content_maintype",
        false,
        false,
        &load,
    )
    .unwrap_err();
    assert_eq!(e.code(), scalpel::ErrorCode::Conflict, "{e:?}");
    let e = rename_symbol(
        &ws,
        &engine.registry,
        &symbol("email/message.py", "__init__"),
        "x",
        false,
        false,
        &load,
    )
    .unwrap_err();
    assert_eq!(e.code(), scalpel::ErrorCode::Ambiguous, "{e:?}");
    assert!(!root.join(".scalpel/journal.jsonl").exists());
}

/// The `strsim` crate's source (the version this build compiles), found in
/// cargo's registry.
fn strsim_source() -> PathBuf {
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(std::env::var_os("HOME").unwrap()).join(".cargo"));
    let lock =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.lock")).unwrap();
    let version = lock
        .split("name = \"strsim\"\nversion = \"")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .unwrap();
    std::fs::read_dir(home.join("registry/src"))
        .unwrap()
        .map(|d| {
            d.unwrap()
                .path()
                .join(format!("strsim-{version}/src/lib.rs"))
        })
        .find(|p| p.exists())
        .expect("the strsim source the build uses")
}

/// Hand-labelled: the lines of `strsim` 0.11.1's `lib.rs` where each name
/// occurs as code (a line listed twice has it twice); its doc comments
/// (`/// use strsim::levenshtein;`) and strings
/// (`levenshtein("levenshtein", ...)`) are not code.
#[test]
fn rust_crate_references_match_a_hand_checked_list() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir(tmp.path().join("src")).unwrap();
    let src = strsim_source();
    std::fs::copy(&src, tmp.path().join("src/lib.rs")).unwrap();
    let cases: [(&str, &[usize]); 5] = [
        (
            "jaro_winkler",
            &[
                221, 906, 911, 916, 921, 926, 927, 932, 933, 938, 943, 948, 953, 954, 961, 968,
                973, 978, 985,
            ],
        ),
        ("generic_jaro", &[90, 187, 197, 871]),
        (
            "levenshtein",
            &[269, 289, 991, 996, 1001, 1006, 1011, 1012, 1019, 1024, 1029],
        ),
        ("StrSimError", &[33, 37, 40, 47, 49, 69, 818]),
        ("damerau_levenshtein_impl", &[609, 678, 700]),
    ];
    let mut rows = Vec::new();
    for (sym, lines) in cases {
        let r = refs(tmp.path(), symbol("src/lib.rs", sym));
        let mut found: Vec<usize> = found_code(&r).iter().map(|p| p.1).collect();
        found.sort();
        assert_eq!(found, lines, "{sym}");
        for x in &r.references {
            assert!(lines.contains(&x.line), "{sym}: {x:?}");
        }
        rows.push(Row {
            what: format!("rust `{sym}`"),
            judged: lines.len(),
            found: found.len(),
            precision: 1.0,
            recall: 1.0,
            tiers: [r.tiers.qualified, r.tiers.same_file, r.tiers.name_only],
        });
    }
    print(&rows);
}
