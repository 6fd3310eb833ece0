//! An in-memory BM25F index over the units' fields. Units are added and
//! removed one file at a time; a removed unit leaves a tombstone that
//! queries skip, and the postings are compacted when tombstones pile up.
//! ARCHITECTURE.md ("Search index") says why this and not tantivy.

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
        let u = unit as usize;
        if self.lens.len() <= u {
            self.lens.resize(u + 1, None);
            self.unit_terms.resize(u + 1, Vec::new());
        }
        let mut counts: HashMap<u32, [u16; FIELDS]> = HashMap::new();
        let mut lens = [0u32; FIELDS];
        for (f, text) in fields.iter().enumerate() {
            tokens::for_each_token(text, |t| {
                lens[f] += 1;
                let id = match self.terms.get(t) {
                    Some(&id) => id,
                    None => {
                        let id = self.postings.len() as u32;
                        self.terms.insert(t.to_string(), id);
                        self.postings.push(Vec::new());
                        self.df.push(0);
                        id
                    }
                };
                let c = counts.entry(id).or_default();
                c[f] = c[f].saturating_add(1);
            });
        }
        let mut ids = Vec::with_capacity(counts.len());
        for (id, tf) in counts {
            self.postings[id as usize].push(Posting { unit, tf });
            self.df[id as usize] += 1;
            ids.push(id);
        }
        for (f, &l) in lens.iter().enumerate() {
            self.total_len[f] += l as u64;
        }
        self.lens[u] = Some(lens);
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
    /// weight and the number, below 64, of the query word it stands for),
    /// added into `scores` by unit id with the set of query words matched.
    pub fn score(&self, terms: &[(String, f32, usize)], scores: &mut HashMap<u32, (f32, u64)>) {
        if self.live == 0 {
            return;
        }
        let avg = self
            .total_len
            .map(|t| (t as f32 / self.live as f32).max(1.0));
        for (term, weight, word) in terms {
            let Some(&id) = self.terms.get(term) else {
                continue;
            };
            let idf = self.idf(term) * weight;
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
                let e = scores.entry(p.unit).or_default();
                e.0 += idf * tf / (K1 + tf);
                e.1 |= 1u64 << (word % 64);
            }
        }
    }

    /// Units indexed and not removed.
    pub fn live(&self) -> usize {
        self.live
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
        let mut s = HashMap::new();
        b.score(&terms, &mut s);
        let mut v: Vec<(u32, f32)> = s.into_iter().map(|(id, (score, _))| (id, score)).collect();
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
