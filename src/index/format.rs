//! The saved index, `ROOT/.scalpel/index/index.bin`: a compact binary form
//! of everything a warm start needs (files with their size, time and hash;
//! units; int8 vectors; the BM25 term dictionary and postings), so opening
//! an index is a read and a decode, not a re-tokenization.
//!
//! Layout (little-endian): magic, format version, a blake3 checksum of the
//! rest; the number of units and the length of the first section; the
//! first section (model id, files, units in file order, renumbered densely
//! on save, vectors) and the second (the keyword index). The checksum and
//! the two sections are decoded on their own threads.
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

use super::bm25::Bm25;
use super::model::Quantized;
use super::units::{Flags, Unit};
use super::{FileEntry, FileMeta, Index};

const MAGIC: &[u8; 8] = b"SCLPIDX\n";
/// Version of the layout; another version is rebuilt.
pub const FORMAT: u32 = 2;
/// The file's name under `ROOT/.scalpel/index/`.
pub const FILE: &str = "index.bin";
/// The file of the first (JSON) format, deleted when the new one is saved.
pub const LEGACY_FILE: &str = "units.json";

/// Appends little-endian values.
#[derive(Default)]
pub(super) struct Writer {
    pub buf: Vec<u8>,
}

impl Writer {
    pub fn u8(&mut self, v: u8) {
        self.buf.push(v);
    }
    pub fn u16(&mut self, v: u16) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    pub fn u32(&mut self, v: u32) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    pub fn u64(&mut self, v: u64) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    pub fn f32(&mut self, v: f32) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    pub fn str(&mut self, s: &str) {
        self.u32(s.len() as u32);
        self.buf.extend_from_slice(s.as_bytes());
    }
}

/// Reads what [`Writer`] wrote; every read is bounds-checked (`None` past
/// the end).
pub(super) struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    pub fn new(bytes: &'a [u8]) -> Reader<'a> {
        Reader { bytes, pos: 0 }
    }
    pub fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let end = self.pos.checked_add(n)?;
        let s = self.bytes.get(self.pos..end)?;
        self.pos = end;
        Some(s)
    }
    fn array<const N: usize>(&mut self) -> Option<[u8; N]> {
        self.take(N)?.try_into().ok()
    }
    pub fn u8(&mut self) -> Option<u8> {
        Some(self.take(1)?[0])
    }
    pub fn u16(&mut self) -> Option<u16> {
        Some(u16::from_le_bytes(self.array()?))
    }
    pub fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.array()?))
    }
    pub fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.array()?))
    }
    pub fn f32(&mut self) -> Option<f32> {
        Some(f32::from_le_bytes(self.array()?))
    }
    pub fn str(&mut self) -> Option<&'a str> {
        let n = self.u32()? as usize;
        std::str::from_utf8(self.take(n)?).ok()
    }
    pub fn string(&mut self) -> Option<String> {
        self.str().map(str::to_string)
    }
    /// A count of items of at least `min_size` bytes each: refused when
    /// that many could not fit in what is left (no huge allocation from a
    /// corrupt length).
    pub fn count(&mut self, min_size: usize) -> Option<usize> {
        let n = self.u32()? as usize;
        (n.checked_mul(min_size.max(1))? <= self.left()).then_some(n)
    }
    pub fn left(&self) -> usize {
        self.bytes.len() - self.pos
    }
}

/// A saved path must stay inside the root: relative, no `..`, no empty or
/// `.` segments, no NUL or backslash.
fn safe_path(p: &str) -> bool {
    !p.is_empty()
        && !p.starts_with('/')
        && !p.contains(['\0', '\\'])
        && p.split('/').all(|s| !s.is_empty() && s != "." && s != "..")
}

