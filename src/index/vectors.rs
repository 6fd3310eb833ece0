//! The units' vectors, in two tiers (issue 11: 50,000 files in under
//! 300 MB). In memory, one bit per dimension (the sign: 32 bytes per unit
//! for 256 dimensions) for a first pass over every unit by sign agreement;
//! the int8 vectors (a scale and `dim` bytes) stay in the saved store and
//! only the [`RESCORE`] best of the first pass are read back, through the
//! store's open handle, and scored exactly. Vectors added since the last
//! save (a refresh, a cold build) are kept whole in memory until the next
//! save moves them to the store ([`Vectors::saved`]).
//!
//! The store is untrusted and may change under a running index (another
//! process saves, a user truncates it): every read is bounds-checked and
//! the store's checksum is compared with the one loaded before each
//! query's reads; when it differs or a read fails, the candidates keep the
//! cosine their sign agreement estimates ([`Vectors::lost`] says so, and
//! the next save writes a whole store again). Nothing here panics on a bad
//! store.

use super::model::{Quantized, dot_i8};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Units of the sign pass rescored with their int8 vectors (the semantic
/// side keeps 300). Measured over the 102 questions (BENCHMARKS.md,
/// session 9): hybrid NDCG@10 0.835 with 300, 0.842 with 600, 0.845 with
/// 1,200 and the same with 3,000.
pub const RESCORE: usize = 1200;

/// Where a unit's int8 vector is: nowhere, in memory (`MEMORY | slot`) or
/// record `n` of the store.
const NONE: u32 = u32::MAX;
const MEMORY: u32 = 1 << 31;

/// Reads `buf.len()` bytes at an offset of the saved store (`false` when
/// it cannot: short, gone, unreadable).
pub type ReadAt = Box<dyn Fn(u64, &mut [u8]) -> bool + Send + Sync>;

/// The int8 vectors of a saved store: its records (scale, then `dim`
/// bytes) from byte `at`, and the checksum it had when loaded.
pub struct Saved {
    pub read: ReadAt,
    /// Offset and value of the store's checksum.
    pub sum_at: u64,
    pub sum: [u8; 32],
    pub at: u64,
    pub records: u32,
    lost: AtomicBool,
}

impl Saved {
    pub fn new(read: ReadAt, sum_at: u64, sum: [u8; 32], at: u64, records: u32) -> Saved {
        Saved {
            read,
            sum_at,
            sum,
            at,
            records,
            lost: AtomicBool::new(false),
        }
    }

    /// Whether the store is still the one loaded (its checksum unchanged).
    fn same(&self) -> bool {
        let mut s = [0u8; 32];
        let ok = (self.read)(self.sum_at, &mut s) && s == self.sum;
        if !ok {
            self.lost.store(true, Ordering::Relaxed);
        }
        ok
    }

    /// Read `buf.len()` bytes at `at` if the store is still the one loaded
    /// (a failure marks it lost, as a vector's would).
    pub fn read_checked(&self, at: u64, buf: &mut [u8]) -> bool {
        let ok = self.same() && (self.read)(at, buf);
        if !ok {
            self.lost.store(true, Ordering::Relaxed);
        }
        ok
    }

    /// Where the vector records start (everything a unit has besides its
    /// vector and its keywords lies before).
    pub fn vectors_at(&self) -> u64 {
        self.at
    }

    /// Record `n`: its scale and values (`None`: unreadable, or no vector).
    fn record(&self, n: u32, dim: usize, buf: &mut Vec<u8>) -> Option<f32> {
        if n >= self.records {
            return None;
        }
        let size = 4 + dim as u64;
        buf.resize(4 + dim, 0);
        if !(self.read)(self.at + n as u64 * size, buf) {
            self.lost.store(true, Ordering::Relaxed);
            return None;
        }
        let scale = f32::from_le_bytes(buf[..4].try_into().ok()?);
        scale.is_finite().then_some(scale)
    }
}

#[derive(Default)]
pub struct Vectors {
    dim: usize,
    /// `dim` rounded up to 64-bit words: the sign bits of unit `i` are
    /// `signs[i * words..(i + 1) * words]`.
    words: usize,
    signs: Vec<u64>,
    place: Vec<u32>,
    /// Vectors not in the store: scale and values by slot.
    mem_scales: Vec<f32>,
    mem_q: Vec<i8>,
    saved: Option<Arc<Saved>>,
    /// The store was found changed and let go: the units it held are
    /// estimated by their signs until their files are read again.
    let_go: bool,
}

impl std::fmt::Debug for Vectors {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Vectors")
            .field("dim", &self.dim)
            .field("units", &self.place.len())
            .finish()
    }
}

