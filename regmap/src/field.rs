//! Field tables: the one place every register, descriptor, context and command layout is written down.
//!
//! A [`Layout`] is a fixed-size entry (a descriptor, a context entry, a mailbox command) described by a list of
//! [`Field`]s; a [`Register`] is one 32-bit register of a register block with its own field list. The typed
//! encoders and decoders of this crate read and write through these tables, the layout tests check them, and
//! generators (the Markdown reference in [`crate::doc`], HDL and C views) render them, so a layout never has to be
//! copied by hand.
//!
//! # Bit numbering
//!
//! All entries are **little-endian**, as the PCIe host and the AXI-Lite register bus are: bit `n` of an entry is
//! bit `n % 8` of byte `n / 8`, and a field of `width` bits whose least significant bit is entry bit `lsb` holds
//! the unsigned integer made of entry bits `lsb .. lsb + width`, least significant first. A byte-aligned field of
//! 16, 32 or 64 bits is therefore an ordinary little-endian integer. Byte-array fields (MAC and IP addresses) are
//! the exception: [`Field::bytes`] reads them as bytes in network order.
//!
//! Every bit of an entry that no field covers is **reserved**: writers set it to zero and readers reject an entry
//! in which it is not zero ([`Layout::check_reserved`]), so that a later version can give it a meaning.

/// An error from encoding or decoding an entry. Small and `Copy`; it names the offending field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Error {
    /// The buffer is shorter than the entry.
    Truncated {
        /// Bytes the entry needs.
        need: u32,
        /// Bytes the buffer has.
        got: usize,
    },
    /// A value does not fit the width of its field (encode).
    Overflow {
        /// The field.
        field: &'static str,
    },
    /// A field holds a value its definition forbids (decode), or a value to encode is out of its range.
    Invalid {
        /// The field.
        field: &'static str,
    },
    /// A reserved bit is set; `byte` is the offset of the first byte holding one.
    Reserved {
        /// The entry.
        layout: &'static str,
        /// Byte offset of the first non-zero reserved bit.
        byte: u32,
    },
}

impl core::fmt::Display for Error {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Error::Truncated { need, got } => {
                write!(f, "entry needs {need} bytes, buffer has {got}")
            }
            Error::Overflow { field } => write!(f, "value does not fit field `{field}`"),
            Error::Invalid { field } => write!(f, "invalid value in field `{field}`"),
            Error::Reserved { layout, byte } => {
                write!(f, "reserved bit set in `{layout}` at byte {byte}")
            }
        }
    }
}

/// One field of an entry or register.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Field {
    /// Name, lower snake case; unique within its entry or register.
    pub name: &'static str,
    /// Byte offset of the field's least significant byte within the entry (0 for register fields).
    pub byte: u32,
    /// Bit of that byte (register fields: bit of the 32-bit register) holding the least significant bit.
    pub bit: u8,
    /// Width in bits: 1..=64 for integers; byte-array fields (whole bytes, byte-aligned) may be wider.
    pub width: u8,
    /// One-line description.
    pub doc: &'static str,
}

impl Field {
    /// A field of `width` bits starting at bit `bit` of byte `byte`.
    pub const fn new(
        name: &'static str,
        byte: u32,
        bit: u8,
        width: u8,
        doc: &'static str,
    ) -> Field {
        Field {
            name,
            byte,
            bit,
            width,
            doc,
        }
    }

    /// Entry bit of the least significant bit.
    pub const fn lsb(&self) -> u32 {
        self.byte * 8 + self.bit as u32
    }

    /// One past the entry bit of the most significant bit.
    pub const fn end(&self) -> u32 {
        self.lsb() + self.width as u32
    }

    /// Largest value the field holds.
    pub const fn max(&self) -> u64 {
        if self.width >= 64 {
            u64::MAX
        } else {
            (1u64 << self.width) - 1
        }
    }

    /// True if the field is whole bytes starting on a byte boundary.
    pub const fn is_byte_aligned(&self) -> bool {
        self.bit == 0 && self.width.is_multiple_of(8)
    }

    fn span(&self, len: usize) -> Result<core::ops::Range<usize>, Error> {
        if self.width == 0 {
            return Err(Error::Invalid { field: self.name });
        }
        let first = (self.lsb() / 8) as usize;
        let last = ((self.end() - 1) / 8) as usize;
        if last >= len {
            return Err(Error::Truncated {
                need: last as u32 + 1,
                got: len,
            });
        }
        Ok(first..last + 1)
    }

