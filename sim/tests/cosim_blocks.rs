//! Block-level differential tests in Verilator: a block of the generated Verilog driven with randomized input
//! and random idle cycles, its outputs compared with the `proto` function it implements. The seed is printed;
//! `METAROCE_SEED` replays a run and `METAROCE_ITERS` lengthens it.

use metaroce_hdl::CoreConfig;
use metaroce_proto::harness::rng::Rng;
use metaroce_proto::wire::crc::crc32;
use metaroce_sim::cosim::core::block_model;
use metaroce_sim::cosim::Model;

fn seed() -> u64 {
    let s = std::env::var("METAROCE_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0x5eed_c0de);
    println!("seed {s} (replay with METAROCE_SEED={s})");
    s
}

fn iters(default: u64) -> u64 {
    std::env::var("METAROCE_ITERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// One beat for the ICV CRC block: start, end, ones mask, data.
type CrcBeat = (u8, u8, u64, [u8; 64]);

/// One message for the ICV CRC block: its beats and the expected CRC.
struct CrcMsg {
    beats: Vec<CrcBeat>,
    want: u32,
}

fn random_msg(rng: &mut Rng) -> CrcMsg {
    let n = 1 + rng.below(4) as usize;
    let mut beats = Vec::new();
    let mut covered = Vec::new();
    for i in 0..n {
        let mut data = [0u8; 64];
        for b in data.iter_mut() {
            *b = rng.next_u32() as u8;
        }
        // The block's contract: a message's first four bytes are in its first beat (the ICV starts at an IP
        // header, at least 20 bytes long).
        let start = if i == 0 { rng.below(61) as u8 } else { 0 };
        let end = if i + 1 == n {
            let min = if n == 1 { u64::from(start) + 4 } else { 1 };
            (min + rng.below(65 - min)) as u8
        } else {
            64
        };
        // Masked bytes (forced to 0xFF) are rare, as in a real header.
        let ones = if rng.below(2) == 0 {
            0
        } else {
            rng.next_u64() & rng.next_u64() & rng.next_u64()
        };
        for k in start..end {
            covered.push(if (ones >> k) & 1 == 1 {
                0xFF
            } else {
                data[k as usize]
            });
        }
        beats.push((start, end, ones, data));
    }
    CrcMsg {
        want: crc32(&covered),
        beats,
    }
}

#[test]
fn crc32_icv_block_matches_the_model_crc_under_random_framing_and_idle() {
    let seed = seed();
    let mut rng = Rng::new(seed);
    let kind = block_model("metaroce_common_crc32_icv", &CoreConfig::default(), false)
        .unwrap_or_else(|e| panic!("{e}"));
    let mut m: Model = kind.instance();
    let p = |n: &str| kind.port(n).expect("port");
    let (rst, valid, first, last) = (p("rst"), p("in_valid"), p("in_first"), p("in_last"));
    let (start, end, ones, data) = (p("in_start"), p("in_end"), p("in_ones"), p("in_data"));
    let (out_valid, out_crc) = (p("out_valid"), p("out_crc"));
    m.set_bit(rst, true);
    m.steps(4);
    m.set_bit(rst, false);
    let msgs: Vec<CrcMsg> = (0..iters(2_000)).map(|_| random_msg(&mut rng)).collect();
    let mut got = Vec::new();
    let mut drive = |m: &mut Model, beat: Option<(bool, bool, &CrcBeat)>| {
        match beat {
            Some((f, l, (s, e, o, d))) => {
                m.set_bit(valid, true);
                m.set_bit(first, f);
                m.set_bit(last, l);
                m.set(start, u64::from(*s));
                m.set(end, u64::from(*e));
                m.set(ones, *o);
                m.set_bytes(data, d);
            }
            None => m.set_bit(valid, false),
        }
        m.eval();
        if m.get_bit(out_valid) {
            got.push(m.get(out_crc) as u32);
        }
        m.step();
    };
    for msg in &msgs {
        let n = msg.beats.len();
        for (i, b) in msg.beats.iter().enumerate() {
            while rng.below(4) == 0 {
                drive(&mut m, None);
            }
            drive(&mut m, Some((i == 0, i + 1 == n, b)));
        }
    }
    for _ in 0..32 {
        drive(&mut m, None);
    }
    assert_eq!(got.len(), msgs.len(), "one CRC per message (seed {seed})");
    for (i, (g, msg)) in got.iter().zip(&msgs).enumerate() {
        assert_eq!(
            *g, msg.want,
            "message {i}: CRC {g:#010x}, the model's {:#010x} (seed {seed})",
            msg.want
        );
    }
}

#[test]
fn a_traced_model_writes_a_waveform_and_an_untraced_one_says_it_cannot() {
    let dir = std::env::temp_dir().join(format!("metaroce-vcd-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let vcd = dir.join("popcount.vcd");
    let cfg = CoreConfig::default();
    let kind =
        block_model("metaroce_common_popcount", &cfg, true).unwrap_or_else(|e| panic!("{e}"));
    let mut m = kind.instance();
    let (en, word, count) = (
        kind.port("en").expect("en"),
        kind.port("word").expect("word"),
        kind.port("count").expect("count"),
    );
    m.trace(&vcd).expect("trace");
    m.set_bit(en, true);
    let words: [[u32; 8]; 3] = [
        [u32::MAX; 8],
        [1, 0, 0, 0, 0, 0, 0, 0x8000_0000],
        [0x0F0F_0F0F; 8],
    ];
    for w in &words {
        m.set_words(word, w);
        m.step();
    }
    m.steps(2);
    // The count of the last word, 2 enabled cycles after it.
    assert_eq!(m.get(count), 128);
    m.trace_close();
    let text = std::fs::read_to_string(&vcd).expect("waveform written");
    assert!(
        text.contains("$var") && text.contains(" count "),
        "VCD has the signals"
    );
    assert!(
        text.lines().filter(|l| l.starts_with('#')).count() >= 10,
        "VCD has the time steps"
    );
    let _ = std::fs::remove_dir_all(&dir);
    let plain =
        block_model("metaroce_common_popcount", &cfg, false).unwrap_or_else(|e| panic!("{e}"));
    let mut p = plain.instance();
    let e = p
        .trace(&dir.join("x.vcd"))
        .expect_err("no waveform support");
    assert!(e.contains("trace"), "{e}");
}
