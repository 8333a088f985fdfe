//! ARCHITECTURE.md's layers and invariants, checked on the source text so that breaking one
//! fails a test. Every rule is a function over the source tree ([`Tree`]), and
//! `every_rule_can_fail` plants a violation of each into a copy of the tree in memory and
//! checks the rule reports it: a rule that cannot fail is caught too.
//!
//! The rules:
//! - **Layers** ([`LAYERS`]): a module imports only modules on lower floors. Data flows one
//!   way: model -> plan -> policies -> simulator -> pair -> optimiser -> placers -> scenario
//!   -> runner -> sweep -> report -> adapters.
//! - **A strategy is one file**: a strategy file names no other strategy, of its own registry
//!   or another's (shared helpers live in the module's `mod.rs` and the helper files listed
//!   in [`HELPERS`]); it reaches another registry's strategies only through that registry.
//!   A strategy kept in a folder (`place/x/mod.rs`, or `place/x.rs` with files under
//!   `place/x/`) is one strategy, and every file of it answers to the rule.
//! - **The simulator knows no strategy**: nothing under `sim/` names a strategy file.
//! - **The link codec knows no simulator**: `scenario/` imports nothing from `sim/`.
//! - **The CLI is the binary's**: `main.rs` declares `cli`, `lib.rs` never does.
//! - **Nothing but `pair.rs` builds a pair**: no other file calls the simulator
//!   (`sim::simulate`, or `simulate` imported from `crate::sim`) or builds a scheduler or a
//!   link order from its registry entry (`(x.make)(params, rng)`; a placer's `make` takes no
//!   argument, `(x.make)()`), so every run of a plan has the policies and random streams
//!   `crate::pair` gives it.
//!
//! Test code is exempt (a test may build a fixture from anywhere): `#[cfg(test)]` items
//! (a `mod tests { ... }` block or a `mod tests;` line) are cut out wherever they stand, and
//! `tests.rs` files and `testutil.rs` are skipped.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The floors of the engine, lowest first. A module (a file or folder directly under `src/`)
/// may import only modules on floors below its own.
const LAYERS: &[&[&str]] = &[
    &["error"],
    &["rng", "clock", "util", "params", "units"],
    &["model"],
    &["import", "transform", "analysis"],
    &["plan"],
    &["schedule", "transfer"],
    &["sim"],
    &["pair"],
    &["optim"],
    &["place"],
    &["scenario"],
    &["compare"],
    &["sweep"],
    &["report"],
    &["wasm", "cli", "main", "lib"],
];

/// Files of a strategy module that are shared helpers, not strategies.
const HELPERS: &[(&str, &[&str])] = &[
    ("place", &["context", "fill", "scores", "etf"]),
    ("schedule", &[]),
    ("transfer", &["recvs"]),
];

/// The engine's source: path under `src/` -> its non-test code.
#[derive(Clone)]
struct Tree(BTreeMap<String, String>);

fn src() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn walk(dir: &Path, base: &Path, out: &mut BTreeMap<String, String>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            walk(&p, base, out);
        } else if p.extension().is_some_and(|x| x == "rs")
            && !p.ends_with("tests.rs")
            && !p.ends_with("testutil.rs")
        {
            let rel = p
                .strip_prefix(base)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            out.insert(rel, strip_tests(&std::fs::read_to_string(&p).unwrap()));
        }
    }
}

impl Tree {
    fn load() -> Tree {
        let mut out = BTreeMap::new();
        walk(&src(), &src(), &mut out);
        assert!(out.len() > 50, "read only {} files", out.len());
        Tree(out)
    }

    /// The files of one module (`place` is `place/*.rs`; `plan` is `plan.rs` or `plan/`).
    fn module(&self, m: &str) -> impl Iterator<Item = (&String, &String)> {
        let dir = format!("{m}/");
        let file = format!("{m}.rs");
        self.0
            .iter()
            .filter(move |(p, _)| p.starts_with(&dir) || **p == file)
    }

    /// The strategies of a registry module (names), without `mod.rs` and helpers: a file
    /// `m/x.rs`, a folder `m/x/` (its `mod.rs` or the files beside `m/x.rs`), or both.
    fn strategies(&self, m: &str) -> Vec<String> {
        let helpers = HELPERS.iter().find(|(h, _)| *h == m).unwrap().1;
        let mut out: Vec<String> = self
            .module(m)
            .filter_map(|(p, _)| p.strip_prefix(&format!("{m}/")))
            .map(|rest| match rest.split_once('/') {
                Some((dir, _)) => dir.to_string(),
                None => rest.trim_end_matches(".rs").to_string(),
            })
            .filter(|s| s != "mod" && !helpers.contains(&s.as_str()))
            .collect();
        out.sort();
        out.dedup();
        out
    }