    /// The 32-bit little-endian words of the entry the field lies in, `(first, last)`, when they are at most
    /// two and `buf` holds them whole: then the field is read and written a word at a time (a few
    /// instructions on a 32-bit processor, where a byte loop with 64-bit shifts costs hundreds).
    #[inline]
    fn word_span(&self, len: usize) -> Option<(usize, usize)> {
        if self.width == 0 || self.width > 64 {
            return None;
        }
        let first = (self.lsb() / 32) as usize;
        let last = ((self.end() - 1) / 32) as usize;
        (last <= first + 1 && 4 * (last + 1) <= len).then_some((first, last))
    }

    /// Reads the field from an entry. Fails only if `buf` is too short.
    ///
    /// Inlined: for a constant field the word path folds to a few instructions at the call site.
    #[inline]
    pub fn get(&self, buf: &[u8]) -> Result<u64, Error> {
        if let Some((first, last)) = self.word_span(buf.len()) {
            let shift = self.lsb() % 32;
            let lo = word(buf, first);
            if first == last {
                return Ok(u64::from(lo >> shift) & self.max());
            }
            let acc = u64::from(word(buf, last)) << 32 | u64::from(lo);
            return Ok((acc >> shift) & self.max());
        }
        self.get_bytes(buf)
    }

    #[inline(never)]
    fn get_bytes(&self, buf: &[u8]) -> Result<u64, Error> {
        if self.width > 64 {
            return Err(Error::Invalid { field: self.name });
        }
        let span = self.span(buf.len())?;
        let bytes = buf.get(span).ok_or(Error::Truncated {
            need: self.end().div_ceil(8),
            got: buf.len(),
        })?;
        // Fields within 8 bytes (nearly all) take 64-bit arithmetic: cheaper on a 32-bit processor.
        if bytes.len() <= 8 {
            let mut acc: u64 = 0;
            for (i, b) in bytes.iter().enumerate() {
                acc |= (*b as u64) << (8 * i);
            }
            return Ok((acc >> (self.lsb() % 8)) & self.max());
        }
        let mut acc: u128 = 0;
        for (i, b) in bytes.iter().enumerate() {
            acc |= (*b as u128) << (8 * i);
        }
        Ok(((acc >> (self.lsb() % 8)) as u64) & self.max())
    }

    /// Writes `value` into the field of an entry, leaving every other bit alone.
    ///
    /// Inlined: for a constant field the word path folds to a few instructions at the call site.
    #[inline]
    pub fn set(&self, buf: &mut [u8], value: u64) -> Result<(), Error> {
        if let Some((first, last)) = self.word_span(buf.len()) {
            if value > self.max() {
                return Err(Error::Overflow { field: self.name });
            }
            let shift = self.lsb() % 32;
            if first == last {
                let mask = (self.max() as u32) << shift;
                let w = (word(buf, first) & !mask) | ((value as u32) << shift);
                put_word(buf, first, w);
                return Ok(());
            }
            let acc = u64::from(word(buf, last)) << 32 | u64::from(word(buf, first));
            let mask = self.max() << shift;
            let acc = (acc & !mask) | (value << shift);
            put_word(buf, first, acc as u32);
            put_word(buf, last, (acc >> 32) as u32);
            return Ok(());
        }
        self.set_bytes_path(buf, value)
    }

    #[inline(never)]
    fn set_bytes_path(&self, buf: &mut [u8], value: u64) -> Result<(), Error> {
        if self.width > 64 {
            return Err(Error::Invalid { field: self.name });
        }
        if value > self.max() {
            return Err(Error::Overflow { field: self.name });
        }
        let span = self.span(buf.len())?;
        let shift = self.lsb() % 8;
        let got = buf.len();
        let bytes = buf.get_mut(span).ok_or(Error::Truncated {
            need: self.end().div_ceil(8),
            got,
        })?;
        if bytes.len() <= 8 {
            let mut acc: u64 = 0;
            for (i, b) in bytes.iter().enumerate() {
                acc |= (*b as u64) << (8 * i);
            }
            let mask = self.max() << shift;
            acc = (acc & !mask) | (value << shift);
            for (i, b) in bytes.iter_mut().enumerate() {
                *b = (acc >> (8 * i)) as u8;
            }
            return Ok(());
        }
        let mut acc: u128 = 0;
        for (i, b) in bytes.iter().enumerate() {
            acc |= (*b as u128) << (8 * i);
        }
        let mask = (self.max() as u128) << shift;
        acc = (acc & !mask) | ((value as u128) << shift);
        for (i, b) in bytes.iter_mut().enumerate() {
            *b = (acc >> (8 * i)) as u8;
        }
        Ok(())
    }

