//! An in-memory BM25F index over the units' fields. Units are added and
//! removed one file at a time; a removed unit leaves a tombstone that
//! queries skip. ARCHITECTURE.md ("Search index") says why this and not
//! tantivy.
//!
//! Layout (few, large allocations: a warm start decodes into flat arrays,
//! and 50,000 files must fit in memory): the terms in one sorted string,
//! found by binary search; every posting in one byte array, term by term,
//! with its start per term, compressed ([`encode_posting`]: the gap to the
//! previous unit id as a varint, then one byte for the fields and the
//! count when one field holds the term fewer than 16 times, which is most
//! postings; about 2.3 bytes a posting instead of 8). Field lengths are
//! `u16`, saturating: BM25 normalises by them, and no unit is that long
//! (long units are split). Units added since the last [`Bm25::seal`] go in a
//! small overlay (new terms in a map, new postings in a list per term);
//! sealing merges the overlay into the flat arrays, drops the postings of
//! removed units and recounts the document frequencies (which count
//! removed units until then: no per-unit list of terms is kept). The index
//! seals itself when the overlay or the tombstones grow past a share of the
//! whole; the live index seals after every refresh.

use super::tokens;
use crate::disk::codec::{Reader, Writer};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};

/// The fields, in the order of [`Fields`]'s arrays.
pub const FIELDS: usize = 4;
/// Field weights: name (name and name path), path, signature + doc, body.
const WEIGHTS: [f32; FIELDS] = [3.0, 1.5, 2.0, 1.0];
/// Length normalisation per field.
const B: [f32; FIELDS] = [0.3, 0.3, 0.5, 0.75];
const K1: f32 = 1.2;

/// The text of a unit's fields.
pub type Fields<'a> = [&'a str; FIELDS];

/// One unit's counts of one term, per field (saturating at 255: BM25's
/// term frequency saturates long before).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Posting {
    unit: u32,
    tf: [u8; FIELDS],
}

fn saturate(tf: [u16; FIELDS]) -> [u8; FIELDS] {
    tf.map(|t| t.min(u8::MAX as u16) as u8)
}

/// A field length as kept (`u16::MAX` marks a removed unit).
fn saturate_len(l: u32) -> u16 {
    l.min(u16::MAX as u32 - 1) as u16
}

/// Append posting `p` to `out`, after one of unit `prev` (or first in its
/// term when `prev` is `None`): the gap as a LEB128 varint, then a byte
/// with the fields holding the term (low 4 bits) and, when that is one
/// field and the count is below 16, the count (high 4 bits); otherwise the
/// count of each field in the mask follows, a byte each.
fn encode_posting(out: &mut Vec<u8>, prev: Option<u32>, p: &Posting) {
    let mut gap = p.unit - prev.map_or(0, |u| u + 1);
    while gap >= 0x80 {
        out.push((gap as u8 & 0x7f) | 0x80);
        gap >>= 7;
    }
    out.push(gap as u8);
    let mask = (0..FIELDS).fold(0u8, |m, f| m | ((p.tf[f] > 0) as u8) << f);
    let single = (mask.count_ones() == 1).then(|| p.tf[mask.trailing_zeros() as usize]);
    match single {
        Some(tf) if tf < 16 => out.push(mask | tf << 4),
        _ => {
            out.push(mask);
            out.extend(p.tf.iter().filter(|&&t| t > 0));
        }
    }
}

/// Decodes the postings of one term written by [`encode_posting`]; stops
/// (and says so in `bad`) at anything malformed: a truncated posting, an
/// empty field mask, a zero count, a unit id past `u32`.
struct Decode<'a> {
    bytes: &'a [u8],
    prev: Option<u32>,
    bad: bool,
}

