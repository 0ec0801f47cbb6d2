//! A stable 64-bit digest.

/// 64-bit FNV-1a: a stable digest (the same on every platform and run, unlike a seeded
/// `Hasher`) for schema fingerprints, saved-index keys, cursors and test digests. Not
/// cryptographic.
#[derive(Clone, Copy, Debug)]
pub struct Fnv64(u64);

impl Default for Fnv64 {
    fn default() -> Self {
        Fnv64::new()
    }
}

impl Fnv64 {
    /// The FNV-1a offset basis.
    pub const fn new() -> Fnv64 {
        Fnv64(0xcbf2_9ce4_8422_2325)
    }

    /// Mix in bytes.
    pub fn write(&mut self, bytes: &[u8]) {
        for &x in bytes {
            self.0 ^= u64::from(x);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }

    /// A string and a terminator, so `("ab","c")` and `("a","bc")` differ.
    pub fn str(&mut self, s: &str) {
        self.write(s.as_bytes());
        self.write(&[0]);
    }

    /// The digest so far.
    pub fn finish(&self) -> u64 {
        self.0
    }

    /// The digest as 16 hex digits.
    pub fn hex(&self) -> String {
        format!("{:016x}", self.0)
    }

    /// The digest of one byte string.
    pub fn of(bytes: &[u8]) -> u64 {
        let mut h = Fnv64::new();
        h.write(bytes);
        h.0
    }
}

impl std::fmt::Write for Fnv64 {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.write(s.as_bytes());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::Fnv64;

    #[test]
    fn matches_the_published_fnv1a_vectors() {
        assert_eq!(Fnv64::of(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(Fnv64::of(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(Fnv64::of(b"foobar"), 0x8594_4171_f739_67e8);
    }
}
