//! The image reader: a well-formed 32-bit RISC-V ELF gives its loadable words; anything else is a clear error,
//! never a panic.

use metaroce_firmware::image::{words, ImageError};

/// An ELF file with one PT_LOAD segment of `data` at `addr`.
fn elf(machine: u16, addr: u32, data: &[u8]) -> Vec<u8> {
    let mut f = vec![0u8; 52 + 32];
    f[..4].copy_from_slice(b"\x7fELF");
    f[4] = 1; // 32-bit
    f[5] = 1; // little-endian
    f[6] = 1;
    f[16..18].copy_from_slice(&2u16.to_le_bytes()); // executable
    f[18..20].copy_from_slice(&machine.to_le_bytes());
    f[28..32].copy_from_slice(&52u32.to_le_bytes()); // phoff
    f[42..44].copy_from_slice(&32u16.to_le_bytes()); // phentsize
    f[44..46].copy_from_slice(&1u16.to_le_bytes()); // phnum
    let ph = 52;
    let off = f.len() as u32;
    f[ph..ph + 4].copy_from_slice(&1u32.to_le_bytes()); // PT_LOAD
    f[ph + 4..ph + 8].copy_from_slice(&off.to_le_bytes());
    f[ph + 8..ph + 12].copy_from_slice(&addr.to_le_bytes());
    f[ph + 12..ph + 16].copy_from_slice(&addr.to_le_bytes());
    f[ph + 16..ph + 20].copy_from_slice(&(data.len() as u32).to_le_bytes());
    f[ph + 20..ph + 24].copy_from_slice(&(data.len() as u32).to_le_bytes());
    f.extend_from_slice(data);
    f
}

#[test]
fn a_segment_becomes_padded_words_at_its_address() {
    let f = elf(0xF3, 0x100, &[1, 2, 3, 4, 5, 6]);
    let mut got = Vec::new();
    let end = words(&f, |i, w| got.push((i, w))).unwrap();
    assert_eq!(end, 0x106);
    assert_eq!(got, vec![(0x40, 0x0403_0201), (0x41, 0x0000_0605)]);
}

#[test]
fn bad_files_are_errors() {
    let good = elf(0xF3, 0, &[0; 8]);
    assert_eq!(words(b"hello", |_, _| {}), Err(ImageError::NotElf));
    assert_eq!(
        words(&elf(0x3E, 0, &[0; 8]), |_, _| {}),
        Err(ImageError::WrongTarget)
    );
    for cut in 0..good.len() {
        // Every truncation is an error, never a panic (a cut inside the segment's bytes included).
        assert!(words(&good[..cut], |_, _| {}).is_err(), "cut at {cut}");
    }
    assert_eq!(
        words(&elf(0xF3, 0xFFFC, &[0; 8]), |_, _| {}),
        Err(ImageError::Outside {
            addr: 0xFFFC,
            len: 8
        })
    );
    assert_eq!(
        words(&elf(0xF3, 2, &[0; 8]), |_, _| {}),
        Err(ImageError::Outside { addr: 2, len: 8 })
    );
}
