//! MCP server benchmarks (`cargo bench --bench mcp`; builds the release
//! binary). Prints:
//!
//! - start: spawn `scalpel serve` → answer to the first `tools/list`
//!   (initialize, initialized, tools/list), median and best of 20;
//! - warm `extract_code` latency, p50/p99 over 1,000 calls on a generated
//!   ~2,000-line Python file, as a client on the other end of the pipes sees
//!   it (JSON encoding, stdio, spawn_blocking, cache hit, extraction);
//! - the same file through the library: a full parse (`Engine::load`) versus
//!   a cache hit (`Engine::load_cached`: read + hash);
//! - `search_files` over >= 10,000 real source files (stdlib + crate
//!   sources copied into a temp tree), median of 5;
//! - peak RSS of the server (VmHWM from /proc) after those calls.

use scalpel::ops::engine::{Engine, ParseCache};
use serde_json::{Value, json};
use std::path::Path;
use std::time::{Duration, Instant};

mod session;

use session::{BIN, Session};

/// A plausible 2,000-line module: 28 classes of 5 methods, with imports,
/// docstrings and decorators.
fn python_module() -> String {
    let mut s = String::from(
        "\"\"\"Generated benchmark module.\"\"\"\n\nimport functools\nfrom typing import Dict, List, Optional\n\nLIMIT = 100\n\n\n",
    );
    for c in 0..28 {
        s.push_str(&format!("class Service{c}:\n    \"\"\"Service number {c}.\"\"\"\n\n    def __init__(self, name: str) -> None:\n        self.name = name\n        self.items: Dict[str, int] = {{}}\n\n"));
        for m in 0..5 {
            s.push_str(&format!(
                "    @functools.lru_cache(maxsize=None)\n    def method_{m}(self, key: str, count: int = 0) -> Optional[int]:\n        \"\"\"Look up {{key}} and adjust it.\"\"\"\n        value = self.items.get(key)\n        if value is None:\n            return None\n        for i in range(count):\n            value += i * {m}\n            if value > LIMIT:\n                value = LIMIT\n        self.items[key] = value\n        return value\n\n"
            ));
        }
        s.push('\n');
    }
    s
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i]
}

