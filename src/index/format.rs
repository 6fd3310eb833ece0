//! The saved index, `ROOT/.scalpel/index/index.bin`: a compact binary form
//! of everything a warm start needs (files with their size, time and hash;
//! units; int8 vectors; the BM25 term dictionary and postings), so opening
//! an index is a read and a decode, not a re-tokenization.
//!
//! Layout (little-endian): magic, format version, a blake3 checksum of
//! everything up to the vector records; the number of units and the
//! lengths of the first two sections; the first section (model id; files
//! with their metadata and unit counts; the tables of kinds and languages;
//! units in file order, renumbered densely on save: lines, kind and
//! language by number, flags, part, and the name, name path, parent,
//! signature head and doc sentence, no body; the vectors' dimension, which
//! units have one, their sign bits and the blake3 of their records), the
//! second (the keyword index: field lengths, then the sorted terms, each
//! with its postings) and last the vector records (a scale and `dim`
//! bytes per unit). The checksum and the two sections are decoded on their
//! own threads, straight into the flat arrays of `table.rs`, `vectors.rs`
//! and `bm25.rs`.
//!
//! A load reads neither the records nor their hash: a warm search with a
//! model needs the sign bits of every unit but the int8 vectors of a few
//! hundred, read back at query time (reading and hashing the records was
//! half of a warm `scalpel find` with a model, issue 31). A record is data
//! of a fixed size at a checked offset: a damaged one can change a score,
//! never a read's bounds. The records' hash, under the checksum, makes a
//! store saved with other vectors another store to the query-time check.
//!
//! The file is untrusted: it may be truncated, corrupt, from another
//! version, or crafted. Every length and id is checked against what is left
//! and what was declared; a path that is absolute or leaves the root is
//! refused; any failure makes [`decode`] return `None` and the index is
//! rebuilt from the files. Nothing here panics on bad input.
//!
//! **Invariant:** a corrupt, truncated or foreign-version store is rebuilt,
//! never trusted and never a panic (`tests/search_index.rs`,
//! `a_corrupt_or_foreign_store_is_rebuilt`; unit tests below).

use super::bm25::{self, Bm25};
use super::table::{FileSlot, RowParts, STRINGS, SummaryWindow, saved_summary_at};
use super::vectors::{ReadAt, Saved};
use super::{FileMeta, Index};
use crate::disk::codec::{Reader, Writer};
use std::sync::Arc;

const MAGIC: &[u8; 8] = b"SCLPIDX\n";
/// Version of the layout; another version is rebuilt.
pub const FORMAT: u32 = 5;
/// The file's name under `ROOT/.scalpel/index/`.
pub const FILE: &str = "index.bin";
/// The file of the first (JSON) format, deleted when the new one is saved.
pub const LEGACY_FILE: &str = "units.json";

/// Offset of the checksum in the file.
pub const SUM_AT: u64 = (MAGIC.len() + 4) as u64;
/// Offset of what the checksum covers (the counts, the first two sections).
const BODY_AT: usize = SUM_AT as usize + 32;
/// Offset of the first section (after the header: the number of units and
/// the two sections' lengths).
const HEAD_AT: usize = MAGIC.len() + 4 + 32 + 4 + 8 + 8;

/// A saved index: its bytes, where each unit went (old id → record,
/// `u32::MAX` for removed units), where each record's summary (signature
/// bytes) is, and where its vector records start.
pub(super) struct Encoded {
    pub bytes: Vec<u8>,
    pub remap: Vec<u32>,
    pub summary_at: Vec<u64>,
    pub vectors_at: u64,
    pub records: u32,
    sum: [u8; 32],
}

impl Encoded {
    /// The checksum written in the header.
    pub fn sum(&self) -> [u8; 32] {
        self.sum
    }
}

/// The bytes of `index` as saved, with `model` (the model's id) naming
/// what its vectors were made with.
#[cfg(test)]
pub(super) fn encode(index: &Index, model: Option<&str>) -> Vec<u8> {
    encode_full(index, model).bytes
}

