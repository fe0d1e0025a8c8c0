//! Links the RISC-V image with the firmware's memory map (`link.x`); host builds need nothing.

fn main() {
    println!("cargo:rerun-if-changed=link.x");
    println!("cargo:rerun-if-changed=build.rs");
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("none") {
        let dir = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default();
        println!("cargo:rustc-link-search={dir}");
        println!("cargo:rustc-link-arg-bins=-Tlink.x");
    }
}