    /// The bytes of a byte-aligned field, in memory order (used for MAC and IP addresses, network order).
    pub fn bytes<'a>(&self, buf: &'a [u8]) -> Result<&'a [u8], Error> {
        if !self.is_byte_aligned() {
            return Err(Error::Invalid { field: self.name });
        }
        let span = self.span(buf.len())?;
        let got = buf.len();
        buf.get(span).ok_or(Error::Truncated {
            need: self.end() / 8,
            got,
        })
    }

    /// Writes the bytes of a byte-aligned field; `value` must be exactly as long as the field.
    pub fn set_bytes(&self, buf: &mut [u8], value: &[u8]) -> Result<(), Error> {
        if !self.is_byte_aligned() || value.len() != (self.width / 8) as usize {
            return Err(Error::Invalid { field: self.name });
        }
        let span = self.span(buf.len())?;
        let got = buf.len();
        let dst = buf.get_mut(span).ok_or(Error::Truncated {
            need: self.end() / 8,
            got,
        })?;
        dst.copy_from_slice(value);
        Ok(())
    }

    /// Reads a register field from the 32-bit register value `word`.
    pub const fn extract(&self, word: u32) -> u32 {
        if self.lsb() >= 32 {
            return 0;
        }
        ((word as u64 >> self.lsb()) & self.max()) as u32
    }

    /// Returns `word` with the register field set to `value`.
    pub fn insert(&self, word: u32, value: u32) -> Result<u32, Error> {
        if self.end() > 32 {
            return Err(Error::Invalid { field: self.name });
        }
        if value as u64 > self.max() {
            return Err(Error::Overflow { field: self.name });
        }
        let mask = (self.max() as u32) << self.lsb();
        Ok((word & !mask) | (value << self.lsb()))
    }
}

/// Why a table is malformed (found by [`Layout::check`] and [`check_register`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TableError {
    /// A field has width 0, or more than 64 bits without being a byte array.
    BadWidth(&'static str),
    /// A field extends beyond its entry or register.
    Outside(&'static str),
    /// Two fields share a bit.
    Overlap(&'static str, &'static str),
    /// Two fields have the same name.
    DuplicateName(&'static str),
}

fn check_fields(fields: &[Field], bits: u32) -> Result<(), TableError> {
    for (i, f) in fields.iter().enumerate() {
        if f.width == 0 || (f.width > 64 && !f.is_byte_aligned()) {
            return Err(TableError::BadWidth(f.name));
        }
        if f.end() > bits {
            return Err(TableError::Outside(f.name));
        }
        for g in &fields[..i] {
            if g.name == f.name {
                return Err(TableError::DuplicateName(f.name));
            }
            if f.lsb() < g.end() && g.lsb() < f.end() {
                return Err(TableError::Overlap(g.name, f.name));
            }
        }
    }
    Ok(())
}

/// A fixed-size entry: descriptor, context entry, doorbell word or mailbox command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    /// Name of the entry.
    pub name: &'static str,
    /// Size in bytes.
    pub bytes: u32,
    /// What the entry is and who writes it.
    pub doc: &'static str,
    /// Its fields, in the order documents list them.
    pub fields: &'static [Field],
}

impl Layout {
    /// Checks the table itself: widths 1..=64, every field inside the entry, no shared bit, unique names.
    pub fn check(&self) -> Result<(), TableError> {
        check_fields(self.fields, self.bytes * 8)
    }

    /// Bits covered by fields.
    pub fn used_bits(&self) -> u32 {
        self.fields.iter().map(|f| f.width as u32).sum()
    }

    /// The field called `name`.
    pub fn field(&self, name: &str) -> Option<&'static Field> {
        self.fields.iter().find(|f| f.name == name)
    }

    /// Fails with [`Error::Truncated`] if `buf` cannot hold the entry.
    pub fn check_len(&self, buf: &[u8]) -> Result<(), Error> {
        if buf.len() < self.bytes as usize {
            return Err(Error::Truncated {
                need: self.bytes,
                got: buf.len(),
            });
        }
        Ok(())
    }

    /// Fails with [`Error::Reserved`] if a bit of the entry that no field covers is set.
    pub fn check_reserved(&self, buf: &[u8]) -> Result<(), Error> {
        self.check_len(buf)?;
        let n = self.bytes as usize;
        if n <= 64 {
            // The bits the fields cover, byte by byte, from each field's range.
            let mut covered = [0u8; 64];
            for f in self.fields {
                let end = f.end().min(8 * n as u32);
                let mut bit = f.lsb();
                while bit < end {
                    let off = bit % 8;
                    let take = (8 - off).min(end - bit);
                    covered[(bit / 8) as usize] |= (((1u16 << take) - 1) << off) as u8;
                    bit += take;
                }
            }
            for (i, b) in buf.iter().take(n).enumerate() {
                if b & !covered[i] != 0 {
                    return Err(Error::Reserved {
                        layout: self.name,
                        byte: i as u32,
                    });
                }
            }
            return Ok(());
        }
        for (i, b) in buf.iter().take(n).enumerate() {
            let mut covered = 0u8;
            for f in self.fields {
                for bit in 0..8u32 {
                    let n = i as u32 * 8 + bit;
                    if n >= f.lsb() && n < f.end() {
                        covered |= 1 << bit;
                    }
                }
            }
            if b & !covered != 0 {
                return Err(Error::Reserved {
                    layout: self.name,
                    byte: i as u32,
                });
            }
        }
        Ok(())
    }

    /// Zeroes the entry's bytes of `buf` (reserved bits included) before an emit.
    pub fn clear(&self, buf: &mut [u8]) -> Result<(), Error> {
        self.check_len(buf)?;
        for b in buf.iter_mut().take(self.bytes as usize) {
            *b = 0;
        }
        Ok(())
    }
}

