//! Where a cold index spends its time: with `SCALPEL_INDEX_PHASES` set,
//! each phase of reading and cutting files is timed (summed over threads:
//! CPU-side seconds, not wall time) and the totals go to stderr at the end
//! of each refresh. Off, a phase costs one relaxed load.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// The environment variable that turns the timing on.
pub const PHASES_ENV: &str = "SCALPEL_INDEX_PHASES";

#[derive(Debug, Clone, Copy)]
pub enum Phase {
    /// Reading, decoding and hashing a file.
    Read,
    /// tree-sitter parsing.
    Parse,
    /// The tags query and the outline.
    Tags,
    /// Cutting the outline into units.
    Units,
    /// Tokenizing and embedding each unit.
    Embed,
    /// Counting each unit's terms for BM25.
    Count,
    /// Putting a batch into the index (under the write lock).
    Put,
    /// Encoding and writing the store.
    Save,
}

const NAMES: [&str; 8] = [
    "read", "parse", "tags", "units", "embed", "count", "put", "save",
];
static NANOS: [AtomicU64; 8] = [const { AtomicU64::new(0) }; 8];

fn enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var_os(PHASES_ENV).is_some())
}

/// Run `f`, adding its time to `phase` when timing is on.
pub fn time<T>(phase: Phase, f: impl FnOnce() -> T) -> T {
    if !enabled() {
        return f();
    }
    let t = Instant::now();
    let out = f();
    NANOS[phase as usize].fetch_add(t.elapsed().as_nanos() as u64, Ordering::Relaxed);
    out
}

/// Print the totals so far to stderr (when timing is on) and start again.
pub fn report(what: &str) {
    if !enabled() {
        return;
    }
    let parts: Vec<String> = NAMES
        .iter()
        .zip(&NANOS)
        .map(|(n, v)| format!("{n} {:.2} s", v.swap(0, Ordering::Relaxed) as f64 / 1e9))
        .collect();
    eprintln!("index phases ({what}): {}", parts.join(", "));
}
