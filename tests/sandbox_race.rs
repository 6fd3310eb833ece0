//! The sandbox under a concurrent directory swap.
//!
//! A swapper process exchanges a folder inside the root with a symlink to a
//! folder outside it (`renameat2(RENAME_EXCHANGE)` in a tight loop) while the
//! MCP server and the CLI write, edit, update, read, search and list through both
//! names. Whatever the timing, nothing outside the root may be written or
//! read: every operation either works inside the root or is refused with a
//! clear error. (Issue 14, item 1.)

mod mcp_support;

use assert_cmd::Command;
use mcp_support::*;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_scalpel");
/// Text that exists only outside the root: no answer may ever contain it.
const SECRET: &str = "OUTSIDE_SECRET";

/// Codes an operation hit by the swap may be refused with.
const REFUSALS: [&str; 4] = ["OUTSIDE_ROOT", "CONFLICT", "NOT_FOUND", "STALE_FILE"];

struct Race {
    _dir: tempfile::TempDir,
    root: PathBuf,
    outside: PathBuf,
    swapper: Child,
}

impl Race {
    /// `root/a/` (real folder) and `root/link` (symlink to `outside/`), with
    /// the same file names on both sides, and the swapper started.
    fn start() -> Race {
        let dir = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(dir.path()).unwrap();
        let root = base.join("repo");
        let outside = base.join("outside");
        std::fs::create_dir_all(root.join("a")).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        for (side, word) in [(&root.join("a"), "inside"), (&outside, SECRET)] {
            std::fs::write(side.join("note.txt"), format!("note: {word}\n")).unwrap();
            std::fs::write(
                side.join("f.py"),
                format!("def f():\n    return '{word}'\n\n\ndef g():\n    return 1\n"),
            )
            .unwrap();
            for i in 0..200 {
                std::fs::write(
                    side.join(format!("e{i}.txt")),
                    format!("value = 0 {word}\n"),
                )
                .unwrap();
            }
        }
        // A name that exists only outside: no listing may show it.
        std::fs::write(outside.join(format!("{SECRET}.txt")), "x\n").unwrap();
        std::os::unix::fs::symlink(&outside, root.join("link")).unwrap();
        let script = "import ctypes, sys\n\
            libc = ctypes.CDLL(None, use_errno=True)\n\
            a, b = sys.argv[1].encode(), sys.argv[2].encode()\n\
            while True:\n    libc.renameat2(-100, a, -100, b, 2)\n";
        let swapper = std::process::Command::new("python3")
            .arg("-c")
            .arg(script)
            .arg(root.join("a"))
            .arg(root.join("link"))
            .stdin(Stdio::null())
            .spawn()
            .expect("python3 runs the swapper");
        Race {
            _dir: dir,
            root,
            outside,
            swapper,
        }
    }

    /// Names and contents of everything outside.
    fn outside_state(&self) -> BTreeMap<String, Vec<u8>> {
        snapshot(&self.outside)
    }
}

impl Drop for Race {
    fn drop(&mut self) {
        let _ = self.swapper.kill();
        let _ = self.swapper.wait();
    }
}

fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut m = BTreeMap::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        let t = e.file_type().unwrap();
        let name = e.file_name().to_string_lossy().into_owned();
        let content = if t.is_file() {
            std::fs::read(e.path()).unwrap()
        } else {
            format!("<{t:?}>").into_bytes()
        };
        m.insert(name, content);
    }
    m
}

/// Tallies of what happened.
#[derive(Default, Debug)]
struct Tally {
    ops: usize,
    ok: usize,
    refused: BTreeMap<String, usize>,
}

impl Tally {
    /// Record an MCP result: success, or a refusal with one of [`REFUSALS`]
    /// and a clear message. No answer may carry the outside text.
    fn mcp(&mut self, what: &str, r: &rmcp::model::CallToolResult) {
        self.ops += 1;
        let shown = format!(
            "{}\n{}",
            text(r),
            r.structured_content.clone().unwrap_or(Value::Null)
        );
        assert!(
            !shown.contains(SECRET),
            "{what} returned outside content: {shown}"
        );
        if r.is_error == Some(true) {
            let (code, s) = err(r);
            assert!(REFUSALS.contains(&code.as_str()), "{what}: {s}");
            assert!(!s["suggestion"].as_str().unwrap_or("").is_empty(), "{s}");
            *self.refused.entry(code).or_default() += 1;
        } else {
            self.ok += 1;
        }
    }