/// The bytes of `index` as saved, with `model` (the model's id) naming
/// what its vectors were made with.
pub(super) fn encode(index: &Index, model: Option<&str>) -> Vec<u8> {
    let mut paths: Vec<&String> = index.files.keys().collect();
    paths.sort();
    // Old id → new id (dense, in file order); u32::MAX for removed units.
    let mut remap = vec![u32::MAX; index.units.len()];
    let mut order: Vec<u32> = Vec::new();
    // One buffer (the index can be large): the header's checksum and
    // lengths are filled in at the end.
    let mut w = Writer::default();
    w.buf.extend_from_slice(MAGIC);
    w.u32(FORMAT);
    w.buf.extend_from_slice(&[0; 32]);
    let body_at = w.buf.len();
    w.u32(0);
    w.u64(0);
    let head_at = w.buf.len();
    w.str(model.unwrap_or(""));
    w.u32(paths.len() as u32);
    for p in &paths {
        let f = &index.files[*p];
        let live: Vec<u32> = f
            .units
            .iter()
            .copied()
            .filter(|&id| index.unit(id).is_some())
            .collect();
        w.str(p);
        w.str(&f.meta.hash);
        w.u64(f.meta.size);
        w.buf.extend_from_slice(&f.meta.mtime.to_le_bytes());
        w.u32(live.len() as u32);
        for id in live {
            remap[id as usize] = order.len() as u32;
            order.push(id);
        }
    }
    w.u32(order.len() as u32);
    for &id in &order {
        let Some(u) = index.unit(id) else { continue };
        write_unit(&mut w, u);
    }
    let dim = order
        .iter()
        .find_map(|&id| index.vectors[id as usize].as_ref())
        .map_or(0, |v| v.q.len());
    w.u32(dim as u32);
    if dim > 0 {
        for &id in &order {
            match &index.vectors[id as usize] {
                Some(v) if v.q.len() == dim => {
                    w.u8(1);
                    w.f32(v.scale);
                    w.buf.extend(v.q.iter().map(|&x| x as u8));
                }
                _ => w.u8(0),
            }
        }
    }
    let head_len = (w.buf.len() - head_at) as u64;
    index.bm25.write(&mut w, &remap, &order);
    w.buf[body_at..body_at + 4].copy_from_slice(&(order.len() as u32).to_le_bytes());
    w.buf[body_at + 4..head_at].copy_from_slice(&head_len.to_le_bytes());
    let sum = blake3::hash(&w.buf[body_at..]);
    w.buf[body_at - 32..body_at].copy_from_slice(sum.as_bytes());
    w.buf
}

fn write_unit(w: &mut Writer, u: &Unit) {
    w.u32(u.start_line as u32);
    w.u32(u.end_line as u32);
    w.str(&u.kind);
    w.str(&u.name);
    w.str(&u.name_path);
    match &u.parent {
        Some(p) => {
            w.u8(1);
            w.str(p);
        }
        None => w.u8(0),
    }
    w.str(&u.signature);
    w.str(&u.doc);
    w.str(&u.body);
    w.str(&u.language);
    let f = u.flags;
    w.u8(f.test as u8
        | (f.example as u8) << 1
        | (f.vendored as u8) << 2
        | (f.dts as u8) << 3
        | (f.exported as u8) << 4);
    w.u16(u.part);
}

fn read_unit(r: &mut Reader, path: &str) -> Option<Unit> {
    let start_line = r.u32()? as usize;
    let end_line = r.u32()? as usize;
    if start_line == 0 || end_line < start_line {
        return None;
    }
    let kind = r.string()?;
    let name = r.string()?;
    let name_path = r.string()?;
    let parent = match r.u8()? {
        0 => None,
        1 => Some(r.string()?),
        _ => return None,
    };
    let signature = r.string()?;
    let doc = r.string()?;
    let body = r.string()?;
    let language = r.string()?;
    let bits = r.u8()?;
    let flags = Flags {
        test: bits & 1 != 0,
        example: bits & 2 != 0,
        vendored: bits & 4 != 0,
        dts: bits & 8 != 0,
        exported: bits & 16 != 0,
    };
    let part = r.u16()?;
    Some(Unit {
        path: path.to_string(),
        start_line,
        end_line,
        kind,
        name,
        name_path,
        parent,
        signature,
        doc,
        body,
        language,
        flags,
        part,
    })
}

/// What a saved index holds: the index, and whether its vectors were made
/// by the model asked for (else they are left out, to embed again).
pub(super) struct Decoded {
    pub index: Index,
    pub vectors_match: bool,
}

/// The index saved in `bytes`, or `None` when they are not a whole,
/// consistent index of this format. `model`: the id of the loaded model.
pub(super) fn decode(bytes: &[u8], model: Option<&str>) -> Option<Decoded> {
    let mut r = Reader::new(bytes);
    if r.take(MAGIC.len())? != MAGIC || r.u32()? != FORMAT {
        return None;
    }
    let sum = r.take(32)?;
    let body = r.take(r.left())?;
    let mut b = Reader::new(body);
    let n_units = b.count(40)?;
    let head_len = usize::try_from(b.u64()?).ok()?;
    let head = b.take(head_len)?;
    let keywords = b.take(b.left())?;
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
    let (mut index, vectors_match) = head?;
    index.bm25 = bm25?;
    Some(Decoded {
        index,
        vectors_match,
    })
}