/// The sign bits of `q` (a value above zero sets its bit), appended to
/// `out` as `words` words.
pub(super) fn sign_bits(q: &[i8], words: usize, out: &mut Vec<u64>) {
    let at = out.len();
    out.resize(at + words, 0);
    for (w, chunk) in out[at..].iter_mut().zip(q.chunks(64)) {
        *w = sign_word(chunk.iter().copied());
    }
}

/// One word of sign bits, value `i` to bit `i`. Branch-free and one word
/// at a time, so that the compiler makes it a few vector compares: a bit at
/// a time, computing the signs of a warm start's saved vectors was 40 % of
/// a warm `scalpel find` with a model (issue 31).
fn sign_word(values: impl Iterator<Item = i8>) -> u64 {
    values
        .enumerate()
        .fold(0u64, |w, (i, x)| w | (((x > 0) as u64) << i))
}

impl Vectors {
    pub fn dim(&self) -> usize {
        self.dim
    }

    fn set_dim(&mut self, dim: usize) {
        self.dim = dim;
        self.words = dim.div_ceil(64);
        self.signs = vec![0; self.place.len() * self.words];
    }

    /// Add the next unit's vector, kept whole in memory until saved (a
    /// vector of another size than the first one counts as none).
    pub fn push(&mut self, v: Option<&Quantized>) {
        if self.dim == 0
            && let Some(v) = v
            && !v.q.is_empty()
        {
            self.set_dim(v.q.len());
        }
        match v.filter(|v| v.q.len() == self.dim && v.scale.is_finite()) {
            Some(v) => {
                sign_bits(&v.q, self.words, &mut self.signs);
                self.place.push(MEMORY | self.mem_scales.len() as u32);
                self.mem_scales.push(v.scale);
                self.mem_q.extend_from_slice(&v.q);
            }
            None => {
                self.signs.resize(self.signs.len() + self.words, 0);
                self.place.push(NONE);
            }
        }
    }

    /// Add a unit of the store: record `record` (`None`: no vector) with
    /// its sign bits as saved (`words` little-endian 64-bit words).
    pub fn push_saved(&mut self, dim: usize, record: Option<u32>, bits: &[u8]) {
        if self.dim == 0 && dim > 0 {
            self.set_dim(dim);
        }
        let at = self.signs.len();
        self.signs.resize(at + self.words, 0);
        match record.filter(|_| bits.len() == self.words * 8) {
            Some(n) => {
                for (w, b) in self.signs[at..].iter_mut().zip(bits.chunks_exact(8)) {
                    *w = u64::from_le_bytes(b.try_into().unwrap_or_default());
                }
                self.place.push(n);
            }
            None => self.place.push(NONE),
        }
    }

    /// Room for `units` units in all, of `dim` dimensions (0: none);
    /// `None` when the memory cannot be had (sizes come from a store on
    /// disk, checked against its length first).
    pub fn prepare(&mut self, dim: usize, units: usize) -> Option<()> {
        if self.dim == 0 && dim > 0 {
            self.set_dim(dim);
        }
        let more = units.saturating_sub(self.place.len());
        self.place.try_reserve_exact(more).ok()?;
        self.signs
            .try_reserve_exact(more.checked_mul(self.words)?)
            .ok()
    }

    /// The store the units pushed by [`Vectors::push_saved`] are read from.
    pub fn attach(&mut self, saved: Arc<Saved>) {
        self.saved = Some(saved);
    }

    /// Whether a read of the store failed or found it changed since it was
    /// loaded (scores are estimated until the next save).
    pub fn lost(&self) -> bool {
        self.let_go
            || self
                .saved
                .as_ref()
                .is_some_and(|s| s.lost.load(Ordering::Relaxed))
    }

    /// Let go of a store found changed (`true` the first time): its
    /// vectors are estimated from now on, and saved as none.
    pub fn let_go_of_lost_store(&mut self) -> bool {
        if self.let_go || !self.lost() {
            return false;
        }
        self.saved = None;
        self.let_go = true;
        true
    }

