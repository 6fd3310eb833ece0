use super::*;
use crate::disk::grep::WHOLE_READ_MIN_SIZE;
use crate::error::ErrorCode;
use std::fs;
use std::sync::atomic::AtomicBool;

fn search_files(
    root: &Path,
    params: &SearchParams,
    definitions: Option<&DefinitionsFn<'_>>,
) -> Result<SearchResult> {
    search_files_with(root, params, definitions, SearchControl::default())
}

/// A small workspace with every kind of file the walk must handle.
fn tree() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    let write = |p: &str, s: &[u8]| {
        let p = r.join(p);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, s).unwrap();
    };
    write(".gitignore", b"target/\n*.log\n");
    write(
        "src/main.rs",
        b"fn main() {\n    let parser = Parser::new();\n    parser.run();\n}\n",
    );
    write("src/parser.rs", b"pub struct Parser;\n\nimpl Parser {\n    pub fn new() -> Self { Parser }\n    pub fn run(&self) {}\n}\n");
    write("src/util.rs", b"// nothing to see\npub fn helper() {}\n");
    write("target/debug/out.rs", b"Parser generated\n");
    write("build.log", b"Parser log\n");
    write("sub/.gitignore", b"secret.txt\n");
    write("sub/secret.txt", b"Parser secret\n");
    write("sub/visible.txt", b"Parser visible\n");
    write("sub/deeper/.ignore", b"by_dot_ignore.txt\n");
    write("sub/deeper/by_dot_ignore.txt", b"Parser\n");
    write("sub/deeper/kept.txt", b"Parser kept\n");
    write(".scalpelignore", b"generated/\n");
    write("generated/api.rs", b"Parser generated\n");
    write(".hidden/notes.txt", b"Parser hidden\n");
    write(".git/config", b"Parser in git\n");
    write(".scalpel/backups/x.rs", b"Parser backup\n");
    write("blob.bin", b"Parser\x00\x01\x02binary");
    #[cfg(unix)]
    std::os::unix::fs::symlink(r.join("sub"), r.join("sub/deeper/loop")).unwrap();
    dir
}

fn kw(words: &[&str]) -> SearchParams {
    SearchParams {
        keywords: words.iter().map(|s| s.to_string()).collect(),
        ..SearchParams::default()
    }
}

fn paths(res: &SearchResult) -> Vec<&str> {
    let mut v: Vec<&str> = res.files.iter().map(|f| f.path.as_str()).collect();
    v.sort_unstable();
    v
}

#[test]
fn honours_ignore_files_and_skips_binary_hidden_and_links() {
    let dir = tree();
    let res = search_files(dir.path(), &kw(&["parser"]), None).unwrap();
    assert_eq!(
        paths(&res),
        vec![
            "src/main.rs",
            "src/parser.rs",
            "sub/deeper/kept.txt",
            "sub/visible.txt"
        ]
    );
    assert_eq!(res.binary_files_skipped, 1);
    assert!(res.errors.is_empty(), "{:?}", res.errors);
    assert!(!res.truncated);
    // The symlink loop is not followed: each file appears once.
    assert_eq!(res.files.len(), 4);

    let hidden = SearchParams {
        hidden: true,
        ..kw(&["parser"])
    };
    let res = search_files(dir.path(), &hidden, None).unwrap();
    let p = paths(&res);
    assert!(p.contains(&".hidden/notes.txt"));
    assert!(
        !p.iter()
            .any(|p| p.starts_with(".git/") || p.starts_with(".scalpel/")),
        "{p:?}"
    );
}

#[test]
fn matches_have_keyword_line_column_and_preview() {
    let dir = tree();
    let res = search_files(dir.path(), &kw(&["Parser::new", "run"]), None).unwrap();
    let main = res.files.iter().find(|f| f.path == "src/main.rs").unwrap();
    assert_eq!(main.match_count, 2);
    assert_eq!(main.keywords_matched, vec!["Parser::new", "run"]);
    let m = &main.matches[0];
    assert_eq!(
        (m.keyword.as_str(), m.line, m.column),
        ("Parser::new", 2, 18)
    );
    assert_eq!(m.preview, "let parser = Parser::new();");
    assert_eq!(
        res.files[0].path, "src/main.rs",
        "two distinct keywords rank first"
    );
    assert_eq!(
        res.total_matches,
        res.files.iter().map(|f| f.match_count).sum::<usize>()
    );
}

