//! Parse throughput: parse + outline (tags query, ranges, name paths) over
//! real code, in process, per language. Run: `cargo bench --bench throughput`.
//! Corpora: the Python standard library, crate sources under
//! ~/.cargo/registry/src, and npm's JavaScript (whichever are present).

use scalpel::ops::engine::Engine;
use std::path::{Path, PathBuf};
use std::time::Instant;

fn stdlib() -> Option<PathBuf> {
    let out = std::process::Command::new("python3")
        .args([
            "-c",
            "import sysconfig; print(sysconfig.get_paths()['stdlib'])",
        ])
        .output()
        .ok()?;
    Some(PathBuf::from(String::from_utf8(out.stdout).ok()?.trim()))
}

fn files(dir: &Path, ext: &str, limit_bytes: u64) -> Vec<PathBuf> {
    let mut total = 0;
    scalpel::disk::walk_files(dir)
        .into_iter()
        .filter(|p| {
            p.extension().is_some_and(|e| e == ext) && !p.to_string_lossy().contains("/test")
        })
        .take_while(|p| {
            total += std::fs::metadata(p).map(|m| m.len()).unwrap_or(0);
            total < limit_bytes
        })
        .collect()
}

fn measure(name: &str, files: &[PathBuf]) {
    let engine = Engine::default();
    let texts: Vec<(PathBuf, usize)> = files
        .iter()
        .map(|f| (f.clone(), std::fs::metadata(f).unwrap().len() as usize))
        .collect();
    // Warm the page cache and the query compilation.
    for (f, _) in texts.iter().take(20) {
        let _ = engine.load(f, None);
    }
    let bytes: usize = texts.iter().map(|t| t.1).sum();
    let t = Instant::now();
    let mut symbols = 0;
    for (f, _) in &texts {
        if let Ok(p) = engine.load(f, None) {
            symbols += p.symbols.len();
        }
    }
    let secs = t.elapsed().as_secs_f64();
    // The same files, parse only (no outline): the tree-sitter share.
    let sources: Vec<_> = texts
        .iter()
        .filter_map(|(f, _)| engine.load(f, None).ok())
        .collect();
    let t = Instant::now();
    for p in &sources {
        let _ = scalpel::symbols::parse_tree(&p.language, p.source.body(), None);
    }
    let bare = t.elapsed().as_secs_f64();
    println!(
        "{name:<12} {:>5} files {:>7.1} MB  {:>6.2} s  {:>6.1} MB/s  {:>7.0} files/s  {symbols} symbols (one thread: read + parse + outline); parse alone {:.2} s, {:.1} MB/s",
        texts.len(),
        bytes as f64 / 1e6,
        secs,
        bytes as f64 / 1e6 / secs,
        texts.len() as f64 / secs,
        bare,
        bytes as f64 / 1e6 / bare
    );
}

fn main() {
    if let Some(dir) = stdlib() {
        measure("python", &files(&dir, "py", 20_000_000));
    }
    let home = std::env::var("HOME").unwrap_or_default();
    let registry = Path::new(&home).join(".cargo/registry/src");
    if registry.is_dir() {
        measure("rust", &files(&registry, "rs", 20_000_000));
    }
    if let Ok(out) = std::process::Command::new("npm")
        .args(["root", "-g"])
        .output()
    {
        let root = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()).join("npm");
        measure("javascript", &files(&root, "js", 20_000_000));
    }
}
