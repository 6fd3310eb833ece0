//! A bounded in-memory cache of parsed files, for long-running processes
//! (the MCP server). Agents call `list_symbols` and then `extract_code` on
//! the same file, often many times; parsing is the expensive step, reading
//! and hashing a source file is cheap. So every lookup reads the file and
//! hashes its bytes, and the parse is reused only when path, forced language
//! and content hash all match: a file changed on disk is never served stale,
//! whatever its mtime says.
//!
//! Bounded by entry count and by an estimate of memory (source bytes times a
//! factor covering the syntax tree and the outline); the least recently used
//! entries go first. Nothing here knows about MCP.

use super::Engine;
use crate::disk;
use crate::error::Result;
use crate::symbols::ParsedFile;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

/// Memory of a cached parse, per source byte (text, tree nodes, symbols).
const COST_PER_SOURCE_BYTE: usize = 8;

/// Counters for tests, benchmarks and logs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CacheStats {
    pub entries: usize,
    /// Estimated memory held, in bytes.
    pub bytes: usize,
    pub hits: u64,
    pub misses: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Key {
    path: PathBuf,
    language: Option<String>,
}

struct Entry {
    hash: String,
    file: Arc<ParsedFile>,
    cost: usize,
    last_used: u64,
}

#[derive(Default)]
struct Inner {
    map: HashMap<Key, Entry>,
    clock: u64,
    bytes: usize,
    hits: u64,
    misses: u64,
}

/// Parsed files keyed by path, forced language and content hash.
pub struct ParseCache {
    inner: Mutex<Inner>,
    max_entries: usize,
    max_bytes: usize,
    definitions: DefinitionMemo,
}

/// Files of [`DefinitionMemo`] at most.
pub(crate) const MEMO_ENTRIES: usize = 4096;
/// Bytes of names [`DefinitionMemo`] holds at most.
const MEMO_BYTES: usize = 32 * 1024 * 1024;

/// The names a file defines, by path and content hash: what the definition
/// boost of `search_files` asks of a file (`ops::search`). A search parses
/// the few files whose keyword lines could define a keyword; an agent's
/// next searches meet many of the same files, and a long-lived process
/// answers those from here instead of parsing them again. Bounded by
/// files and by the names' bytes; the least recently used goes first.
#[derive(Default)]
struct DefinitionMemo {
    inner: Mutex<MemoInner>,
    /// Saved memos being read on other threads, imported before the memo
    /// is next consulted (held while they are joined, so no lookup runs
    /// before them).
    pending: Mutex<Vec<std::thread::JoinHandle<Vec<RememberedDefinitions>>>>,
}

#[derive(Default)]
struct MemoInner {
    map: HashMap<PathBuf, MemoEntry>,
    clock: u64,
    bytes: usize,
    /// Entries computed here (not imported) since the memo was made.
    computed: usize,
    /// Roots whose saved memo was imported (or tried): once per root.
    imported_roots: std::collections::HashSet<PathBuf>,
}

/// One file's entry of the definition memo, as exported to (and imported
/// from) the copy a one-shot process keeps on disk (`ops::search`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RememberedDefinitions {
    pub path: PathBuf,
    /// [`crate::source::hash_bytes`] of the content the names are of.
    pub hash: String,
    pub names: Arc<[String]>,
}

struct MemoEntry {
    hash: String,
    names: Arc<[String]>,
    cost: usize,
    last_used: u64,
}

impl Default for ParseCache {
    /// 256 files or about 256 MiB, whichever is reached first.
    fn default() -> Self {
        ParseCache::new(256, 256 * 1024 * 1024)
    }
}

impl std::fmt::Debug for ParseCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ParseCache")
            .field("stats", &self.stats())
            .field("max_entries", &self.max_entries)
            .field("max_bytes", &self.max_bytes)
            .finish()
    }
}

impl ParseCache {
    pub fn new(max_entries: usize, max_bytes: usize) -> ParseCache {
        ParseCache {
            inner: Mutex::new(Inner::default()),
            max_entries: max_entries.max(1),
            max_bytes,
            definitions: DefinitionMemo::default(),
        }
    }

