//! The firmware in the co-simulation: the `metaroce-fw` image built for the control processor, loaded into a
//! core through its image window, booted, and commanded through the mailbox exactly as the host driver does
//! it (`metaroce_regmap::control`, `metaroce_regmap::mailbox`); [`create`] and [`ready`] make a connected
//! QP the driver's way.

use super::core::{BenchError, CoreBench};
use super::host::{block_base, set_endpoint, Cq, Qp};
use metaroce_firmware::image::PROFILE;
use metaroce_regmap::block::BlockType;
use metaroce_regmap::command::{
    Command, CreateCq, CreateMr, CreateQp, Event, Moderation, ModifyQp, Opcode, QpState, Remote,
    Request, Response, ResponseData, Status, CMD_BYTES,
};
use metaroce_regmap::context::mr::MrAccess;
use metaroce_regmap::control::{reg as ctl, IMAGE_WINDOW};
use metaroce_regmap::fwbus::{BootStage, BootStatus};
use metaroce_regmap::mailbox::{self, MailboxStatus, BUF_WORDS};
use std::net::Ipv4Addr;
use std::path::PathBuf;
use std::process::Command as Process;
use std::sync::OnceLock;

/// The RISC-V target the image is built for.
pub const TARGET: &str = metaroce_firmware::image::TARGET;

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

/// Builds the image (`cargo build -p metaroce-firmware --features image --target riscv32im-unknown-none-elf
/// --profile firmware`, into `<target>/firmware`) and returns the path of the ELF file.
pub fn build_elf() -> Result<PathBuf, String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let dir = target_dir();
    let out = Process::new(cargo)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .args([
            "build",
            "-q",
            "-p",
            "metaroce-firmware",
            "--features",
            "image",
            "--profile",
            PROFILE,
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
    Ok(dir.join(TARGET).join(PROFILE).join("metaroce-fw"))
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

/// Stops the control processor, writes the boot seed (`CONTROL.SEED`) and `words` into its RAM through the
/// image window, and starts it.
pub fn load(b: &mut CoreBench, words: &[u32]) -> Result<(), BenchError> {
    let base = block_base(BlockType::Control);
    b.write(base + ctl::CTRL, 0)?;
    // The host's seed for the firmware's random numbers: here the bench's own, so runs replay.
    b.write(
        base + ctl::SEED,
        (b.seed ^ b.seed >> 32) as u32 ^ 0x5EED_5EED,
    )?;
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

/// What [`create`] made on one core through the firmware.
#[derive(Debug, Clone, Copy)]
pub struct Created {
    /// The QP (rings in host memory, indices at 0).
    pub qp: Qp,
    /// The CQ of both directions.
    pub cq: Cq,
    /// The memory region's local key.
    pub lkey: u32,
    /// Its remote key.
    pub rkey: u32,
}

/// Where [`create`] puts the CQ ring and the QP's rings in host memory, and their sizes (log2 entries).
pub const CQ_RING: u64 = 0x8000;
/// The send queue ring.
pub const SQ_RING: u64 = 0x1_0000;
/// The receive queue ring.
pub const RQ_RING: u64 = 0x2_0000;
/// log2 entries of the CQ.
pub const CQ_LOG: u8 = 7;
/// log2 entries of each work queue.
pub const WQ_LOG: u8 = 6;

/// The host side of a QP, the way the driver makes one: the endpoint addresses, then through the firmware's
/// mailbox a CQ, a QP in INIT completing into it, and a memory region over `buf` (`len` bytes, all rights).
/// Rings are zeroed in host memory first. [`ready`] connects the QP.
pub fn create(
    b: &mut CoreBench,
    mac: [u8; 6],
    ip: Ipv4Addr,
    (buf, len): (u64, u64),
) -> Result<Created, BenchError> {
    let fail = |what: &str, r: &Response| BenchError::Setup(format!("{what}: {r:?}"));
    set_endpoint(b, mac, ip)?;
    b.dma.mem.write(CQ_RING, &vec![0u8; 32 << CQ_LOG]);
    b.dma.mem.write(SQ_RING, &vec![0u8; 64 << WQ_LOG]);
    b.dma.mem.write(RQ_RING, &vec![0u8; 32 << WQ_LOG]);
    let mut tag = 0x100;
    let mut run = |b: &mut CoreBench, command: Command| {
        tag += 1;
        command_ok(b, &Request { tag, command })
    };
    let r = run(
        b,
        Command::CreateCq(CreateCq {
            ring_addr: CQ_RING,
            log_size: CQ_LOG,
            msix_vector: 0,
            moderation: Moderation::default(),
        }),
    )?;
    let ResponseData::Cq(cqn) = r.data else {
        return Err(fail("CREATE_CQ", &r));
    };
    let r = run(
        b,
        Command::CreateQp(CreateQp {
            sq_addr: SQ_RING,
            rq_addr: RQ_RING,
            send_cqn: cqn,
            recv_cqn: cqn,
            sq_log: WQ_LOG,
            rq_log: WQ_LOG,
        }),
    )?;
    let ResponseData::Qp(qpn) = r.data else {
        return Err(fail("CREATE_QP", &r));
    };
    let r = run(
        b,
        Command::CreateMr(CreateMr {
            addr: buf,
            length: len,
            access: MrAccess::ALL,
        }),
    )?;
    let ResponseData::Mr { lkey, rkey } = r.data else {
        return Err(fail("CREATE_MR", &r));
    };
    Ok(Created {
        qp: Qp {
            qpn: qpn as u16,
            sq: (SQ_RING, WQ_LOG),
            rq: (RQ_RING, WQ_LOG),
            sq_pi: 0,
            rq_pi: 0,
        },
        cq: Cq {
            cqn: cqn as u16,
            ring: CQ_RING,
            log: CQ_LOG,
            ci: 0,
        },
        lkey,
        rkey,
    })
}

/// Moves QP `qpn` to READY towards `remote` through the mailbox (the firmware opens its connection 0-RTT).
pub fn ready(b: &mut CoreBench, qpn: u16, remote: Remote) -> Result<(), BenchError> {
    command_ok(
        b,
        &Request {
            tag: 0x200,
            command: Command::ModifyQp(ModifyQp {
                qpn: u32::from(qpn),
                state: QpState::Ready,
                remote: Some(remote),
            }),
        },
    )
    .map(|_| ())
}

/// [`command`], with any status other than OK an error.
pub fn command_ok(b: &mut CoreBench, req: &Request) -> Result<Response, BenchError> {
    let (r, _) = command(b, req)?;
    if r.status != Status::Ok {
        return Err(BenchError::Setup(format!("{:?}: {r:?}", req.command)));
    }
    Ok(r)
}

/// Takes every queued asynchronous event through READ_EVENTS (four per command, until none is pending), oldest
/// first, and the firmware's count of events it dropped.
pub fn read_events(b: &mut CoreBench) -> Result<(Vec<Event>, u32), BenchError> {
    let mut got = Vec::new();
    loop {
        let r = command_ok(
            b,
            &Request {
                tag: 0x300,
                command: Command::ReadEvents,
            },
        )?;
        let ResponseData::Events(e) = r.data else {
            return Err(BenchError::Setup(format!("READ_EVENTS answered {r:?}")));
        };
        got.extend(e.events.iter().flatten());
        if e.pending == 0 {
            return Ok((got, e.lost));
        }
    }
}
