//! The saved search index (`ROOT/.scalpel/index/index.bin`) reused by the
//! next process (issue 31: a warm `scalpel find` reads it instead of
//! rebuilding): after each of a list of real changes to a real tree (an
//! edit, a new file, a deletion, a touch without change, a file emptied, a
//! rename, a new folder), an index opened from the store and refreshed
//! reads exactly the changed files and answers exactly as an index built
//! from nothing on a copy of the same files; a damaged store is rebuilt
//! and answers the same too.

mod search_support;

use scalpel::index::{LiveIndex, SearchRequest, live};
use scalpel::ops::engine::Engine;
use search_support::{copy_tree, stdlib, test_model};
use std::path::Path;

const QUERIES: [&str; 6] = [
    "decode json string escapes",
    "parse an email address",
    "Warehouse add item",
    "freshly_added_helper",
    "encode a header with a charset",
    "scanner",
];

/// The answers of an index of `root` opened from what is saved there and
/// brought up to date, and how many files it read.
fn answers(root: &Path) -> (Vec<String>, usize) {
    let model = live::load_model(Some(&test_model())).unwrap();
    let ix = LiveIndex::open(root, Engine::default(), model);
    ix.refresh().unwrap();
    let read = ix.status().files_read;
    let all = QUERIES
        .iter()
        .map(|q| {
            let mut req = SearchRequest::new(*q);
            req.max_results = 8;
            serde_json::to_string_pretty(&ix.search(&req, 4000).unwrap()).unwrap()
        })
        .collect();
    (all, read)
}

/// The answers of an index built from nothing on a copy of `root`'s
/// files (its saved index left behind).
fn fresh_answers(root: &Path) -> Vec<String> {
    let copy = tempfile::tempdir().unwrap();
    copy_tree(root, copy.path());
    let _ = std::fs::remove_dir_all(copy.path().join(".scalpel"));
    let (all, read) = answers(copy.path());
    assert!(read > 0);
    // The copy's answers name its own root nowhere: they compare as they are.
    all
}

fn append(path: &Path, text: &str) {
    let mut code = std::fs::read_to_string(path).unwrap();
    code.push_str(text);
    std::fs::write(path, code).unwrap();
}

/// One change to the tree, and how many files a refresh must read after
/// it (new or changed content).
type Step = (&'static str, fn(&Path), usize);

#[test]
fn a_reused_store_answers_as_a_fresh_build_after_every_change() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for pkg in ["json", "email"] {
        copy_tree(&stdlib().join(pkg), &root.join(pkg));
    }
    copy_tree(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures"),
        &root.join("fixtures"),
    );
    let (first, read) = answers(root);
    assert!(read > 40, "{read} files read by the first build");
    assert!(first[0].contains("json/"), "{}", first[0]);
    assert_eq!(first, fresh_answers(root));

    let steps: [Step; 8] = [
        ("nothing changed", |_| {}, 0),
        (
            "a definition added to a file",
            |r| {
                append(
                    &r.join("fixtures/python/inventory.py"),
                    "\n\ndef freshly_added_helper():\n    \"\"\"Decode json string escapes.\"\"\"\n    return 42\n",
                )
            },
            1,
        ),
        (
            "a new file",
            |r| {
                std::fs::write(
                    r.join("json/extra_scanner.py"),
                    "def scanner(text):\n    \"\"\"A scanner for json string escapes.\"\"\"\n    return text.split()\n",
                )
                .unwrap()
            },
            1,
        ),
        (
            "a file deleted",
            |r| std::fs::remove_file(r.join("json/scanner.py")).unwrap(),
            0,
        ),
        (
            "a file rewritten with the same bytes (only its mtime changes)",
            |r| {
                let p = r.join("email/charset.py");
                std::thread::sleep(std::time::Duration::from_millis(20));
                std::fs::write(&p, std::fs::read(&p).unwrap()).unwrap();
            },
            0,
        ),
        (
            "a file emptied",
            |r| std::fs::write(r.join("email/header.py"), "").unwrap(),
            1,
        ),
        (
            "a file renamed",
            |r| std::fs::rename(r.join("json/decoder.py"), r.join("json/decoding.py")).unwrap(),
            1,
        ),
        (
            "a new folder of files",
            |r| {
                std::fs::create_dir_all(r.join("more")).unwrap();
                std::fs::copy(r.join("json/encoder.py"), r.join("more/encoder_copy.py")).unwrap();
                std::fs::copy(r.join("email/utils.py"), r.join("more/utils_copy.py")).unwrap();
            },
            2,
        ),
    ];
    for (what, change, expect_read) in steps {
        change(root);
        let (warm, read) = answers(root);
        assert_eq!(read, expect_read, "{what}: files read");
        let fresh = fresh_answers(root);
        for (w, f) in warm.iter().zip(&fresh) {
            assert_eq!(w, f, "{what}");
        }
    }

    // A damaged store (a flipped byte, a cut) is rebuilt: every file is
    // read again and the answers are the fresh ones.
    let store = root.join(".scalpel/index/index.bin");
    let good = std::fs::read(&store).unwrap();
    let expected = fresh_answers(root);
    for (what, bytes) in [
        ("a flipped byte", {
            let mut b = good.clone();
            let at = b.len() * 3 / 4;
            b[at] ^= 0x20;
            b
        }),
        ("cut short", good[..good.len() / 3].to_vec()),
    ] {
        std::fs::write(&store, bytes).unwrap();
        let (warm, read) = answers(root);
        assert!(read > 40, "{what}: {read} files read");
        assert_eq!(warm, expected, "{what}");
    }
}