/// [`encode`], with where each unit and vector went.
pub(super) fn encode_full(index: &Index, model: Option<&str>) -> Encoded {
    let table = &index.table;
    let mut files: Vec<&FileSlot> = table.files().collect();
    files.sort_by(|a, b| a.path.cmp(&b.path));
    // Old id → new id (dense, in file order); u32::MAX for removed units.
    let mut remap = vec![u32::MAX; table.slots()];
    let mut order: Vec<u32> = Vec::with_capacity(index.unit_count());
    // One buffer (the index can be large): the header's checksum and
    // lengths are filled in at the end.
    let mut w = Writer::default();
    w.buf.extend_from_slice(MAGIC);
    w.u32(FORMAT);
    w.buf.extend_from_slice(&[0; 32]);
    let body_at = w.buf.len();
    w.u32(0);
    w.u64(0);
    w.u64(0);
    let head_at = w.buf.len();
    w.str(model.unwrap_or(""));
    w.u32(files.len() as u32);
    for f in &files {
        w.str(&f.path);
        w.str(&f.meta.hash);
        w.u64(f.meta.size);
        w.buf.extend_from_slice(&f.meta.mtime.to_le_bytes());
        w.u32(f.count);
        for id in f.first..f.first + f.count {
            remap[id as usize] = order.len() as u32;
            order.push(id);
        }
    }
    // Kinds and languages, then each unit naming them by number.
    let mut kinds: Vec<&str> = Vec::new();
    let mut languages: Vec<&str> = Vec::new();
    let rows: Vec<(u32, RowParts)> = order
        .iter()
        .filter_map(|&id| Some((id, table.parts(id)?)))
        .collect();
    let numbers: Vec<(u16, u16)> = rows
        .iter()
        .map(|(_, p)| {
            (
                number(&mut kinds, p.kind),
                number(&mut languages, p.language),
            )
        })
        .collect();
    for list in [&kinds, &languages] {
        w.u32(list.len() as u32);
        list.iter().for_each(|s| w.str(s));
    }
    w.u32(rows.len() as u32);
    // The bytes of the strings a load keeps in memory (the arena is
    // allocated once): the names; summaries stay in the store.
    let text: usize = rows
        .iter()
        .map(|(_, p)| p.strings.iter().map(|s| s.len()).sum::<usize>())
        .sum();
    w.u64(text as u64);
    // Summaries come from memory or the store this index was loaded from
    // (read in its order, so through one window).
    let mut window = SummaryWindow::default();
    let mut summary_at = Vec::with_capacity(rows.len());
    for ((id, p), (kind, language)) in rows.iter().zip(numbers) {
        w.u32(p.start_line);
        w.u32(p.end_line);
        w.u16(kind);
        w.u16(language);
        w.u8(p.flags | if p.has_parent { PARENT_BIT } else { 0 });
        w.u16(p.part);
        for s in &p.strings[..3] {
            w.u16(s.len() as u16);
            w.buf.extend_from_slice(s.as_bytes());
        }
        let sd = table.summary_in(*id, &mut window).unwrap_or_default();
        summary_at.push(w.buf.len() as u64 + 2);
        for s in [&sd.signature, &sd.doc] {
            w.u16(s.len() as u16);
            w.buf.extend_from_slice(s.as_bytes());
        }
    }
    // Vectors: the dimension; which units have one (a bit each) and their
    // sign bits, filled in below from the records; the records' hash.
    let dim = index.vectors.dim();
    w.u32(dim as u32);
    let words = dim.div_ceil(64);
    let has_at = w.buf.len();
    let signs_at = has_at + if dim > 0 { order.len().div_ceil(8) } else { 0 };
    let records_sum_at = signs_at + if dim > 0 { order.len() * words * 8 } else { 0 };
    w.buf.resize(records_sum_at + 32, 0);
    let head_len = (w.buf.len() - head_at) as u64;
    index.bm25.write(&mut w, &remap, &order);
    let vectors_at = w.buf.len();
    // The records, one per unit (scale, NaN for none; then its bytes), read
    // back one by one at query time.
    if dim > 0 {
        w.buf.reserve(order.len() * (4 + dim));
        let mut n = 0;
        let mut signs = Vec::with_capacity(words);
        index.vectors.for_each(&order, |v| {
            match v {
                Some((s, q)) => {
                    w.buf[has_at + n / 8] |= 1 << (n % 8);
                    signs.clear();
                    super::vectors::sign_bits(q, words, &mut signs);
                    let at = signs_at + n * words * 8;
                    for (i, word) in signs.iter().enumerate() {
                        w.buf[at + i * 8..at + i * 8 + 8].copy_from_slice(&word.to_le_bytes());
                    }
                    w.f32(s);
                    w.buf.extend(q.iter().map(|&x| x as u8));
                }
                None => {
                    w.f32(f32::NAN);
                    w.buf.resize(w.buf.len() + dim, 0);
                }
            }
            n += 1;
        });
    }
    let records_sum = blake3::hash(&w.buf[vectors_at..]);
    w.buf[records_sum_at..records_sum_at + 32].copy_from_slice(records_sum.as_bytes());
    let keywords_len = (vectors_at - head_at) as u64 - head_len;
    w.buf[body_at..body_at + 4].copy_from_slice(&(order.len() as u32).to_le_bytes());
    w.buf[body_at + 4..body_at + 12].copy_from_slice(&head_len.to_le_bytes());
    w.buf[body_at + 12..head_at].copy_from_slice(&keywords_len.to_le_bytes());
    let sum = blake3::hash(&w.buf[body_at..vectors_at]);
    let vectors_at = vectors_at as u64;
    w.buf[body_at - 32..body_at].copy_from_slice(sum.as_bytes());
    debug_assert_eq!(head_at, HEAD_AT);
    Encoded {
        sum: *sum.as_bytes(),
        records: order.len() as u32,
        bytes: w.buf,
        remap,
        summary_at,
        vectors_at,
    }
}