#[test]
fn case_whole_word_and_regex() {
    let dir = tree();
    let cs = SearchParams {
        case_sensitive: true,
        ..kw(&["parser"])
    };
    assert_eq!(
        paths(&search_files(dir.path(), &cs, None).unwrap()),
        vec!["src/main.rs"]
    );
    let ww = SearchParams {
        whole_word: true,
        ..kw(&["Parse"])
    };
    assert!(
        search_files(dir.path(), &ww, None)
            .unwrap()
            .files
            .is_empty()
    );
    let re = SearchParams {
        pattern: Some(r"pub fn \w+\(\)".into()),
        case_sensitive: true,
        ..SearchParams::default()
    };
    let res = search_files(dir.path(), &re, None).unwrap();
    assert_eq!(paths(&res), vec!["src/parser.rs", "src/util.rs"]);
    assert_eq!(res.files.iter().map(|f| f.match_count).sum::<usize>(), 2);
    let bad = SearchParams {
        pattern: Some("(".into()),
        ..SearchParams::default()
    };
    assert_eq!(
        search_files(dir.path(), &bad, None).unwrap_err().code(),
        ErrorCode::InvalidArgument
    );
    let both = SearchParams {
        pattern: Some("x".into()),
        ..kw(&["y"])
    };
    assert_eq!(
        search_files(dir.path(), &both, None).unwrap_err().code(),
        ErrorCode::InvalidArgument
    );
}

#[test]
fn include_exclude_and_path() {
    let dir = tree();
    let inc = SearchParams {
        include: vec!["*.rs".into()],
        ..kw(&["parser"])
    };
    assert_eq!(
        paths(&search_files(dir.path(), &inc, None).unwrap()),
        vec!["src/main.rs", "src/parser.rs"]
    );
    let inc = SearchParams {
        include: vec!["sub/**/*.txt".into()],
        ..kw(&["parser"])
    };
    assert_eq!(
        paths(&search_files(dir.path(), &inc, None).unwrap()),
        vec!["sub/deeper/kept.txt", "sub/visible.txt"]
    );
    let exc = SearchParams {
        exclude: vec!["deeper".into(), "main.rs".into()],
        ..kw(&["parser"])
    };
    assert_eq!(
        paths(&search_files(dir.path(), &exc, None).unwrap()),
        vec!["src/parser.rs", "sub/visible.txt"]
    );
    let sub = SearchParams {
        path: Some("sub".into()),
        ..kw(&["parser"])
    };
    // The root's and sub's ignore files still apply inside a sub-folder.
    assert_eq!(
        paths(&search_files(dir.path(), &sub, None).unwrap()),
        vec!["sub/deeper/kept.txt", "sub/visible.txt"]
    );
    let outside = SearchParams {
        path: Some("..".into()),
        ..kw(&["parser"])
    };
    assert_eq!(
        search_files(dir.path(), &outside, None).unwrap_err().code(),
        ErrorCode::OutsideRoot
    );
    let missing = SearchParams {
        path: Some("nope".into()),
        ..kw(&["parser"])
    };
    assert_eq!(
        search_files(dir.path(), &missing, None).unwrap_err().code(),
        ErrorCode::NotFound
    );
    let git = SearchParams {
        path: Some(".git".into()),
        ..kw(&["parser"])
    };
    assert_eq!(
        search_files(dir.path(), &git, None).unwrap_err().code(),
        ErrorCode::IgnoredPath
    );
    let bad = SearchParams {
        include: vec!["[".into()],
        ..kw(&["parser"])
    };
    assert_eq!(
        search_files(dir.path(), &bad, None).unwrap_err().code(),
        ErrorCode::InvalidArgument
    );
}