/// The files, units and vectors of a saved index (without its keyword
/// index); `n_units` as declared up front.
fn decode_head(bytes: &[u8], model: Option<&str>, n_units: usize) -> Option<(Index, bool)> {
    let mut r = Reader::new(bytes);
    let saved_model = r.str()?;
    let vectors_match = model.is_some_and(|m| m == saved_model);
    let n_files = r.count(8)?;
    let mut files: Vec<(String, FileMeta, usize)> = Vec::with_capacity(n_files);
    let mut declared = 0usize;
    for _ in 0..n_files {
        let path = r.string()?;
        if !safe_path(&path) {
            return None;
        }
        let hash = r.string()?;
        let size = r.u64()?;
        let mtime = u128::from_le_bytes(r.take(16)?.try_into().ok()?);
        let n = r.u32()? as usize;
        declared = declared.checked_add(n)?;
        files.push((path, FileMeta { hash, size, mtime }, n));
    }
    if r.count(40)? != n_units || n_units != declared {
        return None;
    }
    let mut index = Index::default();
    // Room to grow: the first edit must not move every unit.
    let room = n_units + n_units / 8 + 64;
    index.units.reserve_exact(room);
    let mut next = 0u32;
    for (path, meta, n) in files {
        let mut ids = Vec::with_capacity(n);
        for _ in 0..n {
            index.units.push(Some(read_unit(&mut r, &path)?));
            ids.push(next);
            next += 1;
        }
        if index
            .files
            .insert(path, FileEntry { meta, units: ids })
            .is_some()
        {
            return None;
        }
    }
    let dim = r.u32()? as usize;
    index.vectors.reserve_exact(room);
    index.vectors.resize(n_units, None);
    if dim > 0 {
        for v in index.vectors.iter_mut() {
            if r.u8()? == 1 {
                let scale = r.f32()?;
                let q = r.take(dim)?.iter().map(|&b| b as i8).collect();
                if vectors_match && scale.is_finite() {
                    *v = Some(Quantized { scale, q });
                }
            }
        }
    }
    (r.left() == 0).then_some((index, vectors_match))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::FileUnits;

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
            doc: "Follow the redirect.".into(),
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
        ix.put(FileUnits {
            path: "b.py".into(),
            meta: FileMeta {
                hash: "h2".into(),
                size: 11,
                mtime: 2,
            },
            units: vec![unit("b.py", "parse_url", "return urlsplit(url)")],
            vectors: vec![Some(Quantized::new(&[0.1, 0.2, 0.3]))],
            counted: Vec::new(),
        });
        ix
    }

    #[test]
    fn an_index_round_trips_and_searches_the_same() {
        let ix = sample();
        let bytes = encode(&ix, Some("m1"));
        let back = decode(&bytes, Some("m1")).expect("decodes");
        assert!(back.vectors_match);
        let b = back.index;
        assert_eq!(b.file_count(), 2);
        assert_eq!(b.unit_count(), 2);
        assert_eq!(b.meta("b.py").unwrap().hash, "h2");
        assert_eq!(b.meta("a/x.py").unwrap().mtime, 1 << 70);
        let snap: Vec<_> = b.snapshot();
        let (_, _, units) = &snap[1];
        assert_eq!(units[0].0.body, "return urlsplit(url)");
        assert_eq!(units[0].0.flags, unit("", "", "").flags);
        assert_eq!(units[0].0.parent.as_deref(), Some("Outer"));
        assert_eq!(units[0].1.cloned(), Some(Quantized::new(&[0.1, 0.2, 0.3])));
        for q in ["urlsplit", "send", "follow_redirects", "redirect"] {
            assert_eq!(b.bm25.idf(q), ix.bm25.idf(q), "{q}");
        }
        // Saved again, the same bytes.
        assert_eq!(encode(&b, Some("m1")), bytes);
        // Another model: no vectors kept.
        let other = decode(&bytes, Some("m2")).unwrap();
        assert!(!other.vectors_match);
        assert!(other.index.vectors.iter().all(Option::is_none));
    }

    #[test]
    fn truncated_corrupt_foreign_or_unsafe_stores_are_refused() {
        let bytes = encode(&sample(), None);
        for cut in [0, 5, 12, 44, bytes.len() / 2, bytes.len() - 1] {
            assert!(decode(&bytes[..cut], None).is_none(), "cut at {cut}");
        }
        for at in [3, 9, 20, 50, bytes.len() - 3] {
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
        // A crafted store whose postings name a unit that does not exist.
        let mut head = Writer::default();
        head.str("");
        head.u32(0); // files
        head.u32(0); // units
        head.u32(0); // dim
        let mut w = Writer::default();
        w.u32(0); // units
        w.u64(head.buf.len() as u64);
        w.buf.extend_from_slice(&head.buf);
        w.u32(1); // terms
        w.str("x");
        w.u32(1);
        w.u32(7); // unit 7 of 0
        w.buf.extend_from_slice(&[1, 0, 0, 0, 0, 0, 0, 0]);
        let mut crafted = MAGIC.to_vec();
        crafted.extend_from_slice(&FORMAT.to_le_bytes());
        crafted.extend_from_slice(blake3::hash(&w.buf).as_bytes());
        crafted.extend_from_slice(&w.buf);
        assert!(decode(&crafted, None).is_none());
    }
}
