//! The definition memo of `search_files` kept on disk, for one-shot
//! processes: `ROOT/.scalpel/index/definitions.bin`.
//!
//! A server remembers which names each parsed file defines, by content
//! ([`ParseCache::definitions`]), so its next searches do not parse those
//! files again. A CLI call starts empty: for a rare identifier, parsing the
//! few files that may define it costs more than the whole walk (issue 31).
//! So the CLI reads the memo from this file before searching and writes it
//! back when the search parsed something new; a server reads it at its
//! first search of a root and writes it back the same way, so a server
//! started again does not parse those files either.
//!
//! The file is a cache, and untrusted: truncated, corrupt, from another
//! version or crafted, it is ignored whole (the search parses as if it were
//! absent, and replaces it). An entry is used only for a file whose bytes
//! hash to the entry's hash, so a stale entry is never served; what a
//! crafted entry can do is claim that some content defines some names,
//! which only changes a ranking boost (and whoever can write the file can
//! write the sources). Like the search index, a copy that git tracks or
//! another user owns is neither read nor replaced.
//!
//! Layout (little-endian): magic, version, a blake3 of the body; the body
//! is the number of entries, then per entry the path (relative to the
//! root), the content hash and the names. Entries are written the most
//! recently used first, at most [`MAX_ENTRIES`] and about [`MAX_BYTES`].

use crate::disk::codec::{Reader, Writer};
use crate::disk::store;
use crate::ops::cache::{ParseCache, RememberedDefinitions};
use std::path::Path;
use std::sync::Arc;

/// The file's name under `ROOT/.scalpel/index/`.
pub const FILE: &str = "definitions.bin";
const MAGIC: &[u8; 8] = b"SCLPDEF\n";
const VERSION: u32 = 1;
/// Files remembered at most: the in-memory memo's own bound.
pub const MAX_ENTRIES: usize = crate::ops::cache::MEMO_ENTRIES;
/// The file is cut near this size when written, and a larger one is not
/// read.
pub const MAX_BYTES: usize = 4 * 1024 * 1024;
/// A name longer than this is not a definition's name: the file is refused.
const MAX_NAME: usize = 4096;
const HEAD: usize = MAGIC.len() + 4 + 32;

/// Have `cache` import `root`'s saved memo, read on another thread
/// meanwhile: the read asks git whether it tracks the file (a process, a
/// few milliseconds), which the search's walk need not wait for.
pub fn load_in_background(root: &Path, cache: &ParseCache) {
    let root = root.to_path_buf();
    let read = std::thread::Builder::new()
        .name("scalpel-definitions".into())
        .spawn(move || read(&root));
    match read {
        Ok(read) => cache.import_definitions_later(read),
        Err(e) => tracing::debug!(error = %e, "{FILE} not read"),
    }
}

/// The entries of `root`'s file, the oldest first, if there is a usable
/// one of ours (else none).
fn read(root: &Path) -> Vec<RememberedDefinitions> {
    if store::not_ours(root, FILE).is_some() {
        return Vec::new();
    }
    let Some(file) = store::IndexFile::open(root, FILE) else {
        return Vec::new();
    };
    let bytes = file
        .size()
        .filter(|&n| n <= MAX_BYTES as u64)
        .and_then(|n| file.read_len(n));
    match bytes.as_deref().map(|b| decode(root, b)) {
        Some(Some(mut entries)) => {
            // Written the most recent first; imported the oldest first.
            entries.reverse();
            entries
        }
        Some(None) => {
            tracing::debug!("{FILE}: not usable, ignored");
            Vec::new()
        }
        None => Vec::new(),
    }
}

/// Write `cache`'s definition memo (its entries under `root`) to `root`'s
/// file. A failure (a read-only tree) is logged and otherwise ignored: the
/// file only saves time.
pub fn save(root: &Path, cache: &ParseCache) {
    if store::not_ours(root, FILE).is_some() {
        return;
    }
    let bytes = encode(root, &cache.export_definitions());
    if let Err(e) = store::save_cache_file(root, FILE, &bytes) {
        tracing::debug!(error = %e, "{FILE} not saved");
    }
}

/// The file's bytes for `entries` (the most recently used first; those not
/// under `root` are left out).
pub fn encode(root: &Path, entries: &[RememberedDefinitions]) -> Vec<u8> {
    let mut body = Writer::default();
    let mut count = 0u32;
    body.u32(0);
    for e in entries.iter().take(MAX_ENTRIES) {
        let Some(rel) = e.path.strip_prefix(root).ok().and_then(Path::to_str) else {
            continue;
        };
        if !crate::disk::store::safe_rel_path(rel) || e.names.iter().any(|n| n.len() > MAX_NAME) {
            continue;
        }
        let size: usize =
            12 + rel.len() + e.hash.len() + e.names.iter().map(|n| 4 + n.len()).sum::<usize>();
        if HEAD + body.buf.len() + size > MAX_BYTES {
            break;
        }
        body.str(rel);
        body.str(&e.hash);
        body.u32(e.names.len() as u32);
        for n in e.names.iter() {
            body.str(n);
        }
        count += 1;
    }
    body.buf[..4].copy_from_slice(&count.to_le_bytes());
    sealed(&body.buf)
}