#[test]
fn max_results_truncates_with_a_hint() {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..30 {
        fs::write(
            dir.path().join(format!("f{i:02}.txt")),
            "needle\n".repeat(i % 3 + 1),
        )
        .unwrap();
    }
    let p = SearchParams {
        max_results: Some(5),
        ..kw(&["needle"])
    };
    let res = search_files(dir.path(), &p, None).unwrap();
    assert_eq!(res.files.len(), 5);
    assert_eq!(res.files_matched, 30);
    assert_eq!(res.files_searched, 30);
    assert_eq!(res.total_matches, 60);
    assert!(res.truncated);
    assert!(res.hint.as_deref().unwrap().contains("5 of 30"));
    // Deterministic: the 3-match files, by path.
    let want: Vec<String> = ["f02", "f05", "f08", "f11", "f14"]
        .iter()
        .map(|s| format!("{s}.txt"))
        .collect();
    assert_eq!(
        res.files.iter().map(|f| f.path.clone()).collect::<Vec<_>>(),
        want
    );
    // Same query, same answer.
    assert_eq!(search_files(dir.path(), &p, None).unwrap(), res);
}

#[test]
fn a_line_with_several_hits_is_one_row() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(
        dir.path().join("a.py"),
        "x = parse(parse(parse(parse(y))))\nparse = 1\nother\n",
    )
    .unwrap();
    let res = search_files(dir.path(), &kw(&["parse", "y"]), None).unwrap();
    let f = &res.files[0];
    assert_eq!(f.match_count, 6, "every hit is counted");
    let rows: Vec<(usize, usize, usize, &str)> = f
        .matches
        .iter()
        .map(|m| (m.line, m.column, m.hits, m.keyword.as_str()))
        .collect();
    assert_eq!(rows, [(1, 5, 5, "parse"), (2, 1, 1, "parse")]);
}

#[test]
fn a_multi_megabyte_line_gives_a_short_row() {
    let dir = tempfile::tempdir().unwrap();
    let hay = "a".repeat(3 << 20);
    let line = format!("var x={hay};needle();{hay};needle();\n");
    fs::write(dir.path().join("min.js"), line).unwrap();
    let p = SearchParams {
        context_lines: Some(1),
        ..kw(&["needle"])
    };
    let res = search_files(dir.path(), &p, None).unwrap();
    let m = &res.files[0].matches[0];
    assert_eq!((m.line, m.hits, m.column), (1, 2, (3 << 20) + 8));
    assert!(m.preview.chars().count() <= 82, "{}", m.preview.len());
    assert!(m.preview.contains("needle()"));
}

/// Files of [`WHOLE_READ_MIN_SIZE`] and more are read whole, smaller ones
/// streamed: both
/// give the same rows (line, column, hits, preview, context).
#[test]
fn mapped_and_read_files_give_the_same_rows() {
    let dir = tempfile::tempdir().unwrap();
    let block = "alpha beta\r\nnothing\nx = alpha(alpha)\n\u{e9}\u{e9} alpha\nlast\n";
    let filler = "zzzz zzzz zzzz zzzz zzzz zzzz zzzz zzzz zzzz zzzz zzzz zzzz zzzz\n";
    let pad = filler.repeat(WHOLE_READ_MIN_SIZE as usize / filler.len() + 1);
    let pad_lines = pad.lines().count();
    fs::write(dir.path().join("small.txt"), block).unwrap();
    fs::write(dir.path().join("big.txt"), format!("{pad}{block}")).unwrap();
    assert!(fs::metadata(dir.path().join("big.txt")).unwrap().len() >= WHOLE_READ_MIN_SIZE);
    let p = SearchParams {
        context_lines: Some(1),
        ..kw(&["alpha"])
    };
    let res = search_files(dir.path(), &p, None).unwrap();
    let file = |name: &str| res.files.iter().find(|f| f.path == name).unwrap();
    let (small, big) = (file("small.txt"), file("big.txt"));
    assert_eq!((small.match_count, big.match_count), (4, 4));
    assert_eq!(small.matches.len(), 3);
    for (s, b) in small.matches.iter().zip(&big.matches) {
        assert_eq!(b.line, s.line + pad_lines);
        assert_eq!(
            (b.column, b.hits, &b.keyword, &b.preview, &b.context_after),
            (s.column, s.hits, &s.keyword, &s.preview, &s.context_after)
        );
    }
    assert_eq!(big.matches[0].context_after, ["nothing"]);
    assert_eq!(big.matches[0].context_before, [filler.trim_end()]);
}

