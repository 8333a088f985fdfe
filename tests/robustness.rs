//! Bad input never panics, and what loads gives sound numbers: mutated documents go through
//! every loader (graph, cluster, scenario, share link) and, when they load, through every
//! strategy pair. Every pair that runs has a finite makespan >= 0 and at least its bound;
//! every error says what is wrong and names the part at fault. The page runs the same code
//! in a worker, where a panic would kill the user's work.
//!
//! Most mutations edit the parsed document (a number set to an edge value, a string set to
//! another string of the document, a field or list item removed or duplicated), so most of
//! them still parse and reach the checks past parsing; a few edit the text's characters.
//! Each test counts what loaded and asserts a floor, so it cannot pass by loading nothing.
//! `make fuzz` (fuzz/) explores the same loaders far longer.

use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use proptest::prelude::*;
use proptest::test_runner::TestRunner;
use serde_json::Value;

use placesim::compare::{self, Comparison};
use placesim::model::cluster::Cluster;
use placesim::model::graph::Graph;
use placesim::rng::Rng;
use placesim::scenario::link as share;
use placesim::scenario::{ClusterSource, GraphSource, Scenario};
use placesim::Error;

const GRAPH: &str = r#"{"nodes":[{"id":"a","op":"MatMul","cost":4,"mem":8,"colocate":"w"},{"id":"b","cost":2,"time":{"cpu":3},"colocate":"w"},{"id":"c","cost":5,"device":"gpu","layer":2},{"id":"d","cost":1}],"edges":[{"src":"a","dst":"b","bytes":10,"tensor":"t"},{"src":"a","dst":"c","bytes":10,"tensor":"t"},{"src":"b","dst":"d","bytes":3},{"src":"c","dst":"d"}]}"#;
const CLUSTER: &str = r#"{"devices":[{"id":"c0","kind":"cpu","speed":1,"memory":100},{"id":"g0","kind":"gpu","speed":4}],"bandwidth":2,"latency":0.5,"links":[{"src":"c0","dst":"g0","bandwidth":3}],"kinds":{"gpu":{"op_speed":{"MatMul":2}}}}"#;
const SCENARIO: &str = r#"{"graph":{"bundled":"g"},"cluster":{"generate":{"devices":3,"speed":[1,5],"bandwidth":[1,3],"latency":[0,1],"memory_fraction":0.6,"kinds":["gpu","cpu"]}},"randomize":{"cost":[1,9]},"seeds":2,"links":"fcfs","link_order":"random","params":{"msr.delta":2},"what_if":{"compute":2,"speeds":{"d1":3}}}"#;

/// Numbers at and past the edges of what the formats accept.
const EDGE_NUMBERS: &[f64] = &[
    0.0, -0.0, -1.0, 0.5, 1.0, 3.0, 1e-30, 1e-31, 5e-324, 1e30, 1e31, 1e300, 1e308, 1.5e13,
];

/// Every value of a document with its path (object keys and array indices).
fn paths(v: &Value, at: &mut Vec<Vec<String>>, path: &mut Vec<String>) {
    at.push(path.clone());
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                path.push(k.clone());
                paths(x, at, path);
                path.pop();
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                path.push(i.to_string());
                paths(x, at, path);
                path.pop();
            }
        }
        _ => {}
    }
}

fn strings(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => out.push(s.clone()),
        Value::Object(m) => {
            for (k, x) in m {
                out.push(k.clone());
                strings(x, out);
            }
        }
        Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
        _ => {}
    }
}

fn at_mut<'a>(v: &'a mut Value, path: &[String]) -> &'a mut Value {
    path.iter().fold(v, |v, k| match v {
        Value::Object(m) => m.get_mut(k).unwrap(),
        Value::Array(a) => &mut a[k.parse::<usize>().unwrap()],
        _ => unreachable!(),
    })
}

