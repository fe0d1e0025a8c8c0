//! `docs/hardware-interface.md` is generated from the tables: this test fails when the checked-in file is stale
//! and rewrites it when `METAROCE_BLESS=1`.

use std::path::PathBuf;

#[test]
fn hardware_interface_doc_is_current() {
    let mut text = String::new();
    metaroce_regmap::doc::render(&mut text).expect("rendering into a String cannot fail");
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../docs/hardware-interface.md");
    if std::env::var("METAROCE_BLESS").as_deref() == Ok("1") {
        std::fs::write(&path, &text).expect("write docs/hardware-interface.md");
        return;
    }
    let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        on_disk == text,
        "docs/hardware-interface.md is stale: regenerate with \
         `METAROCE_BLESS=1 cargo test -p metaroce-regmap --test docs`"
    );
}

/// Every row of every Markdown table has as many cells as its header (no text splits a row).
#[test]
fn hardware_interface_doc_tables_are_rectangular() {
    let mut text = String::new();
    metaroce_regmap::doc::render(&mut text).expect("rendering into a String cannot fail");
    let cells = |line: &str| line.replace("\\|", "").matches('|').count();
    let mut header: Option<usize> = None;
    let mut tables = 0;
    for (n, line) in text.lines().enumerate() {
        if line.starts_with('|') {
            match header {
                None => {
                    header = Some(cells(line));
                    tables += 1;
                }
                Some(h) => assert_eq!(cells(line), h, "line {}: {line}", n + 1),
            }
        } else {
            header = None;
        }
    }
    assert!(
        tables > 50,
        "expected the reference to hold many tables, found {tables}"
    );
}
