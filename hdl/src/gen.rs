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
    unsize_literals(&rename_modules(&generate_verilog(&uut), name))
}

/// rust-hdl writes every integer literal of `#[hdl_gen]` code as a 32-bit constant (`32'h2`) and initialises
/// every flip-flop with `64'h0`, whatever the width of the signal they meet, which Verilator flags as width
/// mismatches. An unsized decimal literal has the same value and the width of its context, so outside the
/// custom Verilog bodies (whose literals are written with their real widths) this rewrites `32'hN` and `64'hN`
/// with `N < 2^31` as decimal `N`. Larger values keep their sized form.
pub fn unsize_literals(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut custom = false;
    for line in text.lines() {
        let t = line.trim_start();
        if t.starts_with("// Update code (custom)") {
            custom = true;
        } else if t.starts_with("endmodule") || t.starts_with("module ") {
            custom = false;
        }
        if custom && !t.contains("= 64'h0;") {
            out.push_str(line);
        } else {
            out.push_str(&unsize_line(line));
        }
        out.push('\n');
    }
    out
}

fn unsize_line(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let b = line.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let prefix = if line[i..].starts_with("32'h") || line[i..].starts_with("64'h") {
            i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_' || b[i - 1] == b'$')
        } else {
            false
        };
        if prefix {
            let start = i + 4;
            let mut j = start;
            while j < b.len() && (b[j].is_ascii_hexdigit() || b[j] == b'_') {
                j += 1;
            }
            let digits: String = line[start..j].chars().filter(|c| *c != '_').collect();
            match u64::from_str_radix(&digits, 16) {
                Ok(v) if v < (1 << 31) && !digits.is_empty() => {
                    out.push_str(&v.to_string());
                    i = j;
                    continue;
                }
                _ => {}
            }
        }
        out.push(b[i] as char);
        i += 1;
    }
    out
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

    #[test]
    fn unsizes_small_generated_literals_only() {
        let v = "module m(a);\n  x = 32'h2 + y$32'h1;\n  z = 32'hffffffff;\n  // Update code (custom)\n  w = {32'h0, a};\n  q = 64'h0;\nendmodule\n  k = 64'h1f;\n";
        let r = unsize_literals(v);
        assert!(r.contains("x = 2 + y$32'h1;"));
        assert!(r.contains("z = 32'hffffffff;"));
        assert!(r.contains("w = {32'h0, a};"));
        assert!(r.contains("q = 0;"));
        assert!(r.contains("k = 31;"));
    }

    #[test]
    fn port_list_of_the_top_module_only() {
        let v = "module m(a,b);\n    input wire  [511:0] a;\n    output reg  b;\nendmodule\nmodule m_x(c);\n    input wire c;\nendmodule";
        let p = ports(v, "m");
        assert_eq!(
            p,
            vec![
                Port {
                    name: "a".into(),
                    dir: Dir::In,
                    width: 512
                },
                Port {
                    name: "b".into(),
                    dir: Dir::Out,
                    width: 1
                },
            ]
        );
        assert!(ports_json("m", &p).contains("{\"name\": \"a\", \"dir\": \"in\", \"width\": 512},"));
        assert_eq!(ports(v, "m_x").len(), 1);
    }
}

/// Direction of a module port.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dir {
    /// Input.
    In,
    /// Output.
    Out,
}

/// One port of a generated top module.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Port {
    /// Port name.
    pub name: String,
    /// Direction.
    pub dir: Dir,
    /// Width in bits.
    pub width: usize,
}

/// The ports of module `module` in a generated Verilog text, from its `input`/`output` declarations, in
/// declaration order. rust-hdl writes one declaration per line (`input wire [511:0] s_axis_rx_tdata;`).
pub fn ports(text: &str, module: &str) -> Vec<Port> {
    let mut out = Vec::new();
    let mut inside = false;
    for line in text.lines() {
        let t = line.trim();
        if let Some(rest) = t.strip_prefix("module ") {
            inside = rest.starts_with(module)
                && rest[module.len()..].starts_with(|c: char| c == '(' || c.is_whitespace());
            continue;
        }
        if t.starts_with("endmodule") {
            inside = false;
            continue;
        }
        if !inside {
            continue;
        }
        let (dir, rest) = if let Some(r) = t.strip_prefix("input ") {
            (Dir::In, r)
        } else if let Some(r) = t.strip_prefix("output ") {
            (Dir::Out, r)
        } else {
            continue;
        };
        let rest = rest.trim_end_matches(';');
        let mut width = 1;
        if let (Some(a), Some(b)) = (rest.find('['), rest.find(']')) {
            if let Some((hi, lo)) = rest[a + 1..b].split_once(':') {
                if let (Ok(hi), Ok(lo)) = (hi.trim().parse::<usize>(), lo.trim().parse::<usize>()) {
                    width = hi.abs_diff(lo) + 1;
                }
            }
        }
        if let Some(name) = rest.split_whitespace().last() {
            out.push(Port {
                name: name.to_string(),
                dir,
                width,
            });
        }
    }
    out
}

/// The port list as JSON (`{"module": ..., "ports": [{"name", "dir", "width"}]}`), for co-simulation shims.
pub fn ports_json(module: &str, ports: &[Port]) -> String {
    let mut s = format!("{{\n  \"module\": \"{module}\",\n  \"ports\": [\n");
    for (i, p) in ports.iter().enumerate() {
        let dir = match p.dir {
            Dir::In => "in",
            Dir::Out => "out",
        };
        s.push_str(&format!(
            "    {{\"name\": \"{}\", \"dir\": \"{dir}\", \"width\": {}}}{}\n",
            p.name,
            p.width,
            if i + 1 < ports.len() { "," } else { "" }
        ));
    }
    s.push_str("  ]\n}\n");
    s
}