/// The number of `s` in `list` (added when new): kinds and languages are
/// saved once, units name them by number.
fn number<'a>(list: &mut Vec<&'a str>, s: &'a str) -> u16 {
    match list.iter().position(|k| *k == s) {
        Some(i) => i as u16,
        None => {
            list.push(s);
            (list.len() - 1) as u16
        }
    }
}

/// The least bytes a saved unit takes: lines, kind, language, flags, part
/// and its strings' lengths.
const UNIT_MIN: usize = 4 + 4 + 2 + 2 + 1 + 2 + 2 * STRINGS;
/// The bit of a saved unit's flags that says it has a parent.
const PARENT_BIT: u8 = 1 << 5;

/// What a saved index holds: the index, and whether its vectors were made
/// by the model asked for (else they are left out, to embed again).
pub(super) struct Decoded {
    pub index: Index,
    pub vectors_match: bool,
    /// The checksum, where the vector records start and how many there
    /// are (to attach the store, [`Decoded::attach`]).
    pub sum: [u8; 32],
    pub vectors_at: u64,
    pub records: u32,
}

impl Decoded {
    /// Read the vectors of the units from the store through `read` (its
    /// open handle) from now on.
    pub fn attach(&mut self, read: ReadAt) {
        let store = Arc::new(Saved::new(
            read,
            SUM_AT,
            self.sum,
            self.vectors_at,
            self.records,
        ));
        self.index.table.attach(store.clone());
        self.index.vectors.attach(store);
    }
}

/// After a save: the units' vectors are read from the store `read` from
/// now on (those added since `saved` was encoded stay in memory).
/// `found`: the checksum of the file opened; another one than written (a
/// save of another process in between) leaves the vectors where they are.
pub(super) fn saved(index: &mut Index, saved: &Encoded, found: [u8; 32], read: ReadAt) {
    if found != saved.sum() {
        return;
    }
    let store = Arc::new(Saved::new(
        read,
        SUM_AT,
        saved.sum(),
        saved.vectors_at,
        saved.records,
    ));
    index
        .table
        .saved(store.clone(), &saved.remap, &saved.summary_at);
    index.vectors.saved(store, &saved.remap);
}

/// The most dimensions a saved vector may have (models have hundreds).
pub const MAX_DIM: usize = 8192;
/// The fixed header: magic, format version, checksum, the number of units
/// and the length of the first section.
pub const HEADER: usize = HEAD_AT;
/// A store up to this size is read without looking at what it indexes.
pub const FREE_SIZE: u64 = 64 << 20;
/// The most bytes of a store's file table read to bound a larger store.
pub const MAX_FILE_TABLE: usize = 64 << 20;
/// Above [`FREE_SIZE`], how many store bytes each indexed file may take
/// (its path, metadata, a unit's row, vector and postings) besides
/// [`PER_SOURCE_BYTE`] for each of its bytes. A real store takes well
/// under a byte per source byte (units are cut from the source; the
/// per-file part covers one-line files with long paths).
pub const PER_FILE: u64 = 8 << 10;
pub const PER_SOURCE_BYTE: u64 = 16;

/// What the fixed header of a store declares, checked against the store's
/// length `len` before anything else is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Header {
    pub units: usize,
    pub head_len: usize,
    pub keywords_len: usize,
}

impl Header {
    /// Where the vector records start: what a load reads is before.
    pub fn records_at(&self) -> usize {
        HEAD_AT + self.head_len + self.keywords_len
    }
}

/// The header at the start of `bytes` (at least [`HEADER`] of them) of a
/// store of `len` bytes: `None` for another magic or version, or sizes the
/// file cannot hold (every unit takes at least its fixed bytes in the first
/// section and its field lengths in the second).
pub(super) fn header(bytes: &[u8], len: u64) -> Option<Header> {
    let mut r = Reader::new(bytes);
    if r.take(MAGIC.len())? != MAGIC || r.u32()? != FORMAT {
        return None;
    }
    r.take(32)?;
    let units = r.u32()? as usize;
    let head_len = usize::try_from(r.u64()?).ok()?;
    let keywords_len = usize::try_from(r.u64()?).ok()?;
    let left = usize::try_from(len.checked_sub(HEAD_AT as u64)?).ok()?;
    let least = units.checked_mul(UNIT_MIN + 2 * bm25::FIELDS)?;
    (head_len.checked_add(keywords_len)? <= left && least <= left).then_some(Header {
        units,
        head_len,
        keywords_len,
    })
}

/// What a prefix of a store's first section says about the files it
/// indexes: their paths and sizes, or that more bytes are needed, or that
/// the table is bad.
pub(super) enum SavedFiles<'a> {
    Files(Vec<(&'a str, u64)>),
    Short,
    Bad,
}

/// The file table from `prefix`, the first bytes of a store's first
/// section (after [`HEADER`]).
pub(super) fn saved_files(prefix: &[u8]) -> SavedFiles<'_> {
    let mut r = Reader::new(prefix);
    match r.str().and_then(|_| file_table(&mut r)) {
        Some(files) => SavedFiles::Files(files.into_iter().map(|(p, m, _)| (p, m.size)).collect()),
        None if r.is_short() => SavedFiles::Short,
        None => SavedFiles::Bad,
    }
}

