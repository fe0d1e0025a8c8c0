//! The list of every block of the core, from which the Verilog, the lint and synthesis checks and the
//! resource report are produced.

use crate::CoreConfig;

/// One generated block.
#[derive(Clone, Copy)]
pub struct BlockSpec {
    /// Top module name of the block's Verilog (`metaroce_<area>_<block>`).
    pub name: &'static str,
    /// Pipeline it belongs to (`rx`, `tx`, `rel`, `cc`, `ctx`, `common`, `core`).
    pub area: &'static str,
    /// One line: what it does.
    pub description: &'static str,
    /// Generates its Verilog for a configuration.
    pub verilog: fn(&CoreConfig) -> String,
}

impl core::fmt::Debug for BlockSpec {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("BlockSpec")
            .field("name", &self.name)
            .field("area", &self.area)
            .finish()
    }
}

/// Every block, in pipeline order.
pub fn all() -> Vec<BlockSpec> {
    let mut v = Vec::new();
    v.extend(crate::common::blocks());
    v.extend(crate::rx::blocks());
    v.extend(crate::tx::blocks());
    v.extend(crate::rel::blocks());
    v.extend(crate::cc::blocks());
    v.extend(crate::ctx::blocks());
    v.extend(crate::cpu::blocks());
    v.extend(crate::top::blocks());
    v
}

/// The block called `name`.
pub fn find(name: &str) -> Option<BlockSpec> {
    all().into_iter().find(|b| b.name == name)
}

/// The block list as a Markdown table (the `blocks` section of `docs/hardware.md`).
pub fn render_markdown() -> String {
    let mut s = String::from("| module | pipeline | what it does |\n|---|---|---|\n");
    for b in all() {
        s.push_str(&format!(
            "| `{}` | {} | {} |\n",
            b.name, b.area, b.description
        ));
    }
    s
}