    /// After a save: unit `id` is record `remap[id]` of the new store
    /// `saved` (`u32::MAX`: not saved); vectors left in memory are those
    /// of units added since the save began.
    pub fn saved(&mut self, saved: Arc<Saved>, remap: &[u32]) {
        let old_scales = std::mem::take(&mut self.mem_scales);
        let old_q = std::mem::take(&mut self.mem_q);
        let dim = self.dim;
        for (id, p) in self.place.iter_mut().enumerate() {
            if *p == NONE {
                continue;
            }
            match remap.get(id).copied().filter(|&r| r != NONE) {
                Some(r) => *p = r,
                None if *p & MEMORY != 0 && *p != NONE => {
                    let slot = (*p & !MEMORY) as usize;
                    *p = MEMORY | self.mem_scales.len() as u32;
                    self.mem_scales.push(old_scales[slot]);
                    self.mem_q
                        .extend_from_slice(&old_q[slot * dim..(slot + 1) * dim]);
                }
                // On the old store but not saved: cannot happen (every
                // live unit is saved); forgotten rather than misread.
                None => *p = NONE,
            }
        }
        self.mem_scales.shrink_to_fit();
        self.mem_q.shrink_to_fit();
        self.saved = Some(saved);
        self.let_go = false;
    }

    /// Forget unit `id`'s vector.
    pub fn remove(&mut self, id: u32) {
        if let Some(p) = self.place.get_mut(id as usize) {
            *p = NONE;
        }
    }

    /// Forget every vector (made by another model), keeping the ids.
    pub fn clear(&mut self) {
        let n = self.place.len();
        *self = Vectors::default();
        self.place.resize(n, NONE);
    }

    /// Unit `id`'s sign bits.
    #[cfg(test)]
    pub fn signs_of(&self, id: u32) -> &[u64] {
        let at = id as usize * self.words;
        &self.signs[at..at + self.words]
    }

    /// Unit `id`'s vector: its scale and values, from memory or the store.
    #[cfg(test)]
    pub fn get(&self, id: u32) -> Option<(f32, Vec<i8>)> {
        let mut buf = Vec::new();
        self.exact(*self.place.get(id as usize)?, &mut buf)
    }

    fn exact(&self, p: u32, buf: &mut Vec<u8>) -> Option<(f32, Vec<i8>)> {
        if p == NONE {
            return None;
        }
        if p & MEMORY != 0 {
            let slot = (p & !MEMORY) as usize;
            let q = self.mem_q.get(slot * self.dim..(slot + 1) * self.dim)?;
            return Some((*self.mem_scales.get(slot)?, q.to_vec()));
        }
        let s = self.saved.as_ref()?.record(p, self.dim, buf)?;
        Some((s, buf[4..].iter().map(|&b| b as i8).collect()))
    }

    /// Every unit's vector in turn, for a save (the store is read in
    /// blocks, in record order when `ids` are).
    pub fn for_each(&self, ids: &[u32], mut f: impl FnMut(Option<(f32, &[i8])>)) {
        const BLOCK: u32 = 4096;
        let size = 4 + self.dim;
        let mut block: Vec<u8> = Vec::new();
        let mut block_first = u32::MAX;
        let mut block_ok = false;
        let mut q: Vec<i8> = Vec::with_capacity(self.dim);
        for &id in ids {
            let p = self.place.get(id as usize).copied().unwrap_or(NONE);
            if p == NONE {
                f(None);
            } else if p & MEMORY != 0 {
                let slot = (p & !MEMORY) as usize;
                f(self
                    .mem_q
                    .get(slot * self.dim..(slot + 1) * self.dim)
                    .zip(self.mem_scales.get(slot))
                    .map(|(q, &s)| (s, q)));
            } else if let Some(saved) = &self.saved {
                if block_first == u32::MAX || p < block_first || p >= block_first + BLOCK {
                    block_first = p - p % BLOCK;
                    let n = BLOCK.min(saved.records.saturating_sub(block_first)) as usize;
                    block.resize(n * size, 0);
                    block_ok =
                        (saved.read)(saved.at + block_first as u64 * size as u64, &mut block);
                    if !block_ok {
                        saved.lost.store(true, Ordering::Relaxed);
                    }
                }
                let i = (p - block_first) as usize * size;
                let rec = block.get(i..i + size).filter(|_| block_ok);
                let scale = rec
                    .and_then(|r| Some(f32::from_le_bytes(r[..4].try_into().ok()?)))
                    .filter(|s| s.is_finite());
                match (rec, scale) {
                    (Some(r), Some(s)) => {
                        q.clear();
                        q.extend(r[4..].iter().map(|&b| b as i8));
                        f(Some((s, &q)));
                    }
                    _ => f(None),
                }
            } else {
                f(None);
            }
        }
    }

