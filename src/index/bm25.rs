//! An in-memory BM25F index over the units' fields. Units are added and
//! removed one file at a time; a removed unit leaves a tombstone that
//! queries skip. ARCHITECTURE.md ("Search index") says why this and not
//! tantivy.
//!
//! Layout (few, large allocations: a warm start decodes into flat arrays,
//! and 50,000 files must fit in memory): the terms in one sorted string,
//! found by binary search; every posting in one array, term by term, with
//! its start per term. Units added since the last [`Bm25::seal`] go in a
//! small overlay (new terms in a map, new postings in a list per term);
//! sealing merges the overlay into the flat arrays, drops the postings of
//! removed units and recounts the document frequencies (which count
//! removed units until then: no per-unit list of terms is kept). The index
//! seals itself when the overlay or the tombstones grow past a share of the
//! whole; the live index seals after every refresh.

use super::format::{Reader, Writer};
use super::tokens;
use std::collections::HashMap;

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
const DEAD: [u32; FIELDS] = [u32::MAX; FIELDS];

#[derive(Debug, Default)]
pub struct Bm25 {
    /// The sealed terms, sorted, one after the other; term `i` ends at
    /// `ends[i]`.
    dict: String,
    ends: Vec<u32>,
    /// Terms first seen since the last seal (ids after the sealed ones).
    added: HashMap<Box<str>, u32>,
    /// Postings of sealed term `i`: `post[starts[i]..starts[i + 1]]`, by
    /// unit.
    post: Vec<Posting>,
    starts: Vec<u32>,
    /// Postings added since the last seal, by term id.
    fresh: HashMap<u32, Vec<Posting>>,
    fresh_count: usize,
    /// Documents holding each term (removed ones too, until the next seal).
    df: Vec<u32>,
    /// Per unit: field lengths, [`DEAD`] once removed.
    lens: Vec<[u32; FIELDS]>,
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
            self.df[id as usize] += 1;
        }
        for (f, &l) in counted.lens.iter().enumerate() {
            self.total_len[f] += l as u64;
        }
        self.lens[u] = counted.lens;
        self.live += 1;
        if self.fresh_count > (self.post.len() / 2).max(200_000) {
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
        let n_sealed = self.ends.len();
        let mut dict = String::with_capacity(self.dict.len());
        let mut ends = Vec::with_capacity(names.len());
        let mut post: Vec<Posting> = Vec::with_capacity(self.post.len() + self.fresh_count);
        let mut starts = Vec::with_capacity(names.len() + 1);
        let mut df = Vec::with_capacity(names.len());
        starts.push(0u32);
        let lens = &self.lens;
        let live = |p: &&Posting| lens[p.unit as usize] != DEAD;
        for (term, id) in names {
            let at = post.len();
            if (id as usize) < n_sealed {
                let (a, b) = (self.starts[id as usize], self.starts[id as usize + 1]);
                post.extend(self.post[a as usize..b as usize].iter().filter(live));
            }
            if let Some(f) = self.fresh.get(&id) {
                post.extend(f.iter().filter(live));
            }
            if post.len() == at {
                continue;
            }
            // Sealed postings come before fresh ones, and fresh units
            // have higher ids, except when a unit id was given twice
            // (never by the index): sort to keep the order by unit.
            post[at..].sort_unstable_by_key(|p| p.unit);
            dict.push_str(term);
            ends.push(dict.len() as u32);
            df.push((post.len() - at) as u32);
            starts.push(post.len() as u32);
        }
        dict.shrink_to_fit();
        post.shrink_to_fit();
        self.dict = dict;
        self.ends = ends;
        self.post = post;
        self.starts = starts;
        self.df = df;
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
    fn postings(&self, id: u32) -> impl Iterator<Item = &Posting> {
        let i = id as usize;
        let sealed: &[Posting] = if i < self.ends.len() {
            &self.post[self.starts[i] as usize..self.starts[i + 1] as usize]
        } else {
            &[]
        };
        sealed
            .iter()
            .chain(self.fresh.get(&id).into_iter().flatten())
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

    /// Bytes held, by part: postings, term dictionary, per-unit field
    /// lengths.
    pub fn memory(&self) -> Vec<(&'static str, usize)> {
        let posting = std::mem::size_of::<Posting>();
        let postings = self.post.capacity() * posting
            + self.starts.capacity() * 4
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
            ("field lengths", self.lens.capacity() * 4 * FIELDS),
        ]
    }

    /// Units indexed and not removed.
    pub fn live(&self) -> usize {
        self.live
    }

    /// Save: per unit (new ids, in `order`) its field lengths, then each
    /// term (sorted) with its postings of live units, renumbered by `remap`
    /// (old id → new id, `u32::MAX` for removed units).
    pub(super) fn write(&self, w: &mut Writer, remap: &[u32], order: &[u32]) {
        for &old in order {
            self.lens[old as usize].iter().for_each(|&l| w.u32(l));
        }
        let names = self.sorted_terms();
        let count_at = w.buf.len();
        w.u32(0);
        let mut n = 0u32;
        let mut live: Vec<Posting> = Vec::new();
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
            w.u32(live.len() as u32);
            for p in &live {
                w.u32(p.unit);
                w.buf.extend_from_slice(&p.tf);
            }
        }
        w.buf[count_at..count_at + 4].copy_from_slice(&n.to_le_bytes());
    }

    /// The inverse of [`Bm25::write`] for `units` units (ids `0..units`):
    /// `None` when anything is out of bounds or inconsistent (terms out of
    /// order or repeated, a unit twice in a term, a unit that does not
    /// exist). Decodes into the flat arrays, sealed.
    pub(super) fn read(r: &mut Reader, units: usize) -> Option<Bm25> {
        if units.checked_mul(4 * FIELDS)? > r.left() {
            return None;
        }
        // Room to grow: the first edit must not move every unit's entry.
        let mut lens = Vec::with_capacity(units + units / 8 + 64);
        let mut total_len = [0u64; FIELDS];
        for _ in 0..units {
            let mut l = [0u32; FIELDS];
            for (f, x) in l.iter_mut().enumerate() {
                *x = r.u32()?;
                total_len[f] += *x as u64;
            }
            if l == DEAD {
                return None;
            }
            lens.push(l);
        }
        let n_terms = r.count(9)?;
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
        b.post.reserve_exact(r.left() / (4 + FIELDS));
        b.starts.push(0);
        for _ in 0..n_terms {
            let term = r.str()?;
            if let Some(last) = b.ends.len().checked_sub(1)
                && b.sealed_term(last) >= term
            {
                return None;
            }
            b.dict.push_str(term);
            b.ends.push(u32::try_from(b.dict.len()).ok()?);
            let n = r.count(4 + FIELDS)?;
            if n == 0 {
                return None;
            }
            let at = b.post.len();
            for _ in 0..n {
                let unit = r.u32()?;
                let tf: [u8; FIELDS] = r.take(FIELDS)?.try_into().ok()?;
                if unit as usize >= units || b.post[at..].last().is_some_and(|p| p.unit >= unit) {
                    return None;
                }
                b.post.push(Posting { unit, tf });
            }
            b.df.push(n as u32);
            b.starts.push(u32::try_from(b.post.len()).ok()?);
        }
        b.dict.shrink_to_fit();
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
}
