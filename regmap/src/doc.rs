//! Renders the Markdown reference (`docs/hardware-interface.md`) from the tables. A test compares the checked-in
//! file with [`render`] and rewrites it when `METAROCE_BLESS=1`.

use crate::block::{
    layouts, BlockLayout, DEFAULT_MAP, DEFAULT_SPACE_BYTES, HEADER_BYTES, VERSION_FIELDS,
};
use crate::command::{EventType, Opcode, QpState, Status, REQUESTS, RESPONSES};
use crate::descriptor::cqe::{CqeOpcode, CqeStatus};
use crate::field::{Field, Layout, Register};
use core::fmt::{Result, Write};

/// A table cell: `|` escaped so that text never splits a Markdown table row.
struct Cell<'a>(&'a str);

impl core::fmt::Display for Cell<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> Result {
        for (i, part) in self.0.split('|').enumerate() {
            if i > 0 {
                f.write_str("\\|")?;
            }
            f.write_str(part)?;
        }
        Ok(())
    }
}

fn bits(f: &Field) -> (u32, u32) {
    (f.bit as u32 + f.width as u32 - 1, f.bit as u32)
}

fn field_rows(w: &mut impl Write, fields: &[Field], with_byte: bool) -> Result {
    if with_byte {
        writeln!(w, "| byte | bits | width | field | description |")?;
        writeln!(w, "|---|---|---|---|---|")?;
    } else {
        writeln!(w, "| bits | width | field | description |")?;
        writeln!(w, "|---|---|---|---|")?;
    }
    for f in fields {
        let (hi, lo) = bits(f);
        if with_byte {
            write!(w, "| {} ", f.byte)?;
        }
        writeln!(
            w,
            "| {hi}:{lo} | {} | `{}` | {} |",
            f.width,
            f.name,
            Cell(f.doc)
        )?;
    }
    Ok(())
}

fn register_table(w: &mut impl Write, regs: &[Register], skip_header_fields: bool) -> Result {
    writeln!(w, "| offset | register | access | reset | description |")?;
    writeln!(w, "|---|---|---|---|---|")?;
    for r in regs {
        if r.count > 1 {
            writeln!(
                w,
                "| {:#05x}..{:#05x} | `{}[0..{}]` | {} | — | {} |",
                r.offset,
                r.end(),
                r.name,
                r.count,
                r.access.as_str(),
                Cell(r.doc)
            )?;
        } else {
            writeln!(
                w,
                "| {:#05x} | `{}` | {} | {:#010x} | {} |",
                r.offset,
                r.name,
                r.access.as_str(),
                r.reset,
                Cell(r.doc)
            )?;
        }
    }
    writeln!(w)?;
    for r in regs
        .iter()
        .filter(|r| !r.fields.is_empty())
        .filter(|r| !skip_header_fields || r.offset >= HEADER_BYTES)
    {
        writeln!(w, "`{}` fields (other bits reserved):", r.name)?;
        writeln!(w)?;
        field_rows(w, r.fields, false)?;
        writeln!(w)?;
    }
    Ok(())
}

fn block(w: &mut impl Write, b: &BlockLayout) -> Result {
    writeln!(
        w,
        "### `{}` block (TYPE {:#010x}, version {}.{}, {:#x} bytes)",
        b.kind.name(),
        b.kind as u32,
        b.version >> 16,
        b.version & 0xFFFF,
        b.bytes
    )?;
    writeln!(w)?;
    writeln!(w, "{}", b.doc)?;
    writeln!(w)?;
    register_table(w, b.regs, true)
}

fn layout(w: &mut impl Write, l: &Layout, level: &str) -> Result {
    writeln!(w, "{level} `{}` ({} bytes)", l.name, l.bytes)?;
    writeln!(w)?;
    writeln!(w, "{}", l.doc)?;
    writeln!(w)?;
    field_rows(w, l.fields, true)?;
    let used = l.used_bits();
    writeln!(w)?;
    writeln!(
        w,
        "{} of {} bits used; the other {} are reserved (zero).",
        used,
        l.bytes * 8,
        l.bytes * 8 - used
    )?;
    writeln!(w)
}

