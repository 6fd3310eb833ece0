//! A hostile repository cannot abort Scalpel, exhaust its memory or block
//! it (issue 28 items 2, 4 and 6): a shipped `.scalpel/index/index.bin`
//! with sizes it cannot hold, ignore files and git's files that are
//! symlinks to `/dev/zero` or FIFOs, a function nested 100,000 blocks deep.
//! Every command runs as a child under a data limit (`prlimit --data`) and
//! a time limit, so a regression fails the test instead of the machine.
//!
//! `SCALPEL_TEST_BIN` runs the tests against another binary (how they were
//! seen to fail on the code before the fix).

use scalpel::ops::cache::RememberedDefinitions;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The data segment a command may use: a fence for the machine, far above
/// what these small roots need. (A bounded read refused by it fails
/// quietly, so the peak below is what the tests assert.)
const DATA_LIMIT: &str = "--data=2147483648";
/// The most memory (peak resident set) a command may take on these small
/// roots; the bugs took 35 GB, or a gigabyte per file read.
const MAX_RSS: u64 = 256 << 20;
/// No command here takes more than a few seconds, even in a loaded debug
/// build; the bugs took minutes or forever.
const TIME_LIMIT: Duration = Duration::from_secs(60);

fn bin() -> PathBuf {
    std::env::var_os("SCALPEL_TEST_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| assert_cmd::cargo::cargo_bin("scalpel"))
}

/// How one command ended.
struct Ran {
    /// The exit code; `None` when a signal ended it (an abort).
    code: Option<i32>,
    stdout: String,
    stderr: String,
    /// The CPU time it used (user and system): what its deadlines count,
    /// whatever else the machine is doing.
    cpu: Duration,
    /// Its peak resident set, as the process itself saw it (`VmHWM` of
    /// `/proc/PID/status`, read while it runs). Not `wait4`'s `ru_maxrss`:
    /// the child is spawned with the test process's memory map until it
    /// execs, and Linux carries that map's high-water mark across the exec,
    /// so `ru_maxrss` reports this test binary's own peak (other tests
    /// running beside it) whenever that is larger.
    peak: u64,
}

/// The peak resident set of `pid`, once it runs `bin` (before, it is still
/// `prlimit` or the spawning test's memory map).
fn high_water(pid: libc::pid_t, bin: &Path) -> Option<u64> {
    let exe = std::fs::read_link(format!("/proc/{pid}/exe")).ok()?;
    if std::fs::canonicalize(bin).ok()? != exe {
        return None;
    }
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let kb = status.lines().find_map(|l| l.strip_prefix("VmHWM:"))?;
    Some(
        kb.trim()
            .trim_end_matches("kB")
            .trim()
            .parse::<u64>()
            .ok()?
            * 1024,
    )
}

/// `scalpel ARGS` in `root`, under the data and time limits, its input
/// read from `stdin` (the server's requests) or none. Panics when it is
/// killed by the time limit.
// The child is reaped by `wait4` (for its rusage), which clippy cannot see.
#[allow(clippy::zombie_processes)]
fn run_with(root: &Path, args: &[&str], stdin: Option<&Path>) -> Ran {
    let input = match stdin {
        Some(f) => Stdio::from(std::fs::File::open(f).unwrap()),
        None => Stdio::null(),
    };
    let mut child = Command::new("prlimit")
        .arg(DATA_LIMIT)
        .arg("--")
        .arg(bin())
        .args(args)
        .current_dir(root)
        .env("SCALPEL_MODEL", "off")
        .env_remove("HF_HOME")
        .env_remove("HF_HUB_CACHE")
        .stdin(input)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("prlimit runs");
    let drain = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut s = Vec::new();
            let _ = r.read_to_end(&mut s);
            String::from_utf8_lossy(&s).into_owned()
        })
    };
    let stdout = drain(Box::new(child.stdout.take().unwrap()));
    let stderr = drain(Box::new(child.stderr.take().unwrap()));
    let pid = child.id() as libc::pid_t;
    let started = Instant::now();
    let mut status = 0;
    // SAFETY: a zeroed `rusage` is a valid value for wait4 to fill.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let mut peak = 0;
    let bin = bin();
    loop {
        if let Some(now) = high_water(pid, &bin) {
            peak = peak.max(now);
        }
        // SAFETY: `pid` is our child (prlimit execs scalpel in place), not
        // waited for by anyone else; the pointers are to live locals.
        let r = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
        assert!(r >= 0, "wait4: {}", std::io::Error::last_os_error());
        if r == pid {
            break;
        }
        if started.elapsed() > TIME_LIMIT {
            let _ = child.kill();
            // SAFETY: as above.
            unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
            panic!(
                "`scalpel {}` still ran after {TIME_LIMIT:?}: {}",
                args.join(" "),
                stderr.join().unwrap()
            );
        }
        // Often at first, so a short run's peak is seen too.
        let pause = if started.elapsed() < Duration::from_millis(500) {
            1
        } else {
            10
        };
        std::thread::sleep(Duration::from_millis(pause));
    }
    Ran {
        code: libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status)),
        stdout: stdout.join().unwrap(),
        stderr: stderr.join().unwrap(),
        cpu: cpu_time(&usage.ru_utime) + cpu_time(&usage.ru_stime),
        peak,
    }
}