/// Little-endian word `k` of `buf` (the caller checked that it is whole).
#[inline]
fn word(buf: &[u8], k: usize) -> u32 {
    u32::from_le_bytes([buf[4 * k], buf[4 * k + 1], buf[4 * k + 2], buf[4 * k + 3]])
}

/// Writes little-endian word `k` of `buf` (the caller checked that it is whole).
#[inline]
fn put_word(buf: &mut [u8], k: usize, w: u32) {
    buf[4 * k..4 * k + 4].copy_from_slice(&w.to_le_bytes());
}

/// How software may access a register.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Read only; writes are ignored.
    Ro,
    /// Read and write.
    Rw,
    /// Write only; reads return 0.
    Wo,
    /// Read; writing 1 to a bit clears it.
    W1c,
}

impl Access {
    /// Short name used in documents and generated code.
    pub const fn as_str(self) -> &'static str {
        match self {
            Access::Ro => "RO",
            Access::Rw => "RW",
            Access::Wo => "WO",
            Access::W1c => "W1C",
        }
    }
}

/// One 32-bit register (or an array of them) of a register block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Register {
    /// Name, upper snake case; unique within its block.
    pub name: &'static str,
    /// Byte offset from the start of the block (a multiple of 4).
    pub offset: u32,
    /// Number of consecutive 32-bit registers (1 for a plain register, more for an array with stride 4).
    pub count: u32,
    /// Software access.
    pub access: Access,
    /// Value after reset (RO registers: the value a fresh device shows, or 0 when it is build-dependent).
    pub reset: u32,
    /// One-line description.
    pub doc: &'static str,
    /// Its fields (bit offsets within the register); empty when the register is one 32-bit value.
    pub fields: &'static [Field],
}

impl Register {
    /// A plain register.
    pub const fn new(
        name: &'static str,
        offset: u32,
        access: Access,
        reset: u32,
        doc: &'static str,
        fields: &'static [Field],
    ) -> Register {
        Register {
            name,
            offset,
            count: 1,
            access,
            reset,
            doc,
            fields,
        }
    }

    /// An array of `count` registers at `offset`, `offset + 4`, ...
    pub const fn array(
        name: &'static str,
        offset: u32,
        count: u32,
        access: Access,
        doc: &'static str,
    ) -> Register {
        Register {
            name,
            offset,
            count,
            access,
            reset: 0,
            doc,
            fields: &[],
        }
    }

    /// One past the last byte.
    pub const fn end(&self) -> u32 {
        self.offset + 4 * self.count
    }

    /// The field called `name`.
    pub fn field(&self, name: &str) -> Option<&'static Field> {
        self.fields.iter().find(|f| f.name == name)
    }

    /// Bits of the register that no field covers (all 32 bits belong to the value when there are no fields).
    pub fn reserved_mask(&self) -> u32 {
        if self.fields.is_empty() {
            return 0;
        }
        let mut used = 0u32;
        for f in self.fields {
            if f.end() <= 32 {
                used |= (f.max() as u32) << f.lsb();
            }
        }
        !used
    }
}

/// Checks one register's table: 4-byte aligned, non-empty, fields inside 32 bits, no shared bit, unique names.
pub fn check_register(r: &Register) -> Result<(), TableError> {
    if !r.offset.is_multiple_of(4) || r.count == 0 {
        return Err(TableError::Outside(r.name));
    }
    if r.fields.iter().any(|f| f.byte != 0) {
        return Err(TableError::Outside(r.name));
    }
    check_fields(r.fields, 32)
}