/// The reader quits at a NUL byte anywhere in a file; a file read whole must be
/// skipped as binary the same way, not only when the NUL is near its start.
#[test]
fn a_nul_byte_far_into_a_file_makes_it_binary_read_or_mapped() {
    let dir = tempfile::tempdir().unwrap();
    let text = |n: usize| "needle and hay\n".repeat(n / 15 + 1);
    for (name, size) in [
        ("read.txt", 200 << 10),
        ("mapped.txt", 2 * WHOLE_READ_MIN_SIZE as usize),
    ] {
        let mut bytes = text(size).into_bytes();
        bytes.extend_from_slice(b"\0binary tail\n");
        fs::write(dir.path().join(name), bytes).unwrap();
    }
    fs::write(
        dir.path().join("plain.txt"),
        text(2 * WHOLE_READ_MIN_SIZE as usize),
    )
    .unwrap();
    let res = search_files(dir.path(), &kw(&["needle"]), None).unwrap();
    assert_eq!(paths(&res), ["plain.txt"]);
    assert_eq!(res.binary_files_skipped, 2);
}

/// A binary file is known by its first bytes and read no further; it is
/// counted as binary as when it was read whole, and one over the size
/// limit is still reported as over it.
#[test]
fn a_binary_file_is_known_by_its_start_and_still_held_to_the_size_limit() {
    let dir = tempfile::tempdir().unwrap();
    let mut elf = b"\x7fELF\x02\x01\x01\0".to_vec();
    elf.extend("needle and hay\n".repeat(20_000).bytes());
    fs::write(dir.path().join("lib.so"), &elf).unwrap();
    fs::write(dir.path().join("small.bin"), b"\0needle\n").unwrap();
    fs::write(dir.path().join("plain.txt"), "needle\n").unwrap();
    let res = search_files(dir.path(), &kw(&["needle"]), None).unwrap();
    assert_eq!(paths(&res), ["plain.txt"]);
    assert_eq!(res.binary_files_skipped, 2);
    assert_eq!(res.files_searched, 3);
    assert_eq!(res.error_count, 0);

    let p = SearchParams {
        max_file_size: Some(elf.len() as u64 - 1),
        ..kw(&["needle"])
    };
    let res = search_files(dir.path(), &p, None).unwrap();
    assert_eq!(res.binary_files_skipped, 1, "small.bin");
    assert_eq!(res.error_count, 1);
    assert!(res.errors[0].path.ends_with("lib.so"), "{:?}", res.errors);
    assert!(res.errors[0].message.contains("file size limit"));
}

#[test]
fn per_file_and_total_match_limits() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a.txt"), "x\n".repeat(50)).unwrap();
    fs::write(dir.path().join("b.txt"), "x\n".repeat(10)).unwrap();
    let p = SearchParams {
        max_matches_per_file: Some(8),
        max_total_matches: Some(12),
        ..kw(&["x"])
    };
    let res = search_files(dir.path(), &p, None).unwrap();
    assert_eq!(res.files[0].path, "a.txt");
    assert_eq!(
        (res.files[0].matches.len(), res.files[0].match_count),
        (8, 50)
    );
    assert!(res.files[0].matches_truncated);
    assert_eq!(res.files[1].matches.len(), 4);
    assert!(res.truncated && res.hint.is_some());
}

#[test]
fn context_lines_attach_to_matches() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(
        dir.path().join("a.txt"),
        "one\ntwo\nTARGET\nfour\nfive\nsix\nTARGET\n",
    )
    .unwrap();
    let p = SearchParams {
        context_lines: Some(1),
        ..kw(&["target"])
    };
    let res = search_files(dir.path(), &p, None).unwrap();
    let m = &res.files[0].matches;
    assert_eq!(m[0].context_before, vec!["two"]);
    assert_eq!(m[0].context_after, vec!["four"]);
    assert_eq!(m[1].context_before, vec!["six"]);
    assert!(m[1].context_after.is_empty());
}