fn cpu_time(t: &libc::timeval) -> Duration {
    Duration::from_secs(t.tv_sec as u64) + Duration::from_micros(t.tv_usec as u64)
}

/// `run`, which must end by itself with one of `codes` (0: success, 1: the
/// operation failed, 2: usage or I/O), never by a signal (an abort), within
/// [`MAX_RSS`].
fn answers(root: &Path, args: &[&str], codes: &[i32]) -> Ran {
    answers_with(root, args, codes, None)
}

/// [`answers`] with `stdin` read from a file.
fn answers_with(root: &Path, args: &[&str], codes: &[i32], stdin: Option<&Path>) -> Ran {
    let ran = run_with(root, args, stdin);
    let what = format!("`scalpel {}`", args.join(" "));
    assert!(
        ran.code.is_some_and(|c| codes.contains(&c)),
        "{what} ended with {:?}: {}",
        ran.code,
        ran.stderr
    );
    assert!(
        ran.peak < MAX_RSS,
        "{what} took {} MB at its peak",
        ran.peak >> 20
    );
    ran
}

/// A fresh `git init` folder with one Python file.
fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let ok = Command::new("git")
        .args(["init", "-q", "."])
        .current_dir(dir.path())
        .status()
        .unwrap()
        .success();
    assert!(ok);
    std::fs::write(
        dir.path().join("app.py"),
        "def handle_request(x):\n    return x + 1\n",
    )
    .unwrap();
    dir
}

/// [`repo`] with a folder `pkg` holding `util.py`.
fn repo_with_pkg() -> tempfile::TempDir {
    let dir = repo();
    std::fs::create_dir(dir.path().join("pkg")).unwrap();
    std::fs::write(
        dir.path().join("pkg/util.py"),
        "def handle_request():\n    pass\n",
    )
    .unwrap();
    dir
}

/// Where the store is.
fn store(root: &Path) -> PathBuf {
    root.join(".scalpel/index/index.bin")
}

/// The store's layout that the tests below rely on: magic, version,
/// checksum of what lies before the vector records, unit count, the first
/// section's length, the second's; the first section ends with the vector
/// dimension and the records' hash.
const HEAD_AT: usize = 8 + 4 + 32 + 4 + 8 + 8;