    /// The names the file at `path` defines, remembered for the content
    /// whose [`crate::source::hash_bytes`] is `hash`; else `compute` them
    /// and remember them (an error, a timeout or a cancellation, is
    /// returned and not remembered).
    pub fn definitions(
        &self,
        path: &Path,
        hash: &str,
        compute: impl FnOnce() -> Result<Vec<String>>,
    ) -> Result<Arc<[String]>> {
        if let Some(names) = self.remembered_definitions(path, hash) {
            return Ok(names);
        }
        // Computed outside the lock: searches parse on every core.
        let names: Arc<[String]> = compute()?.into();
        let mut inner = self.definitions.lock();
        inner.computed += 1;
        inner.insert(path.to_path_buf(), hash.to_string(), names.clone());
        Ok(names)
    }

    /// The names remembered for `path` with content `hash`, if any (a
    /// lookup: nothing is computed).
    pub fn remembered_definitions(&self, path: &Path, hash: &str) -> Option<Arc<[String]>> {
        self.settle();
        let mut inner = self.definitions.lock();
        inner.clock += 1;
        let now = inner.clock;
        let e = inner.map.get_mut(path).filter(|e| e.hash == hash)?;
        e.last_used = now;
        Some(e.names.clone())
    }

    /// Remember `entries` (the oldest first: the last is the most recently
    /// used), as if computed here, without counting them as computed.
    fn import_definitions(&self, entries: impl IntoIterator<Item = RememberedDefinitions>) {
        let mut inner = self.definitions.lock();
        for e in entries {
            inner.insert(e.path, e.hash, e.names);
        }
    }

    /// [`Self::import_definitions`] of what `read` gives, once it is done:
    /// before the memo is next consulted or exported.
    pub fn import_definitions_later(
        &self,
        read: std::thread::JoinHandle<Vec<RememberedDefinitions>>,
    ) {
        self.definitions
            .pending
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(read);
    }

    /// Import the reads [`Self::import_definitions_later`] was given.
    fn settle(&self) {
        let mut pending = self
            .definitions
            .pending
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        for read in pending.drain(..) {
            // A read that panicked imports nothing: the memo only saves time.
            if let Ok(entries) = read.join() {
                self.import_definitions(entries);
            }
        }
    }

    /// Every remembered entry, the most recently used first.
    pub fn export_definitions(&self) -> Vec<RememberedDefinitions> {
        self.settle();
        let inner = self.definitions.lock();
        let mut entries: Vec<(&PathBuf, &MemoEntry)> = inner.map.iter().collect();
        entries.sort_unstable_by_key(|e| std::cmp::Reverse(e.1.last_used));
        entries
            .into_iter()
            .map(|(path, e)| RememberedDefinitions {
                path: path.clone(),
                hash: e.hash.clone(),
                names: e.names.clone(),
            })
            .collect()
    }

    /// True the first time it is asked for `root` (then the caller imports
    /// the memo saved there), false after.
    pub fn first_import_for(&self, root: &Path) -> bool {
        self.definitions
            .lock()
            .imported_roots
            .insert(root.to_path_buf())
    }

    /// How many entries were computed (parsed) here, not imported.
    pub fn definitions_computed(&self) -> usize {
        self.definitions.lock().computed
    }

    /// How many files' definitions are remembered.
    pub fn definitions_remembered(&self) -> usize {
        self.definitions.lock().map.len()
    }

    pub fn stats(&self) -> CacheStats {
        let inner = self.lock();
        CacheStats {
            entries: inner.map.len(),
            bytes: inner.bytes,
            hits: inner.hits,
            misses: inner.misses,
        }
    }

    /// Drop every entry for `path` (any forced language).
    pub fn invalidate(&self, path: &Path) {
        let mut inner = self.lock();
        let gone: Vec<Key> = inner
            .map
            .keys()
            .filter(|k| k.path == path)
            .cloned()
            .collect();
        for k in gone {
            if let Some(e) = inner.map.remove(&k) {
                inner.bytes -= e.cost;
            }
        }
    }

