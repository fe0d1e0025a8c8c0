//! Host memory seen by the transport: the [`Memory`] trait and a sparse 4 KiB-paged implementation.

use alloc::boxed::Box;
use alloc::collections::BTreeMap;

/// Byte-addressed memory that RDMA operations read from and place into.
///
/// Addresses wrap modulo 2^64; the memory-region checks (`mr.rs`) guarantee that the transport only touches
/// registered ranges, so implementations need not check bounds themselves.
pub trait Memory {
    /// Fills `buf` with the bytes at `addr..addr + buf.len()`.
    fn read(&self, addr: u64, buf: &mut [u8]);
    /// Stores `data` at `addr..addr + data.len()`.
    fn write(&mut self, addr: u64, data: &[u8]);
}

/// Page size of [`SparseMemory`].
pub const PAGE_SIZE: usize = 4096;

/// Sparse memory made of 4 KiB pages kept in a `BTreeMap`; bytes never written read as 0.
#[derive(Debug, Default, Clone)]
pub struct SparseMemory {
    pages: BTreeMap<u64, Box<[u8; PAGE_SIZE]>>,
    writes: u64,
    bytes_written: u64,
}

impl SparseMemory {
    /// An empty memory.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of `write` calls so far (tests use it to prove that nothing was written).
    pub fn write_count(&self) -> u64 {
        self.writes
    }

    /// Total bytes written so far.
    pub fn bytes_written(&self) -> u64 {
        self.bytes_written
    }

    /// Number of pages that have been touched by a write.
    pub fn pages(&self) -> usize {
        self.pages.len()
    }
}

impl Memory for SparseMemory {
    fn read(&self, addr: u64, buf: &mut [u8]) {
        let mut done = 0usize;
        while done < buf.len() {
            let a = addr.wrapping_add(done as u64);
            let page = a / PAGE_SIZE as u64;
            let off = (a % PAGE_SIZE as u64) as usize;
            let n = (PAGE_SIZE - off).min(buf.len() - done);
            let dst = &mut buf[done..done + n];
            match self.pages.get(&page) {
                Some(p) => dst.copy_from_slice(&p[off..off + n]),
                None => dst.fill(0),
            }
            done += n;
        }
    }

    fn write(&mut self, addr: u64, data: &[u8]) {
        self.writes += 1;
        self.bytes_written += data.len() as u64;
        let mut done = 0usize;
        while done < data.len() {
            let a = addr.wrapping_add(done as u64);
            let page = a / PAGE_SIZE as u64;
            let off = (a % PAGE_SIZE as u64) as usize;
            let n = (PAGE_SIZE - off).min(data.len() - done);
            let p = self
                .pages
                .entry(page)
                .or_insert_with(|| Box::new([0u8; PAGE_SIZE]));
            p[off..off + n].copy_from_slice(&data[done..done + n]);
            done += n;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sparse_memory_round_trip_across_pages() {
        let mut m = SparseMemory::new();
        let data: alloc::vec::Vec<u8> = (0..10000u32).map(|i| (i * 7) as u8).collect();
        m.write(4090, &data);
        let mut back = alloc::vec![0u8; 10000];
        m.read(4090, &mut back);
        assert_eq!(back, data);
        assert_eq!(m.pages(), 4);
        let mut z = [1u8; 8];
        m.read(1 << 40, &mut z);
        assert_eq!(z, [0; 8]);
        // Wrap at the top of the address space does not panic.
        m.write(u64::MAX - 1, &[1, 2, 3, 4]);
        let mut w = [0u8; 4];
        m.read(u64::MAX - 1, &mut w);
        assert_eq!(w, [1, 2, 3, 4]);
    }
}