#[test]
fn ranking_distinct_then_frequency_then_definitions() {
    let dir = tempfile::tempdir().unwrap();
    let w = |p: &str, s: String| fs::write(dir.path().join(p), s).unwrap();
    w("both.txt", "alpha beta\n".to_string());
    w("many.txt", "alpha\n".repeat(40));
    w("few.txt", "alpha\n".repeat(3));
    w(
        "big.txt",
        format!("alpha\n{}", "filler line of text\n".repeat(5000)),
    );
    let res = search_files(dir.path(), &kw(&["alpha", "beta"]), None).unwrap();
    let order: Vec<&str> = res.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(order, vec!["both.txt", "many.txt", "few.txt", "big.txt"]);
    // A definition boost lifts the big file above frequency alone.
    let defs = |p: &Path, text: &str| -> Vec<String> {
        assert!(p.is_absolute());
        if text.starts_with("alpha\nfiller") {
            vec!["alpha".into()]
        } else {
            vec![]
        }
    };
    let res = search_files(dir.path(), &kw(&["alpha", "beta"]), Some(&defs)).unwrap();
    let order: Vec<&str> = res.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(order, vec!["both.txt", "big.txt", "many.txt", "few.txt"]);
    assert_eq!(res.files[1].defines, vec!["alpha"]);
    // Distinct keywords still dominate any boost.
    assert!(score(2, 1, 1_000_000, 0) > score(1, 1_000_000, 10, 5));
}

#[test]
fn crlf_lines_and_unicode_columns() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("w.txt"), "héllo wörld\r\nend$\r\n").unwrap();
    let res = search_files(dir.path(), &kw(&["wörld"]), None).unwrap();
    let m = &res.files[0].matches[0];
    assert_eq!(
        (m.line, m.column, m.preview.as_str()),
        (1, 7, "héllo wörld")
    );
    let re = SearchParams {
        pattern: Some("end\\$$".into()),
        ..SearchParams::default()
    };
    assert_eq!(
        search_files(dir.path(), &re, None).unwrap().total_matches,
        1
    );
}

#[cfg(unix)]
#[test]
fn unreadable_files_are_reported_not_fatal() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let locked = dir.path().join("locked.txt");
    fs::write(&locked, "needle\n").unwrap();
    fs::write(dir.path().join("open.txt"), "needle\n").unwrap();
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o000)).unwrap();
    // Root (or CAP_DAC_OVERRIDE) reads mode-000 files anyway.
    let privileged = fs::File::open(&locked).is_ok();
    let res = search_files(dir.path(), &kw(&["needle"]), None).unwrap();
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o644)).unwrap();
    if privileged {
        assert_eq!(paths(&res), vec!["locked.txt", "open.txt"]);
        assert!(res.errors.is_empty());
    } else {
        assert_eq!(paths(&res), vec!["open.txt"]);
        assert_eq!(res.errors.len(), 1);
        assert_eq!(res.errors[0].path, "locked.txt");
        assert!(
            res.errors[0].message.to_lowercase().contains("permission"),
            "{:?}",
            res.errors
        );
    }
}

#[test]
fn oversized_files_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("big.txt"), "needle\n".repeat(100)).unwrap();
    let p = SearchParams {
        max_file_size: Some(100),
        ..kw(&["needle"])
    };
    let res = search_files(dir.path(), &p, None).unwrap();
    assert!(res.files.is_empty());
    assert_eq!(res.error_count, 1);
    assert!(res.errors[0].message.contains("file size limit"));
}

/// A file is searched when it has at most `max_file_size` bytes, to the
/// byte, and reported when it has one more, whether or not it is read in
/// one piece.
#[test]
fn the_size_limit_holds_to_the_byte() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("at.txt"), "needle\n".repeat(10)).unwrap();
    fs::write(dir.path().join("over.txt"), "needle\n".repeat(10) + "x").unwrap();
    fs::write(dir.path().join("empty.txt"), "").unwrap();
    for max in [70, 71] {
        let p = SearchParams {
            max_file_size: Some(max),
            ..kw(&["needle"])
        };
        let res = search_files(dir.path(), &p, None).unwrap();
        let want: &[&str] = if max == 70 {
            &["at.txt"]
        } else {
            &["at.txt", "over.txt"]
        };
        let mut got = paths(&res);
        got.sort();
        assert_eq!(got, want, "max {max}");
        assert_eq!(res.error_count, usize::from(max == 70));
        assert_eq!(res.files_searched, if max == 70 { 2 } else { 3 });
        assert_eq!(
            res.files[0].file_size,
            if res.files[0].path == "at.txt" {
                70
            } else {
                71
            }
        );
    }
}

