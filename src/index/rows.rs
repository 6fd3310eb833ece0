//! A static model's embedding table, kept as the weights file stores it
//! (f16 for most Model2Vec models) and converted to `f32` one row at a
//! time, the first time a text uses that row.
//!
//! Why (issue 31): converting the whole table at load (30,522 × 256 values
//! for the shared model: a 31 MB allocation, every page touched) was a
//! quarter of a warm `scalpel find`'s CPU, for a query that uses a handful
//! of rows. Indexing converts each row it meets once, as before. A row is
//! converted by the same arithmetic as the whole-table conversion was
//! (element to `f32`, then times the row's weight), so embeddings are
//! bit for bit the same.
//!
//! A model loaded from its folder keeps the table in the weights file and
//! reads a row when it is first used ([`Source`]): the file is hashed
//! for the model's id through a small buffer, not read into memory (taking
//! 15 MB of fresh memory was a sixth of a warm `scalpel find` with a model
//! on this machine, issue 31). A row that can no longer be read (the file
//! cut short meanwhile) is empty: data, not a panic.

use safetensors::Dtype;
use std::sync::OnceLock;

/// The open weights file, of `len` bytes when it was opened: the table's
/// bytes are read from it.
pub(super) struct Source {
    pub file: std::fs::File,
    pub len: u64,
}

impl Source {
    /// `buf.len()` bytes at `at`; `false` when they cannot be read.
    fn read_at(&self, at: u64, buf: &mut [u8]) -> bool {
        std::os::unix::fs::FileExt::read_exact_at(&self.file, buf, at).is_ok()
    }

    /// `n` bytes at `at` (`None` when they cannot be read).
    pub fn read_vec(&self, at: u64, n: u64) -> Option<Vec<u8>> {
        let mut buf = vec![0u8; usize::try_from(n).ok()?];
        self.read_at(at, &mut buf).then_some(buf)
    }
}

/// The embedding rows of a model, converted on first use.
pub(super) struct Rows {
    /// The weights file; the table is at `at` in it, row-major.
    source: Source,
    at: u64,
    dtype: Dtype,
    /// Bytes per element of `dtype`.
    width: usize,
    dim: usize,
    /// Per-row weights (newer Model2Vec), applied at conversion.
    weights: Option<Vec<f32>>,
    converted: Vec<OnceLock<Box<[f32]>>>,
}

/// Why a table cannot be used.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum RowsError {
    /// An element type the conversion does not know.
    Dtype(Dtype),
    /// The tensor's bytes do not hold `rows × dim` elements, or `dim` is 0.
    Size,
}

impl std::fmt::Display for RowsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RowsError::Dtype(d) => write!(f, "unsupported dtype {d:?}"),
            RowsError::Size => f.write_str("tensor size does not match its shape"),
        }
    }
}

/// Bytes per element of `dtype`, for the types [`to_f32`] converts.
fn width(dtype: Dtype) -> Option<usize> {
    Some(match dtype {
        Dtype::I8 => 1,
        Dtype::F16 | Dtype::BF16 => 2,
        Dtype::F32 | Dtype::I32 => 4,
        Dtype::I64 => 8,
        _ => return None,
    })
}

impl Rows {
    /// The table of `rows × dim` elements of `dtype` at `at..at + len` in
    /// `source`; `weights` are used when there is one per row.
    pub(super) fn new(
        source: Source,
        (at, len): (u64, u64),
        dtype: Dtype,
        (rows, dim): (usize, usize),
        weights: Option<Vec<f32>>,
    ) -> Result<Rows, RowsError> {
        let width = width(dtype).ok_or(RowsError::Dtype(dtype))?;
        let fits = rows
            .checked_mul(dim)
            .and_then(|n| n.checked_mul(width))
            .is_some_and(|n| {
                n as u64 == len && at.checked_add(len).is_some_and(|e| e <= source.len)
            });
        if !fits || dim == 0 {
            return Err(RowsError::Size);
        }
        Ok(Rows {
            source,
            at,
            dtype,
            width,
            dim,
            weights: weights.filter(|w| w.len() == rows),
            converted: (0..rows).map(|_| OnceLock::new()).collect(),
        })
    }

    /// Row `r` in `f32` (`None` past the table).
    pub(super) fn row(&self, r: usize) -> Option<&[f32]> {
        let cell = self.converted.get(r)?;
        Some(cell.get_or_init(|| self.convert(r)))
    }

