//! The simulator's packet capture is a real pcap that tshark reads: `metaroce run --pcap` on a small incast,
//! then every frame as tshark decodes it (lengths, IP addresses, UDP ports, ECN) is compared with the same frame
//! read by `metaroce_proto::pcap`. Data frames are captured headers-only, so tshark must see the original length
//! beside the captured one.
//!
//! tshark comes from `$METAROCE_TSHARK` or `PATH` (`cargo xtask test` installs it). When it is missing the test
//! fails if `CI` is set and is skipped with a message otherwise.

use std::path::Path;
use std::process::Command;

fn tshark() -> Option<String> {
    let t = std::env::var("METAROCE_TSHARK").unwrap_or_else(|_| "tshark".into());
    Command::new(&t)
        .arg("--version")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|_| t)
}

#[test]
fn simulator_pcap_reads_in_tshark_with_the_same_fields() {
    let Some(tshark) = tshark() else {
        if std::env::var_os("CI").is_some() {
            panic!("tshark is required when CI is set");
        }
        println!("SKIPPED: tshark not available; set CI=1 to make this a failure");
        return;
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = std::env::temp_dir().join(format!("metaroce-sim-pcap-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let pcap = dir.join("run.pcap");
    let out = Command::new(env!("CARGO_BIN_EXE_metaroce"))
        .arg("run")
        .arg(root.join("scenarios/examples/incast-16to1.toml"))
        .args(["--quiet", "--pcap"])
        .arg(&pcap)
        .args(["--pcap-pair", "1:0", "--pcap-pair", "7:0"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let bytes = std::fs::read(&pcap).unwrap();
    let (_, pkts) = metaroce_proto::pcap::read_pcap(&bytes).unwrap();
    assert!(pkts.len() > 100, "{} frames captured", pkts.len());

    let fields = [
        "frame.len",
        "frame.cap_len",
        "ip.src",
        "ip.dst",
        "udp.dstport",
        "ip.dsfield.ecn",
    ];
    let mut cmd = Command::new(&tshark);
    cmd.arg("-r")
        .arg(&pcap)
        .args(["-T", "fields", "-E", "separator=\t"]);
    for f in fields {
        cmd.args(["-e", f]);
    }
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "tshark: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let rows: Vec<Vec<&str>> = text.lines().map(|l| l.split('\t').collect()).collect();
    assert_eq!(
        rows.len(),
        pkts.len(),
        "tshark and the pcap reader see the same frames"
    );
    let mut truncated = 0;
    for (row, p) in rows.iter().zip(&pkts) {
        assert_eq!(row.len(), fields.len(), "{row:?}");
        assert_eq!(row[0], p.orig_len.to_string(), "frame.len");
        assert_eq!(row[1], p.data.len().to_string(), "frame.cap_len");
        truncated += usize::from((p.data.len() as u32) < p.orig_len);
        let ip = |off: usize| {
            format!(
                "{}.{}.{}.{}",
                p.data[off],
                p.data[off + 1],
                p.data[off + 2],
                p.data[off + 3]
            )
        };
        assert_eq!(row[2], ip(26), "ip.src");
        assert_eq!(row[3], ip(30), "ip.dst");
        let pair = (row[2], row[3]);
        let host = |a: &str| a.rsplit('.').next().unwrap_or("").to_string();
        let (s, d) = (host(pair.0), host(pair.1));
        assert!(
            matches!(
                (s.as_str(), d.as_str()),
                ("1", "0") | ("0", "1") | ("7", "0") | ("0", "7")
            ),
            "frame of an uncaptured pair: {pair:?}"
        );
        assert_eq!(row[4], "4792", "udp.dstport");
        let ecn = u8::from_str_radix(row[5].trim_start_matches("0x"), 16).unwrap_or(255);
        assert_eq!(ecn, p.data[15] & 3, "ip.dsfield.ecn");
    }
    assert!(truncated > 0, "data frames are captured headers-only");
    let _ = std::fs::remove_dir_all(dir);
}