/// A file with a byte-order mark is decoded (UTF-16 in either order, and
/// UTF-8 with its mark) and searched as text; UTF-16 without a mark has
/// NUL bytes, and is binary.
#[test]
fn files_with_a_byte_order_mark_are_decoded() {
    let dir = tempfile::tempdir().unwrap();
    let utf16 = |text: &str, big: bool| -> Vec<u8> {
        text.encode_utf16()
            .flat_map(|u| {
                if big {
                    u.to_be_bytes()
                } else {
                    u.to_le_bytes()
                }
            })
            .collect()
    };
    let mut le = vec![0xFF, 0xFE];
    le.extend(utf16("first line\nthe needle here\n", false));
    let mut be = vec![0xFE, 0xFF];
    be.extend(utf16("needle at start\n", true));
    fs::write(dir.path().join("le.txt"), le).unwrap();
    fs::write(dir.path().join("be.txt"), be).unwrap();
    fs::write(
        dir.path().join("bom8.txt"),
        b"\xEF\xBB\xBFneedle with a mark\n",
    )
    .unwrap();
    fs::write(
        dir.path().join("nomark.txt"),
        utf16("needle without\n", false),
    )
    .unwrap();
    let res = search_files(dir.path(), &kw(&["needle"]), None).unwrap();
    let rows = |path: &str| -> Vec<(usize, usize, String)> {
        let f = res.files.iter().find(|f| f.path == path).expect(path);
        f.matches
            .iter()
            .map(|m| (m.line, m.column, m.preview.clone()))
            .collect()
    };
    assert_eq!(rows("le.txt"), [(2, 5, "the needle here".to_string())]);
    assert_eq!(rows("be.txt"), [(1, 1, "needle at start".to_string())]);
    assert_eq!(rows("bom8.txt"), [(1, 1, "needle with a mark".to_string())]);
    assert_eq!(res.files.len(), 3);
    assert_eq!(res.binary_files_skipped, 1);
}

#[test]
fn params_serde() {
    let p: SearchParams =
        serde_json::from_value(serde_json::json!({"keywords": ["a"], "include": ["*.rs"]}))
            .unwrap();
    assert_eq!(p.include, vec!["*.rs"]);
    assert!(serde_json::from_value::<SearchParams>(serde_json::json!({"keyword": ["a"]})).is_err());
}

#[test]
fn definition_boost_parses_a_bounded_set_of_whole_word_candidates() {
    use std::sync::{Arc, Mutex};
    let dir = tempfile::tempdir().unwrap();
    for i in 0..(DEFINITION_CANDIDATES + 10) {
        fs::write(dir.path().join(format!("m{i:02}.txt")), "use alpha\n").unwrap();
    }
    // Only a longer word: it cannot name a definition `alpha`.
    fs::write(
        dir.path().join("partial.txt"),
        "alphabet alphabet alphabet\n",
    )
    .unwrap();
    let seen: Arc<Mutex<Vec<String>>> = Arc::default();
    let log = Arc::clone(&seen);
    let defs = move |p: &Path, _: &str| -> Vec<String> {
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        log.lock().unwrap().push(name.clone());
        if name == "m03.txt" {
            vec!["alpha".into()]
        } else {
            vec![]
        }
    };
    let res = search_files(dir.path(), &kw(&["alpha"]), Some(&defs)).unwrap();
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), DEFINITION_CANDIDATES);
    assert_eq!(res.definitions_checked, DEFINITION_CANDIDATES);
    assert!(!seen.contains(&"partial.txt".to_string()));
    assert_eq!(res.files[0].path, "m03.txt");
    assert_eq!(res.files[0].defines, vec!["alpha"]);
    // Files that cannot reach the top results are not parsed at all.
    let few = SearchParams {
        max_results: Some(1),
        ..kw(&["alpha", "use"])
    };
    let res = search_files(dir.path(), &few, Some(&|_: &Path, _: &str| vec![])).unwrap();
    assert_eq!(res.files.len(), 1);
    assert!(res.definitions_checked <= DEFINITION_CANDIDATES);
}

