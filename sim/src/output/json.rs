//! JSON output: `{"summary": {...}, "flows": [...]}` (flows optional).

use crate::flow::FlowRecord;
use crate::metrics::{class_name, Summary};
use crate::results::RunResults;
use serde_json::{json, Value};
use std::path::Path;

/// One flow as JSON.
pub fn flow_json(f: &FlowRecord) -> Value {
    json!({
        "id": f.id,
        "src": f.spec.src,
        "dst": f.spec.dst,
        "bytes": f.spec.bytes,
        "class": class_name(f.spec.class),
        "tag": f.spec.tag,
        "start_ns": f.start_ns,
        "end_ns": f.end_ns,
        "fct_ns": f.fct_ns(),
    })
}

/// The document: the summary, plus every flow of `flows` if given.
pub fn to_value(s: &Summary, flows: Option<&RunResults>) -> Value {
    let mut doc = json!({ "summary": s });
    if let (Some(r), Some(obj)) = (flows, doc.as_object_mut()) {
        obj.insert(
            "flows".into(),
            Value::Array(r.flows.iter().map(flow_json).collect()),
        );
    }
    doc
}

/// Writes [`to_value`] to `path`, pretty-printed.
pub fn write(path: &Path, s: &Summary, flows: Option<&RunResults>) -> std::io::Result<()> {
    super::ensure_parent(path)?;
    let text = serde_json::to_string_pretty(&to_value(s, flows)).map_err(std::io::Error::other)?;
    std::fs::write(path, text + "\n")
}
