//! Writes one block's Verilog to stdout: `cargo run -p metaroce-hdl --example emit -- <block name>`.
fn main() {
    let name = std::env::args().nth(1).unwrap_or_default();
    let cfg = metaroce_hdl::CoreConfig::default();
    match metaroce_hdl::blocks::find(&name) {
        Some(b) => print!("{}", (b.verilog)(&cfg)),
        None => {
            eprintln!("unknown block `{name}`; blocks:");
            for b in metaroce_hdl::blocks::all() {
                eprintln!("  {:<32} {}", b.name, b.description);
            }
            std::process::exit(2);
        }
    }
}