    /// Record a CLI run (`--json`): exit 0, or an error with one of
    /// [`REFUSALS`]. No output may carry the outside text.
    fn cli(&mut self, what: &str, out: &std::process::Output) {
        self.ops += 1;
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            !stdout.contains(SECRET) && !stderr.contains(SECRET),
            "{what} printed outside content: {stdout}{stderr}"
        );
        let v: Value = stdout
            .lines()
            .rev()
            .find_map(|l| serde_json::from_str(l).ok())
            .unwrap_or_else(|| panic!("{what}: no JSON: {stdout}{stderr}"));
        // Exit 1 without an error: a search that found nothing (its files
        // were skipped as changed while in use).
        if out.status.success() || v.get("error").is_none() {
            self.ok += 1;
            return;
        }
        let code = v["error"]["error_code"].as_str().unwrap_or("").to_string();
        assert!(REFUSALS.contains(&code.as_str()), "{what}: {v}");
        *self.refused.entry(code).or_default() += 1;
    }
}

/// The real folder's current name (`a` or `link`), read once the swapper
/// has stopped.
fn real_folder(root: &Path) -> PathBuf {
    let a = root.join("a");
    if std::fs::symlink_metadata(&a).unwrap().is_dir() {
        a
    } else {
        root.join("link")
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_directory_swap_never_moves_reads_or_writes_outside_the_root() {
    let race = Race::start();
    let before = race.outside_state();
    let (_server, client) = start_with(
        scalpel::mcp::ServerOptions {
            root: Some(race.root.clone()),
            engine: scalpel::ops::engine::Engine::default(),
            cache_limits: None,
            fault_panic_tool: None,
            index: Default::default(),
        },
        TestClient::default(),
    )
    .await;
    let mut t = Tally::default();
    let mut written: Vec<(String, String)> = Vec::new();

    for i in 0..100 {
        // Alternate the two names: one of them is the real folder at any
        // moment, the other the symlink to the outside.
        let side = if i % 2 == 0 { "a" } else { "link" };
        let content = format!("written {i}\n");
        let name = format!("w{i}.txt");
        let r = call(
            &client,
            "write_file",
            json!({"path": format!("{side}/{name}"), "content": content}),
        )
        .await;
        if r.is_error != Some(true) {
            written.push((name, content));
        }
        t.mcp("write_file", &r);

        let r = call(
            &client,
            "edit_file",
            json!({"path": format!("{side}/e{i}.txt"),
                   "edits": [{"old_text": "value = 0", "new_text": "value = 1"}]}),
        )
        .await;
        t.mcp("edit_file", &r);

        let r = call(
            &client,
            "read_file",
            json!({"path": format!("{side}/note.txt")}),
        )
        .await;
        t.mcp("read_file", &r);

        let r = call(
            &client,
            "search_files",
            json!({"keywords": ["note", "value"], "path": side}),
        )
        .await;
        t.mcp("search_files", &r);

        let r = call(
            &client,
            "update_symbol",
            json!({"path": format!("{side}/f.py"), "symbol": "g",
                   "new_code": format!("def g():\n    return {i}\n")}),
        )
        .await;
        t.mcp("update_symbol", &r);

        let r = call(&client, "list_directory", json!({"path": side})).await;
        t.mcp("list_directory", &r);
    }

    for i in 0..40 {
        let side = if i % 2 == 0 { "a" } else { "link" };
        let run = |args: &[&str], stdin: &str| {
            Command::new(BIN)
                .current_dir(&race.root)
                .args(args)
                .arg("--root")
                .arg(&race.root)
                .arg("--json")
                .write_stdin(stdin.to_string())
                .output()
                .unwrap()
        };
        let name = format!("c{i}.txt");
        let content = format!("cli {i}\n");
        let out = run(&["write", &format!("{side}/{name}")], &content);
        if out.status.success() {
            written.push((name, content));
        }
        t.cli("write", &out);
        let e = format!("{side}/e{}.txt", 100 + i);
        t.cli(
            "edit",
            &run(
                &["edit", &e, "--old", "value = 0", "--new", "value = 2"],
                "",
            ),
        );
        t.cli("read", &run(&["read", &format!("{side}/note.txt")], ""));
        t.cli(
            "search",
            &run(&["search", "note", "value", "--path", side], ""),
        );
    }
    drop(client);
    let mut race = race;
    let _ = race.swapper.kill();
    let _ = race.swapper.wait();

    assert!(t.ops >= 500, "{t:?}");
    assert_eq!(race.outside_state(), before, "nothing outside changed");
    let real = real_folder(&race.root);
    for (name, content) in &written {
        assert_eq!(
            std::fs::read_to_string(real.join(name)).unwrap(),
            *content,
            "{name} landed inside"
        );
    }
    // The race was really run: some operations were hit and refused, and
    // some got through.
    let refused: usize = t.refused.values().sum();
    assert!(refused > 0 && t.ok > 0, "{t:?}");
    eprintln!("{t:?}");
}