    /// Cosine of every unit with a vector against `query`: `(id, score)`
    /// for at most [`RESCORE`] of those `keep` accepts (the best by sign
    /// agreement), scored exactly where their vector can be read.
    pub fn scan(&self, query: &Quantized, mut keep: impl FnMut(u32) -> bool) -> Vec<(u32, f32)> {
        if self.dim == 0 || query.q.len() != self.dim {
            return Vec::new();
        }
        let mut qbits = Vec::new();
        sign_bits(&query.q, self.words, &mut qbits);
        let mut agree: Vec<(u32, u32)> = self
            .signs
            .chunks_exact(self.words)
            .zip(&self.place)
            .enumerate()
            .filter(|(id, (_, p))| **p != NONE && keep(*id as u32))
            .map(|(id, (bits, _))| {
                let differ: u32 = bits
                    .iter()
                    .zip(&qbits)
                    .map(|(a, b)| (a ^ b).count_ones())
                    .sum();
                (id as u32, differ)
            })
            .collect();
        // The best RESCORE, and every unit tied with the last of them (up
        // to four times as many): which units are read back must not
        // depend on their ids, which a save renumbers.
        if agree.len() > RESCORE {
            agree.select_nth_unstable_by_key(RESCORE - 1, |a| a.1);
            let last = agree[RESCORE - 1].1;
            let (_, _, rest) = agree.select_nth_unstable_by_key(RESCORE - 1, |a| a.1);
            let mut ties: Vec<(u32, u32)> = rest.iter().filter(|a| a.1 == last).copied().collect();
            ties.sort_unstable_by_key(|a| a.0);
            ties.truncate(RESCORE * 3);
            agree.truncate(RESCORE);
            agree.extend(ties);
        }
        // Store reads in record order (nearby records share pages).
        agree.sort_unstable_by_key(|&(id, _)| self.place[id as usize]);
        let store_ok = self.saved.as_ref().is_some_and(|s| s.same());
        let mut buf = Vec::new();
        let estimate = |differ: u32| (std::f32::consts::PI * differ as f32 / self.dim as f32).cos();
        let mut out: Vec<(u32, f32)> = agree
            .into_iter()
            .map(|(id, differ)| {
                let p = self.place[id as usize];
                let exact = if p & MEMORY != 0 || store_ok {
                    self.exact(p, &mut buf)
                } else {
                    None
                };
                let score = match exact {
                    Some((s, q)) => dot_i8(&q, &query.q) as f32 * s * query.scale,
                    None => estimate(differ),
                };
                (id, score)
            })
            .collect();
        out.sort_unstable_by_key(|&(id, _)| id);
        out
    }

    /// Bytes held.
    pub fn memory(&self) -> usize {
        self.signs.capacity() * 8
            + self.place.capacity() * 4
            + self.mem_scales.capacity() * 4
            + self.mem_q.capacity()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// Word-at-a-time sign bits equal the bit-at-a-time ones, for
        /// lengths that do and do not fill their last word; a saved
        /// vector's bits equal a fresh one's.
        #[test]
        fn sign_bits_are_the_values_above_zero(
            q in proptest::collection::vec(proptest::num::i8::ANY, 1..300),
        ) {
            let words = q.len().div_ceil(64);
            let mut expected = vec![0u64; words];
            for (i, &x) in q.iter().enumerate() {
                if x > 0 {
                    expected[i / 64] |= 1 << (i % 64);
                }
            }
            let mut out = vec![7u64];
            sign_bits(&q, words, &mut out);
            proptest::prop_assert_eq!(&out[1..], &expected[..]);
            let mut v = Vectors::default();
            // As a store saves them: little-endian words.
            let bytes: Vec<u8> = out[1..].iter().flat_map(|w| w.to_le_bytes()).collect();
            v.push_saved(q.len(), Some(0), &bytes);
            proptest::prop_assert_eq!(&v.signs[..], &expected[..]);
        }
    }
}