    /// A poisoned lock only means another thread panicked while holding it;
    /// every update below leaves the map consistent, so keep going.
    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn get(&self, key: &Key, hash: &str) -> Option<Arc<ParsedFile>> {
        let mut inner = self.lock();
        inner.clock += 1;
        let now = inner.clock;
        let hit = match inner.map.get_mut(key) {
            Some(e) if e.hash == hash => {
                e.last_used = now;
                Some(e.file.clone())
            }
            _ => None,
        };
        if hit.is_some() {
            inner.hits += 1;
        } else {
            inner.misses += 1;
        }
        hit
    }

    fn insert(&self, key: Key, file: Arc<ParsedFile>) {
        let cost = file
            .source
            .text
            .len()
            .saturating_mul(COST_PER_SOURCE_BYTE)
            .max(1);
        let mut inner = self.lock();
        if let Some(old) = inner.map.remove(&key) {
            inner.bytes -= old.cost;
        }
        if cost > self.max_bytes {
            return;
        }
        let Inner { map, bytes, .. } = &mut *inner;
        evict(map, bytes, cost, self.max_entries, self.max_bytes, |e| {
            (e.last_used, e.cost)
        });
        inner.clock += 1;
        let last_used = inner.clock;
        inner.bytes += cost;
        inner.map.insert(
            key,
            Entry {
                hash: file.source.hash.clone(),
                file,
                cost,
                last_used,
            },
        );
    }
}

impl DefinitionMemo {
    fn lock(&self) -> std::sync::MutexGuard<'_, MemoInner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl MemoInner {
    /// Add (or replace) `path`'s entry as the most recently used, making
    /// room first; an entry larger than the whole memo is not kept.
    fn insert(&mut self, path: PathBuf, hash: String, names: Arc<[String]>) {
        if let Some(old) = self.map.remove(&path) {
            self.bytes -= old.cost;
        }
        let cost = names.iter().map(|n| n.len() + 24).sum::<usize>() + 64;
        if cost > MEMO_BYTES {
            return;
        }
        evict(
            &mut self.map,
            &mut self.bytes,
            cost,
            MEMO_ENTRIES,
            MEMO_BYTES,
            |e| (e.last_used, e.cost),
        );
        self.clock += 1;
        self.bytes += cost;
        let last_used = self.clock;
        self.map.insert(
            path,
            MemoEntry {
                hash,
                names,
                cost,
                last_used,
            },
        );
    }
}

impl ParseCache {
    /// Remember a parse made elsewhere (after an edit, from the incremental
    /// reparse), so the next read of those exact bytes is a hit.
    pub fn remember(&self, path: &Path, file: Arc<ParsedFile>) {
        let key = Key {
            path: path.to_path_buf(),
            language: None,
        };
        self.insert(key, file);
    }
}

impl Engine {
    /// [`Engine::load`] through `cache`: the file is read and hashed on every
    /// call, and parsed only when no parse of these exact bytes is cached.
    /// Errors are those of [`Engine::load`] (and are not cached).
    pub fn load_cached(
        &self,
        cache: &ParseCache,
        path: &Path,
        forced: Option<&str>,
    ) -> Result<Arc<ParsedFile>> {
        let Some(bytes) = read_within(path, self.max_file_size) else {
            // Directory, too large, unreadable...: `load` reports it exactly.
            return self.load(path, forced).map(Arc::new);
        };
        let key = Key {
            path: path.to_path_buf(),
            language: forced.map(str::to_string),
        };
        let hash = crate::source::hash_bytes(&bytes);
        if let Some(file) = cache.get(&key, &hash) {
            return Ok(file);
        }
        let file = Arc::new(self.load_with(path, forced, || crate::source::decode(path, bytes))?);
        cache.insert(key, file.clone());
        Ok(file)
    }
}

/// Drop the least recently used entries of `map` (each one's last use and
/// cost from `of`) until one more of `cost` fits in `max_entries` entries
/// and `max_bytes` bytes, `bytes` being what `map` holds.
fn evict<K: Clone + Eq + std::hash::Hash, E>(
    map: &mut HashMap<K, E>,
    bytes: &mut usize,
    cost: usize,
    max_entries: usize,
    max_bytes: usize,
    of: impl Fn(&E) -> (u64, usize),
) {
    while map.len() >= max_entries || *bytes + cost > max_bytes {
        let Some(oldest) = map
            .iter()
            .min_by_key(|(_, e)| of(e).0)
            .map(|(k, _)| k.clone())
        else {
            break;
        };
        if let Some(e) = map.remove(&oldest) {
            *bytes -= of(&e).1;
        }
    }
}