/// `bytes` with the checksum of the store recomputed (a crafted store
/// passes it).
fn sealed(mut bytes: Vec<u8>) -> Vec<u8> {
    let records_at = HEAD_AT + u64_at(&bytes, 48) as usize + u64_at(&bytes, 56) as usize;
    let sum = blake3::hash(&bytes[44..records_at]);
    bytes[12..44].copy_from_slice(sum.as_bytes());
    bytes
}

/// Where the first section's vector dimension is.
fn dim_at(store: &[u8]) -> usize {
    HEAD_AT + u64_at(store, 48) as usize - 4 - 32
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap())
}

#[test]
fn a_shipped_index_declaring_a_huge_vector_dimension_is_rebuilt() {
    let dir = repo();
    let root = dir.path();
    answers(root, &["index"], &[0]);
    let good = std::fs::read(store(root)).unwrap();
    // Without a model the first section ends with the vector dimension, 0.
    let dim_at = dim_at(&good);
    assert_eq!(good[dim_at..dim_at + 4], [0; 4], "the layout changed");
    let mut crafted = good.clone();
    crafted[dim_at..dim_at + 4].copy_from_slice(&u32::MAX.to_le_bytes());
    let crafted = sealed(crafted);
    std::fs::write(store(root), &crafted).unwrap();
    let ran = answers(root, &["find", "handle", "request"], &[0]);
    assert!(ran.stdout.contains("app.py"), "{}", ran.stdout);
    // Rebuilt and saved whole again.
    assert_eq!(std::fs::read(store(root)).unwrap(), good);
    // And the status reads it.
    std::fs::write(store(root), &crafted).unwrap();
    answers(root, &["index", "--status"], &[0]);
    // A FIFO in its place is refused, not waited on.
    std::fs::remove_file(store(root)).unwrap();
    hostile(&store(root), true);
    answers(root, &["find", "handle", "request"], &[0]);
}

#[test]
fn a_gigabyte_store_is_not_read_when_its_header_or_its_files_refuse_it() {
    let dir = repo();
    let root = dir.path();
    answers(root, &["index"], &[0]);
    let good = std::fs::read(store(root)).unwrap();
    // A sparse gigabyte of zeros: not even the magic.
    let f = std::fs::File::create(store(root)).unwrap();
    f.set_len(1 << 30).unwrap();
    drop(f);
    let ran = answers(root, &["find", "handle", "request"], &[0]);
    assert!(ran.cpu < Duration::from_secs(20), "{:?}", ran.cpu);
    // The good store's header and file table, then a gigabyte: a store far
    // larger than the one file it names can explain.
    let mut big = good.clone();
    let head_len = (1u64 << 30) - HEAD_AT as u64 - 4;
    big[48..56].copy_from_slice(&head_len.to_le_bytes());
    big[56..64].copy_from_slice(&0u64.to_le_bytes());
    std::fs::write(store(root), &big).unwrap();
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(store(root))
        .unwrap();
    f.set_len(1 << 30).unwrap();
    drop(f);
    answers(root, &["find", "handle", "request"], &[0]);
    assert_eq!(std::fs::read(store(root)).unwrap(), good, "rebuilt");
}

/// Make `path` a symlink to `/dev/zero`, or a FIFO when `fifo`.
fn hostile(path: &Path, fifo: bool) {
    if fifo {
        let ok = Command::new("mkfifo").arg(path).status().unwrap().success();
        assert!(ok);
    } else {
        std::os::unix::fs::symlink("/dev/zero", path).unwrap();
    }
}

/// Every command that walks the root.
const WALKING: [&[&str]; 7] = [
    &["search", "handle_request"],
    &["find", "handle", "request"],
    &["symbols", "."],
    &["refs", "--name", "handle_request", "."],
    &["tree"],
    &["check", "."],
    &["index"],
];

