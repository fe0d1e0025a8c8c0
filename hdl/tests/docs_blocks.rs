//! `docs/hardware.md` lists every block the crate generates. Regenerate with `METAROCE_BLESS=1`.

use std::path::PathBuf;

#[test]
fn hardware_doc_lists_every_block() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../docs/hardware.md");
    let text = std::fs::read_to_string(&path).expect("docs/hardware.md");
    let (b, e) = ("<!-- blocks:begin -->\n", "<!-- blocks:end -->");
    let i = text.find(b).expect("blocks:begin marker") + b.len();
    let j = text.find(e).expect("blocks:end marker");
    let want = metaroce_hdl::blocks::render_markdown();
    if std::env::var_os("METAROCE_BLESS").is_some() {
        let new = format!("{}{}{}", &text[..i], want, &text[j..]);
        std::fs::write(&path, new).expect("write docs/hardware.md");
        return;
    }
    assert_eq!(
        &text[i..j],
        want,
        "docs/hardware.md's block list is stale: run METAROCE_BLESS=1 cargo test -p metaroce-hdl --test docs_blocks"
    );
}