/// One edit of the parsed document at a random place: a number set to an edge value, a
/// string set to another string of the document (ids stay ids, so edges and rules still
/// point somewhere), a field or list item removed, a list item duplicated, a value nulled.
fn edit(doc: &mut Value, r: &mut Rng) {
    let mut all = Vec::new();
    paths(doc, &mut all, &mut Vec::new());
    let mut words = Vec::new();
    strings(doc, &mut words);
    let path = &all[r.below(all.len() as u64) as usize];
    let (parent, last) = match path.split_last() {
        Some((last, parent)) => (parent, Some(last)),
        None => (&path[..], None),
    };
    let target = at_mut(doc, path);
    match (target, r.below(8)) {
        (Value::Number(_), 0..=5) => {
            let x = EDGE_NUMBERS[r.below(EDGE_NUMBERS.len() as u64) as usize];
            *at_mut(doc, path) = serde_json::json!(x);
        }
        (Value::String(_), 0..=5) => {
            *at_mut(doc, path) = Value::String(words[r.below(words.len() as u64) as usize].clone());
        }
        (Value::Array(a), 0..=3) if !a.is_empty() => {
            let i = r.below(a.len() as u64) as usize;
            let copy = a[i].clone();
            a.push(copy);
        }
        (_, 7) => *at_mut(doc, path) = Value::Null,
        _ => {
            // Remove this value from its parent.
            if let Some(last) = last {
                match at_mut(doc, parent) {
                    Value::Object(m) => {
                        m.remove(last);
                    }
                    Value::Array(a) => {
                        a.remove(last.parse::<usize>().unwrap());
                    }
                    _ => unreachable!(),
                }
            }
        }
    }
}

/// Replaces, deletes or inserts characters, biased towards JSON's structure and numbers.
fn mutate_text(text: &str, r: &mut Rng, edits: usize) -> String {
    let mut bytes = text.as_bytes().to_vec();
    let alphabet = b"{}[]\":,-0123456789e.xnull truefalse";
    for _ in 0..edits {
        if bytes.is_empty() {
            break;
        }
        let i = r.below(bytes.len() as u64) as usize;
        let c = alphabet[r.below(alphabet.len() as u64) as usize];
        match r.below(3) {
            0 => bytes[i] = c,
            1 => {
                bytes.remove(i);
            }
            _ => bytes.insert(i, c),
        }
    }
    String::from_utf8_lossy(&bytes).to_string()
}

/// A mutant of `text`: one or two document edits (seven times in eight), else one to
/// five character edits.
fn mutant(text: &str, seed: u64) -> String {
    let mut r = Rng::new(seed);
    if r.below(8) == 0 {
        let n = 1 + r.below(5) as usize;
        return mutate_text(text, &mut r, n);
    }
    let mut doc: Value = serde_json::from_str(text).unwrap();
    for _ in 0..1 + r.below(2) {
        edit(&mut doc, &mut r);
    }
    doc.to_string()
}

/// Words an error may name its culprit by, besides a quoted name or an index.
const PARTS: &[&str] = &[
    "graph",
    "cluster",
    "scenario",
    "link",
    "node",
    "edge",
    "device",
    "tensor",
    "cost",
    "time",
    "mem",
    "bytes",
    "speed",
    "memory",
    "bandwidth",
    "latency",
    "op_speed",
    "seeds",
    "version",
    "placer",
    "scheduler",
    "param",
    "randomize",
    "what_if",
    "colocation",
    "JSON",
];

/// An error says what is wrong: a message past its prefix, naming a document, a field, an
/// id in quotes or an index.
fn check_error(e: &Error) {
    let text = e.to_string();
    let message = text.split_once(": ").map(|x| x.1).unwrap_or("");
    assert!(!message.trim().is_empty(), "an error says nothing: {e:?}");
    assert!(
        text.contains('\'') || text.contains('[') || PARTS.iter().any(|p| text.contains(p)),
        "an error names no part: {text}"
    );
    assert!(
        !matches!(e, Error::Cancelled),
        "nothing cancels, yet: {text}"
    );
}

/// Every pair that ran has finite, non-negative figures at least its bound; every pair that
/// did not says why. Returns how many pairs ran.
fn check_comparison(c: &Comparison) -> usize {
    let mut ran = 0;
    for r in &c.results {
        let pair = format!("{}/{}", r.placer, r.scheduler);
        if let Some(e) = &r.error {
            assert!(!e.trim().is_empty(), "{pair}: an empty error");
            continue;
        }
        ran += 1;
        for (what, x) in [
            ("makespan", r.makespan),
            ("makespan_std", r.makespan_std),
            ("lower_bound", r.lower_bound),
            ("traffic_bytes", r.traffic_bytes),
        ] {
            assert!(x.is_finite() && x >= 0.0, "{pair}: {what} = {x}");
        }
        for &m in &r.makespans {
            assert!(
                m.is_finite() && m >= 0.0,
                "{pair}: a seed's makespan is {m}"
            );
        }
        assert!(
            r.makespan >= r.lower_bound * (1.0 - 1e-9) - 1e-12,
            "{pair}: makespan {} < bound {}",
            r.makespan,
            r.lower_bound
        );
        for d in &r.devices {
            assert!(d.busy.is_finite() && d.busy >= 0.0, "{pair}: {} busy", d.id);
            assert!(
                d.peak_memory.is_finite() && d.peak_memory >= 0.0,
                "{pair}: {}",
                d.id
            );
        }
    }
    assert!(c.critical_path_bound.is_finite() && c.work_bound.is_finite());
    ran
}