#[test]
fn ignore_files_that_are_symlinks_or_fifos_are_skipped_not_read() {
    for name in [".gitignore", ".ignore", ".scalpelignore"] {
        for fifo in [false, true] {
            let dir = repo_with_pkg();
            let root = dir.path();
            hostile(&root.join("pkg").join(name), fifo);
            hostile(&root.join(name), fifo);
            for args in WALKING {
                let ran = answers(root, args, &[0, 1]);
                if args[0] != "check" && args[0] != "index" {
                    // The folder is walked as if it had no ignore file.
                    assert!(
                        ran.stdout.contains("util.py"),
                        "{name} {args:?}: {}",
                        ran.stdout
                    );
                }
            }
        }
    }
}

#[test]
fn a_regular_ignore_file_still_ignores() {
    let dir = repo_with_pkg();
    let root = dir.path();
    std::fs::write(root.join("pkg/gen.py"), "def handle_request():\n    pass\n").unwrap();
    std::fs::write(root.join("pkg/.gitignore"), "gen.py\n").unwrap();
    let text = answers(root, &["search", "handle_request"], &[0]).stdout;
    assert!(
        text.contains("util.py") && !text.contains("gen.py"),
        "{text}"
    );
}

#[test]
fn git_files_that_are_symlinks_to_dev_zero_are_not_read() {
    let dir = repo();
    let root = dir.path();
    // A git directory under another name, its `commondir` /dev/zero; and a
    // folder whose `.git` file is /dev/zero, then a FIFO.
    let store = root.join("gitstore");
    std::fs::create_dir_all(store.join("objects")).unwrap();
    std::fs::create_dir_all(store.join("refs")).unwrap();
    std::fs::write(store.join("HEAD"), "ref: refs/heads/main\n").unwrap();
    hostile(&store.join("commondir"), false);
    for (sub, fifo) in [("sub", false), ("sub2", true)] {
        std::fs::create_dir(root.join(sub)).unwrap();
        std::fs::write(
            root.join(sub).join("m.py"),
            "def handle_request():\n    pass\n",
        )
        .unwrap();
        hostile(&root.join(sub).join(".git"), fifo);
    }
    for args in WALKING {
        answers(root, args, &[0, 1]);
    }
    answers(root, &["symbols", "gitstore/HEAD"], &[0, 1, 2]);
    answers(root, &["write", "gitstore/new.py"], &[0, 1, 2]);
}