    /// The files of strategy `s` of registry `m`: `m/s.rs` and every file under `m/s/`, so a
    /// strategy split into a folder (its own helpers beside it) answers to the rule as one.
    fn strategy_files(&self, m: &str, s: &str) -> impl Iterator<Item = (&String, &String)> {
        let file = format!("{m}/{s}.rs");
        let dir = format!("{m}/{s}/");
        self.0
            .iter()
            .filter(move |(p, _)| **p == file || p.starts_with(&dir))
    }
}

/// Cuts every `#[cfg(test)]` item out of a file: the attribute and the item after it, a
/// `mod x;` line or a braced block (matched with string and char literals skipped).
fn strip_tests(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..i]);
        let after = &rest[i + "#[cfg(test)]".len()..];
        let semi = after.find(';').unwrap_or(after.len());
        let brace = after.find('{').unwrap_or(after.len());
        rest = if semi < brace {
            &after[(semi + 1).min(after.len())..]
        } else {
            &after[block_end(after, brace)..]
        };
    }
    out.push_str(rest);
    out
}

/// The index just past the block that opens at `open`.
fn block_end(s: &str, open: usize) -> usize {
    let b = s.as_bytes();
    let (mut depth, mut i) = (0usize, open);
    while i < b.len() {
        match b[i] {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return i + 1;
                }
            }
            b'"' => {
                // A string literal (a raw string's `r#"` is met at its quote too).
                let hashes = b[..i].iter().rev().take_while(|&&c| c == b'#').count();
                let raw = i > hashes && b[i - hashes - 1] == b'r';
                i += 1;
                while i < b.len() {
                    if !raw && b[i] == b'\\' {
                        i += 2;
                        continue;
                    }
                    if b[i] == b'"' && b[i + 1..].iter().take(hashes).all(|&c| c == b'#') {
                        i += hashes;
                        break;
                    }
                    i += 1;
                }
            }
            b'\'' if i + 2 < b.len() && b[i + 2] == b'\'' => i += 2,
            b'\'' if i + 3 < b.len() && b[i + 1] == b'\\' && b[i + 3] == b'\'' => i += 3,
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    b.len()
}

/// The floor of a module, or `None` for a module the table does not list.
fn floor(m: &str) -> Option<usize> {
    LAYERS.iter().position(|f| f.contains(&m))
}

/// The top-level module a path under `src/` belongs to.
fn module_of(path: &str) -> &str {
    path.split('/').next().unwrap().trim_end_matches(".rs")
}

/// The modules a file's code names: `crate::m`, `placesim::m`, and each name inside
/// `crate::{a, b::c}`.
fn imports(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    for root in ["crate::", "placesim::"] {
        let mut rest = code;
        while let Some(i) = rest.find(root) {
            let prev = rest[..i].chars().next_back();
            rest = &rest[i + root.len()..];
            if prev.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                continue;
            }
            if let Some(group) = rest.strip_prefix('{') {
                let end = block_end(rest, 0).saturating_sub(1);
                let inner = &group[..end.saturating_sub(1).min(group.len())];
                let mut depth = 0;
                let mut item = String::new();
                for c in inner.chars().chain([',']) {
                    match c {
                        '{' => depth += 1,
                        '}' => depth -= 1,
                        ',' if depth == 0 => {
                            out.push(ident(item.trim()).to_string());
                            item.clear();
                            continue;
                        }
                        _ => {}
                    }
                    item.push(c);
                }
            } else {
                out.push(ident(rest).to_string());
            }
        }
    }
    out.retain(|m| !m.is_empty());
    out
}

fn ident(s: &str) -> &str {
    let end = s
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    &s[..end]
}

/// Layers: every import runs down.
fn layer_violations(tree: &Tree) -> Vec<String> {
    let mut bad = Vec::new();
    for (path, code) in &tree.0 {
        let me = module_of(path);
        let Some(mine) = floor(me) else {
            bad.push(format!("{path}: module '{me}' is on no floor of LAYERS"));
            continue;
        };
        for m in imports(code) {
            if m == me || m == "self" || m == "super" {
                continue;
            }
            match floor(&m) {
                Some(f) if f < mine => {}
                Some(_) => bad.push(format!("{path} ({me}) imports {m}, which is not below it")),
                None => {}
            }
        }
    }
    bad
}

/// Every name a file could use to reach strategy `s` of registry `m`.
fn strategy_paths(m: &str, s: &str) -> [String; 4] {
    [
        format!("{m}::{s}::"),
        format!("{m}::{s}}}"),
        format!("{m}::{s},"),
        format!("{m}::{s};"),
    ]
}

