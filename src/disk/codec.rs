//! The little-endian primitives of Scalpel's own binary files under
//! `.scalpel/`: [`Writer`] appends values, [`Reader`] reads them back with
//! every read bounds-checked. The search index's store (`index/format.rs`)
//! and its keyword section (`index/bm25.rs`) are written with them, and so
//! is the definitions memo of `search_files` (`ops/search/remembered.rs`,
//! a layer below the index, which is why they live here); keeping them
//! apart also lets `format` use `bm25` without the two importing each
//! other.

/// Appends little-endian values.
#[derive(Default)]
pub(crate) struct Writer {
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
pub(crate) struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
    /// A read went past the end (rather than finding a bad value): with
    /// a prefix of the file, more bytes may make it whole.
    short: bool,
}

impl<'a> Reader<'a> {
    pub fn new(bytes: &'a [u8]) -> Reader<'a> {
        Reader {
            bytes,
            pos: 0,
            short: false,
        }
    }
    pub fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let end = self.pos.checked_add(n);
        let s = end.and_then(|end| self.bytes.get(self.pos..end));
        match (s, end) {
            (Some(s), Some(end)) => {
                self.pos = end;
                Some(s)
            }
            _ => {
                self.short = true;
                None
            }
        }
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
        let fits = n
            .checked_mul(min_size.max(1))
            .is_some_and(|need| need <= self.left());
        self.short |= !fits;
        fits.then_some(n)
    }
    pub fn left(&self) -> usize {
        self.bytes.len() - self.pos
    }
    pub fn pos(&self) -> usize {
        self.pos
    }
    /// Whether a read went past the end (rather than finding a bad value).
    pub fn is_short(&self) -> bool {
        self.short
    }
}