/// Runs every pair under both link models; returns how many pairs ran.
fn run_everything(graph: &Graph, cluster: &Cluster) -> usize {
    let mut s = Scenario::new(
        GraphSource::Bundled("g".into()),
        ClusterSource::File("c".into()),
    );
    let mut ran = 0;
    for links in [
        placesim::model::LinkModel::Parallel,
        placesim::model::LinkModel::Fcfs,
    ] {
        s.links = links;
        match s
            .resolve()
            .and_then(|r| compare::run(&r, graph, Some(cluster), &mut |_, _| true))
        {
            Ok(c) => ran += check_comparison(&c),
            Err(e) => check_error(&e),
        }
    }
    ran
}

const CASES: u32 = 300;

/// Runs `case` on `CASES` seeds.
fn over_seeds(case: impl Fn(u64)) {
    // A fixed stream of cases: the floors below are then facts about these inputs, the same
    // on every run, not a chance.
    let config = ProptestConfig {
        cases: CASES,
        ..ProptestConfig::default()
    };
    let rng = proptest::test_runner::TestRng::deterministic_rng(config.rng_algorithm);
    let mut runner = TestRunner::new_with_rng(config, rng);
    runner
        .run(&any::<u64>(), |seed| {
            case(seed);
            Ok(())
        })
        .unwrap();
}

#[test]
fn mutated_graphs_load_or_name_the_fault_and_run_soundly() {
    let (loaded, ran) = (AtomicUsize::new(0), AtomicUsize::new(0));
    let cluster = Cluster::from_json(CLUSTER, "c").unwrap();
    over_seeds(|seed| match Graph::from_json(&mutant(GRAPH, seed), "g") {
        Ok(g) => {
            loaded.fetch_add(1, Relaxed);
            ran.fetch_add(run_everything(&g, &cluster), Relaxed);
        }
        Err(e) => check_error(&e),
    });
    let (loaded, ran) = (loaded.into_inner(), ran.into_inner());
    eprintln!("{loaded} of {CASES} mutated graphs loaded; {ran} pairs ran");
    assert!(
        loaded >= CASES as usize / 4,
        "only {loaded} of {CASES} loaded"
    );
    assert!(
        ran >= loaded * 20,
        "only {ran} pairs ran on {loaded} graphs"
    );
}

#[test]
fn mutated_clusters_load_or_name_the_fault_and_run_soundly() {
    let (loaded, ran) = (AtomicUsize::new(0), AtomicUsize::new(0));
    let graph = Graph::from_json(GRAPH, "g").unwrap();
    over_seeds(
        |seed| match Cluster::from_json(&mutant(CLUSTER, seed), "c") {
            Ok(c) => {
                loaded.fetch_add(1, Relaxed);
                ran.fetch_add(run_everything(&graph, &c), Relaxed);
            }
            Err(e) => check_error(&e),
        },
    );
    let (loaded, ran) = (loaded.into_inner(), ran.into_inner());
    eprintln!("{loaded} of {CASES} mutated clusters loaded; {ran} pairs ran");
    assert!(
        loaded >= CASES as usize / 4,
        "only {loaded} of {CASES} loaded"
    );
    assert!(
        ran >= loaded * 20,
        "only {ran} pairs ran on {loaded} clusters"
    );
}