/// A strategy names no other strategy (its own registry's or another's).
fn strategy_violations(tree: &Tree) -> Vec<String> {
    let mut bad = Vec::new();
    let all: Vec<(String, String)> = HELPERS
        .iter()
        .flat_map(|(m, _)| tree.strategies(m).into_iter().map(|s| (m.to_string(), s)))
        .collect();
    for (m, s) in &all {
        for (path, code) in tree.strategy_files(m, s) {
            for (om, os) in &all {
                if (om, os) == (m, s) {
                    continue;
                }
                let mut forms = strategy_paths(om, os).to_vec();
                if om == m {
                    // `super::super::x::` (from a file under the strategy's folder) too.
                    forms.extend([format!("super::{os}::"), format!("super::{os}}}")]);
                }
                if let Some(f) = forms.iter().find(|f| code.contains(f.as_str())) {
                    bad.push(format!("{path} names the strategy {om}/{os} ({f})"));
                }
            }
        }
    }
    bad
}

/// The simulator names no strategy file.
fn simulator_violations(tree: &Tree) -> Vec<String> {
    let mut bad = Vec::new();
    for m in ["schedule", "transfer"] {
        for s in tree.strategies(m) {
            for (path, code) in tree.module("sim") {
                if let Some(f) = strategy_paths(m, &s)
                    .iter()
                    .find(|f| code.contains(f.as_str()))
                {
                    bad.push(format!("{path} names the strategy {m}/{s} ({f})"));
                }
            }
        }
    }
    bad
}

/// What a scenario asks (and its link codec) is independent of how it is simulated.
fn scenario_violations(tree: &Tree) -> Vec<String> {
    tree.module("scenario")
        .filter(|(_, code)| imports(code).iter().any(|m| m == "sim"))
        .map(|(p, _)| format!("{p} imports sim"))
        .collect()
}

/// The CLI is the binary's: `main.rs` declares `cli`, the library (`lib.rs`) never does.
fn cli_violations(tree: &Tree) -> Vec<String> {
    let declares = |code: &str| {
        code.lines()
            .map(str::trim)
            .any(|l| l.trim_start_matches("pub ").starts_with("mod cli"))
    };
    let mut bad = Vec::new();
    if tree.0.get("lib.rs").is_some_and(|c| declares(c)) {
        bad.push("lib.rs declares the CLI's module (mod cli)".to_string());
    }
    if !tree.0.get("main.rs").is_some_and(|c| declares(c)) {
        bad.push("main.rs does not declare mod cli".to_string());
    }
    bad
}

/// The one file that builds a pair (policies from their registry entries, random streams,
/// the simulator's call).
const PAIR: &str = "pair.rs";

/// Nothing but `pair.rs` simulates or builds a policy: the simulator's `simulate` named
/// through `sim::` or imported from `crate::sim` (alone, in a group or by glob), and a call
/// of a registry entry's `make` with arguments (a scheduler's or a link order's: a placer's
/// takes none).
fn pair_violations(tree: &Tree) -> Vec<String> {
    let mut bad = Vec::new();
    for (path, code) in &tree.0 {
        if path == PAIR {
            continue;
        }
        let mut found = Vec::new();
        if let Some(i) = code.find("sim::*") {
            found.push(code[i..i + 6].to_string());
        }
        for form in ["sim::simulate", "sim::{"] {
            let mut rest = code.as_str();
            while let Some(i) = rest.find(form) {
                let prev = rest[..i].chars().next_back();
                rest = &rest[i + form.len()..];
                if prev.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                    continue;
                }
                let names = if form == "sim::{" {
                    let end = block_end(&format!("{{{rest}"), 0).saturating_sub(2);
                    rest[..end.min(rest.len())].to_string()
                } else if ident(rest).is_empty() {
                    "simulate".to_string()
                } else {
                    continue; // `sim::simulated_x`: another name
                };
                if names
                    .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .any(|w| w == "simulate")
                {
                    found.push(format!("{form}..simulate"));
                }
            }
        }
        let mut rest = code.as_str();
        while let Some(i) = rest.find(".make)(") {
            rest = &rest[i + ".make)(".len()..];
            if !rest.trim_start().starts_with(')') {
                found.push(".make)(..)".to_string());
            }
        }
        for f in found {
            bad.push(format!("{path} runs a pair outside {PAIR} ({f})"));
        }
    }
    bad
}

type Rule = fn(&Tree) -> Vec<String>;

const RULES: &[(&str, Rule)] = &[
    ("layers", layer_violations),
    ("strategies", strategy_violations),
    ("simulator", simulator_violations),
    ("scenario", scenario_violations),
    ("cli", cli_violations),
    ("pair", pair_violations),
];