/// Writes the whole Markdown reference.
pub fn render(w: &mut impl Write) -> Result {
    writeln!(w, "# MetaRoCE hardware interface")?;
    writeln!(w)?;
    writeln!(
        w,
        "Generated from the field tables of the `metaroce-regmap` crate (`regmap/`): do not edit by hand. \
         Regenerate with `METAROCE_BLESS=1 cargo test -p metaroce-regmap --test docs`."
    )?;
    writeln!(w)?;
    writeln!(w, "## Conventions")?;
    writeln!(w)?;
    writeln!(
        w,
        "- All registers and entries are little-endian. Bit `n` of an entry is bit `n % 8` of byte `n / 8`; a \
         field's `bits` are counted from bit 0 of its `byte` (so a 24-bit field at byte 36 is `23:0`). Byte-array \
         fields (MAC, IP addresses) are in network order.\n\
         - Every bit no field covers is reserved: written as zero, and an entry or command with a reserved bit set \
         is rejected.\n\
         - The register space (BAR 0) is a 32-bit AXI-Lite bus: registers are 32 bits wide, 4-byte aligned, \
         accessed with 32-bit reads and writes only."
    )?;
    writeln!(w)?;
    writeln!(w, "## Register space and discovery")?;
    writeln!(w)?;
    writeln!(
        w,
        "The register space is a chain of self-describing blocks. Every block starts with `TYPE` (0x00), \
         `VERSION` (0x04, `major << 16 | minor`) and `NEXT` (0x08, register-space offset of the next block, 0 at \
         the end). The chain starts at offset 0 with the `id` block. A driver walks the chain, finds blocks by \
         type, ignores unknown types, and accepts a block of a known major version whose minor version is at \
         least the one it needs. A walk stops with an error at a `NEXT` that is misaligned, points outside the \
         register space, or points back into the chain (a loop)."
    )?;
    writeln!(w)?;
    writeln!(w, "`VERSION` fields:")?;
    writeln!(w)?;
    field_rows(w, VERSION_FIELDS, false)?;
    writeln!(w)?;
    writeln!(w, "| block | TYPE | version | reference offset |")?;
    writeln!(w, "|---|---|---|---|")?;
    for (kind, base) in DEFAULT_MAP {
        let l = crate::block::layout_of(kind);
        writeln!(
            w,
            "| `{}` | {:#010x} | {}.{} | {:#07x} |",
            kind.name(),
            kind as u32,
            l.version >> 16,
            l.version & 0xFFFF,
            base
        )?;
    }
    writeln!(w)?;
    writeln!(
        w,
        "The reference design's register space is {:#x} bytes; the doorbell pages follow the blocks (see the \
         `queues` block). Offsets other than the `id` block's are examples: drivers discover them.",
        DEFAULT_SPACE_BYTES
    )?;
    writeln!(w)?;
    for b in layouts() {
        block(w, b)?;
    }
    writeln!(w, "## Doorbells and rings")?;
    writeln!(w)?;
    writeln!(w, "{}", crate::queues::RING_RULES)?;
    writeln!(w)?;
    writeln!(
        w,
        "QP doorbell page (page `qpn` at `QP_DB_BASE + qpn * QP_DB_STRIDE`):"
    )?;
    writeln!(w)?;
    register_table(w, crate::queues::QP_PAGE, false)?;
    writeln!(
        w,
        "CQ doorbell page (page `cqn` at `CQ_DB_BASE + cqn * CQ_DB_STRIDE`):"
    )?;
    writeln!(w)?;
    register_table(w, crate::queues::CQ_PAGE, false)?;
    writeln!(w, "## Descriptors")?;
    writeln!(w)?;
    layout(w, &crate::descriptor::sqe::LAYOUT, "###")?;
    layout(w, &crate::descriptor::rqe::LAYOUT, "###")?;
    layout(w, &crate::descriptor::cqe::LAYOUT, "###")?;
    writeln!(w, "CQE opcodes:")?;
    writeln!(w)?;
    writeln!(w, "| code | opcode | meaning |")?;
    writeln!(w, "|---|---|---|")?;
    for o in CqeOpcode::ALL {
        writeln!(w, "| {} | `{}` | {} |", *o as u8, o.name(), Cell(o.doc()))?;
    }
    writeln!(w)?;
    writeln!(w, "CQE statuses (MR-SEM-37):")?;
    writeln!(w)?;
    writeln!(w, "| code | status | meaning |")?;
    writeln!(w, "|---|---|---|")?;
    for s in CqeStatus::ALL {
        writeln!(w, "| {} | `{}` | {} |", *s as u8, s.name(), Cell(s.doc()))?;
    }
    writeln!(w)?;
    writeln!(w, "## Context entries")?;
    writeln!(w)?;
    writeln!(
        w,
        "The connection hot state holds the fields and widths of spec Table 7.6 (MR-CONN-28), ordered by width so \
         that every 32-bit field is an aligned word: exactly 512 bits, one beat of the 512-bit datapath."
    )?;
    writeln!(w)?;
    layout(w, &crate::context::conn::LAYOUT, "###")?;
    layout(w, &crate::context::qp::LAYOUT, "###")?;
    layout(w, &crate::context::mr::LAYOUT, "###")?;
    writeln!(w, "## Packet record")?;
    writeln!(w)?;
    writeln!(
        w,
        "The exception packets the core hands to the control processor and the control packets the firmware \
         sends, one 64-byte record each (the processor's packet port, `fwbus::pkt`)."
    )?;
    writeln!(w)?;
    layout(w, &crate::pktrec::LAYOUT, "###")?;
    writeln!(w, "## Counters")?;
    writeln!(w)?;
    writeln!(
        w,
        "Counter `i` is `VALUE[2i]` (low half) and `VALUE[2i+1]` (high half) of the `counters` block, read after a \
         `SNAPSHOT`; `READ_COUNTERS` returns them too."
    )?;
    writeln!(w)?;
    writeln!(w, "| index | counter | description |")?;
    writeln!(w, "|---|---|---|")?;
    for (i, c) in crate::counters::COUNTERS.iter().enumerate() {
        writeln!(w, "| {i} | `{}` | {} |", c.name, Cell(c.doc))?;
    }
    writeln!(w)?;
    writeln!(w, "## Mailbox commands")?;
    writeln!(w)?;
    writeln!(
        w,
        "Requests and responses are 64 bytes (`REQ` and `RESP` of the `mailbox` block). The firmware checks a \
         request's version, opcode, reserved bits and every argument before it acts; a refused request changes \
         nothing and its response carries a non-zero status and, in `bad_offset`, the byte offset of the first \
         offending field."
    )?;
    writeln!(w)?;
    writeln!(w, "| opcode | command | description |")?;
    writeln!(w, "|---|---|---|")?;
    for o in Opcode::ALL {
        writeln!(
            w,
            "| {:#04x} | `{}` | {} |",
            *o as u8,
            o.name(),
            Cell(o.doc())
        )?;
    }
    writeln!(w)?;
    writeln!(w, "| status | name | meaning |")?;
    writeln!(w, "|---|---|---|")?;
    for s in Status::ALL {
        writeln!(w, "| {} | `{}` | {} |", *s as u8, s.name(), Cell(s.doc()))?;
    }
    writeln!(w)?;
    writeln!(w, "QP states for `MODIFY_QP` (Table 7.10; the firmware answers `BAD_STATE` to any other move):")?;
    writeln!(w)?;
    writeln!(w, "| from | allowed targets |")?;
    writeln!(w, "|---|---|")?;
    for from in QpState::ALL {
        write!(w, "| `{}` |", from.name())?;
        for to in QpState::ALL.iter().filter(|t| from.modify_allowed(**t)) {
            write!(w, " `{}`", to.name())?;
        }
        writeln!(w, " |")?;
    }
    writeln!(w)?;
    writeln!(
        w,
        "Asynchronous events (`READ_EVENTS`; the firmware raises `IRQ.CAUSE.async_event` for each):"
    )?;
    writeln!(w)?;
    writeln!(w, "| type | name | meaning |")?;
    writeln!(w, "|---|---|---|")?;
    for e in EventType::ALL {
        writeln!(w, "| {} | `{}` | {} |", *e as u8, e.name(), Cell(e.doc()))?;
    }
    writeln!(w)?;
    for (req, resp) in REQUESTS.iter().zip(RESPONSES.iter()) {
        writeln!(w, "### `{}`", req.name)?;
        writeln!(w)?;
        writeln!(w, "Request:")?;
        writeln!(w)?;
        field_rows(w, req.fields, true)?;
        writeln!(w)?;
        writeln!(w, "Response ({}):", resp.doc)?;
        writeln!(w)?;
        field_rows(w, resp.fields, true)?;
        writeln!(w)?;
    }
    Ok(())
}