impl<'a> Decode<'a> {
    fn new(bytes: &'a [u8]) -> Decode<'a> {
        Decode {
            bytes,
            prev: None,
            bad: false,
        }
    }

    fn byte(&mut self) -> Option<u8> {
        let (&b, rest) = self.bytes.split_first()?;
        self.bytes = rest;
        Some(b)
    }

    fn next_posting(&mut self) -> Option<Posting> {
        let mut gap = 0u64;
        for shift in (0..35).step_by(7) {
            let b = self.byte()?;
            gap |= ((b & 0x7f) as u64) << shift;
            if b & 0x80 == 0 {
                break;
            }
            if shift == 28 {
                return None;
            }
        }
        let unit = u32::try_from(self.prev.map_or(0, |u| u as u64 + 1) + gap).ok()?;
        let h = self.byte()?;
        let mask = h & 0x0f;
        if mask == 0 {
            return None;
        }
        let mut tf = [0u8; FIELDS];
        if h >> 4 != 0 {
            if mask.count_ones() != 1 {
                return None;
            }
            tf[mask.trailing_zeros() as usize] = h >> 4;
        } else {
            for (f, t) in tf.iter_mut().enumerate() {
                if mask & 1 << f != 0 {
                    *t = self.byte().filter(|&b| b > 0)?;
                }
            }
        }
        self.prev = Some(unit);
        Some(Posting { unit, tf })
    }
}

impl Iterator for Decode<'_> {
    type Item = Posting;
    fn next(&mut self) -> Option<Posting> {
        if self.bytes.is_empty() || self.bad {
            return None;
        }
        let p = self.next_posting();
        self.bad = p.is_none();
        p
    }
}

/// How many postings the run `bytes` holds, when [`Decode`] would read it
/// whole (no malformed posting) and every unit id is below `units`;
/// `None` otherwise. What a warm start checks of every saved term: the
/// same rules as [`Decode`] without building a [`Posting`] per entry (this
/// loop was a third of a warm `scalpel find`'s CPU; issue 31).
fn valid_run(bytes: &[u8], units: usize) -> Option<usize> {
    let (mut at, mut n, mut next) = (0usize, 0usize, 0u64);
    while at < bytes.len() {
        let mut gap = 0u64;
        let mut shift = 0;
        loop {
            let b = *bytes.get(at)?;
            at += 1;
            gap |= ((b & 0x7f) as u64) << shift;
            if b & 0x80 == 0 {
                break;
            }
            if shift == 28 {
                return None;
            }
            shift += 7;
        }
        let unit = next + gap;
        if unit >= units as u64 {
            return None;
        }
        next = unit + 1;
        let h = *bytes.get(at)?;
        at += 1;
        let mask = h & 0x0f;
        if mask == 0 {
            return None;
        }
        if h >> 4 != 0 {
            if mask.count_ones() != 1 {
                return None;
            }
        } else {
            let k = mask.count_ones() as usize;
            let counts = bytes.get(at..at + k)?;
            if counts.contains(&0) {
                return None;
            }
            at += k;
        }
        n += 1;
    }
    Some(n)
}

/// `postings` (sorted by unit) compressed; a unit given twice keeps its
/// first posting (ids are never given twice by the index).
fn encode_all(out: &mut Vec<u8>, postings: impl IntoIterator<Item = Posting>) -> usize {
    let mut prev = None;
    let mut n = 0;
    for p in postings {
        if prev.is_some_and(|u| p.unit <= u) {
            continue;
        }
        n += 1;
        encode_posting(out, prev, &p);
        prev = Some(p.unit);
    }
    n
}

/// A unit's fields tokenized: each distinct term with its count per
/// field, and the fields' lengths in tokens.
#[derive(Debug, Default, Clone)]
pub struct Counted {
    lens: [u32; FIELDS],
    terms: Vec<(String, [u16; FIELDS])>,
}