#[test]
fn mutated_scenarios_and_links_load_or_name_the_fault() {
    let g = Graph::from_json(GRAPH, "g").unwrap();
    let base_link = share::fragment(&Scenario::from_json(SCENARIO).unwrap()).unwrap();
    let (scenarios, links, ran) = (
        AtomicUsize::new(0),
        AtomicUsize::new(0),
        AtomicUsize::new(0),
    );
    over_seeds(|seed| {
        let run = |s: &Scenario| {
            let small = match &s.cluster {
                ClusterSource::Generate(c) => c.devices <= 64,
                _ => false,
            };
            if small && s.seeds <= 4 {
                match s
                    .resolve()
                    .and_then(|r| compare::run(&r, &g, None, &mut |_, _| true))
                {
                    Ok(c) => {
                        ran.fetch_add(check_comparison(&c), Relaxed);
                    }
                    Err(e) => check_error(&e),
                }
            }
        };
        match Scenario::from_json(&mutant(SCENARIO, seed)) {
            Ok(s) => {
                scenarios.fetch_add(1, Relaxed);
                run(&s);
            }
            Err(e) => check_error(&e),
        }
        match share::parse_fragment(&mutate_link(&base_link, seed)) {
            Ok(s) => {
                links.fetch_add(1, Relaxed);
                run(&s);
            }
            Err(e) => check_error(&e),
        }
    });
    let (scenarios, links) = (scenarios.into_inner(), links.into_inner());
    eprintln!("{scenarios} of {CASES} mutated scenarios and {links} links loaded");
    assert!(
        scenarios >= CASES as usize / 4,
        "only {scenarios} of {CASES} scenarios loaded"
    );
    assert!(
        links >= CASES as usize / 4,
        "only {links} of {CASES} links read"
    );
    let ran = ran.into_inner();
    eprintln!("{ran} pairs ran");
    assert!(ran >= CASES as usize, "too few pairs ran: {ran}");
}

/// A link with one to three of its `key=value` items edited: a value set to an edge number,
/// a range, another item's value or junk; an item dropped, or a known key added.
fn mutate_link(link: &str, seed: u64) -> String {
    let mut r = Rng::new(seed ^ 0x5eed);
    let mut items: Vec<String> = link
        .trim_start_matches('#')
        .split('&')
        .map(str::to_string)
        .collect();
    const KEYS: &[&str] = &[
        "devices",
        "speed",
        "bandwidth",
        "latency",
        "memory",
        "memfraction",
        "kinds",
        "seeds",
        "seed",
        "randcost",
        "randbytes",
        "whatif.compute",
        "whatif.speeds",
        "placers",
        "schedulers",
        "order",
        "links",
        "msr.delta",
        "bw",
        "lat",
        "dev",
        "cluster",
        "pair",
    ];
    const VALUES: &[&str] = &[
        "0",
        "1",
        "-1",
        "1e31",
        "1e-31",
        "5e-324",
        "1..0",
        "2..5",
        "0..0",
        "hash,single",
        "fcfs",
        "random",
        "explicit",
        "a::1:,b:cpu:2:5",
        "d0:1e30",
        "%zz",
        "",
        "x",
    ];
    for _ in 0..1 + r.below(3) {
        let i = 1 + r.below(items.len() as u64 - 1) as usize;
        match r.below(4) {
            0 if items.len() > 1 => {
                items.remove(i.min(items.len() - 1).max(1));
            }
            1 => items.push(format!(
                "{}={}",
                KEYS[r.below(KEYS.len() as u64) as usize],
                VALUES[r.below(VALUES.len() as u64) as usize]
            )),
            _ => {
                let i = i.min(items.len() - 1);
                let key = items[i].split('=').next().unwrap_or("").to_string();
                items[i] = format!("{key}={}", VALUES[r.below(VALUES.len() as u64) as usize]);
            }
        }
    }
    // Keys appear once in a link; a second copy is a (named) error, so keep the first.
    let mut seen = std::collections::BTreeSet::new();
    items.retain(|x| seen.insert(x.split('=').next().unwrap_or("").to_string()) || r.below(8) == 0);
    format!("#{}", items.join("&"))
}