/// The most bytes a store indexing `files` existing files of `bytes` bytes
/// in all may take before it is rebuilt rather than read.
pub fn size_bound(files: u64, bytes: u64) -> u64 {
    FREE_SIZE
        .saturating_add(files.saturating_mul(PER_FILE))
        .saturating_add(bytes.saturating_mul(PER_SOURCE_BYTE))
}

/// The index saved in `bytes` (a whole store), or `None` when they are not
/// a whole, consistent index of this format. `model`: the id and the
/// dimension of the loaded model (the vectors are kept when both match).
#[cfg(test)]
pub(super) fn decode(bytes: &[u8], model: Option<(&str, usize)>) -> Option<Decoded> {
    decode_prefix(bytes, bytes.len() as u64, model)
}

/// [`decode`] from the first bytes of a store of `len` bytes: at least
/// those before its vector records ([`Header::records_at`]), which are
/// not read.
pub(super) fn decode_prefix(
    bytes: &[u8],
    len: u64,
    model: Option<(&str, usize)>,
) -> Option<Decoded> {
    let h = header(bytes, len)?;
    let records_at = h.records_at();
    let bytes = bytes.get(..records_at)?;
    let sum = &bytes[SUM_AT as usize..BODY_AT];
    let body = &bytes[BODY_AT..];
    let head = &bytes[HEAD_AT..HEAD_AT + h.head_len];
    let keywords = &bytes[HEAD_AT + h.head_len..];
    let n_units = h.units;
    let records_len = len - records_at as u64;
    // The checksum, the units and the keyword index on their own threads.
    let (ok, head, bm25) = std::thread::scope(|scope| {
        let sum_ok = scope.spawn(|| blake3::hash(body).as_bytes() == sum);
        let bm25 = scope.spawn(|| {
            let mut r = Reader::new(keywords);
            let b = Bm25::read(&mut r, n_units)?;
            (r.left() == 0).then_some(b)
        });
        let head = decode_head(head, model, n_units);
        (
            sum_ok.join().unwrap_or(false),
            head,
            bm25.join().ok().flatten(),
        )
    });
    if !ok {
        return None;
    }
    let (mut index, vectors_match, dim) = head?;
    // Every unit has a record, or none has (no model).
    let record = if dim > 0 { 4 + dim as u64 } else { 0 };
    if records_len != n_units as u64 * record {
        return None;
    }
    index.bm25 = bm25?;
    Some(Decoded {
        index,
        vectors_match,
        sum: sum.try_into().ok()?,
        vectors_at: records_at as u64,
        records: n_units as u32,
    })
}

/// A table of names (kinds, languages): a count and the strings.
fn names<'a>(r: &mut Reader<'a>) -> Option<Vec<&'a str>> {
    let n = r.count(4)?;
    (0..n).map(|_| r.str()).collect()
}

/// The files of a saved index: path, metadata and number of units each.
fn file_table<'a>(r: &mut Reader<'a>) -> Option<Vec<(&'a str, FileMeta, usize)>> {
    // Each file takes at least its path and hash lengths, size, time and
    // unit count.
    let n_files = r.count(4 + 4 + 8 + 16 + 4)?;
    let mut files = Vec::new();
    files.try_reserve_exact(n_files).ok()?;
    for _ in 0..n_files {
        let path = r.str()?;
        if !crate::disk::store::safe_rel_path(path) {
            return None;
        }
        let hash = r.string()?;
        let size = r.u64()?;
        let mtime = u128::from_le_bytes(r.take(16)?.try_into().ok()?);
        let n = r.u32()? as usize;
        files.push((path, FileMeta { hash, size, mtime }, n));
    }
    Some(files)
}

