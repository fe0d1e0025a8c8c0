//! Memory-region table (MR-SEM-*): registration, keys with a generation byte, and the access check every
//! placement and every local buffer goes through before memory is touched.
//!
//! Key layout: `lkey = (slot << 8) | generation`, `rkey = lkey ^ RKEY_XOR`. The generation byte increments each
//! time a slot is reused, so a key of a deregistered region fails even after its slot is reused (for 255
//! re-registrations).

use super::verbs::{Access, MrKeys, VerbsError};
use alloc::vec::Vec;

/// Constant distinguishing remote from local keys.
pub const RKEY_XOR: u32 = 0x5A00_0000;

/// Why an MR check failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MrError {
    /// Unknown, stale or wrong-kind key.
    BadKey,
    /// Range not inside the region (including address overflow).
    OutOfBounds,
    /// The region lacks a needed right.
    NoAccess,
}

impl From<MrError> for VerbsError {
    fn from(e: MrError) -> Self {
        match e {
            MrError::BadKey => VerbsError::BadLkey,
            MrError::OutOfBounds => VerbsError::OutOfBounds,
            MrError::NoAccess => VerbsError::NoAccess,
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct Region {
    addr: u64,
    len: u64,
    access: Access,
    gen: u8,
    live: bool,
}

/// The table of registered memory regions.
#[derive(Debug, Clone)]
pub struct MrTable {
    slots: Vec<Region>,
    free: Vec<u32>,
    max: u32,
}

impl MrTable {
    /// A table holding at most `max` regions (capped at 2^23).
    pub fn new(max: u32) -> Self {
        MrTable {
            slots: Vec::new(),
            free: Vec::new(),
            max: max.min(1 << 23),
        }
    }

    /// Number of live regions.
    pub fn len(&self) -> usize {
        self.slots.iter().filter(|r| r.live).count()
    }

    /// True if no region is registered.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Registers `addr..addr+len` with `access`. Fails on overflow of the range or when the table is full.
    pub fn register(&mut self, addr: u64, len: u64, access: Access) -> Result<MrKeys, VerbsError> {
        if addr.checked_add(len).is_none() {
            return Err(VerbsError::Invalid);
        }
        let slot = if let Some(s) = self.free.pop() {
            let r = &mut self.slots[s as usize];
            r.gen = r.gen.wrapping_add(1);
            r.addr = addr;
            r.len = len;
            r.access = access;
            r.live = true;
            s
        } else {
            if self.slots.len() as u32 >= self.max {
                return Err(VerbsError::Limit);
            }
            self.slots.push(Region {
                addr,
                len,
                access,
                gen: 1,
                live: true,
            });
            self.slots.len() as u32 - 1
        };
        let lkey = (slot << 8) | self.slots[slot as usize].gen as u32;
        Ok(MrKeys {
            lkey,
            rkey: lkey ^ RKEY_XOR,
        })
    }

    /// Deregisters the region of `lkey`.
    pub fn deregister(&mut self, lkey: u32) -> Result<(), VerbsError> {
        let slot = self.lookup(lkey).ok_or(VerbsError::BadLkey)?;
        self.slots[slot].live = false;
        self.free.push(slot as u32);
        Ok(())
    }

    #[inline]
    fn lookup(&self, lkey: u32) -> Option<usize> {
        let slot = (lkey >> 8) as usize;
        let r = self.slots.get(slot)?;
        (r.live && r.gen == (lkey & 0xFF) as u8).then_some(slot)
    }

    /// Checks a local access with `lkey` (MR-SEM-8, MR-SEM-9, MR-SEM-15, MR-SEM-16). Zero-length accesses always pass.
    #[inline]
    pub fn check_local(
        &self,
        lkey: u32,
        addr: u64,
        len: u64,
        needed: Access,
    ) -> Result<(), MrError> {
        self.check(lkey, addr, len, needed)
    }

    /// Checks a remote access with `rkey` (MR-SEM-13, MR-SEM-14): key valid and current, `addr..addr+len` inside the region
    /// (overflow-safe), and `needed` rights present. Zero-length accesses always pass.
    #[inline]
    pub fn check_remote(
        &self,
        rkey: u32,
        addr: u64,
        len: u64,
        needed: Access,
    ) -> Result<(), MrError> {
        self.check(rkey ^ RKEY_XOR, addr, len, needed)
    }

    /// The core check on a local-form key.
    #[inline]
    pub fn check(&self, lkey: u32, addr: u64, len: u64, needed: Access) -> Result<(), MrError> {
        if len == 0 {
            return Ok(());
        }
        let slot = self.lookup(lkey).ok_or(MrError::BadKey)?;
        let r = &self.slots[slot];
        // addr >= r.addr && addr + len <= r.addr + r.len without overflow.
        let off = addr.checked_sub(r.addr).ok_or(MrError::OutOfBounds)?;
        if len > r.len || off > r.len - len {
            return Err(MrError::OutOfBounds);
        }
        if !r.access.contains(needed) {
            return Err(MrError::NoAccess);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mr_sem_13_checks() {
        let mut t = MrTable::new(4);
        let k = t
            .register(0x1000, 0x100, Access::LOCAL_WRITE | Access::REMOTE_WRITE)
            .unwrap();
        assert_ne!(k.lkey, k.rkey);
        assert_eq!(
            t.check_remote(k.rkey, 0x1000, 0x100, Access::REMOTE_WRITE),
            Ok(())
        );
        assert_eq!(
            t.check_remote(k.rkey, 0x10FF, 1, Access::REMOTE_WRITE),
            Ok(())
        );
        assert_eq!(
            t.check_remote(k.rkey, 0x10FF, 2, Access::REMOTE_WRITE),
            Err(MrError::OutOfBounds)
        );
        assert_eq!(
            t.check_remote(k.rkey, 0xFFF, 1, Access::REMOTE_WRITE),
            Err(MrError::OutOfBounds)
        );
        assert_eq!(
            t.check_remote(k.rkey, 0x1000, u64::MAX, Access::REMOTE_WRITE),
            Err(MrError::OutOfBounds)
        );
        assert_eq!(
            t.check_remote(k.rkey, u64::MAX, 2, Access::REMOTE_WRITE),
            Err(MrError::OutOfBounds)
        );
        assert_eq!(
            t.check_remote(k.rkey, 0x1000, 8, Access::REMOTE_READ),
            Err(MrError::NoAccess)
        );
        // An lkey is not an rkey and vice versa.
        assert_eq!(
            t.check_remote(k.lkey, 0x1000, 8, Access::REMOTE_WRITE),
            Err(MrError::BadKey)
        );
        assert_eq!(
            t.check_local(k.rkey, 0x1000, 8, Access::NONE),
            Err(MrError::BadKey)
        );
        assert_eq!(
            t.check_local(k.lkey, 0x1000, 8, Access::LOCAL_WRITE),
            Ok(())
        );
        // Zero length passes even with a bad key.
        assert_eq!(t.check_remote(0xDEAD, 0, 0, Access::REMOTE_WRITE), Ok(()));
    }

    #[test]
    fn mr_sem_7_stale_key_fails_after_reuse() {
        let mut t = MrTable::new(1);
        let k1 = t.register(0, 100, Access::REMOTE_READ).unwrap();
        assert_eq!(
            t.register(0, 100, Access::REMOTE_READ),
            Err(VerbsError::Limit)
        );
        t.deregister(k1.lkey).unwrap();
        assert_eq!(t.deregister(k1.lkey), Err(VerbsError::BadLkey));
        let k2 = t.register(0, 100, Access::REMOTE_READ).unwrap();
        assert_ne!(k1.rkey, k2.rkey);
        assert_eq!(
            t.check_remote(k1.rkey, 0, 1, Access::REMOTE_READ),
            Err(MrError::BadKey)
        );
        assert_eq!(t.check_remote(k2.rkey, 0, 1, Access::REMOTE_READ), Ok(()));
        assert_eq!(t.len(), 1);
        assert_eq!(
            t.register(u64::MAX, 2, Access::NONE),
            Err(VerbsError::Invalid)
        );
    }
}