#[test]
fn extract_of_a_function_nested_100000_blocks_deep_answers_within_its_deadline() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let depth = 100_000;
    let code = format!(
        "function g() {{}}\nfunction f() {}{}\n",
        "{".repeat(depth),
        "}".repeat(depth)
    );
    std::fs::write(root.join("deepblk.js"), &code).unwrap();
    // A call to `g` and a local in every block, 100,000 levels down.
    let code = format!(
        "function g() {{}}\nfunction f() {}g();{}\n",
        "{let a = 1;".repeat(depth),
        "}".repeat(depth)
    );
    std::fs::write(root.join("deepcall.js"), &code).unwrap();
    for args in [
        &["extract", "deepblk.js", "f", "--parse-timeout", "2"][..],
        &[
            "extract",
            "deepblk.js",
            "f",
            "--parse-timeout",
            "2",
            "--context",
        ],
        &[
            "extract",
            "deepcall.js",
            "f",
            "--parse-timeout",
            "5",
            "--json",
        ],
        &["refs", "--name", "a", "deepcall.js", "--parse-timeout", "5"],
    ] {
        let ran = answers(root, args, &[0, 1, 2]);
        // An answer (refs finds no reference: 1), or TIMEOUT within its
        // budget (and the debug build's slack), never another error.
        let timeout = ran.stderr.contains("TIMEOUT") || ran.stdout.contains("TIMEOUT");
        assert!(ran.code != Some(2) || timeout, "{args:?}: {}", ran.stderr);
        // In CPU time, as the deadline counts (on a loaded machine the
        // wall clock may run several times longer: `Deadline::after`).
        assert!(
            ran.cpu < Duration::from_secs(15),
            "{args:?} took {:?} of CPU",
            ran.cpu
        );
        if args.contains(&"--json") && ran.code == Some(0) {
            // The call at the bottom is found: the query covers every depth.
            assert!(ran.stdout.contains(r#""name_path":"g""#), "{}", ran.stdout);
        }
    }
}

/// Every regular file under `dir` but `.scalpel/` and `.git/`, with its
/// bytes: what no read-only command may change.
fn tree_bytes(dir: &Path) -> std::collections::BTreeMap<PathBuf, Vec<u8>> {
    let mut out = std::collections::BTreeMap::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let (p, t) = (e.path(), e.file_type().unwrap());
            let name = e.file_name();
            if t.is_dir() && name != ".scalpel" && name != ".git" {
                todo.push(p);
            } else if t.is_file() {
                out.insert(p.clone(), std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

/// The hostile clone: one repository carrying every hazard at once (a
/// shipped `.scalpel/` with a transaction record that points out of
/// `backups/`, a journal dated in the future with garbage lines, a
/// symlinked backup and an index declaring a huge vector dimension; ignore
/// files and git's `commondir` that are symlinks to `/dev/zero` or FIFOs;
/// a function nested 100,000 blocks deep). Every CLI command and the server
/// run in it: each answers by itself within its time limit and under
/// [`MAX_RSS`] of memory; a read-only command changes no file of the tree;
/// nothing outside the root is read into it or written; and a write still
/// works, once, with the shipped record set aside.
#[test]
fn a_hostile_clone_cannot_leak_abort_exhaust_or_block_any_command() {
    let outer = tempfile::tempdir().unwrap();
    let secret = outer.path().join("secret.txt");
    std::fs::write(&secret, "OUTSIDE SECRET\n").unwrap();
    let root = outer.path().join("clone");
    std::fs::create_dir(&root).unwrap();
    let git = |args: &[&str]| {
        assert!(
            Command::new("git")
                .args(args)
                .current_dir(&root)
                .status()
                .unwrap()
                .success()
        )
    };
    git(&["init", "-q", "."]);
    std::fs::write(
        root.join("app.py"),
        "def handle_request(x):\n    return x + 1\n",
    )
    .unwrap();
    std::fs::create_dir(root.join("pkg")).unwrap();
    std::fs::write(
        root.join("pkg/util.py"),
        "def handle_request():\n    pass\n",
    )
    .unwrap();
    let depth = 100_000;
    std::fs::write(
        root.join("deep.js"),
        format!(
            "function g() {{}}\nfunction f() {}g();{}\n",
            "{let a = 1;".repeat(depth),
            "}".repeat(depth)
        ),
    )
    .unwrap();
    // A good store first, then crafted: the vector dimension at u32::MAX.
    answers(&root, &["index"], &[0]);
    let good = std::fs::read(store(&root)).unwrap();
    let dim_at = dim_at(&good);
    let mut crafted = good.clone();
    crafted[dim_at..dim_at + 4].copy_from_slice(&u32::MAX.to_le_bytes());
    std::fs::write(store(&root), sealed(crafted)).unwrap();
    // The record that once copied the secret into app.py, a journal from
    // the future with garbage, a backup that is a symlink to the secret.
    let scalpel = root.join(".scalpel");
    std::fs::create_dir_all(scalpel.join("backups")).unwrap();
    let victim_hash = scalpel::source::hash_bytes(&std::fs::read(root.join("app.py")).unwrap());
    std::fs::write(
        scalpel.join("transaction.json"),
        format!(
            r#"{{"txn":"e20250101-000000-0001","entries":[{{"edit_id":"../../../secret.txt","time":"t","path":"app.py","operation":"x","before_hash":"0","after_hash":"{victim_hash}","backup":"b","txn":"e20250101-000000-0001"}},{{"edit_id":"e20250101-000000-0002","time":"t","path":"../../etc/passwd","operation":"x","before_hash":"0","after_hash":"0","backup":"backups/e20250101-000000-0002","txn":"e20250101-000000-0001"}}]}}"#
        ),
    )
    .unwrap();
    std::fs::write(
        scalpel.join("journal.jsonl"),
        format!(
            "{{\"edit_id\":\"e29991231-235959-0001\",\"time\":\"t\",\"path\":\"app.py\",\"operation\":\"x\",\"before_hash\":\"{victim_hash}\",\"after_hash\":\"{victim_hash}\",\"backup\":\"backups/e29991231-235959-0001\"}}\nnot json at all\n"
        ),
    )
    .unwrap();
    std::os::unix::fs::symlink(&secret, scalpel.join("backups/e29991231-235959-0001")).unwrap();
    // Ignore files and git's files that never end.
    hostile(&root.join("pkg/.gitignore"), false);
    hostile(&root.join(".ignore"), true);
    hostile(&root.join(".scalpelignore"), false);
    let gitstore = root.join("gitstore");
    std::fs::create_dir_all(gitstore.join("objects")).unwrap();
    std::fs::create_dir_all(gitstore.join("refs")).unwrap();
    std::fs::write(gitstore.join("HEAD"), "ref: refs/heads/main\n").unwrap();
    hostile(&gitstore.join("commondir"), false);

    let before = tree_bytes(&root);
    let read_only: &[&[&str]] = &[
        &["symbols", "."],
        &["symbols", "app.py"],
        &["extract", "app.py", "handle_request", "--context"],
        &["extract", "deep.js", "f", "--parse-timeout", "2"],
        &[
            "extract",
            "deep.js",
            "f",
            "--context",
            "--parse-timeout",
            "2",
        ],
        &["parse", "deep.js"],
        &["read", "app.py"],
        &["search", "handle_request"],
        &["find", "handle", "request"],
        &["history"],
        &["history", "app.py"],
        &["refs", "app.py", "handle_request"],
        &["refs", "--name", "handle_request", "."],
        &["rename", "app.py", "handle_request", "serve_request"],
        &["tree"],
        &["check", "."],
        &["index", "--status"],
        &["languages"],
    ];
    for args in read_only {
        let ran = answers(&root, args, &[0, 1, 2]);
        assert!(
            !ran.stdout.contains("OUTSIDE SECRET") && !ran.stderr.contains("OUTSIDE SECRET"),
            "`scalpel {}` showed the secret",
            args.join(" ")
        );
        assert_eq!(
            tree_bytes(&root),
            before,
            "`scalpel {}` changed the tree",
            args.join(" ")
        );
    }
    // The server: initialize, a few calls, then end of input.
    let requests = outer.path().join("requests.jsonl");
    std::fs::write(
        &requests,
        [
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_symbols","arguments":{"path":"app.py"}}}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"search_codebase","arguments":{"query":"handle request"}}}"#,
            r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"app.py"}}}"#,
        ]
        .join("\n")
            + "\n",
    )
    .unwrap();
    let root_arg = root.to_string_lossy().into_owned();
    let ran = answers_with(
        &root,
        &["serve", "--root", &root_arg],
        &[0],
        Some(&requests),
    );
    assert!(
        ran.stdout.contains(r#""id":1"#),
        "initialize unanswered: {}",
        ran.stdout
    );
    assert!(!ran.stdout.contains("OUTSIDE SECRET"), "{}", ran.stdout);
    assert_eq!(
        tree_bytes(&root),
        before,
        "`scalpel serve` changed the tree"
    );
    // A write still works, and writes only what it was asked.
    answers(
        &root,
        &["edit", "app.py", "--old", "x + 1", "--new", "x + 2"],
        &[0],
    );
    assert_eq!(
        std::fs::read_to_string(root.join("app.py")).unwrap(),
        "def handle_request(x):\n    return x + 2\n"
    );
    assert_eq!(
        std::fs::read_to_string(&secret).unwrap(),
        "OUTSIDE SECRET\n"
    );
    assert_eq!(
        std::fs::read_dir(outer.path()).unwrap().count(),
        3,
        "nothing new beside the clone"
    );
}

/// A saved index that git tracks came with the repository: `find` neither
/// reads it (its units would be the shipper's) nor replaces it (a tracked
/// file would change), says so with the way out, and still answers from
/// the files. Once git no longer tracks it, Scalpel saves its own again.
#[test]
fn an_index_git_tracks_is_neither_read_nor_replaced() {
    let dir = repo();
    let root = dir.path();
    answers(root, &["index"], &[0]);
    // The shipper's store describes another tree: a file that is not here.
    std::fs::write(root.join("ghost.py"), "def phantom_helper():\n    pass\n").unwrap();
    answers(root, &["index"], &[0]);
    std::fs::remove_file(root.join("ghost.py")).unwrap();
    let shipped = std::fs::read(store(root)).unwrap();
    let git = |args: &[&str]| {
        let ok = Command::new("git")
            .args(args)
            .current_dir(root)
            .status()
            .unwrap()
            .success();
        assert!(ok, "git {args:?}");
    };
    git(&["add", "-f", ".scalpel/index/index.bin"]);
    let ran = answers(root, &["find", "phantom", "helper", "--json"], &[0, 1]);
    assert!(
        !ran.stdout.contains("ghost.py"),
        "read the shipped store: {}",
        ran.stdout
    );
    let all = format!("{}{}", ran.stdout, ran.stderr);
    assert!(
        all.contains("tracked by git") && all.contains("git rm --cached"),
        "{all}"
    );
    let ran = answers(root, &["find", "handle", "request"], &[0]);
    assert!(ran.stdout.contains("app.py"), "{}", ran.stdout);
    assert_eq!(
        std::fs::read(store(root)).unwrap(),
        shipped,
        "a tracked store was replaced"
    );
    // Untracked again: Scalpel's own store is saved.
    git(&["rm", "-q", "--cached", ".scalpel/index/index.bin"]);
    answers(root, &["find", "handle", "request"], &[0]);
    assert_ne!(std::fs::read(store(root)).unwrap(), shipped);
}

/// Where a CLI search keeps the names each parsed file defines.
fn definitions_store(root: &Path) -> PathBuf {
    root.join(".scalpel/index/definitions.bin")
}

/// A definitions store naming, for each `(path, content, names)`, the
/// names that content defines.
fn crafted_definitions(root: &Path, entries: &[(&str, &str, &[&str])]) -> Vec<u8> {
    let entries: Vec<RememberedDefinitions> = entries
        .iter()
        .map(|(path, content, names)| RememberedDefinitions {
            path: root.join(path),
            hash: scalpel::source::hash_bytes(content.as_bytes()),
            names: names.iter().map(|n| n.to_string()).collect(),
        })
        .collect();
    scalpel::ops::search::remembered::encode(root, &entries)
}

/// The `defines` of each file of a `search --json` answer.
fn defines(stdout: &str) -> Vec<(String, Vec<String>)> {
    let v: serde_json::Value = serde_json::from_str(stdout).unwrap();
    v["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let names = f["defines"].as_array().map_or(Vec::new(), |a| {
                a.iter().map(|n| n.as_str().unwrap().to_string()).collect()
            });
            (f["path"].as_str().unwrap().to_string(), names)
        })
        .collect()
}