/// The bytes of a regular file no larger than `max`, or `None` on any problem.
fn read_within(path: &Path, max: u64) -> Option<Vec<u8>> {
    disk::read_bytes(path, max).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;

    fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }

    #[test]
    fn hit_on_same_bytes_miss_on_change() {
        let dir = tempfile::tempdir().unwrap();
        let p = write(dir.path(), "a.py", "def f():\n    pass\n");
        let engine = Engine::default();
        let cache = ParseCache::default();
        let a = engine.load_cached(&cache, &p, None).unwrap();
        let b = engine.load_cached(&cache, &p, None).unwrap();
        assert!(Arc::ptr_eq(&a, &b), "same bytes reuse the parse");
        assert_eq!(cache.stats().hits, 1);
        assert_eq!(cache.stats().misses, 1);

        // Same length, so only the content hash can tell.
        write(dir.path(), "a.py", "def g():\n    pass\n");
        let c = engine.load_cached(&cache, &p, None).unwrap();
        assert!(!Arc::ptr_eq(&a, &c));
        assert_eq!(c.symbols[0].name, "g");
        assert_eq!(cache.stats().entries, 1, "replaced, not added");

        // A forced language is part of the key.
        let d = engine.load_cached(&cache, &p, Some("python")).unwrap();
        assert!(!Arc::ptr_eq(&c, &d));
        assert_eq!(cache.stats().entries, 2);
        cache.invalidate(&p);
        assert_eq!(cache.stats().entries, 0);
        assert_eq!(cache.stats().bytes, 0);
    }

    #[test]
    fn bounded_by_count_and_bytes_lru() {
        let dir = tempfile::tempdir().unwrap();
        let engine = Engine::default();
        let cache = ParseCache::new(2, usize::MAX);
        let a = write(dir.path(), "a.py", "def a(): pass\n");
        let b = write(dir.path(), "b.py", "def b(): pass\n");
        let c = write(dir.path(), "c.py", "def c(): pass\n");
        engine.load_cached(&cache, &a, None).unwrap();
        engine.load_cached(&cache, &b, None).unwrap();
        engine.load_cached(&cache, &a, None).unwrap(); // a is now newer than b
        engine.load_cached(&cache, &c, None).unwrap(); // evicts b
        assert_eq!(cache.stats().entries, 2);
        let before = cache.stats().hits;
        engine.load_cached(&cache, &a, None).unwrap();
        assert_eq!(cache.stats().hits, before + 1, "a survived");
        engine.load_cached(&cache, &b, None).unwrap();
        assert_eq!(cache.stats().hits, before + 1, "b was evicted");

        let tiny = ParseCache::new(100, 10);
        engine.load_cached(&tiny, &a, None).unwrap();
        assert_eq!(tiny.stats().entries, 0, "larger than the whole budget");
    }

    #[test]
    fn errors_are_those_of_load() {
        let dir = tempfile::tempdir().unwrap();
        let engine = Engine::default();
        let cache = ParseCache::default();
        let missing = dir.path().join("nope.py");
        assert_eq!(
            engine
                .load_cached(&cache, &missing, None)
                .unwrap_err()
                .code(),
            ErrorCode::Io
        );
        let bin = dir.path().join("x.bin");
        std::fs::write(&bin, b"\0\x01").unwrap();
        assert_eq!(
            engine.load_cached(&cache, &bin, None).unwrap_err().code(),
            engine.load(&bin, None).unwrap_err().code()
        );
        let big = write(dir.path(), "big.py", "x = 1\n");
        let small = Engine {
            max_file_size: 2,
            ..Engine::default()
        };
        assert_eq!(
            small.load_cached(&cache, &big, None).unwrap_err().code(),
            ErrorCode::TooLarge
        );
        assert_eq!(
            engine
                .load_cached(&cache, dir.path(), None)
                .unwrap_err()
                .code(),
            ErrorCode::InvalidArgument
        );
        assert_eq!(cache.stats().entries, 0);
    }
}
