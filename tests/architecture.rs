//! ARCHITECTURE.md's invariants that a grep can check, so that breaking one fails a test:
//! - the model knows no strategy and no scenario (it imports nothing from `place`,
//!   `schedule`, `transfer`, `scenario`, `compare`), nor do the importers (`import`);
//! - the simulator knows no strategy (it names only the `Scheduler` and `LinkQueue` traits
//!   and their types, never a strategy file);
//! - a strategy file imports nothing from a sibling strategy (shared helpers live in the
//!   module: `mod.rs` and the helper files listed here);
//! - nothing downstream reaches back up: `sim` does not import `compare` or `scenario`, and
//!   no strategy imports `compare` or `scenario`.
//!
//! Test modules (`#[cfg(test)]` onwards, and `tests.rs` files) are exempt: a test may build
//! a fixture from anywhere.

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The non-test part of a source file.
fn code(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    match text.find("#[cfg(test)]") {
        Some(i) => text[..i].to_string(),
        None => text,
    }
}

/// Every `.rs` file under `dir`, but `tests.rs` files.
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(files(&p));
        } else if p.extension().is_some_and(|x| x == "rs") && !p.ends_with("tests.rs") {
            out.push(p);
        }
    }
    out.sort();
    out
}

fn stems(dir: &str, helpers: &[&str]) -> Vec<String> {
    files(&root().join(dir))
        .iter()
        .map(|p| p.file_stem().unwrap().to_string_lossy().to_string())
        .filter(|s| s != "mod" && !helpers.contains(&s.as_str()))
        .collect()
}

fn violations(dir: &str, forbidden: &[String]) -> Vec<String> {
    let mut bad = Vec::new();
    for f in files(&root().join(dir)) {
        let text = code(&f);
        for word in forbidden {
            if text.contains(word.as_str()) {
                bad.push(format!("{} uses {word}", f.display()));
            }
        }
    }
    bad
}

#[test]
fn the_model_knows_no_strategy_and_no_scenario() {
    let forbidden: Vec<String> = ["place", "schedule", "transfer", "scenario", "compare"]
        .iter()
        .map(|m| format!("crate::{m}"))
        .collect();
    let bad = violations("model", &forbidden);
    assert!(bad.is_empty(), "{bad:#?}");
}

/// Importers sit beside the model: other formats in, a `Graph` out, no strategy or scenario.
#[test]
fn importers_know_no_strategy_and_no_scenario() {
    let forbidden: Vec<String> = [
        "place", "schedule", "transfer", "scenario", "compare", "sim",
    ]
    .iter()
    .map(|m| format!("crate::{m}"))
    .collect();
    let bad = violations("import", &forbidden);
    assert!(bad.is_empty(), "{bad:#?}");
}

#[test]
fn the_simulator_knows_no_strategy_and_nothing_downstream() {
    let mut forbidden: Vec<String> = stems("schedule", &[])
        .iter()
        .map(|s| format!("schedule::{s}"))
        .collect();
    forbidden.extend(
        stems("transfer", &[])
            .iter()
            .map(|s| format!("transfer::{s}")),
    );
    forbidden.extend(["crate::place", "crate::compare", "crate::scenario"].map(String::from));
    assert!(forbidden.len() > 8, "{forbidden:?}");
    let bad = violations("sim", &forbidden);
    assert!(bad.is_empty(), "{bad:#?}");
}

#[test]
fn a_strategy_file_imports_no_sibling_strategy() {
    for (module, helpers) in [
        ("place", &["plan", "fill", "scores", "etf"][..]),
        ("schedule", &[][..]),
        ("transfer", &["recvs"][..]),
    ] {
        let strategies = stems(module, helpers);
        for s in &strategies {
            let path = root().join(module).join(format!("{s}.rs"));
            let text = code(&path);
            for other in strategies.iter().filter(|o| *o != s) {
                for form in [
                    format!("super::{other}::"),
                    format!("super::{other}}}"),
                    format!("crate::{module}::{other}::"),
                ] {
                    assert!(
                        !text.contains(&form),
                        "{module}/{s}.rs imports its sibling strategy {other} ({form})"
                    );
                }
            }
            for up in ["crate::compare", "crate::scenario"] {
                assert!(
                    !text.contains(up),
                    "{module}/{s}.rs reaches back up to {up}"
                );
            }
        }
    }
}
