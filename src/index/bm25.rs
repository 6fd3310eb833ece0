//! An in-memory BM25F index over the units' fields. Units are added and
//! removed one file at a time; a removed unit leaves a tombstone that
//! queries skip, and the postings are compacted when tombstones pile up.
//! ARCHITECTURE.md ("Search index") says why this and not tantivy.

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

#[derive(Debug, Clone, Copy)]
struct Posting {
    unit: u32,
    tf: [u16; FIELDS],
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
        let mut at: HashMap<String, usize> = HashMap::new();
        let mut c = Counted::default();
        for (f, text) in fields.iter().enumerate() {
            tokens::for_each_token(text, |t| {
                c.lens[f] += 1;
                let i = match at.get(t) {
                    Some(&i) => i,
                    None => {
                        at.insert(t.to_string(), c.terms.len());
                        c.terms.push((t.to_string(), [0; FIELDS]));
                        c.terms.len() - 1
                    }
                };
                let tf = &mut c.terms[i].1[f];
                *tf = tf.saturating_add(1);
            });
        }
        c
    }
}

#[derive(Debug, Default)]
pub struct Bm25 {
    terms: HashMap<String, u32>,
    postings: Vec<Vec<Posting>>,
    /// Live documents holding each term.
    df: Vec<u32>,
    /// Per unit: field lengths, or `None` once removed.
    lens: Vec<Option<[u32; FIELDS]>>,
    /// Per unit: its distinct terms (to update `df` on removal).
    unit_terms: Vec<Vec<u32>>,
    total_len: [u64; FIELDS],
    live: usize,
    dead: usize,
}

impl Bm25 {
    /// Index unit number `unit` (ids are given by the caller, densely).
    pub fn add(&mut self, unit: u32, fields: Fields) {
        self.add_counted(unit, Counted::of(fields));
    }

    /// Index unit number `unit` from its counted terms (counted beforehand,
    /// off the index lock and on every core).
    pub fn add_counted(&mut self, unit: u32, counted: Counted) {
        let u = unit as usize;
        if self.lens.len() <= u {
            self.lens.resize(u + 1, None);
            self.unit_terms.resize(u + 1, Vec::new());
        }
        let mut ids = Vec::with_capacity(counted.terms.len());
        for (term, tf) in counted.terms {
            let id = match self.terms.get(term.as_str()) {
                Some(&id) => id,
                None => {
                    let id = self.postings.len() as u32;
                    self.terms.insert(term, id);
                    self.postings.push(Vec::new());
                    self.df.push(0);
                    id
                }
            };
            self.postings[id as usize].push(Posting { unit, tf });
            self.df[id as usize] += 1;
            ids.push(id);
        }
        for (f, &l) in counted.lens.iter().enumerate() {
            self.total_len[f] += l as u64;
        }
        self.lens[u] = Some(counted.lens);
        self.unit_terms[u] = ids;
        self.live += 1;
    }

    /// Forget unit `unit` (its postings stay until [`Bm25::compact`]).
    pub fn remove(&mut self, unit: u32) {
        let u = unit as usize;
        let Some(lens) = self.lens.get_mut(u).and_then(Option::take) else {
            return;
        };
        for (f, &l) in lens.iter().enumerate() {
            self.total_len[f] -= l as u64;
        }
        for id in std::mem::take(&mut self.unit_terms[u]) {
            self.df[id as usize] -= 1;
        }
        self.live -= 1;
        self.dead += 1;
        if self.dead > 1000 && self.dead > self.live / 3 {
            self.compact();
        }
    }

    /// Drop the postings of removed units.
    pub fn compact(&mut self) {
        let lens = &self.lens;
        for p in &mut self.postings {
            p.retain(|x| lens[x.unit as usize].is_some());
        }
        self.dead = 0;
    }