impl Counted {
    pub fn of(fields: Fields) -> Counted {
        // Distinct terms are found through an open-addressing table of
        // indices into `terms` (no key strings of its own): one allocation
        // per distinct term, none per repeat.
        let mut c = Counted::default();
        let mut slots: Vec<u32> = vec![u32::MAX; 64];
        for (f, text) in fields.iter().enumerate() {
            tokens::for_each_token(text, |t| {
                c.lens[f] += 1;
                if c.terms.len() * 2 >= slots.len() {
                    slots = vec![u32::MAX; slots.len() * 2];
                    for (i, (term, _)) in c.terms.iter().enumerate() {
                        let at = free_slot(&slots, term);
                        slots[at] = i as u32;
                    }
                }
                let mask = slots.len() - 1;
                let mut at = term_hash(t) as usize & mask;
                let i = loop {
                    match slots[at] {
                        u32::MAX => {
                            slots[at] = c.terms.len() as u32;
                            c.terms.push((t.to_string(), [0; FIELDS]));
                            break c.terms.len() - 1;
                        }
                        i if c.terms[i as usize].0 == t => break i as usize,
                        _ => at = (at + 1) & mask,
                    }
                };
                let tf = &mut c.terms[i].1[f];
                *tf = tf.saturating_add(1);
            });
        }
        c
    }
}

/// The first empty slot for `term` (the table has room).
fn free_slot(slots: &[u32], term: &str) -> usize {
    let mask = slots.len() - 1;
    let mut at = term_hash(term) as usize & mask;
    while slots[at] != u32::MAX {
        at = (at + 1) & mask;
    }
    at
}