/// Numbers far past any real model are refused with an error naming the field, or, at the
/// edges of what loads, give finite results on every pair.
#[test]
fn extreme_numbers_are_refused_by_name_or_run_finite() {
    let refused = [
        (r#"{"nodes":[{"id":"a","cost":1e31}]}"#, "node 'a': cost"),
        (
            r#"{"nodes":[{"id":"a","cost":1,"mem":1e308}]}"#,
            "node 'a': mem",
        ),
        (
            r#"{"nodes":[{"id":"a","time":{"gpu":1e300}}]}"#,
            "node 'a': time.gpu",
        ),
        (
            r#"{"nodes":[{"id":"a","cost":1},{"id":"b","cost":1}],"edges":[{"src":"a","dst":"b","bytes":1e308}]}"#,
            "edges[0].bytes",
        ),
    ];
    for (text, part) in refused {
        let e = Graph::from_json(text, "g").unwrap_err();
        check_error(&e);
        assert!(e.to_string().contains(part), "{e}");
    }
    let refused = [
        (
            r#"{"devices":[{"id":"x","speed":1e-300}],"bandwidth":1}"#,
            "device 'x': speed",
        ),
        (
            r#"{"devices":[{"id":"x","speed":5e-324}],"bandwidth":1}"#,
            "device 'x': speed",
        ),
        (
            r#"{"devices":[{"id":"x","speed":1e31}],"bandwidth":1}"#,
            "device 'x': speed",
        ),
        (
            r#"{"devices":[{"id":"x","speed":1}],"bandwidth":5e-324}"#,
            "bandwidth",
        ),
        (
            r#"{"devices":[{"id":"x","speed":1}],"bandwidth":1,"latency":1e300}"#,
            "latency",
        ),
        (
            r#"{"devices":[{"id":"x","speed":1,"memory":1e31}],"bandwidth":1}"#,
            "device 'x': memory",
        ),
        (
            r#"{"devices":[{"id":"x","speed":1}],"bandwidth":1,"kinds":{"gpu":{"op_speed":{"MatMul":1e-40}}}}"#,
            "kinds.gpu.op_speed.MatMul",
        ),
    ];
    for (text, part) in refused {
        let e = Cluster::from_json(text, "c").unwrap_err();
        check_error(&e);
        assert!(e.to_string().contains(part), "{e}");
    }
    // 1e308 run times in a chain used to sum to an infinite makespan (shown as null).
    let e = Graph::from_json(
        r#"{"nodes":[{"id":"a","cost":1e308},{"id":"b","cost":1e308}],"edges":[{"src":"a","dst":"b"}]}"#,
        "g",
    )
    .unwrap_err();
    assert!(e.to_string().contains("node 'a': cost"), "{e}");

    let graphs = [
        r#"{"nodes":[{"id":"a","cost":1e30,"mem":1e30},{"id":"b","cost":1e30}],"edges":[{"src":"a","dst":"b","bytes":1e30}]}"#,
        r#"{"nodes":[{"id":"a","cost":0},{"id":"b","cost":0}],"edges":[{"src":"a","dst":"b","bytes":0},{"src":"a","dst":"b","bytes":0}]}"#,
        r#"{"nodes":[{"id":"a","cost":5e-324},{"id":"b","time":{"gpu":1e30}}],"edges":[{"src":"a","dst":"b","bytes":5e-324}]}"#,
    ];
    let clusters = [
        r#"{"devices":[{"id":"x","speed":1e-30,"memory":0},{"id":"y","speed":1e30}],"bandwidth":1e-30,"latency":1e30}"#,
        r#"{"devices":[{"id":"x","speed":1e-30}],"bandwidth":1e-30,"kinds":{"gpu":{"op_speed":{"":1e-30}}}}"#,
        r#"{"devices":[{"id":"x","speed":1},{"id":"y","speed":1}],"bandwidth":1e30,"latency":0}"#,
    ];
    let mut ran = 0;
    for g in graphs {
        let g = Graph::from_json(g, "g").unwrap();
        for c in clusters {
            let c = Cluster::from_json(c, "c").unwrap();
            ran += run_everything(&g, &c);
        }
    }
    assert!(ran >= 9 * 40, "only {ran} pairs ran");
}

/// Found by `make fuzz` (the scenario target, 2026-11-23): a scenario followed by a stray
/// tail loaded, the tail ignored; and its `"randomize": {}` read as a randomization of
/// nothing, which its share link (writing no randomize) read back as a different scenario.
#[test]
fn fuzz_scenario_with_a_tail_and_an_empty_randomize() {
    let crash = r#"{"graph":{"bundled":"g"},"cluster":{"generate":{"devices":3,"speed":[1,5],"bandwidth":[1,3],"latency":[0,1]}},"randomize":{}},"randomize":{"cost":[1,1]},"seeds":1,"links":"fcfs","pargenerate":{"devices":3,"speed":[1,5],"bandwidth":[1,3],"latency":[0,1]}},"randomize":{"cost":,"links":"fcfs","params":{"msr.deltams":{"msr.delta":1}}"#;
    let e = Scenario::from_json(crash).unwrap_err();
    assert!(
        e.to_string().contains("text after the end of the document"),
        "{e}"
    );
    let head = &crash[..crash.find("},\"randomize\":{\"cost\"").unwrap() + 1];
    let s = Scenario::from_json(head).unwrap();
    assert_eq!(s.randomize, None);
    let back = share::parse_fragment(&share::fragment(&s).unwrap()).unwrap();
    assert_eq!(back, s);
}
