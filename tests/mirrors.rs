//! The page's JSDoc types (`www/types.js`) against what the engine really writes: a hand
//! mirror that nothing else checks. The CLI's `compare --json` (the same serde structs the
//! wasm adapter hands the page) runs on scenarios that together produce every optional part
//! (plans and their reports, replicas with TicTac19's metrics, iterations, what-if), and the
//! JSON is walked along the typedefs from `Comparison` down:
//! - every key the engine writes is a `@property` of the typedef the walk is in;
//! - every required `@property` (not `[bracketed]`) is written;
//! - a property whose type names a typedef (`PairResult[]`, `Distribution`) is walked into.
//!
//! A field added to a serde struct without its type, or a type left behind by a removed
//! field, fails here.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

struct Prop {
    ty: String,
    optional: bool,
}

/// typedef name -> property name -> its type and whether it may be absent.
fn typedefs() -> BTreeMap<String, BTreeMap<String, Prop>> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("www/types.js")).unwrap();
    let mut out: BTreeMap<String, BTreeMap<String, Prop>> = BTreeMap::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        let line = line.trim_start_matches([' ', '*', '/']).trim();
        if let Some(rest) = line.strip_prefix("@typedef {object} ") {
            let name = rest.split_whitespace().next().unwrap().to_string();
            out.entry(name.clone()).or_default();
            current = Some(name);
        } else if line.starts_with("@typedef") {
            current = None;
        } else if let (Some(rest), Some(td)) = (line.strip_prefix("@property {"), &current) {
            let close = rest.find("} ").expect(line);
            let ty = rest[..close].to_string();
            let name = rest[close + 2..].split_whitespace().next().unwrap();
            let optional = name.starts_with('[');
            let name = name.trim_matches(['[', ']']).to_string();
            out.get_mut(td).unwrap().insert(name, Prop { ty, optional });
        }
    }
    assert!(out.len() > 20, "read only {} typedefs", out.len());
    out
}

/// Walks `value` as typedef `td`; records what it saw and what is wrong.
fn walk(
    defs: &BTreeMap<String, BTreeMap<String, Prop>>,
    td: &str,
    value: &Value,
    path: &str,
    seen: &mut BTreeSet<(String, String)>,
    bad: &mut BTreeSet<String>,
) {
    let Some(props) = defs.get(td) else { return };
    let Some(obj) = value.as_object() else {
        bad.insert(format!("{path}: {td} is not an object"));
        return;
    };
    for (k, v) in obj {
        match props.get(k) {
            None => {
                bad.insert(format!(
                    "{td}.{k}: written by the engine, not in www/types.js ({path})"
                ));
            }
            Some(p) => {
                seen.insert((td.to_string(), k.clone()));
                let ty = p.ty.trim();
                let (inner, many) = match ty.strip_suffix("[]") {
                    Some(i) => (i, true),
                    None => (ty, false),
                };
                if defs.contains_key(inner) {
                    if many {
                        for (i, x) in v.as_array().into_iter().flatten().enumerate() {
                            walk(defs, inner, x, &format!("{path}.{k}[{i}]"), seen, bad);
                        }
                    } else if !v.is_null() {
                        walk(defs, inner, v, &format!("{path}.{k}"), seen, bad);
                    }
                }
            }
        }
    }
    for (k, p) in props {
        if !p.optional && !obj.contains_key(k) {
            bad.insert(format!(
                "{td}.{k}: required in www/types.js, not written ({path})"
            ));
        }
    }
}

fn compare_json(args: &[&str]) -> Value {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new(env!("CARGO_BIN_EXE_placesim"))
        .current_dir(&root)
        .arg("compare")
        .args(args)
        .arg("--json")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn the_pages_types_match_what_the_engine_writes() {
    let defs = typedefs();
    let runs = [
        // Plans with orders and reports (heft, pesto), a placer that fails (memory), what-if.
        compare_json(&[
            "--graph",
            "graphs/alexnet_layers.json",
            "--devices",
            "3",
            "--memory",
            "4e9",
            "--placers",
            "single,heft,pesto,m-topo",
            "--schedulers",
            "fifo,given",
            "--param",
            "pesto.budget=50",
            "--seeds",
            "2",
        ]),
        // TicTac19: a replica on workers and servers, iterations, several link orders.
        compare_json(&["--scenario", "scenarios/tictac19_seq32_fw.json"]),
    ];
    let mut seen = BTreeSet::new();
    let mut bad = BTreeSet::new();
    for c in &runs {
        walk(&defs, "Comparison", c, "comparison", &mut seen, &mut bad);
    }
    // The row types must have been reached, or the walk proves nothing.
    for td in [
        "PairResult",
        "DeviceResult",
        "SolveReport",
        "PlanSummary",
        "OrderingResult",
    ] {
        assert!(
            seen.iter().any(|(t, _)| t == td),
            "the walk never reached {td}: {seen:?}"
        );
    }
    assert!(bad.is_empty(), "{bad:#?}");
}