/// FNV-1a: terms are short, and this table needs no DoS resistance.
fn term_hash(t: &str) -> u64 {
    t.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// Field lengths of a removed unit.
const DEAD: [u16; FIELDS] = [u16::MAX; FIELDS];

#[derive(Debug, Default)]
pub struct Bm25 {
    /// The sealed terms, sorted, one after the other; term `i` ends at
    /// `ends[i]`.
    dict: String,
    ends: Vec<u32>,
    /// Terms first seen since the last seal (ids after the sealed ones).
    added: HashMap<Box<str>, u32>,
    /// Postings of sealed term `i`, compressed: `post[starts[i]..starts[i
    /// + 1]]`, by unit.
    post: Vec<u8>,
    starts: Vec<u32>,
    /// Sealed postings in all.
    sealed_count: usize,
    /// Postings added since the last seal, by term id.
    fresh: HashMap<u32, Vec<Posting>>,
    fresh_count: usize,
    /// Documents holding each term (removed ones too, until the next seal).
    df: Vec<u32>,
    /// A bit per sealed term read from a store: its run of postings was
    /// checked (decodes whole to `df` postings of existing units). A warm
    /// start checks a run when a query first reads it rather than every
    /// run at load (that was a tenth of a warm `scalpel find`'s CPU); a run
    /// that fails reads as empty. Empty when every sealed run was built
    /// here (in memory, or by [`Bm25::seal`]).
    checked: Vec<AtomicU64>,
    /// Per unit: field lengths, [`DEAD`] once removed.
    lens: Vec<[u16; FIELDS]>,
    total_len: [u64; FIELDS],
    live: usize,
    dead: usize,
}

impl Bm25 {
    /// Index unit number `unit` (ids are given by the caller, densely).
    pub fn add(&mut self, unit: u32, fields: Fields) {
        self.add_counted(unit, Counted::of(fields));
    }

    fn sealed_term(&self, i: usize) -> &str {
        let from = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        &self.dict[from..self.ends[i] as usize]
    }

    /// The id of `term`, if indexed.
    fn term_id(&self, term: &str) -> Option<u32> {
        let (mut lo, mut hi) = (0, self.ends.len());
        while lo < hi {
            let mid = (lo + hi) / 2;
            match self.sealed_term(mid).cmp(term) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Some(mid as u32),
            }
        }
        self.added.get(term).copied()
    }

    /// Every term, sealed or added, with its id, sorted.
    fn sorted_terms(&self) -> Vec<(&str, u32)> {
        let mut names: Vec<(&str, u32)> = (0..self.ends.len())
            .map(|i| (self.sealed_term(i), i as u32))
            .chain(self.added.iter().map(|(t, &id)| (&**t, id)))
            .collect();
        names.sort_unstable();
        names
    }

    /// Index unit number `unit` from its counted terms (counted beforehand,
    /// off the index lock and on every core).
    pub fn add_counted(&mut self, unit: u32, counted: Counted) {
        let u = unit as usize;
        if self.lens.len() <= u {
            self.lens.resize(u + 1, DEAD);
        }
        for (term, tf) in counted.terms {
            let id = match self.term_id(&term) {
                Some(id) => id,
                None => {
                    let id = self.df.len() as u32;
                    self.added.insert(term.into_boxed_str(), id);
                    self.df.push(0);
                    id
                }
            };
            self.fresh.entry(id).or_default().push(Posting {
                unit,
                tf: saturate(tf),
            });
            self.fresh_count += 1;
            // A saved run is checked against its count before the count
            // moves on (`checked`).
            if (id as usize) < self.ends.len() {
                self.sealed_run(id as usize);
            }
            self.df[id as usize] += 1;
        }
        let lens = counted.lens.map(saturate_len);
        for (f, &l) in lens.iter().enumerate() {
            self.total_len[f] += l as u64;
        }
        self.lens[u] = lens;
        self.live += 1;
        if self.fresh_count > (self.sealed_count / 2).max(200_000) {
            self.seal();
        }
    }

    /// Forget unit `unit` (its postings stay until [`Bm25::seal`]).
    pub fn remove(&mut self, unit: u32) {
        let Some(lens) = self.lens.get_mut(unit as usize) else {
            return;
        };
        if *lens == DEAD {
            return;
        }
        for (f, &l) in lens.iter().enumerate() {
            self.total_len[f] -= l as u64;
        }
        *lens = DEAD;
        self.live -= 1;
        self.dead += 1;
        if self.dead > 1000 && self.dead > self.live / 4 {
            self.seal();
        }
    }

    /// Whether there is anything to seal.
    pub fn unsealed(&self) -> bool {
        self.fresh_count > 0 || self.dead > 0 || !self.added.is_empty()
    }

    /// Merge the overlay into the flat arrays, drop the postings of removed
    /// units and the terms left without any, recount the document
    /// frequencies. Term ids change; unit ids do not.
    pub fn seal(&mut self) {
        if !self.unsealed() {
            return;
        }
        let names = self.sorted_terms();
        let mut dict = String::with_capacity(self.dict.len());
        let mut ends = Vec::with_capacity(names.len());
        let mut post: Vec<u8> = Vec::with_capacity(self.post.len() + self.fresh_count * 3);
        let mut starts = Vec::with_capacity(names.len() + 1);
        let mut df = Vec::with_capacity(names.len());
        let mut count = 0usize;
        starts.push(0u32);
        let lens = &self.lens;
        let mut live: Vec<Posting> = Vec::new();
        for (term, id) in names {
            live.clear();
            live.extend(self.postings(id).filter(|p| lens[p.unit as usize] != DEAD));
            if live.is_empty() {
                continue;
            }
            // Sealed postings come before fresh ones, and fresh units
            // have higher ids, except when a unit id was given twice
            // (never by the index): sort to keep the order by unit.
            live.sort_unstable_by_key(|p| p.unit);
            let n = encode_all(&mut post, live.iter().copied());
            count += n;
            dict.push_str(term);
            ends.push(dict.len() as u32);
            df.push(n as u32);
            starts.push(post.len() as u32);
        }
        dict.shrink_to_fit();
        post.shrink_to_fit();
        self.dict = dict;
        self.ends = ends;
        self.post = post;
        self.starts = starts;
        self.sealed_count = count;
        self.df = df;
        self.checked = Vec::new();
        self.added = HashMap::new();
        self.fresh = HashMap::new();
        self.fresh_count = 0;
        self.dead = 0;
    }

    /// Inverse document frequency of a term (0 when unknown).
    pub fn idf(&self, term: &str) -> f32 {
        self.term_id(term).map_or(0.0, |id| self.idf_of(id))
    }

    fn idf_of(&self, id: u32) -> f32 {
        let n = self.live as f32;
        let df = self.df[id as usize] as f32;
        // `df` may count removed units until the next seal: the sum stays
        // positive ((n + 1) / (df + 0.5)), so the logarithm is defined.
        ((n - df + 0.5) / (df + 0.5) + 1.0).ln()
    }

    /// The postings of term `id`: sealed, then added since.
    fn postings(&self, id: u32) -> impl Iterator<Item = Posting> + '_ {
        let i = id as usize;
        let sealed: &[u8] = if i < self.ends.len() {
            self.sealed_run(i)
        } else {
            &[]
        };
        Decode::new(sealed).chain(self.fresh.get(&id).into_iter().flatten().copied())
    }

    /// BM25F scores of every unit matching any of `terms` (each with a
    /// weight and the number, below 64, of the query word it stands for):
    /// `(unit id, score, set of query words matched)`, by first match.
    pub fn score(&self, terms: &[(String, f32, usize)]) -> Vec<(u32, f32, u64)> {
        if self.live == 0 {
            return Vec::new();
        }
        let avg = self
            .total_len
            .map(|t| (t as f32 / self.live as f32).max(1.0));
        // Dense accumulators by unit id: a query touches many units.
        let mut acc: Vec<(f32, u64)> = vec![(0.0, 0); self.lens.len()];
        let mut hit: Vec<u32> = Vec::new();
        for (term, weight, word) in terms {
            let Some(id) = self.term_id(term) else {
                continue;
            };
            let idf = self.idf_of(id) * weight;
            let bit = 1u64 << (word % 64);
            for p in self.postings(id) {
                let lens = self.lens[p.unit as usize];
                if lens == DEAD {
                    continue;
                }
                let mut tf = 0f32;
                for f in 0..FIELDS {
                    if p.tf[f] > 0 {
                        let norm = 1.0 - B[f] + B[f] * lens[f] as f32 / avg[f];
                        tf += WEIGHTS[f] * p.tf[f] as f32 / norm;
                    }
                }
                let e = &mut acc[p.unit as usize];
                if e.1 == 0 {
                    hit.push(p.unit);
                }
                e.0 += idf * tf / (K1 + tf);
                e.1 |= bit;
            }
        }
        hit.into_iter()
            .map(|u| {
                let (s, w) = acc[u as usize];
                (u, s, w)
            })
            .collect()
    }

    /// The compressed postings of sealed term `i`, checked on first use
    /// when read from a store (see `checked`); empty when malformed.
    fn sealed_run(&self, i: usize) -> &[u8] {
        let run = self
            .post
            .get(self.starts[i] as usize..self.starts[i + 1] as usize)
            .unwrap_or_default();
        let Some(word) = self.checked.get(i / 64) else {
            return run;
        };
        let bit = 1u64 << (i % 64);
        if word.load(Ordering::Relaxed) & bit != 0 {
            return run;
        }
        if valid_run(run, self.lens.len()) == Some(self.df[i] as usize) {
            word.fetch_or(bit, Ordering::Relaxed);
            run
        } else {
            &[]
        }
    }

    /// Bytes held, by part: postings, term dictionary, per-unit field
    /// lengths.
    pub fn memory(&self) -> Vec<(&'static str, usize)> {
        let posting = std::mem::size_of::<Posting>();
        let postings = self.post.capacity()
            + self.starts.capacity() * 4
            + self.checked.capacity() * 8
            + self.fresh.capacity() * 40
            + self
                .fresh
                .values()
                .map(|p| p.capacity() * posting)
                .sum::<usize>();
        let terms = self.dict.capacity()
            + self.ends.capacity() * 4
            + self.df.capacity() * 4
            + self.added.capacity() * 24
            + self.added.keys().map(|k| k.len()).sum::<usize>();
        vec![
            ("postings", postings),
            ("terms", terms),
            ("field lengths", self.lens.capacity() * 2 * FIELDS),
        ]
    }

    /// Units indexed and not removed.
    pub fn live(&self) -> usize {
        self.live
    }

    /// Save: per unit (new ids, in `order`) its field lengths, then each
    /// term (sorted) with its postings of live units, renumbered by `remap`
    /// (old id → new id, `u32::MAX` for removed units), compressed as in
    /// memory: count, bytes, then the bytes.
    pub(super) fn write(&self, w: &mut Writer, remap: &[u32], order: &[u32]) {
        for &old in order {
            self.lens[old as usize].iter().for_each(|&l| w.u16(l));
        }
        let names = self.sorted_terms();
        let count_at = w.buf.len();
        w.u32(0);
        let mut n = 0u32;
        let mut live: Vec<Posting> = Vec::new();
        let mut bytes: Vec<u8> = Vec::new();
        for (term, id) in names {
            live.clear();
            live.extend(self.postings(id).filter_map(|p| {
                let new = *remap.get(p.unit as usize)?;
                (new != u32::MAX).then_some(Posting {
                    unit: new,
                    tf: p.tf,
                })
            }));
            if live.is_empty() {
                continue;
            }
            live.sort_unstable_by_key(|p| p.unit);
            n += 1;
            w.str(term);
            bytes.clear();
            let count = encode_all(&mut bytes, live.iter().copied());
            w.u32(count as u32);
            w.u32(bytes.len() as u32);
            w.buf.extend_from_slice(&bytes);
        }
        w.buf[count_at..count_at + 4].copy_from_slice(&n.to_le_bytes());
    }

    /// The inverse of [`Bm25::write`] for `units` units (ids `0..units`):
    /// `None` when anything is out of bounds or inconsistent (terms out of
    /// order or repeated, postings that do not decode to their count, a
    /// unit twice in a term, a unit that does not exist). Decodes into the
    /// flat arrays, sealed; a term's postings are checked when first read
    /// (see `checked`), and the terms' UTF-8 in one pass over them all.
    pub(super) fn read(r: &mut Reader, units: usize) -> Option<Bm25> {
        if units.checked_mul(2 * FIELDS)? > r.left() {
            return None;
        }
        // Room to grow: the first edit must not move every unit's entry.
        let mut lens = Vec::with_capacity(units + units / 8 + 64);
        let mut total_len = [0u64; FIELDS];
        for _ in 0..units {
            let mut l = [0u16; FIELDS];
            for (f, x) in l.iter_mut().enumerate() {
                *x = r.u16()?;
                total_len[f] += *x as u64;
            }
            if l.contains(&u16::MAX) {
                return None;
            }
            lens.push(l);
        }
        let n_terms = r.count(4 + 4 + 4 + 2)?;
        let mut b = Bm25 {
            lens,
            total_len,
            live: units,
            ends: Vec::with_capacity(n_terms),
            starts: Vec::with_capacity(n_terms + 1),
            df: Vec::with_capacity(n_terms),
            ..Bm25::default()
        };
        // The postings take most of what is left: one allocation.
        b.post.reserve_exact(r.left());
        b.starts.push(0);
        let mut dict: Vec<u8> = Vec::new();
        let mut last: &[u8] = &[];
        for i in 0..n_terms {
            let n = r.u32()? as usize;
            let term = r.take(n)?;
            // Byte order is `str` order: sorted and distinct.
            if i > 0 && last >= term {
                return None;
            }
            last = term;
            dict.extend_from_slice(term);
            b.ends.push(u32::try_from(dict.len()).ok()?);
            let n = r.count(2)?;
            let len = r.count(1)?;
            let bytes = r.take(len)?;
            // A run holds at least two bytes per posting.
            if n == 0 || n > len / 2 {
                return None;
            }
            b.post.extend_from_slice(bytes);
            b.sealed_count += n;
            b.df.push(n as u32);
            b.starts.push(u32::try_from(b.post.len()).ok()?);
        }
        // Whole, and cut only between characters.
        b.dict = String::from_utf8(dict).ok()?;
        if !b.ends.iter().all(|&e| b.dict.is_char_boundary(e as usize)) {
            return None;
        }
        b.dict.shrink_to_fit();
        b.post.shrink_to_fit();
        b.checked = (0..n_terms.div_ceil(64))
            .map(|_| AtomicU64::new(0))
            .collect();
        Some(b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn top(b: &Bm25, q: &str) -> Vec<u32> {
        let terms: Vec<(String, f32, usize)> = tokens::query_tokens(q)
            .into_iter()
            .enumerate()
            .map(|(i, t)| (t, 1.0, i))
            .collect();
        let mut v: Vec<(u32, f32)> = b
            .score(&terms)
            .into_iter()
            .map(|(id, score, _)| (id, score))
            .collect();
        v.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        v.into_iter().map(|x| x.0).collect()
    }

    #[test]
    fn a_name_match_beats_a_body_mention_and_removal_hides() {
        let mut b = Bm25::default();
        b.add(
            0,
            [
                "follow_redirects",
                "src/client.py",
                "def follow_redirects(self)",
                "return self._send()",
            ],
        );
        b.add(
            1,
            [
                "test_other",
                "tests/test_a.py",
                "def test_other()",
                "client.follow_redirects = True",
            ],
        );
        b.add(2, ["unrelated", "src/x.py", "", "pass"]);
        assert_eq!(top(&b, "follow redirects"), [0, 1]);
        b.remove(0);
        assert_eq!(top(&b, "follow redirects"), [1]);
        b.seal();
        assert_eq!(top(&b, "follow redirects"), [1]);
        assert_eq!(b.live(), 2);
    }

    #[test]
    fn sealing_merges_drops_the_removed_and_recounts() {
        let fields = |body: &'static str| ["f", "a.py", "", body];
        let mut b = Bm25::default();
        b.add(0, fields("alpha beta"));
        b.add(1, fields("beta gamma"));
        b.seal();
        // One sealed, one fresh posting for `beta`; unit 0 removed.
        b.add(2, fields("beta delta"));
        b.remove(0);
        assert_eq!(top(&b, "beta"), [1, 2]);
        assert!(b.unsealed());
        b.seal();
        assert!(!b.unsealed());
        assert_eq!(top(&b, "beta"), [1, 2]);
        assert_eq!(b.idf("alpha"), 0.0, "a term of removed units only is gone");
        // The same scores as an index built from the live units alone.
        let mut fresh = Bm25::default();
        fresh.add(1, fields("beta gamma"));
        fresh.add(2, fields("beta delta"));
        for t in ["beta", "gamma", "delta", "f"] {
            assert_eq!(b.idf(t), fresh.idf(t), "{t}");
        }
        let q = vec![("beta".to_string(), 1.0, 0)];
        assert_eq!(b.score(&q), fresh.score(&q));
    }

    /// A store's runs are checked when first read: a run naming a unit
    /// that does not exist, or holding fewer postings than its count,
    /// reads as empty (no panic, no unit out of range), and the other
    /// terms answer as before.
    #[test]
    fn a_saved_run_that_is_malformed_reads_as_empty() {
        let fields = |name: &'static str, body: &'static str| [name, "a.py", "", body];
        let mut b = Bm25::default();
        b.add(0, fields("alpha", "beta"));
        b.add(1, fields("gamma", "beta"));
        let mut w = Writer::default();
        b.write(&mut w, &[0, 1], &[0, 1]);
        let whole = w.buf.clone();
        let read = |bytes: &[u8]| Bm25::read(&mut Reader::new(bytes), 2).unwrap();
        assert_eq!(top(&read(&whole), "beta"), [0, 1]);
        // A unit added before any query read the run: the run is checked
        // against the count it was saved with, not the one grown since.
        let mut grown = read(&whole);
        grown.add(2, fields("delta", "beta"));
        assert_eq!(top(&grown, "beta"), [0, 1, 2]);
        // The terms are written sorted: `alpha` first, its run of one
        // posting (unit 0) right after its name, count and length.
        let at = whole.windows(5).position(|w| w == b"alpha").unwrap() + 5 + 8;
        let mut far = whole.clone();
        far[at] = 9; // the gap to unit 9 of 2
        let far = read(&far);
        assert_eq!(top(&far, "alpha"), Vec::<u32>::new());
        assert_eq!(top(&far, "beta"), [0, 1]);
        assert_eq!(top(&far, "gamma"), [1]);
        // `beta`'s run holds two postings: counted as one, it loads and
        // reads as empty.
        let beta = whole.windows(4).position(|w| w == b"beta").unwrap() + 4;
        let mut short = whole.clone();
        short[beta..beta + 4].copy_from_slice(&1u32.to_le_bytes());
        let short = read(&short);
        assert_eq!(top(&short, "beta"), Vec::<u32>::new());
        assert_eq!(top(&short, "alpha"), [0]);
        let mut none = whole.clone();
        none[at - 8..at - 4].copy_from_slice(&0u32.to_le_bytes());
        assert!(
            Bm25::read(&mut Reader::new(&none), 2).is_none(),
            "a count of 0 is refused at load"
        );
        // A count beyond what the run's bytes can hold is refused at load.
        let mut many = whole.clone();
        many[at - 8..at - 4].copy_from_slice(&2u32.to_le_bytes());
        assert!(Bm25::read(&mut Reader::new(&many), 2).is_none());
    }

    #[test]
    fn postings_compress_and_decode_back_and_bad_bytes_stop() {
        let ps = [
            Posting {
                unit: 0,
                tf: [1, 0, 0, 0],
            },
            Posting {
                unit: 1,
                tf: [0, 0, 0, 15],
            },
            Posting {
                unit: 200,
                tf: [0, 0, 16, 0],
            },
            Posting {
                unit: 70_000,
                tf: [2, 1, 0, 255],
            },
            Posting {
                unit: u32::MAX - 1,
                tf: [0, 3, 0, 0],
            },
        ];
        let mut bytes = Vec::new();
        assert_eq!(encode_all(&mut bytes, ps), ps.len());
        // One field fewer than 16 times: the gap and one byte.
        assert_eq!(&bytes[..4], &[0, 0x11, 0, 0xf8]);
        let mut d = Decode::new(&bytes);
        assert_eq!(d.by_ref().collect::<Vec<_>>(), ps);
        assert!(!d.bad);
        // Truncated anywhere, or an empty field mask: stops, says so.
        for cut in 1..bytes.len() {
            let mut d = Decode::new(&bytes[..cut]);
            let n = d.by_ref().count();
            assert!(n < ps.len() && (d.bad || n > 0), "cut at {cut}");
        }
        let mut d = Decode::new(&[0, 0x00]);
        assert_eq!(d.by_ref().count(), 0);
        assert!(d.bad);
        // A gap past `u32`: refused, not wrapped.
        let mut d = Decode::new(&[0xff, 0xff, 0xff, 0xff, 0x7f, 0x11]);
        assert_eq!(d.by_ref().count(), 0);
        assert!(d.bad);
    }

    /// What a load checks with [`Decode`], the slow way.
    fn decoded_count(bytes: &[u8], units: usize) -> Option<usize> {
        let mut d = Decode::new(bytes);
        let mut n = 0;
        for p in d.by_ref() {
            if p.unit as usize >= units {
                return None;
            }
            n += 1;
        }
        (!d.bad).then_some(n)
    }

    proptest::proptest! {
        /// The load's check of a saved run agrees with [`Decode`] on any
        /// bytes (mostly malformed) and on real encoded runs, cut
        /// anywhere.
        #[test]
        fn the_load_check_agrees_with_decode(
            noise in proptest::collection::vec(proptest::num::u8::ANY, 0..40),
            units in 0usize..300,
            gaps in proptest::collection::vec((0u32..200, proptest::array::uniform4(0u8..40)), 0..20),
            cut in 0usize..200,
        ) {
            proptest::prop_assert_eq!(valid_run(&noise, units), decoded_count(&noise, units));
            let mut bytes = Vec::new();
            let (mut prev, mut unit) = (None, 0u32);
            for (gap, tf) in gaps {
                unit += gap;
                if tf.iter().all(|&t| t == 0) {
                    continue;
                }
                encode_posting(&mut bytes, prev, &Posting { unit, tf });
                prev = Some(unit);
                unit += 1;
            }
            let cut = cut.min(bytes.len());
            for b in [&bytes[..], &bytes[..cut]] {
                proptest::prop_assert_eq!(valid_run(b, units), decoded_count(b, units));
            }
        }
    }
}
