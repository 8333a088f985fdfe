//! The CLI end to end: good runs print what the issue promises; every bad input of the
//! format doc (and a bad cluster and scenario) exits non-zero with one clear error naming
//! the offending part, and never panics.

use std::path::PathBuf;
use std::process::Command;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_placesim"))
}

fn tmp(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("placesim-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn run(args: &[&str]) -> (bool, String, String) {
    let out = bin().args(args).output().unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).to_string(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

/// A fork-join: a feeds b and c, both feed d.
const FORK_JOIN: &str = r#"{"nodes":[{"id":"a","cost":2},{"id":"b","cost":4},{"id":"c","cost":3},{"id":"d","cost":1}],
    "edges":[{"src":"a","dst":"b","bytes":3},{"src":"a","dst":"c","bytes":2},{"src":"b","dst":"d","bytes":1},{"src":"c","dst":"d","bytes":1}]}"#;

const CLUSTER: &str = r#"{"devices":[{"id":"c0","kind":"cpu","speed":1},{"id":"g0","kind":"gpu","speed":4}],"bandwidth":2,"latency":0.1}"#;

/// Runs `validate` on a bad graph and returns stderr, asserting failure without a panic.
fn bad_graph(name: &str, text: &str) -> String {
    let g = tmp(name, text);
    let c = tmp("cluster.json", CLUSTER);
    let (ok, _, err) = run(&[
        "validate",
        g.to_str().unwrap(),
        "--cluster",
        c.to_str().unwrap(),
    ]);
    assert!(!ok, "{name} should fail");
    assert!(!err.contains("panicked"), "{name} panicked: {err}");
    assert_eq!(err.lines().count(), 1, "one clear line: {err}");
    err
}

#[test]
fn every_bad_graph_gets_a_clear_error() {
    assert!(bad_graph("notjson.json", "{nodes: [").contains("notjson.json"));
    assert!(bad_graph("noid.json", r#"{"nodes":[{"cost":1}]}"#).contains("nodes[0]"));
    assert!(bad_graph(
        "dup.json",
        r#"{"nodes":[{"id":"a","cost":1},{"id":"a","cost":2}]}"#
    )
    .contains("duplicate node id 'a'"));
    assert!(bad_graph(
        "unknown.json",
        r#"{"nodes":[{"id":"a","cost":1}],"edges":[{"src":"a","dst":"b"}]}"#
    )
    .contains("edges[0].dst names unknown node 'b'"));
    let cycle = bad_graph(
        "cycle.json",
        r#"{"nodes":[{"id":"a","cost":1},{"id":"b","cost":1}],"edges":[{"src":"a","dst":"b"},{"src":"b","dst":"a"}]}"#,
    );
    assert!(cycle.contains("cycle through node"), "{cycle}");
    assert!(bad_graph("neg.json", r#"{"nodes":[{"id":"a","cost":-1}]}"#).contains("node 'a': cost"));
    assert!(
        bad_graph("nan.json", r#"{"nodes":[{"id":"a","cost":"lots"}]}"#).contains("nodes[0].cost")
    );
    assert!(
        bad_graph("inf.json", r#"{"nodes":[{"id":"a","cost":1e999}]}"#).contains("nodes[0].cost")
    );
    assert!(bad_graph(
        "bytes.json",
        r#"{"nodes":[{"id":"a","cost":1},{"id":"b","cost":1}],"edges":[{"src":"a","dst":"b","bytes":-5}]}"#
    )
    .contains("edges[0].bytes"));
    assert!(bad_graph(
        "nodev.json",
        r#"{"nodes":[{"id":"a","cost":1,"device":"tpu"}]}"#
    )
    .contains("node 'a' asks for device 'tpu'"));
    assert!(
        bad_graph("notime.json", r#"{"nodes":[{"id":"a","time":{"tpu":1}}]}"#)
            .contains("no device can run node 'a'")
    );
    let group = bad_graph(
        "group.json",
        r#"{"nodes":[{"id":"a","cost":1,"device":"cpu","colocate":"w"},{"id":"b","cost":1,"device":"gpu","colocate":"w"}]}"#,
    );
    assert!(group.contains("colocation group 'w'"), "{group}");
}

#[test]
fn bad_clusters_and_scenarios_get_clear_errors() {
    let g = tmp("ok.json", r#"{"nodes":[{"id":"a","cost":1}]}"#);
    let g = g.to_str().unwrap();
    let empty = tmp("empty.json", r#"{"devices":[],"bandwidth":1}"#);
    let (ok, _, err) = run(&["validate", g, "--cluster", empty.to_str().unwrap()]);
    assert!(!ok && err.contains("device list is empty"), "{err}");
    let slow = tmp(
        "slow.json",
        r#"{"devices":[{"id":"x","speed":-2}],"bandwidth":1}"#,
    );
    let (ok, _, err) = run(&["validate", g, "--cluster", slow.to_str().unwrap()]);
    assert!(!ok && err.contains("device 'x': speed"), "{err}");

    let s = tmp(
        "bad_scenario.json",
        r#"{"graph":{"file":"ok.json"},"cluster":{"generate":{"devices":2,"speed":[1,2],"bandwidth":[1,2]}},"schedulers":["lifo"]}"#,
    );
    let (ok, _, err) = run(&["compare", "--scenario", s.to_str().unwrap()]);
    assert!(!ok && err.contains("unknown scheduler 'lifo'"), "{err}");
    let s = tmp(
        "bad_scenario2.json",
        r#"{"graph":{"file":"ok.json"},"cluster":{"generate":{"devices":2}}}"#,
    );
    let (ok, _, err) = run(&["compare", "--scenario", s.to_str().unwrap()]);
    assert!(
        !ok && err.contains("bad_scenario2.json") && err.contains("cluster"),
        "{err}"
    );
    let (ok, _, err) = run(&["compare", "--graph", g, "--devices", "2", "--speed", "9..1"]);
    assert!(!ok && err.contains("--speed"), "{err}");
    let (ok, _, err) = run(&[
        "compare",
        "--graph",
        g,
        "--devices",
        "2",
        "--param",
        "msr.omega=1",
    ]);
    assert!(!ok && err.contains("msr.omega"), "{err}");
    let (ok, _, err) = run(&[
        "run",
        "--graph",
        "/nonexistent/g.json",
        "--devices",
        "2",
        "--placer",
        "hash",
        "--scheduler",
        "fifo",
    ]);
    assert!(!ok && err.contains("/nonexistent/g.json"), "{err}");
}

#[test]
fn compare_json_has_every_pair_and_is_reproducible() {
    let g = tmp("fj.json", FORK_JOIN);
    let args = [
        "compare",
        "--graph",
        g.to_str().unwrap(),
        "--devices",
        "5",
        "--speed",
        "10..100",
        "--bandwidth",
        "10..60",
        "--cost",
        "1..100",
        "--bytes",
        "1..100",
        "--seeds",
        "3",
        "--placers",
        "single,hash",
        "--schedulers",
        "fifo",
        "--json",
    ];
    let (ok, out, err) = run(&args);
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let results = v["results"].as_array().unwrap();
    assert_eq!(results.len(), 2);
    for r in results {
        for key in [
            "placer",
            "scheduler",
            "makespan",
            "makespan_std",
            "traffic_bytes",
            "placement_seconds",
            "lower_bound",
            "devices",
        ] {
            assert!(!r[key].is_null(), "missing {key}");
        }
        assert_eq!(r["makespans"].as_array().unwrap().len(), 3);
        assert!(r["makespan"].as_f64().unwrap() >= r["lower_bound"].as_f64().unwrap() * 0.999_999);
        assert_eq!(r["devices"].as_array().unwrap().len(), 5);
    }
    let (_, again, _) = run(&args);
    let w: serde_json::Value = serde_json::from_str(&again).unwrap();
    for (a, b) in results.iter().zip(w["results"].as_array().unwrap()) {
        assert_eq!(a["makespans"], b["makespans"]);
    }
    // The table form lists both pairs.
    let (ok, table, _) = run(&args[..args.len() - 1]);
    assert!(ok && table.contains("single") && table.contains("hash"));
}

#[test]
fn run_prints_placement_and_writes_a_chrome_trace() {
    let g = tmp(
        "chain.json",
        r#"{"nodes":[{"id":"a","cost":2,"op":"MatMul"},{"id":"b","cost":4}],"edges":[{"src":"a","dst":"b","bytes":3}]}"#,
    );
    let c = tmp("c2.json", CLUSTER);
    let trace = std::env::temp_dir().join(format!("placesim-trace-{}.json", std::process::id()));
    let (ok, out, err) = run(&[
        "run",
        "--graph",
        g.to_str().unwrap(),
        "--cluster",
        c.to_str().unwrap(),
        "--placer",
        "single",
        "--scheduler",
        "fifo",
        "--links",
        "fcfs",
        "--json",
        "--trace",
        trace.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let r = &v["results"][0];
    // single puts both on the gpu (speed 4): 0.5 + 1 = 1.5.
    assert_eq!(r["placement"]["a"], "g0");
    assert_eq!(r["makespan"].as_f64().unwrap(), 1.5);
    let t: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&trace).unwrap()).unwrap();
    let events = t["traceEvents"].as_array().unwrap();
    let complete: Vec<_> = events.iter().filter(|e| e["ph"] == "X").collect();
    assert_eq!(complete.len(), 2);
    assert_eq!(complete[0]["name"], "a");
    assert_eq!(complete[0]["dur"].as_f64().unwrap(), 0.5e6);
    assert!(events
        .iter()
        .any(|e| e["ph"] == "C" && e["name"] == "memory"));
}

#[test]
fn validate_and_list_and_generate() {
    let (ok, out, _) = run(&["validate", "vgg19_layers"]);
    assert!(ok && out.contains("26 nodes"), "{out}");
    let (ok, out, _) = run(&["list"]);
    assert!(ok && out.contains("hash") && out.contains("fifo"));
    let (ok, out, _) = run(&["generate", "--nodes", "100", "--seed", "4"]);
    assert!(ok && out.contains("\"n99\""));
}

#[test]
fn every_shipped_scenario_loads_and_seed_000s_experiment_runs() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    assert!(!files.is_empty());
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        if let Err(e) = placesim::scenario::Scenario::from_json(&text) {
            panic!("{}: {e}", f.display());
        }
    }
    // Mayer17 §5: 6 placers x 3 schedulers, mean of 10 runs, every pair feasible; the
    // critical-path-aware pair beats the critical-path-agnostic one, as the paper reports.
    let (ok, out, err) = run(&[
        "compare",
        "--scenario",
        dir.join("mayer17_alexnet_ops_train.json").to_str().unwrap(),
        "--json",
    ]);
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let results = v["results"].as_array().unwrap();
    assert_eq!(results.len(), 18);
    let makespan = |p: &str, s: &str| {
        let r = results
            .iter()
            .find(|r| r["placer"] == p && r["scheduler"] == s)
            .unwrap();
        assert!(r["error"].is_null(), "{p}/{s}: {}", r["error"]);
        assert_eq!(r["makespans"].as_array().unwrap().len(), 10);
        r["makespan"].as_f64().unwrap()
    };
    assert!(makespan("critical-path", "pct") < makespan("hash", "fifo"));
}

#[test]
fn speed_of_sets_one_devices_speed_in_every_seed() {
    let g = tmp("so.json", FORK_JOIN);
    let common = [
        "compare",
        "--graph",
        g.to_str().unwrap(),
        "--devices",
        "3",
        "--speed",
        "10..100",
        "--seeds",
        "4",
        "--seed",
        "9",
        "--placers",
        "single,hash",
        "--schedulers",
        "fifo",
    ];
    let json = |extra: &[&str]| -> serde_json::Value {
        let (ok, out, err) = run(&[&common[..], extra, &["--json"]].concat());
        assert!(ok, "{err}");
        serde_json::from_str(&out).unwrap()
    };
    let base = json(&[]);
    let set = json(&["--speed-of", "d1=42.5", "--speed-of", "d0=1e3"]);
    assert_eq!(set["scenario"]["what_if"]["speeds"]["d1"], 42.5);
    for (b, r) in base["results"]
        .as_array()
        .unwrap()
        .iter()
        .zip(set["results"].as_array().unwrap())
    {
        // The set speeds replace the draws; d2 keeps its seed-mean speed, within the range.
        assert_eq!(r["devices"][0]["speed"], 1e3);
        assert_eq!(r["devices"][1]["speed"], 42.5);
        assert_eq!(r["devices"][2]["speed"], b["devices"][2]["speed"]);
        let d0 = b["devices"][0]["speed"].as_f64().unwrap();
        assert!((10.0..=100.0).contains(&d0), "{d0}");
    }
    // single puts everything on the fastest device, now d0 at 1e3: (2+4+3+1) / 1e3 per seed.
    let single = &set["results"][0];
    assert_eq!(single["placer"], "single");
    for m in single["makespans"].as_array().unwrap() {
        assert!((m.as_f64().unwrap() - 0.01).abs() < 1e-15, "{m}");
    }
    // The same what-if from a scenario file gives the same numbers.
    let mut scenario = set["scenario"].clone();
    scenario["graph"] = serde_json::json!({ "file": g.to_str().unwrap() });
    let f = tmp("so-scenario.json", &scenario.to_string());
    let (ok, out, err) = run(&["compare", "--scenario", f.to_str().unwrap(), "--json"]);
    assert!(ok, "{err}");
    let from_file: serde_json::Value = serde_json::from_str(&out).unwrap();
    for (a, b) in set["results"]
        .as_array()
        .unwrap()
        .iter()
        .zip(from_file["results"].as_array().unwrap())
    {
        assert_eq!(a["makespans"], b["makespans"]);
    }
    // The link carries them, in byte order of the id.
    let (ok, out, err) = run(&[
        &common[..],
        &["--speed-of", "d1=42.5", "--speed-of", "d0=1e3", "--url"],
    ]
    .concat());
    assert!(ok, "{err}");
    assert!(
        out.trim_end().ends_with("&whatif.speeds=d0:1e3,d1:42.5"),
        "{out}"
    );

    // A given cluster: run with g0 at 8 instead of 4; single puts a and b there: 2/8 + 4/8.
    let chain = tmp(
        "so-chain.json",
        r#"{"nodes":[{"id":"a","cost":2},{"id":"b","cost":4}],"edges":[{"src":"a","dst":"b","bytes":3}]}"#,
    );
    let c = tmp("so-c.json", CLUSTER);
    let (ok, out, err) = run(&[
        "run",
        "--graph",
        chain.to_str().unwrap(),
        "--cluster",
        c.to_str().unwrap(),
        "--placer",
        "single",
        "--scheduler",
        "fifo",
        "--speed-of",
        "g0=8",
        "--json",
    ]);
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["results"][0]["makespan"].as_f64().unwrap(), 0.75);
    assert_eq!(v["results"][0]["devices"][1]["speed"], 8.0);

    // Bad values get one clear line each.
    for (arg, want) in [
        ("d1", "--speed-of expects ID=SPEED, got 'd1'"),
        ("d1=fast", "--speed-of expects ID=SPEED, got 'd1=fast'"),
        ("=3", "--speed-of expects ID=SPEED, got '=3'"),
        ("zz=3", "unknown device 'zz'"),
        ("d1=0", "speed of device 'd1'"),
    ] {
        let (ok, _, err) = run(&[&common[..], &["--speed-of", arg]].concat());
        assert!(!ok && err.contains(want), "{arg}: {err}");
        assert!(
            !err.contains("panicked") && err.lines().count() == 1,
            "{err}"
        );
    }
    let (ok, _, err) = run(&[&common[..], &["--speed-of", "d1=2", "--speed-of", "d1=3"]].concat());
    assert!(!ok && err.contains("--speed-of names 'd1' twice"), "{err}");
}

#[test]
fn a_closed_pipe_ends_quietly() {
    use std::io::Read;
    use std::process::Stdio;
    // Like `placesim generate --nodes 200000 | head -c 10`: the reader goes away early.
    let mut child = bin()
        .args(["generate", "--nodes", "200000"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 10];
    child
        .stdout
        .as_mut()
        .unwrap()
        .read_exact(&mut first)
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    assert!(out.status.success());
}

#[test]
fn scenario_files_do_not_mix_with_scenario_options() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let s = dir.join("mayer17_alexnet_ops_train.json");
    let (ok, _, err) = run(&["compare", "--scenario", s.to_str().unwrap(), "--seed", "3"]);
    assert!(!ok && err.contains("--seed"), "{err}");
}

/// A graph file is linked as the bundled graph of its name only when it has exactly the
/// bundled file's bytes: a user's own `graphs/` folder holding an edited copy gets its text
/// embedded (or hashed), and an unedited copy anywhere is still the bundled graph.
#[test]
fn url_names_a_bundled_graph_only_for_identical_bytes() {
    let bundled = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("graphs/carbonari_appendix.json"),
    )
    .unwrap();
    let dir = std::env::temp_dir().join(format!("placesim-url-{}", std::process::id()));
    let mine = dir.join("work/graphs");
    std::fs::create_dir_all(&mine).unwrap();
    let edited = mine.join("carbonari_appendix.json");
    std::fs::write(&edited, bundled.replacen("\"id\"", "\"mem\": 1, \"id\"", 1)).unwrap();
    let copy = dir.join("carbonari_appendix.json");
    std::fs::write(&copy, &bundled).unwrap();
    let url = |path: &std::path::Path| {
        let (ok, out, err) = run(&[
            "compare",
            "--graph",
            path.to_str().unwrap(),
            "--devices",
            "2",
            "--placers",
            "hash",
            "--schedulers",
            "fifo",
            "--url",
        ]);
        assert!(ok, "{err}");
        out.lines().last().unwrap().to_string()
    };
    let edited_url = url(&edited);
    assert!(
        !edited_url.contains("graph=carbonari_appendix"),
        "{edited_url}"
    );
    assert!(
        edited_url.contains("gz=") || edited_url.contains("graph"),
        "{edited_url}"
    );
    assert!(
        url(&copy).contains("graph=carbonari_appendix&"),
        "the copy is the bundled graph"
    );
}

/// A comparison's JSON with placement seconds (wall clock) taken out.
fn without_seconds(mut v: serde_json::Value) -> serde_json::Value {
    for r in v["results"].as_array_mut().unwrap() {
        r.as_object_mut().unwrap().remove("placement_seconds");
    }
    v
}

/// Threads change no number: `--jobs 1` and `--jobs 3` print the same comparison.
#[test]
fn compare_on_many_threads_prints_the_sequential_numbers() {
    let s = "scenarios/mayer17_alexnet_ops_train.json";
    let one = run(&["compare", "--json", "--jobs", "1", "--scenario", s]);
    let three = run(&["compare", "--json", "--jobs", "3", "--scenario", s]);
    assert!(one.0 && three.0, "{} {}", one.2, three.2);
    let a: serde_json::Value = serde_json::from_str(&one.1).unwrap();
    let b: serde_json::Value = serde_json::from_str(&three.1).unwrap();
    assert!(a["scenario"]["seeds"].as_u64().unwrap() > 1);
    assert_eq!(without_seconds(a), without_seconds(b));
    // Piped stderr gets no progress bar.
    assert_eq!(three.2, "");
    let (ok, _, err) = run(&["compare", "--jobs", "0", "--scenario", s]);
    assert!(!ok && err.contains("--jobs must be at least 1"), "{err}");
}

/// A list of scenarios prints one JSON line per scenario (each the comparison `--json`
/// prints for it alone); shards split the list; a failing scenario gets an error line.
#[test]
fn a_scenario_list_prints_json_lines_and_shards() {
    let root = env!("CARGO_MANIFEST_DIR");
    let a = format!("{root}/scenarios/carbonari_vgg19_small.json");
    let b = format!("{root}/scenarios/carbonari_resnet50_small.json");
    let bad = tmp("bad-scenario.json", r#"{"graph":{"bundled":"nope"}}"#);
    let list = tmp(
        "list.txt",
        &format!("# three scenarios\n{a}\n\n{b}\n{}\n", bad.display()),
    );
    let alone = |s: &str| -> serde_json::Value {
        let (ok, out, err) = run(&["compare", "--json", "--scenario", s]);
        assert!(ok, "{err}");
        without_seconds(serde_json::from_str(&out).unwrap())
    };
    let (ok, out, err) = run(&["compare", "--scenario-list", list.to_str().unwrap()]);
    assert!(!ok, "a failed scenario fails the run");
    assert!(err.contains("1 of 3 scenarios failed"), "{err}");
    let lines: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3);
    for (i, (line, file)) in lines.iter().zip([&a, &b]).enumerate() {
        assert_eq!(line["file"], file.as_str());
        assert_eq!(line["index"], i);
        assert_eq!(without_seconds(line["comparison"].clone()), alone(file));
    }
    assert_eq!(lines[2]["index"], 2);
    assert!(lines[2]["comparison"].is_null());
    assert!(
        lines[2]["error"].as_str().unwrap().contains("scenario"),
        "{}",
        lines[2]
    );

    // Shard 1 of 2 is the second scenario; shard 0 of 2 the first and third.
    let (ok, out, _) = run(&["compare", "--shard", "1/2", "--scenario", &a, &b]);
    assert!(ok);
    let only: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(
        (only["file"].as_str(), only["index"].as_u64()),
        (Some(b.as_str()), Some(1))
    );
    let (_, out, _) = run(&[
        "compare",
        "--shard",
        "0/2",
        "--scenario-list",
        list.to_str().unwrap(),
    ]);
    let idx: Vec<u64> = out
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["index"]
                .as_u64()
                .unwrap()
        })
        .collect();
    assert_eq!(idx, [0, 2]);

    for (args, want) in [
        (
            vec!["--shard", "2/2", "--scenario", &a],
            "--shard expects I/N",
        ),
        (vec!["--shard", "0/1"], "give --scenario-list or --scenario"),
        (
            vec!["--url", "--scenario", &a, &b],
            "--url writes the link of one scenario",
        ),
        (
            vec!["--scenario-list", "/nonexistent/list.txt"],
            "/nonexistent/list.txt",
        ),
    ] {
        let (ok, _, err) = run(&[&["compare"][..], &args[..]].concat());
        assert!(!ok && err.contains(want), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}

/// `coarsen` (Pesto21 §3.3) prints its rounds and checks the result is acyclic.
#[test]
fn coarsen_reaches_the_target_acyclic() {
    let (ok, out, err) = run(&[
        "coarsen",
        "--graph",
        "inception_v3_ops_infer",
        "--target",
        "150",
        "--json",
    ]);
    assert!(ok, "{err}");
    let s: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(s["nodes"], 2217);
    assert_eq!(s["vertices"], 150);
    assert_eq!(s["acyclic"], true);
    let v: Vec<u64> = s["rounds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["vertices"].as_u64().unwrap())
        .collect();
    assert!(v.windows(2).all(|w| w[1] < w[0]), "{v:?}");
    let (ok, _, err) = run(&[
        "coarsen",
        "--graph",
        "inception_v3_ops_infer",
        "--target",
        "0",
    ]);
    assert!(!ok && err.contains("--target must be at least 1"), "{err}");
}

/// TicTac19's replicas from the command line: one row per link order with iteration times
/// and ordering metrics, `order` and `replicate`, and one clear error per bad input.
#[test]
fn replica_rows_order_and_bad_replica_inputs() {
    let c = "graphs/clusters/tictac_ps1_w4.json";
    let base = [
        "compare",
        "--graph",
        "seq32_ops_train",
        "--cluster",
        c,
        "--workers",
        "w0,w1",
        "--ps",
        "ps0",
        "--forward-target",
        "SparseSoftmaxCrossEntropyWithLogits/SparseSoftmaxCrossEntropyWithLogits",
        "--balance",
        "1.0",
    ];
    let mut args: Vec<&str> = base.to_vec();
    args.extend([
        "--iterations",
        "20",
        "--link-order",
        "random,tio,tao",
        "--schedulers",
        "fifo",
        "--json",
    ]);
    let (ok, out, err) = run(&args);
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let rows = v["results"].as_array().unwrap();
    let orders: Vec<&str> = rows
        .iter()
        .map(|r| r["link_order"].as_str().unwrap())
        .collect();
    assert_eq!(orders, ["random", "tio", "tao"]);
    for r in rows {
        assert_eq!(r["placer"], "pinned");
        let it = &r["iteration_time"];
        assert_eq!(it["sorted"].as_array().unwrap().len(), 20);
        assert!(
            it["p5"].as_f64() <= it["p50"].as_f64() && it["p50"].as_f64() <= it["p95"].as_f64()
        );
        let o = &r["ordering"];
        assert_eq!(o["workers"].as_array().unwrap().len(), 2);
        assert!(o["theoretical_best"].as_f64() <= o["theoretical_worst"].as_f64());
        assert!(o["straggler"]["mean"].as_f64().unwrap() >= 0.0);
    }
    // Seq-32 forward: one good order out of many; TAO finds it, random does not.
    let p50 = |i: usize| rows[i]["iteration_time"]["p50"].as_f64().unwrap();
    assert!(p50(2) < p50(0) / 1.4, "tao {} vs random {}", p50(2), p50(0));

    let (ok, out, err) = run(&[
        "order",
        "--graph",
        "seq32_ops_train",
        "--cluster",
        c,
        "--workers",
        "w0",
        "--ps",
        "ps0",
        "--algorithm",
        "tao",
        "--json",
    ]);
    assert!(ok, "{err}");
    let list: serde_json::Value = serde_json::from_str(&out).unwrap();
    let list = list.as_array().unwrap();
    assert_eq!(list.len(), 133, "seq32 training reads 133 parameters");
    assert_eq!(list[0]["priority"], 0.0);

    for (args, want) in [
        (
            vec!["--workers", "w0,w9", "--ps", "ps0"],
            "replica.workers: device 'w9' is not in the cluster",
        ),
        (
            vec!["--workers", "w0,ps0", "--ps", "ps0"],
            "device 'ps0' is both a worker",
        ),
        (
            vec!["--workers", "w0", "--ps", "ps0", "--param-ops", "Nothing"],
            "no parameter reads",
        ),
        (
            vec!["--workers", "w0", "--ps", "ps0", "--links", "parallel"],
            "a replica needs links fcfs",
        ),
        (
            vec!["--workers", "w0", "--ps", "ps0", "--iterations", "0"],
            "iterations must be between 1 and 10000",
        ),
        (
            vec!["--workers", "w0", "--ps", "ps0", "--iterations", "99999999"],
            "iterations must be between 1 and 10000",
        ),
        (
            vec!["--workers", "w0", "--ps", "ps0", "--forward-target", "nope"],
            "nope",
        ),
        (
            vec!["--workers", "w0", "--ps", "ps0", "--balance=-1"],
            "replica.balance",
        ),
    ] {
        let mut a = vec!["compare", "--graph", "seq32_ops_train", "--cluster", c];
        a.extend(args);
        let (ok, _, err) = run(&a);
        assert!(
            !ok && err.contains(want) && !err.contains("panicked"),
            "{a:?}: {err}"
        );
        assert_eq!(err.lines().count(), 1, "one clear line: {err}");
    }
    let (ok, _, err) = run(&[
        "compare",
        "--graph",
        "seq32_ops_train",
        "--devices",
        "3",
        "--link-order",
        "tao",
    ]);
    assert!(
        !ok && err.contains("link order 'tao' orders the queues of contended links"),
        "{err}"
    );
}

fn fixture(name: &str) -> String {
    format!(
        "{}/tests/fixtures/onnx/{name}.onnx",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// `import` prints graph JSON that loads (notes on stderr); `--graph x.onnx` runs a
/// comparison on a hardware preset named like a bundled cluster; the import options work.
#[test]
fn onnx_models_import_and_run_on_a_preset() {
    let (ok, out, err) = run(&["import", &fixture("tiny_cnn")]);
    assert!(ok, "{err}");
    assert!(err.contains("note: ONNX import: 11 ops"), "{err}");
    let g = placesim::model::graph::Graph::from_json(&out, "x").unwrap();
    assert_eq!((g.name.as_str(), g.node_count()), ("tiny_cnn", 11));
    let (ok, out, err) = run(&["import", &fixture("tiny_cnn"), "--train"]);
    assert!(ok, "{err}");
    assert_eq!(
        placesim::model::graph::Graph::from_json(&out, "x")
            .unwrap()
            .node_count(),
        27
    );
    let (ok, out, err) = run(&[
        "compare",
        "--graph",
        &fixture("rnn"),
        "--cluster",
        "hw_pesto_cpu_2xV100",
        "--placers",
        "single,hash",
        "--schedulers",
        "fifo",
        "--json",
    ]);
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["results"].as_array().unwrap().len(), 2, "{out}");
    // The dynamic input: one error naming it, then the options that size it.
    let (ok, _, err) = run(&["import", &fixture("dynamic")]);
    assert!(
        !ok && err.lines().count() == 1 && err.contains("input 'x'"),
        "{err}"
    );
    // The engine names the options by field; the CLI adds the flags that set them.
    assert!(
        err.contains("input shape x=1x8") && err.contains("(--input-shape, --batch)"),
        "{err}"
    );
    // An input shape of another rank than the input's.
    let (ok, _, err) = run(&[
        "import",
        &fixture("dynamic"),
        "--input-shape",
        "x=1x3x224x224",
    ]);
    assert!(
        !ok && err.contains("has rank 2 (batch x 8)") && err.contains("like x=1x8"),
        "{err}"
    );
    // A model whose FLOP-carrying ops cannot be sized: an error naming the first node,
    // exit 0 only with --allow-unsized (the notes give the share missing).
    let (ok, out, err) = run(&["import", &fixture("data_dependent")]);
    assert!(
        !ok && out.is_empty()
            && err.contains("node 'nz' (NonZero) could not be sized")
            && err.ends_with("(--input-shape, --allow-unsized)\n"),
        "{err}"
    );
    let (ok, out, err) = run(&["import", &fixture("data_dependent"), "--allow-unsized"]);
    assert!(
        ok && out.contains("\"nodes\"") && err.contains("1 of the 1 ops that carry FLOPs (100%)"),
        "{err}"
    );
    let (ok, _, err) = run(&["import", &fixture("dynamic"), "--input-shape", "y=2x8"]);
    assert!(
        !ok && err.contains("input shape 'y' names no input") && err.contains("(--input-shape)"),
        "{err}"
    );
    let (ok, _, err) = run(&["import", &fixture("tiny_cnn"), "--batch", "4"]);
    assert!(
        !ok && err.contains("batch 4: no input has a dynamic first dimension")
            && err.ends_with("(--batch, --input-shape)\n"),
        "{err}"
    );
    let (ok, out, err) = run(&["import", &fixture("dynamic"), "--batch", "3"]);
    assert!(ok && out.contains("\"cost\":24"), "{err} {out}");
    let (ok, out, err) = run(&["import", &fixture("dynamic"), "--input-shape", "x=2x8"]);
    assert!(ok && out.contains("\"cost\":16"), "{err} {out}");
    let (ok, _, err) = run(&["import", &fixture("dynamic"), "--input-shape", "x=2by8"]);
    assert!(!ok && err.contains("NAME=DIMS"), "{err}");
}

/// A truncated model, a JSON file named .onnx and a non-UTF-8 non-ONNX graph file each give
/// one line naming the file, never a panic.
#[test]
fn bad_models_get_one_clear_error() {
    let bytes = std::fs::read(fixture("tiny_cnn")).unwrap();
    let dir = std::env::temp_dir().join(format!("placesim-cli-onnx-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cut = dir.join("cut.onnx");
    std::fs::write(&cut, &bytes[..bytes.len() / 3]).unwrap();
    let json = dir.join("graph.onnx");
    std::fs::write(&json, FORK_JOIN).unwrap();
    let binary = dir.join("blob.json");
    std::fs::write(&binary, [0xff, 0xfe, 0x00, 0x12]).unwrap();
    for (path, expect) in [
        (&cut, "truncated"),
        (&json, "not an ONNX model"),
        (&binary, "not UTF-8"),
    ] {
        let p = path.to_str().unwrap();
        let (ok, _, err) = run(&["validate", p]);
        assert!(!ok && !err.contains("panicked"), "{err}");
        assert!(err.contains(p) && err.contains(expect), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
    }
}

/// Every hardware preset loads by name and fits an imported model; presets are in physical
/// units (GPU speeds 1e13..1e15 FLOP/s).
#[test]
fn hardware_presets_load_by_name() {
    let dir = format!("{}/graphs/clusters", env!("CARGO_MANIFEST_DIR"));
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .filter(|f| f.starts_with("hw_") && f.ends_with(".json"))
        .map(|f| f.trim_end_matches(".json").to_string())
        .collect();
    names.sort();
    assert!(names.len() >= 8, "{names:?}");
    for name in &names {
        let (ok, out, err) = run(&["validate", &fixture("tiny_cnn"), "--cluster", name]);
        assert!(ok && out.contains("fits cluster"), "{name}: {err}");
        let text = std::fs::read_to_string(format!("{dir}/{name}.json")).unwrap();
        let c = placesim::model::cluster::Cluster::from_json(&text, name).unwrap();
        for d in c.devices.iter().filter(|d| d.kind == "gpu") {
            assert!(
                (1e13..1e15).contains(&d.speed),
                "{name}: {} {}",
                d.id,
                d.speed
            );
        }
    }
}

/// `pesto` is listed with its parameters, runs only when named, proves the fork-join's
/// optimum on 2 devices with fcfs links (its plan report says so, and `pesto x given`
/// simulates exactly the objective), and a budget of 0 is a scenario error naming it.
#[test]
fn pesto_runs_when_named_and_reports_its_proof() {
    let (ok, out, _) = run(&["list"]);
    assert!(
        ok && out.contains("pesto") && out.contains("exact_nodes"),
        "{out}"
    );
    let g = tmp("pesto_fork_join.json", FORK_JOIN);
    let g = g.to_str().unwrap();
    let (ok, out, err) = run(&[
        "compare",
        "--graph",
        g,
        "--devices",
        "2",
        "--links",
        "fcfs",
        "--json",
    ]);
    assert!(ok, "{err}");
    assert!(!out.contains("\"pesto\""), "pesto ran unnamed");
    let args = [
        "compare",
        "--graph",
        g,
        "--devices",
        "2",
        "--links",
        "fcfs",
        "--placers",
        "pesto",
        "--schedulers",
        "given",
        "--json",
    ];
    let (ok, out, err) = run(&args);
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let row = &v["results"][0];
    let rep = &row["plan_reports"][0];
    assert_eq!(rep["status"], "optimal", "{rep}");
    // The row's plan summary words it by pesto.md §5.6, and the table's plan column says it.
    assert_eq!(row["plan"]["status"], "optimal (proven)", "{row}");
    assert_eq!(row["plan"]["bound_scope"], "instance");
    let (ok, table, err) = run(&args[..args.len() - 1]);
    assert!(ok, "{err}");
    assert!(table.lines().nth(1).unwrap().ends_with("plan"), "{table}");
    assert!(
        table.contains("optimal (proven); bound ") && table.contains(", gap 1.00x"),
        "{table}"
    );
    assert_eq!(rep["objective"], row["makespan"]);
    assert_eq!(rep["bound"], row["makespan"]);
    let mut bad = args.to_vec();
    bad.extend(["--param", "pesto.budget=-1"]);
    let (ok, _, err) = run(&bad);
    assert!(!ok && err.contains("pesto.budget"), "{err}");
}

/// `run` prints seconds and bytes with units on a physical cluster (a hardware preset), and
/// says its numbers are abstract on a generated one, as `compare`'s table does.
#[test]
fn run_prints_units_when_devices_are_physical() {
    let common = [
        "run",
        "--graph",
        "resnet50_layers",
        "--placer",
        "heft",
        "--scheduler",
        "heft",
    ];
    let mut physical = common.to_vec();
    physical.extend(["--cluster", "hw_1node_4xV100_nvlink"]);
    let (ok, out, err) = run(&physical);
    assert!(ok, "{err}");
    let head = out.lines().nth(1).unwrap_or_default();
    assert!(
        head.starts_with("makespan ")
            && head.contains(" ms  lower bound ")
            && head.contains("B in "),
        "{out}"
    );
    assert!(!out.contains("abstract units"), "{out}");
    let mut generated = common.to_vec();
    generated.extend(["--devices", "3"]);
    let (ok, out, err) = run(&generated);
    assert!(ok, "{err}");
    assert!(
        out.lines()
            .next()
            .unwrap_or_default()
            .contains("abstract units"),
        "{out}"
    );
    assert!(!out.contains(" ms "), "{out}");
}

/// `sweep` (issue 10): every pair at every factor; factor 1 is `compare` exactly; the table
/// and CSV carry units; a list prints JSON Lines and shards like `compare`.
#[test]
fn sweep_prints_every_pair_at_every_factor() {
    let root = env!("CARGO_MANIFEST_DIR");
    let a = format!("{root}/scenarios/carbonari_vgg19_small.json");
    let (ok, out, err) = run(&["compare", "--json", "--scenario", &a]);
    assert!(ok, "{err}");
    let compared: serde_json::Value = serde_json::from_str(&out).unwrap();
    let rows = compared["results"].as_array().unwrap();
    let (ok, out, err) = run(&[
        "sweep",
        "--scenario",
        &a,
        "--compute",
        "1,2",
        "--bandwidth",
        "0.5",
        "--json",
    ]);
    assert!(ok, "{err}");
    let lines: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3 * rows.len());
    for (line, row) in lines.iter().zip(rows) {
        assert_eq!(
            (&line["axis"], &line["factor"], &line["index"]),
            (&"compute".into(), &1.0.into(), &0.into())
        );
        assert_eq!(line["placer"], row["placer"]);
        assert_eq!(
            line["makespan"], row["makespan"],
            "factor 1 is compare's bits"
        );
        assert_eq!(line["makespan_std"], row["makespan_std"]);
    }
    // Twice the compute: no pair slower, and the single device's exactly halved.
    for (x1, x2) in lines.iter().zip(&lines[rows.len()..2 * rows.len()]) {
        assert_eq!(x2["factor"], 2.0);
        assert!(
            x2["makespan"].as_f64() <= x1["makespan"].as_f64(),
            "{x1} {x2}"
        );
        if x1["placer"] == "single" {
            assert_eq!(
                x2["makespan"].as_f64().unwrap(),
                x1["makespan"].as_f64().unwrap() / 2.0
            );
        }
    }
    assert!(lines[2 * rows.len()..]
        .iter()
        .all(|l| l["axis"] == "bandwidth" && l["factor"] == 0.5));

    let (ok, csv, err) = run(&["sweep", "--scenario", &a, "--bandwidth", "1,0.1", "--csv"]);
    assert!(ok, "{err}");
    let head = csv.lines().next().unwrap();
    assert!(
        head.starts_with("bandwidth_factor,placer,scheduler,link_order,makespan_"),
        "{head}"
    );
    assert_eq!(csv.lines().count(), 1 + 2 * rows.len());
    let first: Vec<&str> = csv.lines().nth(1).unwrap().split(',').collect();
    assert_eq!(first[0], "1");
    assert_eq!(
        first[4].parse::<f64>().unwrap(),
        rows[0]["makespan"].as_f64().unwrap()
    );
    let (ok, table, err) = run(&["sweep", "--scenario", &a, "--compute", "1,4"]);
    assert!(ok, "{err}");
    assert!(
        table.contains("makespan against the compute factor"),
        "{table}"
    );
    assert!(
        table.lines().nth(1).unwrap().contains("compute x"),
        "{table}"
    );

    // A list: JSON Lines with the file and its index; --shard takes every other scenario.
    let b = format!("{root}/scenarios/carbonari_resnet50_small.json");
    let (ok, out, err) = run(&[
        "sweep",
        "--shard",
        "1/2",
        "--scenario",
        &a,
        &b,
        "--compute",
        "1,2",
    ]);
    assert!(ok, "{err}");
    let lines: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(!lines.is_empty());
    assert!(lines
        .iter()
        .all(|l| l["file"] == b.as_str() && l["index"] == 1 && l["axis"] == "compute"));
}

/// Every bad sweep flag is one clear error naming the flag, never a panic.
#[test]
fn sweep_names_a_bad_flag() {
    let root = env!("CARGO_MANIFEST_DIR");
    let a = format!("{root}/scenarios/carbonari_vgg19_small.json");
    for (args, want) in [
        (vec!["--compute", "1,0"], "compute factors: factor 2 is 0"),
        (
            vec!["--bandwidth", "-1"],
            "bandwidth factors: factor 1 is -1",
        ),
        (vec!["--compute", "NaN"], "compute factors: factor 1 is NaN"),
        (
            vec!["--bandwidth", ","],
            "bandwidth factors: give at least one factor",
        ),
        (
            vec!["--compute", "1,fast"],
            "compute factors: 'fast' is not a number",
        ),
        (
            vec!["--compute", "1", "--bandwidth", "1", "--csv"],
            "--csv writes one axis",
        ),
        (vec![], "--compute"),
    ] {
        let (ok, _, err) = run(&[&["sweep", "--scenario", &a][..], &args[..]].concat());
        assert!(!ok && err.contains(want), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    let (ok, _, err) = run(&["sweep", "--compute", "1"]);
    assert!(!ok && err.contains("give a scenario"), "{err}");
    let (ok, _, err) = run(&[
        "sweep",
        "--shard",
        "0/2",
        "--scenario",
        &a,
        "--compute",
        "1",
        "--csv",
    ]);
    assert!(!ok && err.contains("a list prints JSON Lines"), "{err}");
}

/// `--footprint` sets the scenario's static footprint rule: a known one runs and travels in
/// the link (`footprint=`, format 2); an unknown one is one clear line naming the option.
#[test]
fn footprint_option() {
    let g = tmp(
        "fp.json",
        r#"{"nodes":[{"id":"a","cost":2,"mem":1},{"id":"b","cost":4,"mem":1}],"edges":[{"src":"a","dst":"b","bytes":3}]}"#,
    );
    let c = tmp("fp-c2.json", CLUSTER);
    let base = [
        "compare",
        "--graph",
        g.to_str().unwrap(),
        "--cluster",
        c.to_str().unwrap(),
        "--placers",
        "single",
        "--schedulers",
        "fifo",
    ];
    let mut a = base.to_vec();
    a.extend(["--footprint", "inputs_outputs", "--json"]);
    let (ok, out, err) = run(&a);
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["scenario"]["footprint"], "inputs_outputs");
    let mut a = base.to_vec();
    a.extend(["--footprint", "mem", "--url"]);
    let (ok, out, err) = run(&a);
    assert!(
        ok && out.contains("#v=2&") && out.contains("&footprint=mem"),
        "{out} {err}"
    );
    let mut a = base.to_vec();
    a.extend(["--footprint", "all"]);
    let (ok, _, err) = run(&a);
    assert!(
        !ok && err.contains("--footprint: 'all' is not a footprint rule")
            && !err.contains("panicked"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "one clear line: {err}");
}

/// The latency what-if, by hand: a (2) pinned on x, 8 bytes over a link of bandwidth 2 and
/// latency 3, b (4) pinned on y: 2 + 3 f + 8 / 2 + 4 = 10 + 3 f. `sweep --latency 1,2,4`
/// gives 13, 16, 22 (each step adds exactly the latency it adds); a scenario whose
/// `what_if.latency` is 2 compares at sweep's 16 and its link carries the factor; a factor
/// of 0 names the latency scale.
#[test]
fn latency_what_if_moves_a_chain_by_the_latency_added() {
    tmp(
        "lat_chain.json",
        r#"{"nodes":[{"id":"a","cost":2,"device":"x"},{"id":"b","cost":4,"device":"y"}],"edges":[{"src":"a","dst":"b","bytes":8}]}"#,
    );
    tmp(
        "lat_cluster.json",
        r#"{"devices":[{"id":"x","speed":1},{"id":"y","speed":1}],"bandwidth":2,"latency":3}"#,
    );
    let scenario = |latency: &str| {
        let text = format!(
            r#"{{"graph":{{"file":"lat_chain.json"}},"cluster":{{"file":"lat_cluster.json"}},"placers":["pinned"],"schedulers":["fifo"],"what_if":{{"compute":1,"bandwidth":1,"latency":{latency}}}}}"#
        );
        tmp(&format!("lat_scenario_{latency}.json"), &text)
            .to_string_lossy()
            .into_owned()
    };
    let (ok, out, err) = run(&[
        "sweep",
        "--scenario",
        &scenario("1"),
        "--latency",
        "1,2,4",
        "--json",
    ]);
    assert!(ok, "{err}");
    let got: Vec<(f64, f64)> = out
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .map(|l| {
            assert_eq!(l["axis"], "latency");
            (
                l["factor"].as_f64().unwrap(),
                l["makespan"].as_f64().unwrap(),
            )
        })
        .collect();
    assert_eq!(got, vec![(1.0, 13.0), (2.0, 16.0), (4.0, 22.0)]);
    let twice = scenario("2");
    let (ok, out, err) = run(&["compare", "--scenario", &twice, "--json"]);
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["results"][0]["makespan"], 16.0);
    assert_eq!(v["scenario"]["what_if"]["latency"], 2.0);
    let (ok, out, err) = run(&["compare", "--scenario", &twice, "--url"]);
    assert!(ok, "{err}");
    assert!(out.contains("&whatif.latency=2"), "{out}");
    let (ok, _, err) = run(&["compare", "--scenario", &scenario("0")]);
    assert!(!ok && err.contains("latency scale"), "{err}");
    let (ok, _, err) = run(&[
        "compare",
        "--graph",
        "vgg19_layers",
        "--latency-scale=-1",
        "--devices",
        "2",
    ]);
    assert!(!ok && err.contains("latency scale"), "{err}");
}

/// `split` prints the graph with its IdentityN split into one pass-through per gradient
/// (what a replica does before replicating a training graph), and says so on stderr.
#[test]
fn split_prints_a_graph_with_one_pass_through_per_tensor() {
    let (ok, out, err) = run(&["split", "--graph", "alexnet_ops_train"]);
    assert!(ok, "{err}");
    assert!(
        err.contains("'sgd/IdentityN' split into 16 pass-throughs"),
        "{err}"
    );
    let g = placesim::model::graph::Graph::from_json(&out, "x").unwrap();
    assert!(g.node_index("sgd/IdentityN").is_none());
    assert!(g.node_index("sgd/IdentityN:15").is_some());
    let (ok, _, err) = run(&["split", "--graph", "alexnet_ops_train", "--ops", "AddN"]);
    assert!(ok, "{err}");
    assert!(err.contains("no op of type AddN to split"), "{err}");
}
