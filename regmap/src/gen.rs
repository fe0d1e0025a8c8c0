//! Other languages' views of the tables: a C header for the driver and firmware, a SystemVerilog package for
//! the HDL and its testbenches. Both list the same constants ([`constants`]): block types and versions,
//! register offsets and field positions, entry sizes and field positions, command opcodes, status codes and
//! counter indices. Entry fields give `_BYTE` (offset of the least significant byte), `_BIT` (bit within that
//! byte), `_LSB` (bit within the entry) and `_WIDTH`; register fields give `_SHIFT` and `_WIDTH`.

use crate::block::BlockType;
use crate::command::{Opcode, Status, REQUESTS, RESPONSES};
use crate::field::{Field, Layout, Register};
use core::fmt::{Result, Write};

/// Calls `f(name_parts, value)` for every constant; the name is the parts joined with `_`, upper case.
pub fn constants(f: &mut impl FnMut(&[&str], u64) -> Result) -> Result {
    for kind in BlockType::ALL {
        let b = crate::block::layout_of(*kind);
        f(&["BLOCK", kind.name(), "TYPE"], *kind as u64)?;
        f(&["BLOCK", kind.name(), "VERSION"], b.version as u64)?;
        f(&["BLOCK", kind.name(), "BYTES"], b.bytes as u64)?;
        registers(f, kind.name(), b.regs)?;
    }
    registers(f, "QP_DB", crate::queues::QP_PAGE)?;
    registers(f, "CQ_DB", crate::queues::CQ_PAGE)?;
    for l in crate::entry_layouts()
        .into_iter()
        .chain(crate::queues::DOORBELL_LAYOUTS)
    {
        layout(f, &[l.name], l)?;
    }
    for l in REQUESTS.iter() {
        layout(f, &["CMD", l.name, "REQ"], l)?;
    }
    for l in RESPONSES.iter() {
        layout(f, &["CMD", l.name, "RESP"], l)?;
    }
    for o in Opcode::ALL {
        f(&["CMD_OP", o.name()], *o as u64)?;
    }
    for s in Status::ALL {
        f(&["CMD_STATUS", s.name()], *s as u64)?;
    }
    for (i, c) in crate::counters::COUNTERS.iter().enumerate() {
        f(&["COUNTER", c.name], i as u64)?;
    }
    f(&["COUNTERS"], crate::counters::COUNT as u64)
}

fn registers(f: &mut impl FnMut(&[&str], u64) -> Result, block: &str, regs: &[Register]) -> Result {
    for r in regs {
        f(&[block, r.name, "OFFSET"], r.offset as u64)?;
        if r.count > 1 {
            f(&[block, r.name, "COUNT"], r.count as u64)?;
        }
        for fl in r.fields {
            f(&[block, r.name, fl.name, "SHIFT"], fl.lsb() as u64)?;
            f(&[block, r.name, fl.name, "WIDTH"], fl.width as u64)?;
        }
    }
    Ok(())
}

fn layout(f: &mut impl FnMut(&[&str], u64) -> Result, prefix: &[&str], l: &Layout) -> Result {
    let mut with = |suffix: &[&str], v: u64| -> Result {
        let mut parts: [&str; 6] = [""; 6];
        let n = prefix.len().min(3);
        parts[..n].copy_from_slice(&prefix[..n]);
        let m = suffix.len().min(3);
        parts[n..n + m].copy_from_slice(&suffix[..m]);
        f(&parts[..n + m], v)
    };
    with(&["BYTES"], l.bytes as u64)?;
    for fl in l.fields {
        field(&mut with, fl)?;
    }
    Ok(())
}

fn field(with: &mut impl FnMut(&[&str], u64) -> Result, fl: &Field) -> Result {
    with(&[fl.name, "BYTE"], fl.byte as u64)?;
    with(&[fl.name, "BIT"], fl.bit as u64)?;
    with(&[fl.name, "LSB"], fl.lsb() as u64)?;
    with(&[fl.name, "WIDTH"], fl.width as u64)
}

fn name(w: &mut impl Write, prefix: &str, parts: &[&str]) -> Result {
    w.write_str(prefix)?;
    for (i, p) in parts.iter().enumerate() {
        if i > 0 {
            w.write_char('_')?;
        }
        for c in p.chars() {
            w.write_char(if c.is_ascii_alphanumeric() {
                c.to_ascii_uppercase()
            } else {
                '_'
            })?;
        }
    }
    Ok(())
}

/// Writes the C header `metaroce_regmap.h`.
pub fn render_c(w: &mut impl Write) -> Result {
    writeln!(
        w,
        "/* MetaRoCE hardware interface constants, generated from metaroce-regmap: do not edit. */"
    )?;
    writeln!(w, "#ifndef METAROCE_REGMAP_H")?;
    writeln!(w, "#define METAROCE_REGMAP_H")?;
    writeln!(w)?;
    constants(&mut |parts, v| {
        w.write_str("#define ")?;
        name(w, "MR_", parts)?;
        writeln!(w, " {v:#x}ull")
    })?;
    writeln!(w)?;
    writeln!(w, "#endif /* METAROCE_REGMAP_H */")
}

/// Writes the SystemVerilog package `metaroce_regmap_pkg`.
pub fn render_sv(w: &mut impl Write) -> Result {
    writeln!(
        w,
        "// MetaRoCE hardware interface constants, generated from metaroce-regmap: do not edit."
    )?;
    writeln!(w, "package metaroce_regmap_pkg;")?;
    constants(&mut |parts, v| {
        w.write_str("  localparam longint unsigned ")?;
        name(w, "", parts)?;
        writeln!(w, " = 64'h{v:x};")
    })?;
    writeln!(w, "endpackage : metaroce_regmap_pkg")
}