#[test]
fn every_rule_holds() {
    let tree = Tree::load();
    let bad: Vec<String> = RULES.iter().flat_map(|(_, rule)| rule(&tree)).collect();
    assert!(bad.is_empty(), "{bad:#?}");
}

/// Each rule, given a tree with one violation planted, reports it.
#[test]
fn every_rule_can_fail() {
    let tree = Tree::load();
    let plants: &[(&str, &str, &str)] = &[
        ("layers", "sim/mod.rs", "use crate::place::PLACERS;"),
        ("layers", "schedule/given.rs", "use crate::place::verify;"),
        (
            "layers",
            "model/graph.rs",
            "use crate::{error::Error, scenario::Scenario};",
        ),
        ("layers", "plan.rs", "use crate::sim::simulate;"),
        ("layers", "transfer/tao.rs", "use crate::optim::anything;"),
        ("layers", "report/table.rs", "use placesim::cli::x;"),
        (
            "strategies",
            "place/hash.rs",
            "use crate::place::dfs::INFO;",
        ),
        (
            "strategies",
            "place/pesto.rs",
            "use crate::schedule::given::Given;",
        ),
        (
            "strategies",
            "transfer/tio.rs",
            "use super::tao::tao_ranks;",
        ),
        (
            "simulator",
            "sim/mod.rs",
            "let q = crate::transfer::fifo::INFO;",
        ),
        ("scenario", "scenario/mod.rs", "use crate::sim::Trace;"),
        ("cli", "lib.rs", "pub mod cli;"),
        ("layers", "pair.rs", "use crate::optim::Decoder;"),
        ("layers", "optim/cp/model.rs", "use crate::place::Groups;"),
        (
            "pair",
            "optim/decoder.rs",
            "use crate::sim::{simulate, SimOptions};",
        ),
        (
            "pair",
            "compare/seed.rs",
            "let r = crate::sim::simulate(p, &pl, s, q, o);",
        ),
        ("pair", "place/heft/mod.rs", "use crate::sim::*;"),
        (
            "pair",
            "place/pesto.rs",
            "let q = (order.make)(&params, rng.clone());",
        ),
    ];
    for &(name, path, line) in plants {
        let mut t = tree.clone();
        let code =
            t.0.get_mut(path)
                .unwrap_or_else(|| panic!("no file {path}"));
        code.insert_str(0, &format!("{line}\n"));
        // A test module naming anything is still exempt.
        code.push_str("\n#[cfg(test)]\nmod tests {\n    use crate::wasm::x; // \"}\"\n}\n");
        let rule = RULES.iter().find(|(n, _)| *n == name).unwrap().1;
        let found = rule(&t);
        assert!(
            found.iter().any(|f| f.starts_with(path)),
            "rule '{name}' missed `{line}` planted in {path}: {found:#?}"
        );
    }
}

/// A strategy split into a folder (`place/x/mod.rs`, or `place/x.rs` with files under
/// `place/x/`) is still a strategy: the rule reads every file of it.
#[test]
fn folder_strategies_answer_to_the_rule() {
    let tree = Tree::load();
    assert!(tree.strategies("place").contains(&"submodular".to_string()));
    let plants: &[(&str, &str)] = &[
        ("place/folded/mod.rs", "use crate::place::dfs::INFO;"),
        ("place/folded/mod.rs", "use super::dfs::INFO;"),
        (
            "place/submodular/machinery.rs",
            "use super::super::heft::x;",
        ),
        (
            "place/submodular/machinery.rs",
            "use crate::schedule::given::Given;",
        ),
    ];
    for &(path, line) in plants {
        let mut t = tree.clone();
        t.0.insert(path.to_string(), format!("{line}\n"));
        let found = strategy_violations(&t);
        assert!(
            found.iter().any(|f| f.starts_with(path)),
            "a folder strategy escaped: `{line}` in {path}: {found:#?}"
        );
    }
}

#[test]
fn test_modules_are_cut_wherever_they_stand() {
    let text = "use crate::a;\n#[cfg(test)]\nmod tests;\nfn f() { let s = \"{\"; }\n#[cfg(test)]\nmod tests {\n    fn g() { let c = '}'; let r = r#\"}\"#; }\n    use crate::b;\n}\nuse crate::c;\n";
    let code = strip_tests(text);
    assert_eq!(imports(&code), ["a", "c"]);
    assert!(code.contains("fn f()"), "{code}");
}

#[test]
fn imports_are_read_in_every_form() {
    let code = "use crate::{error::Error, model::{graph::Graph, LinkModel}};\nlet x = crate::sim::simulate;\nuse placesim::compare;\nmy_crate::nope;";
    assert_eq!(imports(code), ["error", "model", "sim", "compare"]);
}