/// The files, units and vectors of a saved index (without its keyword
/// index); `n_units` as declared up front. Decoded straight into the flat
/// arrays of the table and the vectors (their sign bits only: the records
/// stay in the store). Also: the vectors' dimension.
fn decode_head(
    bytes: &[u8],
    model: Option<(&str, usize)>,
    n_units: usize,
) -> Option<(Index, bool, usize)> {
    let mut r = Reader::new(bytes);
    let saved_model = r.str()?;
    let mut vectors_match = model.is_some_and(|(m, _)| m == saved_model);
    let files = file_table(&mut r)?;
    let n_files = files.len();
    let declared = files
        .iter()
        .try_fold(0usize, |sum, (_, _, n)| sum.checked_add(*n))?;
    let kinds = names(&mut r)?;
    let languages = names(&mut r)?;
    if r.count(UNIT_MIN)? != n_units || n_units != declared {
        return None;
    }
    let text = usize::try_from(r.u64()?).ok()?;
    if text > r.left() {
        return None;
    }
    let mut index = Index::default();
    // Room to grow: the first edit must not move every unit.
    let room = n_units + n_units / 8 + 64;
    index
        .table
        .reserve(room, n_files + n_files / 8 + 8, text + text / 8)?;
    for (path, meta, n) in files {
        if index.table.file(path).is_some() {
            return None;
        }
        let fid = index.table.add_file(path, meta);
        for _ in 0..n {
            let start_line = r.u32()?;
            let end_line = r.u32()?;
            if start_line == 0 || end_line < start_line {
                return None;
            }
            let kind = *kinds.get(r.u16()? as usize)?;
            let language = *languages.get(r.u16()? as usize)?;
            let bits = r.u8()?;
            let part = r.u16()?;
            let mut strings = [""; STRINGS];
            let mut saved = None;
            for (i, s) in strings.iter_mut().enumerate() {
                let n = r.u16()? as usize;
                // The signature and the doc stay in the store: skipped
                // here, their UTF-8 checked when a hit shows them (the
                // check was a tenth of a warm `find`).
                if i == 3
                    && let Some(at) = saved_summary_at(HEAD_AT + r.pos())
                {
                    r.take(n)?;
                    let doc = r.u16()?;
                    r.take(doc as usize)?;
                    saved = Some((at, [n as u16, doc]));
                    break;
                }
                *s = std::str::from_utf8(r.take(n)?).ok()?;
            }
            let parts = RowParts {
                start_line,
                end_line,
                kind,
                language,
                strings,
                has_parent: bits & PARENT_BIT != 0,
                flags: bits & !PARENT_BIT,
                part,
            };
            match saved {
                Some((at, lens)) => index.table.push_saved(fid, &parts, at, lens),
                None => index.table.push(fid, &parts),
            };
        }
    }
    let dim = r.u32()? as usize;
    vectors_match &= model.is_some_and(|(_, d)| d == dim);
    // Checked before anything is sized by it: every unit has its sign
    // bits here, and no model has more than `MAX_DIM` dimensions.
    let words = dim.div_ceil(64);
    if dim > MAX_DIM || (dim > 0 && n_units.checked_mul(words * 8)? > r.left()) {
        return None;
    }
    index.vectors.prepare(dim, room)?;
    if dim > 0 {
        let has = r.take(n_units.div_ceil(8))?;
        let signs = r.take(n_units * words * 8)?;
        for (n, bits) in signs.chunks_exact(words * 8).enumerate() {
            let record = (vectors_match && has[n / 8] & (1 << (n % 8)) != 0).then_some(n as u32);
            index.vectors.push_saved(dim, record, bits);
        }
    } else {
        (0..n_units).for_each(|_| index.vectors.push_saved(0, None, &[]));
    }
    // The records' hash: identity only, not checked here.
    r.take(32)?;
    (r.left() == 0).then_some((index, vectors_match, dim))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::FileUnits;
    use crate::index::model::Quantized;
    use crate::index::units::{Flags, Unit};

    fn unit(path: &str, name: &str, body: &str) -> Unit {
        Unit {
            path: path.into(),
            start_line: 1,
            end_line: 3,
            kind: "function".into(),
            name: name.into(),
            name_path: name.into(),
            parent: Some("Outer".into()),
            signature: format!("def {name}()"),
            doc: "Follow the redirect. Then more.".into(),
            body: body.into(),
            language: "python".into(),
            flags: Flags {
                test: true,
                exported: true,
                ..Flags::default()
            },
            part: 2,
        }
    }

    fn sample() -> Index {
        let mut ix = Index::default();
        for (p, n) in [("a/x.py", "follow_redirects"), ("b.py", "parse_url")] {
            ix.put(FileUnits {
                path: p.into(),
                meta: FileMeta {
                    hash: format!("h{p}"),
                    size: 10,
                    mtime: 1 << 70,
                },
                units: vec![unit(p, n, "return self.send(request)")],
                vectors: vec![Some(Quantized::new(&[0.5, -0.5, 0.25]))],
                counted: Vec::new(),
            });
        }
        // A replaced file leaves a tombstone that the save drops.
        let mut top = unit("b.py", "", "x = 1");
        top.parent = None;
        top.name_path.clear();
        top.kind = "module".into();
        top.language = "text".into();
        ix.put(FileUnits {
            path: "b.py".into(),
            meta: FileMeta {
                hash: "h2".into(),
                size: 11,
                mtime: 2,
            },
            units: vec![unit("b.py", "parse_url", "return urlsplit(url)"), top],
            vectors: vec![Some(Quantized::new(&[0.1, 0.2, 0.3])), None],
            counted: Vec::new(),
        });
        ix
    }

    #[test]
    fn an_index_round_trips_and_searches_the_same() {
        let mut ix = sample();
        let bytes = encode(&ix, Some("m1"));
        // (Sealed, the original counts a removed unit no more, as the
        // saved one does not.)
        ix.seal();
        let mut back = decode(&bytes, Some(("m1", 3))).expect("decodes");
        assert!(back.vectors_match);
        // The int8 vectors are read from the store's bytes at query time.
        let store = Arc::new(bytes.clone());
        back.attach(Box::new(move |at, buf| read_from(&store, at, buf)));
        let b = back.index;
        assert_eq!(b.file_count(), 2);
        assert_eq!(b.unit_count(), 3);
        assert_eq!(b.meta("b.py").unwrap().hash, "h2");
        assert_eq!(b.meta("a/x.py").unwrap().mtime, 1 << 70);
        // Renumbered densely in file order: a/x.py's unit, then b.py's two.
        let u = b.unit(1).unwrap();
        assert_eq!(
            (u.path, u.name, u.name_path),
            ("b.py", "parse_url", "parse_url")
        );
        assert_eq!((u.start_line, u.end_line, u.part), (1, 3, 2));
        assert_eq!((u.kind, u.language), ("function", "python"));
        assert_eq!(u.flags, unit("", "", "").flags);
        assert_eq!(u.parent, Some("Outer"));
        // The summary is read from the store, not kept in memory.
        let sd = b.summary(1).unwrap();
        assert_eq!(sd.signature, "def parse_url()");
        assert_eq!(sd.doc, "Follow the redirect.", "the doc's first sentence");
        assert!(matches!(sd.signature, std::borrow::Cow::Owned(_)));
        assert!(!b.table.arena().contains("Follow the") && b.table.arena().contains("parse_url"));
        // A store changed under the index: no summary, and the store is lost.
        let mut changed = bytes.clone();
        changed[SUM_AT as usize] ^= 1;
        let mut other = decode(&bytes, Some(("m1", 3))).unwrap();
        let changed = Arc::new(changed);
        other.attach(Box::new(move |at, buf| read_from(&changed, at, buf)));
        assert_eq!(other.index.summary(1), Some(Default::default()));
        assert!(other.index.vectors_lost());
        let m = b.unit(2).unwrap();
        assert_eq!(
            (m.kind, m.language, m.parent, m.name_path),
            ("module", "text", None, "")
        );
        let q = Quantized::new(&[0.1, 0.2, 0.3]);
        assert_eq!(b.vectors.get(1), Some((q.scale, q.q.clone())));
        assert_eq!(b.vectors.get(2), None);
        for q in [
            "urlsplit",
            "send",
            "follow_redirects",
            "redirect",
            "request",
        ] {
            assert_eq!(b.bm25.idf(q), ix.bm25.idf(q), "{q}");
        }
        assert!(b.unit(3).is_none());
        // Saved again, the same bytes; sealed first, the same bytes too.
        assert_eq!(encode(&b, Some("m1")), bytes);
        let mut sealed = sample();
        sealed.seal();
        assert_eq!(encode(&sealed, Some("m1")), bytes);
        // Another model: no vectors kept.
        let other = decode(&bytes, Some(("m2", 3))).unwrap();
        assert!(!other.vectors_match);
        assert!((0..3).all(|i| other.index.vectors.get(i).is_none()));
        // A loaded index takes edits: a file replaced, one added.
        let mut b = b;
        b.put(FileUnits {
            path: "c.py".into(),
            meta: FileMeta {
                hash: "h3".into(),
                size: 1,
                mtime: 3,
            },
            units: vec![unit("c.py", "urlsplit_again", "pass")],
            vectors: vec![Some(Quantized::new(&[0.3, 0.2, 0.1]))],
            counted: Vec::new(),
        });
        b.remove("a/x.py");
        assert_eq!(b.unit(3).unwrap().path, "c.py");
        assert!(b.unit(0).is_none());
        let again = decode(&encode(&b, Some("m1")), Some(("m1", 3)))
            .unwrap()
            .index;
        assert_eq!(again.unit_count(), 3);
        assert_eq!(again.unit(0).unwrap().path, "b.py");
        assert_eq!(again.unit(2).unwrap().name, "urlsplit_again");
    }

    #[test]
    fn a_load_reads_no_vector_record_and_a_damaged_one_is_data() {
        let bytes = encode(&sample(), Some("m1"));
        let records_at = header(&bytes, bytes.len() as u64).unwrap().records_at();
        // Three records of a scale and 3 bytes, after everything else.
        assert_eq!(bytes.len() - records_at, 3 * (4 + 3));
        // Decoded from the bytes before them, the file's length given.
        let mut d = decode_prefix(&bytes[..records_at], bytes.len() as u64, Some(("m1", 3)))
            .expect("decodes without its records");
        assert!(d.vectors_match);
        // A byte of a record flipped: the store still loads (the checksum
        // does not cover the records) and the record reads back as it is.
        let mut damaged = bytes.clone();
        damaged[records_at + 7 + 4] ^= 0x7f;
        let damaged = Arc::new(damaged);
        d.attach(Box::new(move |at, buf| read_from(&damaged, at, buf)));
        let (scale, q) = d.index.vectors.get(1).expect("unit 1 has a vector");
        let saved = Quantized::new(&[0.1, 0.2, 0.3]);
        assert_eq!(scale, saved.scale);
        assert_eq!(q[0], saved.q[0] ^ 0x7f);
        assert_eq!(q[1..], saved.q[1..]);
        // The records' length is checked all the same.
        assert!(decode_prefix(&bytes[..records_at], bytes.len() as u64 - 1, None).is_none());
        assert!(decode_prefix(&bytes[..records_at - 1], bytes.len() as u64, None).is_none());
        // The model's name with another dimension: no vectors kept.
        let other = decode(&bytes, Some(("m1", 4))).unwrap();
        assert!(!other.vectors_match);
        // Sign bits as the vectors in memory had them (the first pass).
        let ix = sample();
        let remap = encode_full(&ix, Some("m1")).remap;
        let back = decode(&bytes, Some(("m1", 3))).unwrap().index;
        let mut compared = 0;
        for (old, &new) in remap.iter().enumerate() {
            if new != u32::MAX {
                assert_eq!(back.vectors.signs_of(new), ix.vectors.signs_of(old as u32));
                compared += 1;
            }
        }
        assert_eq!(compared, 3);
        assert_ne!(back.vectors.signs_of(0), back.vectors.signs_of(1));
    }

    /// A summary that is not UTF-8 in a store whose checksum holds (a
    /// crafted one): the store loads, that summary reads as empty, the
    /// others as saved.
    #[test]
    fn a_summary_that_is_not_utf8_reads_as_empty() {
        let bytes = encode(&sample(), Some("m1"));
        let doc = b"Follow the redirect.";
        let at: Vec<usize> = (0..bytes.len() - doc.len())
            .filter(|&i| bytes[i..].starts_with(doc))
            .collect();
        assert_eq!(at.len(), 3, "one doc per unit, in unit order");
        let mut crafted = bytes.clone();
        crafted[at[1]] = 0xff;
        let crafted = sealed_store(&crafted[BODY_AT..]);
        let mut d = decode(&crafted, Some(("m1", 3))).expect("a checksum that holds: loads");
        let store = Arc::new(crafted);
        d.attach(Box::new(move |at, buf| read_from(&store, at, buf)));
        assert_eq!(d.index.summary(1), Some(Default::default()));
        let ok = d.index.summary(0).unwrap();
        assert_eq!(
            (&*ok.signature, &*ok.doc),
            ("def follow_redirects()", "Follow the redirect.")
        );
        assert_eq!(d.index.unit(1).unwrap().name, "parse_url");
    }

    /// `buf` filled from `bytes` at `at` (a store in memory).
    pub(crate) fn read_from(bytes: &[u8], at: u64, buf: &mut [u8]) -> bool {
        let Some(s) = usize::try_from(at)
            .ok()
            .and_then(|a| bytes.get(a..a.checked_add(buf.len())?))
        else {
            return false;
        };
        buf.copy_from_slice(s);
        true
    }

    /// A store with a valid checksum around `body` (the counts, both
    /// sections and the vector records after them, which it does not
    /// cover).
    fn sealed_store(body: &[u8]) -> Vec<u8> {
        let len = |at: usize| u64::from_le_bytes(body[at..at + 8].try_into().unwrap()) as usize;
        let covered = (20 + len(4) + len(12)).min(body.len());
        let mut crafted = MAGIC.to_vec();
        crafted.extend_from_slice(&FORMAT.to_le_bytes());
        crafted.extend_from_slice(blake3::hash(&body[..covered]).as_bytes());
        crafted.extend_from_slice(body);
        crafted
    }

    /// The body of a store of no files and no units, with `keywords` as its
    /// keyword section and `head_tail` after the empty head's counts.
    fn empty_body(head_tail: &[u8], keywords: &[u8]) -> Vec<u8> {
        let mut head = Writer::default();
        head.str("");
        head.u32(0); // files
        head.buf.extend_from_slice(head_tail);
        let mut w = Writer::default();
        w.u32(0); // units
        w.u64(head.buf.len() as u64);
        w.u64(keywords.len() as u64);
        w.buf.extend_from_slice(&head.buf);
        w.buf.extend_from_slice(keywords);
        w.buf
    }

    #[test]
    fn the_header_is_checked_against_the_files_length_first() {
        let bytes = encode(&sample(), None);
        let len = bytes.len() as u64;
        let h = header(&bytes, len).expect("a saved store's header fits");
        assert_eq!(h.units, 3);
        assert!(header(&bytes[..HEADER - 1], len).is_none(), "short");
        assert!(header(&bytes, HEADER as u64 - 1).is_none(), "shorter file");
        let mut b = bytes.clone();
        b[..8].copy_from_slice(b"SCLPIDY\n");
        assert!(header(&b, len).is_none(), "magic");
        // More units than the file can hold, a first section longer than it.
        let mut b = bytes.clone();
        b[44..48].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(header(&b, len).is_none() && decode(&b, None).is_none());
        let mut b = bytes.clone();
        b[48..56].copy_from_slice(&(len - HEADER as u64 + 1).to_le_bytes());
        assert!(header(&b, len).is_none() && decode(&b, None).is_none());
        // The file table can be read from a prefix of the first section.
        let first = &bytes[HEADER..];
        assert!(matches!(saved_files(&first[..20]), SavedFiles::Short));
        let SavedFiles::Files(files) = saved_files(first) else {
            panic!("the file table of a saved store");
        };
        assert_eq!(files, [("a/x.py", 10), ("b.py", 11)]);
        let mut b = first.to_vec();
        b[12..18].copy_from_slice(b"../x.p");
        assert!(matches!(saved_files(&b), SavedFiles::Bad));
    }

    #[test]
    fn truncated_corrupt_foreign_or_unsafe_stores_are_refused() {
        let bytes = encode(&sample(), None);
        for cut in [0, 5, 12, 44, bytes.len() / 2, bytes.len() - 1] {
            assert!(decode(&bytes[..cut], None).is_none(), "cut at {cut}");
        }
        let records_at = header(&bytes, bytes.len() as u64).unwrap().records_at();
        for at in [3, 9, 20, 50, 60, records_at - 3] {
            let mut b = bytes.clone();
            b[at] ^= 0x41;
            assert!(decode(&b, None).is_none(), "flipped byte {at}");
        }
        let mut b = bytes.clone();
        b[8..12].copy_from_slice(&(FORMAT + 1).to_le_bytes());
        assert!(decode(&b, None).is_none());
        // A crafted store (valid checksum) with a path outside the root.
        let mut ix = Index::default();
        ix.put(FileUnits {
            path: "../escape.py".into(),
            meta: FileMeta {
                hash: "h".into(),
                size: 1,
                mtime: 0,
            },
            units: vec![unit("../escape.py", "f", "x")],
            vectors: vec![None],
            counted: Vec::new(),
        });
        assert!(decode(&encode(&ix, None), None).is_none());
        // An empty store is whole.
        let tables = [0u8; 24 + 32]; // kinds, languages, units, text, dim: none; records' hash
        let mut no_terms = Writer::default();
        no_terms.u32(0);
        assert!(decode(&sealed_store(&empty_body(&tables, &no_terms.buf)), None).is_some());
        // Postings naming a unit that does not exist.
        let mut kw = Writer::default();
        kw.u32(1); // terms
        kw.str("x");
        kw.u32(1); // one posting
        kw.u32(2); // of two bytes
        kw.buf.extend_from_slice(&[7, 0x11]); // unit 7 of 0, name field once
        // Loaded: a run is checked when a query first reads it, and reads
        // as empty then (`bm25.rs`,
        // `a_saved_run_that_is_malformed_reads_as_empty`).
        assert!(decode(&sealed_store(&empty_body(&tables, &kw.buf)), None).is_some());
        // Terms out of order (binary search needs them sorted) or twice.
        let mut ix = Index::default();
        ix.put(FileUnits {
            path: "a.py".into(),
            meta: FileMeta {
                hash: "h".into(),
                size: 1,
                mtime: 0,
            },
            units: vec![unit("a.py", "zeta", "alpha")],
            vectors: vec![None],
            counted: Vec::new(),
        });
        let good = encode(&ix, None);
        let swapped = |from: &str, to: &str| {
            let mut b = good.clone();
            let at = b
                .windows(from.len())
                .rposition(|w| w == from.as_bytes())
                .unwrap();
            b[at..at + from.len()].copy_from_slice(to.as_bytes());
            let body = b[MAGIC.len() + 4 + 32..].to_vec();
            sealed_store(&body)
        };
        assert!(decode(&swapped("alpha", "alpha"), None).is_some());
        assert!(
            decode(&swapped("zeta", "aaaa"), None).is_none(),
            "out of order"
        );
        // A vector dimension past any model's (checked before the vectors'
        // room is sized by it: 0xffffffff once asked for 35 GB and aborted).
        for dim in [u32::MAX, MAX_DIM as u32 + 1, 1 << 20] {
            let mut tail = Writer::default();
            tail.buf.extend_from_slice(&[0u8; 20]); // kinds, languages, units, text
            tail.u32(dim);
            tail.buf.extend_from_slice(&[0u8; 32]); // the records' hash
            let store = sealed_store(&empty_body(&tail.buf, &no_terms.buf));
            assert!(decode(&store, None).is_none(), "dim {dim}");
        }
        // A count that cannot fit in what is left is refused before any
        // allocation (no huge `Vec` from a corrupt length).
        let mut huge = Writer::default();
        huge.u32(u32::MAX); // kinds
        assert!(decode(&sealed_store(&empty_body(&huge.buf, &no_terms.buf)), None).is_none());
        // A kind number past the table of kinds.
        let mut bad_kind = sample();
        bad_kind.remove("b.py");
        let b = encode(&bad_kind, None);
        // The tables of kinds ("function") and languages ("python"), the
        // count of units and of their strings' bytes, then the unit: two
        // line numbers, its kind.
        let header = MAGIC.len() + 4 + 32;
        let python = b.windows(6).position(|w| w == b"python").unwrap();
        let mut body = b[header..].to_vec();
        body[python + 6 + 4 + 8 + 8 - header] = 9;
        assert!(decode(&sealed_store(&body), None).is_none());
    }
}