    /// Inverse document frequency of a term (0 when unknown).
    pub fn idf(&self, term: &str) -> f32 {
        let Some(&id) = self.terms.get(term) else {
            return 0.0;
        };
        let n = self.live as f32;
        let df = self.df[id as usize] as f32;
        ((n - df + 0.5) / (df + 0.5) + 1.0).ln()
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
            let Some(&id) = self.terms.get(term) else {
                continue;
            };
            let idf = self.idf(term) * weight;
            let bit = 1u64 << (word % 64);
            for p in &self.postings[id as usize] {
                let Some(lens) = self.lens[p.unit as usize] else {
                    continue;
                };
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

    /// Bytes held, by part: postings, term dictionary, per-unit data.
    pub fn memory(&self) -> Vec<(&'static str, usize)> {
        let postings = self.postings.capacity() * 24
            + self
                .postings
                .iter()
                .map(|p| p.capacity() * std::mem::size_of::<Posting>())
                .sum::<usize>();
        let terms = self.terms.capacity() * 32
            + self.terms.keys().map(String::capacity).sum::<usize>()
            + self.df.capacity() * 4;
        let per_unit = self.lens.capacity() * std::mem::size_of::<Option<[u32; FIELDS]>>()
            + self.unit_terms.capacity() * 24
            + self
                .unit_terms
                .iter()
                .map(|t| t.capacity() * 4)
                .sum::<usize>();
        vec![
            ("postings", postings),
            ("terms", terms),
            ("per-unit keyword data", per_unit),
        ]
    }

    /// Units indexed and not removed.
    pub fn live(&self) -> usize {
        self.live
    }

    /// Save: per unit (new ids, in `order`) its field lengths, then each
    /// term with its postings of live units, renumbered by `remap` (old id
    /// → new id, `u32::MAX` for removed units).
    pub(super) fn write(&self, w: &mut Writer, remap: &[u32], order: &[u32]) {
        for &old in order {
            let lens = self.lens[old as usize].unwrap_or_default();
            lens.iter().for_each(|&l| w.u32(l));
        }
        let mut terms: Vec<(&String, &u32)> = self.terms.iter().collect();
        terms.sort();
        let count_at = w.buf.len();
        w.u32(0);
        let mut n = 0u32;
        let mut live: Vec<(u32, [u16; FIELDS])> = Vec::new();
        for (term, &id) in terms {
            live.clear();
            live.extend(self.postings[id as usize].iter().filter_map(|p| {
                let new = *remap.get(p.unit as usize)?;
                (new != u32::MAX).then_some((new, p.tf))
            }));
            if live.is_empty() {
                continue;
            }
            live.sort_unstable_by_key(|p| p.0);
            n += 1;
            w.str(term);
            w.u32(live.len() as u32);
            for (unit, tf) in &live {
                w.u32(*unit);
                tf.iter().for_each(|&t| w.u16(t));
            }
        }
        w.buf[count_at..count_at + 4].copy_from_slice(&n.to_le_bytes());
    }

    /// The inverse of [`Bm25::write`] for `units` units (ids `0..units`):
    /// `None` when anything is out of bounds or inconsistent.
    pub(super) fn read(r: &mut Reader, units: usize) -> Option<Bm25> {
        // Room to grow: the first edit must not move every unit's entry.
        let room = units + units / 8 + 64;
        let mut unit_terms = Vec::with_capacity(room);
        unit_terms.resize(units, Vec::new());
        let mut b = Bm25 {
            lens: Vec::with_capacity(room),
            unit_terms,
            live: units,
            ..Bm25::default()
        };
        if units.checked_mul(4 * FIELDS)? > r.left() {
            return None;
        }
        for _ in 0..units {
            let mut lens = [0u32; FIELDS];
            for (f, l) in lens.iter_mut().enumerate() {
                *l = r.u32()?;
                b.total_len[f] += *l as u64;
            }
            b.lens.push(Some(lens));
        }
        let n_terms = r.count(9)?;
        b.terms.reserve(n_terms);
        b.postings.reserve_exact(n_terms);
        b.df.reserve_exact(n_terms);
        for id in 0..n_terms as u32 {
            let term = r.string()?;
            let n = r.count(4 + 2 * FIELDS)?;
            let mut postings = Vec::with_capacity(n);
            for _ in 0..n {
                let unit = r.u32()?;
                let mut tf = [0u16; FIELDS];
                for t in tf.iter_mut() {
                    *t = r.u16()?;
                }
                let terms = b.unit_terms.get_mut(unit as usize)?;
                if terms.last() == Some(&id) {
                    return None;
                }
                terms.push(id);
                postings.push(Posting { unit, tf });
            }
            if b.terms.insert(term, id).is_some() {
                return None;
            }
            b.df.push(n as u32);
            b.postings.push(postings);
        }
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
        b.compact();
        assert_eq!(top(&b, "follow redirects"), [1]);
        assert_eq!(b.live(), 2);
    }
}
