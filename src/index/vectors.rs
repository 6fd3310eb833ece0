//! The units' int8 vectors, flat: one array of `dim` bytes per unit, one
//! scale per unit (NaN: no vector, for a unit removed or embedded by no
//! model). One allocation for all of them instead of one per unit, and a
//! scan that walks memory in order.

use super::model::{Quantized, dot_i8};

#[derive(Debug, Default)]
pub struct Vectors {
    dim: usize,
    scales: Vec<f32>,
    q: Vec<i8>,
}

impl Vectors {
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// Add the next unit's vector (a vector of another size than the
    /// first one counts as none).
    pub fn push(&mut self, v: Option<&Quantized>) {
        if self.dim == 0
            && let Some(v) = v
            && !v.q.is_empty()
        {
            self.dim = v.q.len();
            self.q = vec![0; self.scales.len() * self.dim];
        }
        match v.filter(|v| v.q.len() == self.dim && v.scale.is_finite()) {
            Some(v) => {
                self.scales.push(v.scale);
                self.q.extend_from_slice(&v.q);
            }
            None => {
                self.scales.push(f32::NAN);
                self.q.resize(self.q.len() + self.dim, 0);
            }
        }
    }

    /// Add `n` units' vectors of `dim` bytes from the store: `scales` (NaN:
    /// none) and their bytes, with room for `room` units in all. `false`
    /// when the sizes do not add up.
    pub fn extend_saved(&mut self, dim: usize, scales: &[f32], bytes: &[u8], room: usize) -> bool {
        if self.dim != 0 && self.dim != dim || Some(bytes.len()) != scales.len().checked_mul(dim) {
            return false;
        }
        self.dim = dim;
        let more = room.saturating_sub(self.scales.len());
        self.scales.reserve_exact(more);
        self.q.reserve_exact(more.saturating_mul(dim));
        self.scales.extend_from_slice(scales);
        self.q.extend(bytes.iter().map(|&b| b as i8));
        true
    }

    /// Forget unit `id`'s vector.
    pub fn remove(&mut self, id: u32) {
        if let Some(s) = self.scales.get_mut(id as usize) {
            *s = f32::NAN;
        }
    }

    /// Forget every vector (made by another model), keeping the ids.
    pub fn clear(&mut self) {
        let n = self.scales.len();
        *self = Vectors::default();
        self.scales.resize(n, f32::NAN);
    }

    /// Unit `id`'s vector: its scale and values.
    pub fn get(&self, id: u32) -> Option<(f32, &[i8])> {
        let i = id as usize;
        let s = *self.scales.get(i)?;
        if s.is_nan() {
            return None;
        }
        Some((s, self.q.get(i * self.dim..(i + 1) * self.dim)?))
    }

    /// Cosine of every unit with a vector against `query`: `(id, score)`
    /// for those `keep` accepts, in id order.
    pub fn scan(&self, query: &Quantized, mut keep: impl FnMut(u32) -> bool) -> Vec<(u32, f32)> {
        if self.dim == 0 || query.q.len() != self.dim {
            return Vec::new();
        }
        self.q
            .chunks_exact(self.dim)
            .zip(&self.scales)
            .enumerate()
            .filter(|(id, (_, s))| !s.is_nan() && keep(*id as u32))
            .map(|(id, (q, s))| (id as u32, dot_i8(q, &query.q) as f32 * s * query.scale))
            .collect()
    }

    /// Bytes held.
    pub fn memory(&self) -> usize {
        self.q.capacity() + self.scales.capacity() * 4
    }
}