    fn convert(&self, r: usize) -> Box<[f32]> {
        let n = (self.dim * self.width) as u64;
        let Some(raw) = self.source.read_vec(self.at + r as u64 * n, n) else {
            return Box::default();
        };
        let mut v = to_f32(self.dtype, &raw).unwrap_or_default();
        if let Some(w) = &self.weights {
            let weight = w[r];
            v.iter_mut().for_each(|x| *x *= weight);
        }
        v.into_boxed_slice()
    }
}

/// `data` (little-endian elements of `dtype`) as `f32`; `None` for a type
/// it does not know.
pub(super) fn to_f32(dtype: Dtype, data: &[u8]) -> Option<Vec<f32>> {
    Some(match dtype {
        Dtype::F32 => data
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect(),
        Dtype::F16 => data
            .chunks_exact(2)
            .map(|b| half::f16::from_le_bytes([b[0], b[1]]).to_f32())
            .collect(),
        Dtype::BF16 => data
            .chunks_exact(2)
            .map(|b| half::bf16::from_le_bytes([b[0], b[1]]).to_f32())
            .collect(),
        Dtype::I8 => data.iter().map(|&b| b as i8 as f32).collect(),
        Dtype::I32 => data
            .chunks_exact(4)
            .map(|b| i32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f32)
            .collect(),
        Dtype::I64 => data
            .chunks_exact(8)
            .map(|b| i64::from_le_bytes(b.try_into().unwrap_or_default()) as f32)
            .collect(),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `bytes` in a file of their own.
    fn source(bytes: &[u8]) -> Source {
        let mut file = tempfile::tempfile().unwrap();
        std::io::Write::write_all(&mut file, bytes).unwrap();
        Source {
            file,
            len: bytes.len() as u64,
        }
    }

    /// Rows converted one at a time equal the whole table converted at
    /// once and weighted (what the model did before), for every type.
    #[test]
    fn rows_equal_the_whole_table_converted_at_once() {
        let (rows, dim) = (5, 3);
        let values: Vec<f32> = (0..rows * dim).map(|i| i as f32 * 0.37 - 2.1).collect();
        let weights: Vec<f32> = (0..rows).map(|r| 0.5 + r as f32).collect();
        let encodings: [(Dtype, Vec<u8>); 4] = [
            (
                Dtype::F32,
                values.iter().flat_map(|x| x.to_le_bytes()).collect(),
            ),
            (
                Dtype::F16,
                values
                    .iter()
                    .flat_map(|x| half::f16::from_f32(*x).to_le_bytes())
                    .collect(),
            ),
            (
                Dtype::BF16,
                values
                    .iter()
                    .flat_map(|x| half::bf16::from_f32(*x).to_le_bytes())
                    .collect(),
            ),
            (Dtype::I8, values.iter().map(|x| *x as i8 as u8).collect()),
        ];
        for (dtype, data) in encodings {
            // Some bytes before the table, as in a safetensors file.
            let mut bytes = vec![7u8; 11];
            bytes.extend_from_slice(&data);
            let mut whole = to_f32(dtype, &data).unwrap();
            for (r, w) in weights.iter().enumerate() {
                whole[r * dim..(r + 1) * dim]
                    .iter_mut()
                    .for_each(|x| *x *= w);
            }
            let t = Rows::new(
                source(&bytes),
                (11, data.len() as u64),
                dtype,
                (rows, dim),
                Some(weights.clone()),
            )
            .unwrap();
            assert_eq!(t.converted.len(), rows);
            for r in [3, 0, 4, 3, 1, 2] {
                assert_eq!(
                    t.row(r).unwrap(),
                    &whole[r * dim..(r + 1) * dim],
                    "{dtype:?}"
                );
            }
            assert!(t.row(rows).is_none());
        }
    }

    #[test]
    fn a_table_that_does_not_fit_its_shape_or_type_is_refused() {
        let bytes = vec![0u8; 24];
        let new =
            |at, len, dtype, shape| Rows::new(source(&bytes), (at, len), dtype, shape, None).err();
        assert_eq!(new(0, 24, Dtype::F32, (2, 3)), None);
        assert_eq!(new(0, 24, Dtype::F32, (2, 4)), Some(RowsError::Size));
        assert_eq!(new(4, 24, Dtype::F32, (2, 3)), Some(RowsError::Size));
        assert_eq!(new(0, 0, Dtype::F32, (2, 0)), Some(RowsError::Size));
        assert_eq!(
            new(0, 24, Dtype::F32, (usize::MAX, 3)),
            Some(RowsError::Size)
        );
        assert_eq!(
            new(0, 24, Dtype::U8, (2, 12)),
            Some(RowsError::Dtype(Dtype::U8))
        );
    }
}
