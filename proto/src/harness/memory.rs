//! A memory that stores nothing, for measuring the transport's per-packet cost without payload copies.

use crate::transport::Memory;

/// Discards writes and leaves read buffers as they are: payload bytes are never copied. Only for benchmarks
/// (a transport over it places nothing anywhere).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NullMemory;

impl Memory for NullMemory {
    fn read(&self, _addr: u64, _buf: &mut [u8]) {}

    fn write(&mut self, _addr: u64, _data: &[u8]) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn null_memory_copies_nothing() {
        let mut m = NullMemory;
        m.write(0, &[1, 2, 3]);
        let mut b = [9u8; 3];
        m.read(0, &mut b);
        assert_eq!(b, [9, 9, 9]);
    }
}
