//! The firmware in the co-simulation: the `metaroce-fw` image built for the control processor, loaded into a
//! core through its image window, booted, and commanded through the mailbox exactly as the host driver does
//! it (`metaroce_regmap::control`, `metaroce_regmap::mailbox`).

use super::core::{BenchError, CoreBench};
use super::host::block_base;
use metaroce_regmap::block::BlockType;
use metaroce_regmap::command::{Opcode, Request, Response, CMD_BYTES};
use metaroce_regmap::control::{reg as ctl, IMAGE_WINDOW};
use metaroce_regmap::fwbus::{BootStage, BootStatus};
use metaroce_regmap::mailbox::{self, MailboxStatus, BUF_WORDS};
use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

/// The RISC-V target the image is built for.
pub const TARGET: &str = "riscv32imc-unknown-none-elf";

/// Cycles the firmware may take to boot.
pub const BOOT_CYCLES: u64 = 2_000_000;

/// Cycles a mailbox command may take.
pub const COMMAND_CYCLES: u64 = 2_000_000;

fn target_dir() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target"));
    // A folder of its own: a build from inside a running test must not wait for the workspace's build lock.
    target.join("firmware")
}

/// Builds the image (`cargo build -p metaroce-firmware --features image --target riscv32imc-unknown-none-elf
/// --release`, into `<target>/firmware`) and returns the path of the ELF file.
pub fn build_elf() -> Result<PathBuf, String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let dir = target_dir();
    let out = Command::new(cargo)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .args([
            "build",
            "-q",
            "-p",
            "metaroce-firmware",
            "--features",
            "image",
            "--release",
            "--target",
            TARGET,
            "--target-dir",
        ])
        .arg(&dir)
        .output()
        .map_err(|e| format!("running cargo: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "building the firmware image failed (is the {TARGET} target installed? `cargo xtask bootstrap` \
             adds it):\n{}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(dir.join(TARGET).join("release").join("metaroce-fw"))
}

/// The firmware image as the words to load (built once per process).
pub fn image() -> Result<&'static [u32], String> {
    static IMAGE: OnceLock<Result<Vec<u32>, String>> = OnceLock::new();
    IMAGE
        .get_or_init(|| {
            let elf_path = build_elf()?;
            let elf =
                std::fs::read(&elf_path).map_err(|e| format!("{}: {e}", elf_path.display()))?;
            let mut words = Vec::new();
            metaroce_firmware::image::words(&elf, |i, w| {
                let i = i as usize;
                if words.len() <= i {
                    words.resize(i + 1, 0);
                }
                words[i] = w;
            })
            .map_err(|e| format!("{}: {e}", elf_path.display()))?;
            Ok(words)
        })
        .as_ref()
        .map(Vec::as_slice)
        .map_err(Clone::clone)
}

/// Stops the control processor, writes `words` into its RAM through the image window, and starts it.
pub fn load(b: &mut CoreBench, words: &[u32]) -> Result<(), BenchError> {
    let base = block_base(BlockType::Control);
    b.write(base + ctl::CTRL, 0)?;
    for (i, w) in words.iter().enumerate() {
        b.write(IMAGE_WINDOW + 4 * i as u32, *w)?;
    }
    b.write(base + ctl::CTRL, 1)
}

/// Reads `CONTROL.BOOT` until the firmware is READY or FAILED; the status and the cycles it took.
pub fn wait_boot(b: &mut CoreBench) -> Result<(BootStatus, u64), BenchError> {
    let base = block_base(BlockType::Control);
    let start = b.m.cycle();
    loop {
        let w = b.read(base + ctl::BOOT)?;
        if let Some(s) = BootStatus::from_word(w) {
            if matches!(s.stage, BootStage::Ready | BootStage::Failed) {
                return Ok((s, b.m.cycle() - start));
            }
        }
        if b.m.cycle() - start > BOOT_CYCLES {
            return Err(BenchError::Timeout(format!(
                "firmware boot (BOOT = {w:#010x}, trap = {})",
                b.fw_trap()?
            )));
        }
        b.run(64)?;
    }
}

/// Loads and boots the firmware; the boot status and the cycles from start to READY.
pub fn boot(b: &mut CoreBench) -> Result<(BootStatus, u64), BenchError> {
    let words = image().map_err(BenchError::Setup)?;
    load(b, words)?;
    wait_boot(b)
}

/// Submits `buf` with `tag` through the mailbox and waits for its completion: the status word, the response
/// buffer and the cycles from the submission to `done`.
pub fn submit(
    b: &mut CoreBench,
    buf: &[u8; CMD_BYTES],
    tag: u16,
) -> Result<(MailboxStatus, [u8; CMD_BYTES], u64), BenchError> {
    let base = block_base(BlockType::Mailbox);
    for (i, w) in mailbox::to_words(buf).iter().enumerate() {
        b.write(base + mailbox::reg::REQ + 4 * i as u32, *w)?;
    }
    b.write(base + mailbox::reg::CTRL, mailbox::ctrl_go(tag))?;
    let start = b.m.cycle();
    loop {
        let w = b.read(base + mailbox::reg::STATUS)?;
        let st = MailboxStatus::from_word(w)
            .map_err(|e| BenchError::Setup(format!("MAILBOX.STATUS {w:#x}: {e:?}")))?;
        if st.done && !st.busy && st.tag == tag {
            let cycles = b.m.cycle() - start;
            let mut words = [0u32; BUF_WORDS];
            for (i, r) in words.iter_mut().enumerate() {
                *r = b.read(base + mailbox::reg::RESP + 4 * i as u32)?;
            }
            return Ok((st, mailbox::from_words(&words), cycles));
        }
        if b.m.cycle() - start > COMMAND_CYCLES {
            return Err(BenchError::Timeout(format!(
                "mailbox command tag {tag} (STATUS = {w:#010x}, trap = {})",
                b.fw_trap()?
            )));
        }
    }
}

/// Runs `req` through the mailbox: the decoded response and the command's latency in cycles.
pub fn command(b: &mut CoreBench, req: &Request) -> Result<(Response, u64), BenchError> {
    let mut buf = [0u8; CMD_BYTES];
    req.emit(&mut buf)
        .map_err(|e| BenchError::Setup(format!("request {req:?}: {e:?}")))?;
    let (st, resp, cycles) = submit(b, &buf, req.tag)?;
    let op: Opcode = req.command.opcode();
    let count = match req.command {
        metaroce_regmap::command::Command::ReadCounters { count, .. } => count,
        _ => 0,
    };
    let r = Response::parse(&resp, op, count)
        .map_err(|e| BenchError::Setup(format!("response to {op:?}: {e:?}")))?;
    if r.status as u8 != st.status {
        return Err(BenchError::Setup(format!(
            "STATUS says {} but the response says {:?}",
            st.status, r.status
        )));
    }
    Ok((r, cycles))
}
