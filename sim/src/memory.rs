//! Host memory for the simulated NICs.
//!
//! Without `verify_data` the memory stores nothing: reads leave the buffer as it is and writes are discarded
//! (payloads are never materialized). With `verify_data` every byte has a known value, a function of its
//! address: senders read that pattern, and receivers check every byte placed against it, counting mismatches.
//! The simulator gives each (source, destination, class) its own address range and writes remote address ==
//! local address, so a byte placed anywhere but where it belongs, or corrupted, is counted.

use metaroce_proto::transport::Memory;

/// The byte at `addr` of the verification pattern.
#[inline]
pub fn pattern(addr: u64) -> u8 {
    let mut z = (addr >> 3).wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    (z >> ((addr & 7) * 8)) as u8
}

/// A NIC's memory.
#[derive(Debug, Clone, Default)]
pub struct SimMemory {
    verify: bool,
    /// Bytes written that differed from the pattern.
    pub errors: u64,
    /// Bytes written.
    pub written: u64,
}

impl SimMemory {
    /// A memory; `verify` selects the pattern-checking mode.
    pub fn new(verify: bool) -> SimMemory {
        SimMemory {
            verify,
            errors: 0,
            written: 0,
        }
    }
}

impl Memory for SimMemory {
    fn read(&self, addr: u64, buf: &mut [u8]) {
        if self.verify {
            for (i, b) in buf.iter_mut().enumerate() {
                *b = pattern(addr.wrapping_add(i as u64));
            }
        }
    }

    fn write(&mut self, addr: u64, data: &[u8]) {
        self.written += data.len() as u64;
        if self.verify {
            for (i, &b) in data.iter().enumerate() {
                if b != pattern(addr.wrapping_add(i as u64)) {
                    self.errors += 1;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pattern_round_trip_and_misplacement_is_counted() {
        let src = SimMemory::new(true);
        let mut dst = SimMemory::new(true);
        let mut buf = vec![0u8; 100];
        src.read(1000, &mut buf);
        dst.write(1000, &buf);
        assert_eq!(dst.errors, 0);
        dst.write(1001, &buf);
        assert!(dst.errors > 90, "{}", dst.errors);
        let mut off = SimMemory::new(false);
        off.write(0, &[1, 2, 3]);
        assert_eq!((off.errors, off.written), (0, 3));
    }
}