fn ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1000.0)
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let source = python_module();
    std::fs::write(root.join("module.py"), &source).unwrap();
    let lines = source.lines().count();
    println!("binary: {BIN}");
    println!("file: module.py, {lines} lines, {} bytes", source.len());

    // Start-up: spawn to the first tools/list answer.
    let mut starts = Vec::new();
    for _ in 0..20 {
        let t = Instant::now();
        let mut s = Session::start(root);
        s.initialize();
        let tools = s.request("tools/list", json!({}));
        starts.push(t.elapsed());
        assert!(
            tools["result"]["tools"]
                .as_array()
                .is_some_and(|t| !t.is_empty())
        );
        s.close();
    }
    starts.sort();
    println!(
        "start (spawn -> tools/list answer): median {}, best {}, worst {}",
        ms(percentile(&starts, 0.5)),
        ms(starts[0]),
        ms(starts[starts.len() - 1])
    );

    // Warm extract_code.
    let mut s = Session::start(root);
    s.initialize();
    let args = json!({"name": "extract_code", "arguments": {"path": "module.py", "symbol": "Service20.method_3"}});
    let t = Instant::now();
    let first = s.request("tools/call", args.clone());
    let cold = t.elapsed();
    assert_eq!(first["result"]["isError"], false, "{first}");
    let mut lat = Vec::with_capacity(1000);
    for _ in 0..1000 {
        let t = Instant::now();
        let r = s.request("tools/call", args.clone());
        lat.push(t.elapsed());
        debug_assert_eq!(r["result"]["isError"], false);
    }
    lat.sort();
    println!("extract_code first call (parse): {}", ms(cold));
    println!(
        "extract_code warm, 1000 calls: p50 {}, p99 {}, max {}",
        ms(percentile(&lat, 0.5)),
        ms(percentile(&lat, 0.99)),
        ms(lat[lat.len() - 1])
    );
    let list = json!({"name": "list_symbols", "arguments": {"path": "module.py"}});
    let mut lat = Vec::with_capacity(200);
    for _ in 0..200 {
        let t = Instant::now();
        s.request("tools/call", list.clone());
        lat.push(t.elapsed());
    }
    lat.sort();
    println!(
        "list_symbols warm, 200 calls: p50 {}, p99 {}",
        ms(percentile(&lat, 0.5)),
        ms(percentile(&lat, 0.99))
    );
    // search_files over a tree of >= 10,000 real source files: the Python
    // standard library and the crate sources, replicated until there are
    // enough (real code, available offline).
    let tree = root.join("tree");
    let mut sources: Vec<std::path::PathBuf> = Vec::new();
    let stdlib = std::process::Command::new("python3")
        .args([
            "-c",
            "import sysconfig; print(sysconfig.get_paths()['stdlib'])",
        ])
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
    let home = std::env::var("HOME").unwrap_or_default();
    for dir in stdlib
        .into_iter()
        .chain([format!("{home}/.cargo/registry/src")])
    {
        sources.extend(
            scalpel::disk::walk_files(Path::new(&dir))
                .into_iter()
                .filter(|p| p.extension().is_some_and(|e| e == "py" || e == "rs")),
        );
    }
    let mut n = 0;
    'fill: for copy in 0.. {
        for (i, src) in sources.iter().enumerate() {
            if n >= 10_000 {
                break 'fill;
            }
            let dest = tree.join(format!("c{copy}/d{}", i / 200));
            std::fs::create_dir_all(&dest).unwrap();
            let name = src.file_name().unwrap().to_string_lossy();
            std::fs::copy(src, dest.join(format!("{i}_{name}"))).unwrap();
            n += 1;
        }
        if sources.is_empty() {
            break;
        }
    }
    let search = json!({"name": "search_files", "arguments": {"keywords": ["parse_args", "serialize"], "path": "tree"}});
    let mut lat = Vec::new();
    let mut last = Value::Null;
    for _ in 0..5 {
        let t = Instant::now();
        last = s.request("tools/call", search.clone());
        lat.push(t.elapsed());
    }
    lat.sort();
    let sc = &last["result"]["structuredContent"];
    println!(
        "search_files over {} files ({} matched, {} matches): median {}, best {}",
        sc["files_searched"],
        sc["files_matched"],
        sc["total_matches"],
        ms(percentile(&lat, 0.5)),
        ms(lat[0])
    );
    match s.peak_rss_kib() {
        Some(kib) => println!("server peak RSS: {:.1} MiB", kib as f64 / 1024.0),
        None => println!("server peak RSS: unavailable (no /proc)"),
    }
    s.close();

    // The cache itself, in-process.
    let engine = Engine::default();
    let cache = ParseCache::default();
    let path = root.join("module.py");
    let mut parse = Vec::new();
    for _ in 0..30 {
        let t = Instant::now();
        engine.load(&path, None).unwrap();
        parse.push(t.elapsed());
    }
    parse.sort();
    engine.load_cached(&cache, &path, None).unwrap();
    let mut hit = Vec::new();
    for _ in 0..1000 {
        let t = Instant::now();
        engine.load_cached(&cache, &path, None).unwrap();
        hit.push(t.elapsed());
    }
    hit.sort();
    let file = engine.load_cached(&cache, &path, None).unwrap();
    let req = scalpel::ops::engine::ExtractRequest {
        symbol: "Service20.method_3".into(),
        include_trivia: true,
        ..Default::default()
    };
    let mut extract = Vec::new();
    for _ in 0..200 {
        let t = Instant::now();
        scalpel::ops::engine::extract_from(&file, "module.py", &req).unwrap();
        extract.push(t.elapsed());
    }
    extract.sort();
    println!(
        "library: extract_from on a cached parse p50 {}",
        ms(percentile(&extract, 0.5))
    );
    println!(
        "library: full parse p50 {}; cache hit (read + hash) p50 {}, p99 {}",
        ms(percentile(&parse, 0.5)),
        ms(percentile(&hit, 0.5)),
        ms(percentile(&hit, 0.99))
    );
}