/// The file around `body`: magic, version, the body's checksum, the body.
fn sealed(body: &[u8]) -> Vec<u8> {
    let mut out = Writer::default();
    out.buf.extend_from_slice(MAGIC);
    out.u32(VERSION);
    out.buf.extend_from_slice(blake3::hash(body).as_bytes());
    out.buf.extend_from_slice(body);
    out.buf
}

/// The entries of a file's bytes, with paths under `root`; `None` for
/// anything but a whole, checked file of this version.
fn decode(root: &Path, bytes: &[u8]) -> Option<Vec<RememberedDefinitions>> {
    let mut r = Reader::new(bytes);
    if r.take(MAGIC.len())? != MAGIC || r.u32()? != VERSION {
        return None;
    }
    let sum = r.take(32)?;
    let body = bytes.get(HEAD..)?;
    if blake3::hash(body).as_bytes() != sum {
        return None;
    }
    let mut r = Reader::new(body);
    let count = r.count(12)?;
    if count > MAX_ENTRIES {
        return None;
    }
    let mut entries = Vec::with_capacity(count);
    for _ in 0..count {
        let rel = r.str()?;
        let hash = r.string()?;
        if !crate::disk::store::safe_rel_path(rel) {
            return None;
        }
        let n = r.count(4)?;
        let mut names = Vec::with_capacity(n);
        for _ in 0..n {
            let name = r.string()?;
            if name.len() > MAX_NAME {
                return None;
            }
            names.push(name);
        }
        entries.push(RememberedDefinitions {
            path: root.join(rel),
            hash,
            names: Arc::from(names),
        });
    }
    (r.left() == 0).then_some(entries)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(root: &Path, rel: &str, hash: &str, names: &[&str]) -> RememberedDefinitions {
        RememberedDefinitions {
            path: root.join(rel),
            hash: hash.to_string(),
            names: names.iter().map(|n| n.to_string()).collect(),
        }
    }

    #[test]
    fn entries_round_trip_and_leave_the_root_out() {
        let root = Path::new("/r");
        let entries = vec![
            entry(root, "a.py", "h1", &["f", "C"]),
            entry(root, "pkg/b.rs", "h2", &[]),
        ];
        let outside = entry(Path::new("/elsewhere"), "c.py", "h3", &["g"]);
        let mut all = entries.clone();
        all.push(outside);
        let bytes = encode(root, &all);
        assert_eq!(decode(root, &bytes), Some(entries));
    }

    #[test]
    fn any_damage_refuses_the_whole_file() {
        let root = Path::new("/r");
        let bytes = encode(root, &[entry(root, "a.py", "h1", &["f"])]);
        for cut in 0..bytes.len() {
            assert_eq!(decode(root, &bytes[..cut]), None, "cut at {cut}");
        }
        for at in 0..bytes.len() {
            let mut bad = bytes.clone();
            bad[at] ^= 0x20;
            assert_eq!(decode(root, &bad), None, "byte {at} flipped");
        }
    }

    #[test]
    fn a_path_leaving_the_root_is_refused() {
        let root = Path::new("/r");
        for rel in ["../x.py", "/etc/passwd", "a/./b.py", ""] {
            let mut body = Writer::default();
            body.u32(1);
            body.str(rel);
            body.str("h");
            body.u32(0);
            assert_eq!(decode(root, &sealed(&body.buf)), None, "{rel:?}");
        }
    }

    #[test]
    fn the_file_is_cut_near_its_bound() {
        let root = Path::new("/r");
        let big: Vec<String> = (0..2000).map(|i| format!("name_{i:0>1000}")).collect();
        let names: Vec<&str> = big.iter().map(String::as_str).collect();
        let entries: Vec<_> = (0..10)
            .map(|i| entry(root, &format!("f{i}.py"), "h", &names))
            .collect();
        let bytes = encode(root, &entries);
        assert!(bytes.len() <= MAX_BYTES);
        let back = decode(root, &bytes).unwrap();
        // The most recent entries are the ones kept.
        assert_eq!(back[..], entries[..back.len()]);
        assert!(!back.is_empty() && back.len() < entries.len());
    }
}
