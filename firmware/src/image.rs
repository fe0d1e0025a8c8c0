//! The firmware image as the host loads it: the loadable segments of the `metaroce-fw` ELF file, turned into
//! the words written through the control processor's image window ([`metaroce_regmap::control`]). Used by the
//! co-simulation bench and the host driver; it checks what it reads and never panics.

use metaroce_regmap::fwbus::IMAGE_BYTES;

/// The Rust target the image is built for.
pub const TARGET: &str = "riscv32im-unknown-none-elf";
/// The Cargo profile the image is built with (the workspace's `[profile.firmware]`).
pub const PROFILE: &str = "firmware";

/// Why an ELF file is not a loadable firmware image.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageError {
    /// Not an ELF file.
    NotElf,
    /// Not a 32-bit little-endian RISC-V executable.
    WrongTarget,
    /// A header or program-header table lies outside the file.
    Truncated,
    /// A loadable segment is misaligned or lies outside the image area (the first
    /// [`IMAGE_BYTES`](metaroce_regmap::fwbus::IMAGE_BYTES) of RAM).
    Outside {
        /// Its load address.
        addr: u32,
        /// Its bytes in the file.
        len: u32,
    },
}

impl core::fmt::Display for ImageError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            ImageError::NotElf => write!(f, "not an ELF file"),
            ImageError::WrongTarget => write!(f, "not a 32-bit little-endian RISC-V executable"),
            ImageError::Truncated => write!(f, "a header lies outside the file"),
            ImageError::Outside { addr, len } => write!(
                f,
                "segment of {len} bytes at {addr:#x} is misaligned or outside the {IMAGE_BYTES}-byte image area"
            ),
        }
    }
}

fn u16_at(b: &[u8], off: usize) -> Result<u16, ImageError> {
    let s = b.get(off..off + 2).ok_or(ImageError::Truncated)?;
    Ok(u16::from_le_bytes([s[0], s[1]]))
}

fn u32_at(b: &[u8], off: usize) -> Result<u32, ImageError> {
    let s = b.get(off..off + 4).ok_or(ImageError::Truncated)?;
    Ok(u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
}

/// Calls `word(index, value)` for every 32-bit word of the image's loadable bytes (word `index` lives at byte
/// address `4 * index`; a segment's last word is padded with zeros) and returns the image's size in bytes
/// (the end of its last loaded byte). Zero-initialised memory (`.bss`) is not part of the image: the
/// firmware's start-up code clears it.
pub fn words(elf: &[u8], mut word: impl FnMut(u32, u32)) -> Result<u32, ImageError> {
    if elf.get(..4) != Some(b"\x7fELF".as_slice()) {
        return Err(ImageError::NotElf);
    }
    // 32-bit, little-endian, executable, RISC-V.
    if elf.get(4) != Some(&1) || elf.get(5) != Some(&1) {
        return Err(ImageError::WrongTarget);
    }
    if u16_at(elf, 16)? != 2 || u16_at(elf, 18)? != 0xF3 {
        return Err(ImageError::WrongTarget);
    }
    let phoff = u32_at(elf, 28)? as usize;
    let phentsize = u16_at(elf, 42)? as usize;
    let phnum = u16_at(elf, 44)? as usize;
    if phentsize < 32 {
        return Err(ImageError::Truncated);
    }
    let mut end = 0u32;
    for i in 0..phnum {
        let ph = phoff
            .checked_add(i * phentsize)
            .ok_or(ImageError::Truncated)?;
        if u32_at(elf, ph)? != 1 {
            continue; // not PT_LOAD
        }
        let offset = u32_at(elf, ph + 4)? as usize;
        let addr = u32_at(elf, ph + 12)?;
        let len = u32_at(elf, ph + 16)?;
        if len == 0 {
            continue;
        }
        let outside = ImageError::Outside { addr, len };
        if !addr.is_multiple_of(4) || addr.checked_add(len).is_none_or(|e| e > IMAGE_BYTES) {
            return Err(outside);
        }
        let bytes = elf
            .get(offset..offset + len as usize)
            .ok_or(ImageError::Truncated)?;
        for (k, chunk) in bytes.chunks(4).enumerate() {
            let mut w = [0u8; 4];
            w[..chunk.len()].copy_from_slice(chunk);
            word(addr / 4 + k as u32, u32::from_le_bytes(w));
        }
        end = end.max(addr + len);
    }
    Ok(end)
}