#[test]
fn progress_is_reported_and_cancel_stops_the_walk() {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..2500 {
        fs::write(dir.path().join(format!("f{i}.txt")), "needle\n").unwrap();
    }
    let params = SearchParams {
        keywords: vec!["needle".into()],
        ..Default::default()
    };
    let seen = Mutex::new(Vec::new());
    let report = |n: usize| seen.lock().unwrap().push(n);
    let control = SearchControl {
        cancel: None,
        progress: Some(&report),
    };
    let res = search_files_with(dir.path(), &params, None, control).unwrap();
    assert_eq!(res.files_searched, 2500);
    assert!(!res.cancelled);
    let mut seen = seen.into_inner().unwrap();
    seen.sort();
    assert_eq!(seen, [1000, 2000]);

    // Cancelled before it starts: nothing searched, marked partial.
    let stop = AtomicBool::new(true);
    let control = SearchControl {
        cancel: Some(&stop),
        progress: None,
    };
    let res = search_files_with(dir.path(), &params, None, control).unwrap();
    assert!(res.cancelled && res.truncated);
    assert_eq!(res.files_searched, 0);
    assert!(res.hint.unwrap().contains("cancelled"));
}

// ---------------------------------------------------------------------------
// Which keywords a file defines (the boost)

/// The matcher's whole-word rule (neighbours are not word characters),
/// not a regex `\b`: a keyword that starts with a symbol still matches,
/// and part of a longer identifier does not.
#[test]
fn keyword_lines_follow_the_matchers_whole_word_rule() {
    let body = "x = 1\n@property\ndef f(): pass\nfoo_bar = 2\nfoo = 3\n";
    let lines = |words: &[&str]| -> Vec<&str> {
        let w: Vec<String> = words.iter().map(|s| s.to_string()).collect();
        KeywordLines::new(&w, true)
            .unwrap()
            .spans(body)
            .into_iter()
            .map(|r| &body[r])
            .collect()
    };
    assert_eq!(lines(&["@property"]), ["@property"]);
    assert_eq!(lines(&["foo"]), ["foo = 3"]);
    assert_eq!(lines(&["foo", "x"]), ["x = 1", "foo = 3"]);
    assert!(lines(&["oo"]).is_empty());
}

fn python() -> Arc<Language> {
    Engine::default()
        .registry
        .by_name("python")
        .cloned()
        .unwrap()
}

#[test]
fn defined_names_only_looks_at_keyword_lines() {
    let body =
        "class Store:\n    def get(self):\n        return load()\n\n\ndef load():\n    pass\n";
    let all = defined_names(&python(), body, || &Ok(None), None).unwrap();
    assert_eq!(all, vec!["Store", "get", "load"]);
    // `load` is mentioned on line 3 and defined on line 6: found once.
    let load = Ok(Some(
        KeywordLines::new(&["LOAD".to_string()], false).unwrap(),
    ));
    let some = defined_names(&python(), body, || &load, None).unwrap();
    assert!(some.contains(&"load".to_string()), "{some:?}");
    // Not mentioned as a whole word: nothing parsed, nothing found.
    let oad = Ok(Some(KeywordLines::new(&["oad".to_string()], true).unwrap()));
    let none = defined_names(&python(), body, || &oad, None).unwrap();
    assert!(none.is_empty());
}