/// What `app.py` defines in a `search --json` answer.
fn app_defines(stdout: &str) -> Vec<String> {
    defines(stdout)
        .into_iter()
        .find(|(path, _)| path == "app.py")
        .map(|(_, names)| names)
        .unwrap_or_else(|| panic!("no app.py: {stdout}"))
}

/// A CLI search remembers on disk which names the files it parsed define,
/// by content: the next search reads them from there instead of parsing
/// (a crafted entry shows it is read), an entry whose content changed is
/// not used, and a damaged store, a FIFO or a symlink to `/dev/zero` in
/// its place are ignored and answered around.
#[test]
fn a_search_remembers_definitions_by_content_and_ignores_a_bad_store() {
    let dir = repo();
    let root = dir.path();
    let caller = "from app import handle_request\nhandle_request(1)\n";
    std::fs::write(root.join("caller.py"), caller).unwrap();
    let args = ["search", "handle_request", "--json"];
    let first = answers(root, &args, &[0]);
    let expected = vec![
        ("app.py".to_string(), vec!["handle_request".to_string()]),
        ("caller.py".to_string(), vec![]),
    ];
    assert_eq!(defines(&first.stdout), expected);
    let saved = std::fs::read(definitions_store(root)).unwrap();
    assert!(saved.starts_with(b"SCLPDEF\n"));
    // Unchanged files: the same answer from the store, which is not
    // rewritten (nothing was parsed).
    let again = answers(root, &args, &[0]);
    assert_eq!(defines(&again.stdout), expected);
    assert_eq!(std::fs::read(definitions_store(root)).unwrap(), saved);

    // The store is what the search believes, for the content it names.
    // (`caller.py` has no line that could define the name, so it is never
    // asked; `app.py` is.)
    let app = std::fs::read_to_string(root.join("app.py")).unwrap();
    std::fs::write(
        definitions_store(root),
        crafted_definitions(root, &[("app.py", &app, &["something_else"])]),
    )
    .unwrap();
    let believed = answers(root, &args, &[0]);
    assert_eq!(app_defines(&believed.stdout), Vec::<String>::new());
    // Changed content: the entry is stale, the file is parsed again.
    std::fs::write(
        root.join("app.py"),
        format!("{app}\n\ndef other():\n    pass\n"),
    )
    .unwrap();
    let reparsed = answers(root, &args, &[0]);
    assert_eq!(app_defines(&reparsed.stdout), vec!["handle_request"]);

    // Damaged, truncated, a FIFO, a link to /dev/zero: the answer is the
    // parse's, and the command neither blocks nor reads without bound.
    let good = std::fs::read(definitions_store(root)).unwrap();
    let mut flipped = good.clone();
    let last = flipped.len() - 1;
    flipped[last] ^= 1;
    for bad in [flipped, good[..good.len() / 2].to_vec()] {
        std::fs::write(definitions_store(root), bad).unwrap();
        let ran = answers(root, &args, &[0]);
        assert_eq!(app_defines(&ran.stdout), vec!["handle_request"]);
    }
    for fifo in [true, false] {
        std::fs::remove_file(definitions_store(root)).unwrap();
        hostile(&definitions_store(root), fifo);
        let ran = answers(root, &args, &[0]);
        assert_eq!(app_defines(&ran.stdout), vec!["handle_request"]);
    }
}

/// A definitions store that git tracks came with the repository: a search
/// neither reads it nor replaces it.
#[test]
fn a_definitions_store_git_tracks_is_neither_read_nor_replaced() {
    let dir = repo();
    let root = dir.path();
    let app = std::fs::read_to_string(root.join("app.py")).unwrap();
    let shipped = crafted_definitions(root, &[("app.py", &app, &["something_else"])]);
    std::fs::create_dir_all(definitions_store(root).parent().unwrap()).unwrap();
    std::fs::write(definitions_store(root), &shipped).unwrap();
    let ok = Command::new("git")
        .args(["add", "-f", ".scalpel/index/definitions.bin"])
        .current_dir(root)
        .status()
        .unwrap()
        .success();
    assert!(ok);
    let ran = answers(root, &["search", "handle_request", "--json"], &[0]);
    assert_eq!(app_defines(&ran.stdout), vec!["handle_request"]);
    assert_eq!(std::fs::read(definitions_store(root)).unwrap(), shipped);
}
