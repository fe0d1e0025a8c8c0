//! The C and SystemVerilog views: one constant per table entry, unique names, values taken from the tables.

use metaroce_regmap::gen::{render_c, render_sv};
use std::collections::HashMap;

fn c_defines() -> HashMap<String, u64> {
    let mut text = String::new();
    render_c(&mut text).unwrap();
    let mut map = HashMap::new();
    for line in text.lines().filter(|l| l.starts_with("#define MR_")) {
        let mut it = line.split_whitespace().skip(1);
        let (name, value) = (it.next().unwrap(), it.next().unwrap());
        let v = u64::from_str_radix(value.trim_start_matches("0x").trim_end_matches("ull"), 16)
            .unwrap();
        assert!(
            name.chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_'),
            "{name}"
        );
        assert!(
            map.insert(name.to_string(), v).is_none(),
            "duplicate {name}"
        );
    }
    map
}

#[test]
fn c_header_has_unique_names_and_table_values() {
    let d = c_defines();
    assert_eq!(d["MR_BLOCK_ID_TYPE"], 0x4D52_0001);
    assert_eq!(d["MR_ID_MAGIC_OFFSET"], 0x0C);
    assert_eq!(d["MR_CAPS_QUEUE_LOG_CQ_SHIFT"], 16);
    assert_eq!(d["MR_SQE_BYTES"], 64);
    assert_eq!(d["MR_CQE_PHASE_BYTE"], 31);
    assert_eq!(d["MR_CONN_HOT_STATE_LSB"], 470);
    assert_eq!(d["MR_CONN_HOT_STATE_WIDTH"], 2);
    assert_eq!(d["MR_CMD_CREATE_MR_REQ_ACCESS_BYTE"], 24);
    assert_eq!(d["MR_CMD_OP_CREATE_MR"], 0x30);
    assert_eq!(d["MR_CMD_STATUS_BAD_PARAM"], 4);
    assert_eq!(d["MR_QP_DB_RQ_PI_OFFSET"], 4);
    assert_eq!(d["MR_COUNTERS"], metaroce_regmap::counters::COUNT as u64);
    // Every field of every entry is there.
    for l in metaroce_regmap::all_layouts() {
        for f in l.fields {
            assert!(
                d.keys()
                    .any(|k| k.ends_with(&format!("_{}_LSB", f.name.to_uppercase()))),
                "{}.{}",
                l.name,
                f.name
            );
        }
    }
}

#[test]
fn sv_package_matches_c_header() {
    let d = c_defines();
    let mut text = String::new();
    render_sv(&mut text).unwrap();
    let mut n = 0;
    for line in text.lines().filter(|l| l.contains("localparam")) {
        let name = line.split_whitespace().nth(3).unwrap();
        let value = line.rsplit("64'h").next().unwrap().trim_end_matches(';');
        let v = u64::from_str_radix(value, 16).unwrap();
        assert_eq!(d.get(&format!("MR_{name}")), Some(&v), "{name}");
        n += 1;
    }
    assert_eq!(n, d.len());
    assert!(text
        .trim_end()
        .ends_with("endpackage : metaroce_regmap_pkg"));
}
