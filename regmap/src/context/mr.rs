//! Memory-region context entry, 32 bytes (MR-SEM-3..7, MR-SEM-13). The firmware writes it on CREATE_MR /
//! MODIFY_MR / DESTROY_MR; the receive pipeline reads it for every placement check. Both keys carry the
//! entry's slot in their upper 24 bits (`slot = key >> 8`); the low 8 bits make a stale key of a reused slot fail
//! (MR-SEM-7). An invalid (free) entry keeps its keys so the next registration of the slot can pick fresh ones.

use crate::field::{Error, Layout};

/// Fields of an MR context entry.
pub mod field {
    use crate::field::Field;
    /// `addr`.
    pub const ADDR: Field = Field::new("addr", 0, 0, 64, "start address of the region");
    /// `length`.
    pub const LENGTH: Field =
        Field::new("length", 8, 0, 64, "length in bytes (non-zero when valid)");
    /// `lkey`.
    pub const LKEY: Field = Field::new("lkey", 16, 0, 32, "local key");
    /// `rkey`.
    pub const RKEY: Field = Field::new("rkey", 20, 0, 32, "remote key");
    /// `access`.
    pub const ACCESS: Field = Field::new(
        "access",
        24,
        0,
        4,
        "LOCAL_WRITE 1, REMOTE_WRITE 2, REMOTE_READ 4, REMOTE_ATOMIC 8 (reserved for atomics)",
    );
    /// `valid`.
    pub const VALID: Field = Field::new("valid", 24, 7, 1, "the entry is a live registration");
}

/// The MR context layout.
pub const LAYOUT: Layout = Layout {
    name: "mr_ctx",
    bytes: 32,
    doc: "Memory-region context entry. Firmware writes, receive and transmit pipelines read.",
    fields: &[
        field::ADDR,
        field::LENGTH,
        field::LKEY,
        field::RKEY,
        field::ACCESS,
        field::VALID,
    ],
};

/// Access rights of a memory region (MR-SEM-3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MrAccess(pub u8);

impl MrAccess {
    /// Local writes (receive buffers, READ destinations).
    pub const LOCAL_WRITE: MrAccess = MrAccess(1);
    /// Remote WRITE.
    pub const REMOTE_WRITE: MrAccess = MrAccess(2);
    /// Remote READ.
    pub const REMOTE_READ: MrAccess = MrAccess(4);
    /// Remote atomics (reserved).
    pub const REMOTE_ATOMIC: MrAccess = MrAccess(8);
    /// Every defined bit.
    pub const ALL: MrAccess = MrAccess(0xF);

    /// True if every right of `other` is present.
    pub const fn contains(self, other: MrAccess) -> bool {
        self.0 & other.0 == other.0
    }

    /// Checks a mask: only defined bits (MR-SEM-3), and REMOTE_WRITE only with LOCAL_WRITE (MR-SEM-4).
    pub const fn is_valid(self) -> bool {
        self.0 & !MrAccess::ALL.0 == 0
            && (!self.contains(MrAccess::REMOTE_WRITE) || self.contains(MrAccess::LOCAL_WRITE))
    }
}

/// Why a placement check failed (MR-SEM-13, MR-SEM-14).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MrCheckError {
    /// The entry is free or the key differs from the entry's.
    BadKey,
    /// The range is not inside the region.
    OutOfBounds,
    /// A needed right is missing.
    NoAccess,
}

/// A decoded MR context entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MrContext {
    /// Live registration.
    pub valid: bool,
    /// Start address.
    pub addr: u64,
    /// Length.
    pub length: u64,
    /// Local key.
    pub lkey: u32,
    /// Remote key.
    pub rkey: u32,
    /// Rights.
    pub access: MrAccess,
}

impl MrContext {
    /// Checks a valid entry: non-zero length, no overflow of `addr + length`, access mask valid (MR-SEM-3,
    /// MR-SEM-4). A free entry must have length and access 0.
    pub fn validate(&self) -> Result<(), Error> {
        if self.valid {
            if self.length == 0 || self.addr.checked_add(self.length).is_none() {
                return Err(Error::Invalid {
                    field: field::LENGTH.name,
                });
            }
            if !self.access.is_valid() {
                return Err(Error::Invalid {
                    field: field::ACCESS.name,
                });
            }
        } else if self.length != 0 || self.addr != 0 || self.access.0 != 0 {
            return Err(Error::Invalid {
                field: field::VALID.name,
            });
        }
        Ok(())
    }

    /// Decodes an entry; reserved bits or an invalid registration are errors.
    pub fn parse(buf: &[u8]) -> Result<MrContext, Error> {
        LAYOUT.check_reserved(buf)?;
        let m = MrContext {
            valid: field::VALID.get(buf)? != 0,
            addr: field::ADDR.get(buf)?,
            length: field::LENGTH.get(buf)?,
            lkey: field::LKEY.get(buf)? as u32,
            rkey: field::RKEY.get(buf)? as u32,
            access: MrAccess(field::ACCESS.get(buf)? as u8),
        };
        m.validate()?;
        Ok(m)
    }

    /// Encodes into the first 32 bytes of `buf`.
    pub fn emit(&self, buf: &mut [u8]) -> Result<(), Error> {
        self.validate()?;
        LAYOUT.clear(buf)?;
        field::VALID.set(buf, self.valid as u64)?;
        field::ADDR.set(buf, self.addr)?;
        field::LENGTH.set(buf, self.length)?;
        field::LKEY.set(buf, self.lkey as u64)?;
        field::RKEY.set(buf, self.rkey as u64)?;
        field::ACCESS.set(buf, self.access.0 as u64)?;
        Ok(())
    }

    /// The placement check of MR-SEM-13/14 against this entry with a remote key: key equal to the entry's rkey,
    /// `[addr, addr + len)` inside the region without overflow, `needed` rights present. Zero length passes.
    pub fn check_remote(
        &self,
        rkey: u32,
        addr: u64,
        len: u64,
        needed: MrAccess,
    ) -> Result<(), MrCheckError> {
        self.check(self.rkey == rkey, addr, len, needed)
    }

    /// The same check with a local key (MR-SEM-8, MR-SEM-9).
    pub fn check_local(
        &self,
        lkey: u32,
        addr: u64,
        len: u64,
        needed: MrAccess,
    ) -> Result<(), MrCheckError> {
        self.check(self.lkey == lkey, addr, len, needed)
    }

    fn check(
        &self,
        key_ok: bool,
        addr: u64,
        len: u64,
        needed: MrAccess,
    ) -> Result<(), MrCheckError> {
        if len == 0 {
            return Ok(());
        }
        if !self.valid || !key_ok {
            return Err(MrCheckError::BadKey);
        }
        let off = addr
            .checked_sub(self.addr)
            .ok_or(MrCheckError::OutOfBounds)?;
        if len > self.length || off > self.length - len {
            return Err(MrCheckError::OutOfBounds);
        }
        if !self.access.contains(needed) {
            return Err(MrCheckError::NoAccess);
        }
        Ok(())
    }
}

/// The context slot a key names.
pub const fn key_slot(key: u32) -> u32 {
    key >> 8
}
