//! A small exact binary codec for cached results: little-endian integers, floats as their bits
//! (so a stored number reads back as the very same number, NaN payloads included), strings and
//! lists with a length prefix. Used by the evaluation and significance caches; every read of a
//! [`Reader`] fails (None) past the end of its input, so a damaged payload is refused, never
//! trusted.

/// Appends values to a byte buffer.
#[derive(Default)]
pub struct Writer(pub Vec<u8>);

impl Writer {
    pub fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    pub fn usize(&mut self, v: usize) {
        self.u64(v as u64);
    }
    pub fn f64(&mut self, v: f64) {
        self.u64(v.to_bits());
    }
    pub fn flag(&mut self, v: bool) {
        self.0.push(u8::from(v));
    }
    pub fn opt_f64(&mut self, v: Option<f64>) {
        self.flag(v.is_some());
        if let Some(v) = v {
            self.f64(v);
        }
    }
    pub fn str(&mut self, s: &str) {
        self.usize(s.len());
        self.0.extend_from_slice(s.as_bytes());
    }
}

/// Reads values back; every read fails (None) past the end or on a malformed value.
pub struct Reader<'a>(pub &'a [u8]);

impl Reader<'_> {
    pub fn bytes(&mut self, n: usize) -> Option<&[u8]> {
        if self.0.len() < n {
            return None;
        }
        let (a, b) = self.0.split_at(n);
        self.0 = b;
        Some(a)
    }
    pub fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.bytes(8)?.try_into().ok()?))
    }
    pub fn usize(&mut self) -> Option<usize> {
        usize::try_from(self.u64()?).ok()
    }
    /// A count of items each at least `min_size` bytes long, refused when the input is too short
    /// to hold them (so a damaged length never asks for a huge allocation).
    pub fn count(&mut self, min_size: usize) -> Option<usize> {
        let n = self.usize()?;
        (n.checked_mul(min_size.max(1))? <= self.0.len()).then_some(n)
    }
    pub fn f64(&mut self) -> Option<f64> {
        Some(f64::from_bits(self.u64()?))
    }
    pub fn f64s(&mut self, n: usize) -> Option<Vec<f64>> {
        (0..n).map(|_| self.f64()).collect()
    }
    pub fn flag(&mut self) -> Option<bool> {
        match self.bytes(1)?[0] {
            0 => Some(false),
            1 => Some(true),
            _ => None,
        }
    }
    pub fn opt_f64(&mut self) -> Option<Option<f64>> {
        match self.flag()? {
            true => Some(Some(self.f64()?)),
            false => Some(None),
        }
    }
    pub fn str(&mut self) -> Option<String> {
        let n = self.count(1)?;
        String::from_utf8(self.bytes(n)?.to_vec()).ok()
    }
    /// Whether every byte was read.
    pub fn done(&self) -> bool {
        self.0.is_empty()
    }
}