/// The grammars' definition-line patterns: every kind of line that
/// the tags query finds a definition on passes (a superset), and a
/// file that only uses the name does not, so it is not parsed.
#[test]
fn definition_lines_pass_definitions_and_skip_mere_uses() {
    let engine = Engine::default();
    let check = |lang: &str, body: &str, word: &str| -> (bool, bool) {
        let lang = engine.registry.by_name(lang).cloned().unwrap();
        let lines = KeywordLines::new(&[word.to_string()], false).unwrap();
        let spans = lines.spans(body);
        let defined = defined_names(&lang, body, || &Ok(None), None)
            .unwrap()
            .iter()
            .any(|n| n.eq_ignore_ascii_case(word));
        (lines.may_define(&lang, body, &spans), defined)
    };
    for (lang, body, word) in [
        ("python", "def f(): pass\n", "f"),
        ("python", "async def f(): pass\n", "f"),
        ("python", "class F:\n    pass\n", "f"),
        ("python", "F = 1\n", "f"),
        ("python", "f: int = 2\n", "f"),
        ("python", "a = 1; f = 2\n", "f"),
        ("python", "class C: f = 1\n", "f"),
        ("javascript", "function f() {}\n", "f"),
        ("javascript", "class C {\n  static async f() {}\n}\n", "f"),
        ("javascript", "const a = 1, f = () => 2;\n", "f"),
        ("javascript", "class C {\n  f = () => 1\n}\n", "f"),
        ("typescript", "interface I {\n  f?: string;\n}\n", "f"),
        ("typescript", "enum E { A, F }\n", "f"),
        (
            "typescript",
            "declare global {\n  var x: number;\n}\n",
            "global",
        ),
        ("typescript", "class C {\n  @dec() f(): void {}\n}\n", "f"),
    ] {
        assert_eq!(check(lang, body, word), (true, true), "{lang}: {body}");
    }
    for (lang, body) in [
        ("python", "import x\nx.f()\nprint(f(1))\n"),
        ("python", "if f == 2:\n    g(f)\n"),
        ("javascript", "a.f(1);\nconst g = b.f;\nreturn f(x) + 1;\n"),
        ("javascript", "read(path, function (err) {});\n"),
    ] {
        let word = if body.contains("function") {
            "function"
        } else {
            "f"
        };
        assert_eq!(check(lang, body, word), (false, false), "{lang}: {body}");
    }
}

/// A long-lived process remembers the names each parsed file defines, by
/// content: a second search that meets the same files answers the same
/// without parsing them again, another keyword is answered from the same
/// memo, and a file whose content changed is parsed again (never stale).
#[test]
fn a_remembered_files_definitions_answer_later_searches_until_it_changes() {
    let dir = tempfile::tempdir().unwrap();
    let w = |p: &str, s: &str| fs::write(dir.path().join(p), s).unwrap();
    w(
        "net.py",
        "def getaddrinfo(host):\n    return resolve(host)\n\ndef resolve(host):\n    return host\n",
    );
    w(
        "use.py",
        "import net\nnet.getaddrinfo('a')\nnet.resolve('b')\n",
    );
    let ws = Workspace::new(dir.path()).unwrap();
    let engine = Engine::default();
    let cache = ParseCache::default();
    let ask = |words: &[&str], cache: Option<&ParseCache>| {
        search_cached(&ws, &engine, cache, &kw(words), SearchControl::default()).unwrap()
    };
    let first = ask(&["getaddrinfo"], Some(&cache));
    assert_eq!(first.files[0].path, "net.py");
    assert_eq!(first.files[0].defines, vec!["getaddrinfo"]);
    assert_eq!(
        cache.definitions_remembered(),
        1,
        "only net.py could define it"
    );
    let uncached = ask(&["getaddrinfo"], None);
    let shape = |r: &SearchResult| -> Vec<(String, Vec<String>)> {
        r.files
            .iter()
            .map(|f| (f.path.clone(), f.defines.clone()))
            .collect()
    };
    assert_eq!(shape(&first), shape(&uncached));
    // Another keyword defined in the same file: the memo has every name.
    let other = ask(&["resolve"], Some(&cache));
    assert_eq!(shape(&other), shape(&ask(&["resolve"], None)));
    assert_eq!(other.files[0].defines, vec!["resolve"]);
    // Changed content is parsed again.
    w(
        "net.py",
        "def lookup(host):\n    return getaddrinfo(host)\n",
    );
    let changed = ask(&["getaddrinfo"], Some(&cache));
    assert!(
        changed.files.iter().all(|f| f.defines.is_empty()),
        "{changed:?}"
    );
    assert_eq!(shape(&changed), shape(&ask(&["getaddrinfo"], None)));
}
