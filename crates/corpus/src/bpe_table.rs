//! The layout of a count-only rank table, shared by `build.rs` (which writes the tables
//! of the bundled encodings) and `bpe.rs` (which reads them): every ordinary token's
//! bytes rank after rank in one blob, `starts[r]..starts[r + 1]` its range, and an
//! open-addressed table (linear probing, a power of two, at most half full) of ranks at
//! their bytes' FNV-1a hash. All numbers little-endian `u32`.

/// An empty slot.
pub const EMPTY: u32 = u32::MAX;

/// FNV-1a, 64 bits.
pub fn hash(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// The three arrays for `tokens` (rank order), as bytes.
#[allow(dead_code)] // used by build.rs and the tests
pub fn layout(tokens: &[Vec<u8>]) -> [Vec<u8>; 3] {
    let mut blob = Vec::new();
    let mut starts = vec![0u32];
    for t in tokens {
        blob.extend_from_slice(t);
        starts.push(blob.len() as u32);
    }
    let mut table = vec![EMPTY; (tokens.len() * 2).next_power_of_two().max(2)];
    let mask = table.len() - 1;
    for (r, t) in tokens.iter().enumerate() {
        let mut at = hash(t) as usize & mask;
        while table[at] != EMPTY {
            at = (at + 1) & mask;
        }
        table[at] = r as u32;
    }
    let le = |v: Vec<u32>| {
        v.into_iter()
            .flat_map(u32::to_le_bytes)
            .collect::<Vec<u8>>()
    };
    [blob, le(starts), le(table)]
}
