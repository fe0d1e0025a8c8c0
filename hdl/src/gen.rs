//! Verilog generation with meaningful module names.
//!
//! rust-hdl names the top module of a generated design `top` and every sub-module after its instance path
//! (`top$rx$parser`). [`verilog`] renames them: `top` becomes the block's name and `top$a$b` becomes
//! `<name>_a_b`, so that every module of the core is named for the block it implements
//! (`metaroce_core_rx_parser`). Signal names inside modules are left as rust-hdl writes them.

use rust_hdl::prelude::*;

/// Generates the Verilog of `uut` (after `connect_all`) with its top module called `name`.
pub fn verilog<L: Block>(name: &str, mut uut: L) -> String {
    uut.connect_all();
    rename_modules(&generate_verilog(&uut), name)
}

/// Renames the module identifiers `top` and `top$...` of rust-hdl output as described in the module docs.
pub fn rename_modules(text: &str, name: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 16);
    let bytes = text.as_bytes();
    let mut i = 0;
    let is_ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'$';
    while i < bytes.len() {
        let c = bytes[i];
        if is_ident(c) && (i == 0 || !is_ident(bytes[i - 1])) {
            let start = i;
            while i < bytes.len() && is_ident(bytes[i]) {
                i += 1;
            }
            let ident = &text[start..i];
            if ident == "top" {
                out.push_str(name);
            } else if let Some(rest) = ident.strip_prefix("top$") {
                out.push_str(name);
                out.push('_');
                out.push_str(&rest.replace('$', "_"));
            } else {
                out.push_str(ident);
            }
        } else {
            out.push(c as char);
            i += 1;
        }
    }
    out
}

/// The module names declared in a Verilog text (`module NAME`), in order.
pub fn module_names(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| l.trim_start().strip_prefix("module "))
        .map(|rest| {
            rest.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '$'))
                .next()
                .unwrap_or("")
                .to_string()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renames_top_and_instance_paths_only() {
        let v = "module top(a);\n  top$x$y y(.a(y$a));\nendmodule // top\nmodule top$x$y(a);\nwire topper;\nendmodule";
        let r = rename_modules(v, "metaroce_rx");
        assert!(r.contains("module metaroce_rx(a);"));
        assert!(r.contains("metaroce_rx_x_y y(.a(y$a));"));
        assert!(r.contains("module metaroce_rx_x_y(a);"));
        assert!(r.contains("wire topper;"));
        assert!(!r.contains("top$"));
        assert_eq!(module_names(&r), vec!["metaroce_rx", "metaroce_rx_x_y"]);
    }
}
