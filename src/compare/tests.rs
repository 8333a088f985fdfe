use super::*;
use crate::model::cluster::ClusterGen;
use crate::model::problem::Footprint;
use crate::scenario::{ClusterSource, GraphSource, WhatIf};
use crate::testutil;
use std::collections::BTreeMap;

const GRAPH: &str = r#"{"nodes":[{"id":"a","cost":2},{"id":"b","cost":4},{"id":"c","cost":3}],
    "edges":[{"src":"a","dst":"b","bytes":3},{"src":"a","dst":"c","bytes":2}]}"#;

fn scenario(cluster: ClusterSource, seeds: u32) -> Scenario {
    let mut s = Scenario::new(GraphSource::Bundled("g".into()), cluster);
    s.placers = vec!["single".into(), "hash".into()];
    s.schedulers = vec!["fifo".into()];
    s.seeds = seeds;
    s.seed = 7;
    s
}

fn speeds_of(c: &Comparison) -> Vec<Vec<f64>> {
    c.results
        .iter()
        .map(|r| r.devices.iter().map(|d| d.speed).collect())
        .collect()
}

/// a(mem 1) -> b(mem 1) over a 4-byte tensor, on one device `x` of `memory` bytes, with a
/// one-seed scenario naming that device inline.
fn a_then_b_on_one_device(memory: u32) -> (Graph, Cluster, Scenario) {
    let g = testutil::graph(
        r#"{"nodes":[{"id":"a","cost":1,"mem":1},{"id":"b","cost":1,"mem":1}],
            "edges":[{"src":"a","dst":"b","bytes":4}]}"#,
    );
    let text = format!(r#"{{"devices":[{{"id":"x","speed":1,"memory":{memory}}}],"bandwidth":1}}"#);
    let c = testutil::cluster(&text);
    let s = scenario(
        ClusterSource::Inline(serde_json::from_str(&text).unwrap()),
        1,
    );
    (g, c, s)
}

/// a(mem 1) -> b(mem 1) over a 4-byte tensor on one device of 6 bytes: `outputs` counts
/// 1 + 4 and 1, 6 <= 6, fits; `inputs_outputs` counts 5 and 1 + 4, 10 > 6, and the row
/// fails (m-topo's own check, or the scenario's check after m-etf's Baechi rule); `mem`
/// counts 1 and 1. The scenario's rule reaches the placers.
#[test]
fn the_footprint_rule_decides_feasibility() {
    let (g, c, mut s) = a_then_b_on_one_device(6);
    s.placers = vec!["m-etf".into(), "m-topo".into()];
    for (rule, fits) in [
        (Footprint::Outputs, true),
        (Footprint::InputsOutputs, false),
        (Footprint::Mem, true),
        (Footprint::Live, true),
    ] {
        s.footprint = rule;
        let r = run(&s.resolve().unwrap(), &g, Some(&c), &mut |_, _| true).unwrap();
        for row in &r.results {
            assert_eq!(row.error.is_none(), fits, "{rule:?} {row:?}");
            if fits {
                assert_eq!(row.makespans, vec![2.0]);
            } else {
                // m-topo charges the scenario's rule and names the op it cannot place;
                // m-etf places by Baechi's rule (allocate at run, free after the last
                // consumer), so the scenario's check names the device and the rule.
                let e = row.error.as_deref().unwrap();
                let named = match row.placer.as_str() {
                    "m-etf" => e.contains("device 'x'") && e.contains("'inputs_outputs'"),
                    _ => e.contains("'a'") || e.contains("'b'"),
                };
                assert!(named, "{} {e}", row.placer);
            }
        }
    }
}

/// The same graph on a 5-byte device: `outputs` refuses (a charges 1 + 4, b 1: 6 > 5);
/// `live` charges only `mem` (2) and judges the run: a's 4-byte tensor lives until b has run,
/// so the peak is 1 + 1 + 4 = 6 > 5, and the row keeps its makespan, flagged out of memory.
#[test]
fn live_footprint_reports_the_simulated_peak_as_oom_not_an_error() {
    let (g, c, mut s) = a_then_b_on_one_device(5);
    s.placers = vec!["m-topo".into()];
    s.footprint = Footprint::Outputs;
    let r = run(&s.resolve().unwrap(), &g, Some(&c), &mut |_, _| true).unwrap();
    assert!(r.results.iter().all(|row| row.error.is_some()));
    s.footprint = Footprint::Live;
    let r = run(&s.resolve().unwrap(), &g, Some(&c), &mut |_, _| true).unwrap();
    for row in &r.results {
        assert!(row.error.is_none(), "{row:?}");
        assert_eq!(row.makespans, vec![2.0]);
        assert!(row.oom, "peak 6 > 5");
        assert_eq!(row.devices[0].peak_memory, 6.0);
    }
}

#[test]
fn a_plan_summary_says_the_weakest_seeds_claim_and_averages_the_rest() {
    use crate::plan::SolveStatus;
    let report = |objective, bound, status| SolveReport {
        objective,
        bound: Some(bound),
        bound_of: BoundScope::Instance,
        status,
        work: 7,
        work_unit: "schedules simulated".into(),
        coarse_vertices: None,
        history: Vec::new(),
    };
    assert_eq!(PlanSummary::of(&[]), None);
    let proven = PlanSummary::of(&[report(4.0, 4.0, SolveStatus::Optimal)]).unwrap();
    assert_eq!(proven.status, "optimal (proven)");
    let two = PlanSummary::of(&[
        report(4.0, 4.0, SolveStatus::Optimal),
        report(6.0, 5.0, SolveStatus::Feasible),
    ])
    .unwrap();
    assert_eq!(two.objective, 5.0);
    assert_eq!(two.bound, Some(4.5));
    assert_eq!(two.bound_scope, BoundScope::Instance);
    assert_eq!(two.status, "best found after 7 schedules simulated");
    // Scopes that differ bound nothing together.
    let mut coarse = report(6.0, 5.0, SolveStatus::CoarseOptimal);
    coarse.bound_of = BoundScope::Coarse;
    let mixed = PlanSummary::of(&[report(4.0, 4.0, SolveStatus::Optimal), coarse]).unwrap();
    assert_eq!((mixed.bound, mixed.bound_scope), (None, BoundScope::None));
    assert_eq!(mixed.status, "optimal for the coarse graph");
}

#[test]
fn a_given_clusters_device_speed_is_the_files_exactly() {
    let g = testutil::graph(GRAPH);
    // 0.1 summed three times and divided by 3 is 0.10000000000000002: the mean of equal
    // speeds must be the speed itself.
    let text =
        r#"{"devices":[{"id":"x","speed":0.1},{"id":"y","kind":"cpu","speed":4}],"bandwidth":2}"#;
    let c = testutil::cluster(text);
    let s = scenario(
        ClusterSource::Inline(serde_json::from_str(text).unwrap()),
        3,
    );
    let r = run(&s.resolve().unwrap(), &g, Some(&c), &mut |_, _| true).unwrap();
    for row in speeds_of(&r) {
        assert_eq!(row, vec![0.1, 4.0]);
    }
    // After the what-if: a set speed replaces the device's, and the scale multiplies
    // every speed, a set one too.
    let mut s = s;
    s.what_if = WhatIf {
        compute: 2.0,
        bandwidth: 1.0,
        latency: 1.0,
        speeds: BTreeMap::from([("y".to_string(), 7.5)]),
    };
    let r = run(&s.resolve().unwrap(), &g, Some(&c), &mut |_, _| true).unwrap();
    for row in speeds_of(&r) {
        assert_eq!(row, vec![0.2, 15.0]);
    }
    // The JSON row names it, after id and kind.
    let json = serde_json::to_string(&r.results[0].devices[0]).unwrap();
    assert!(
        json.starts_with(r#"{"id":"x","kind":"gpu","speed":0.2,"busy":"#),
        "{json}"
    );
}

#[test]
fn a_generated_clusters_device_speed_is_the_mean_of_its_seeds_draws() {
    let g = testutil::graph(GRAPH);
    let spec = ClusterGen {
        devices: 4,
        speed: [10.0, 100.0],
        memory: None,
        memory_fraction: None,
        bandwidth: [10.0, 60.0],
        latency: [0.0, 0.0],
        kinds: vec![],
    };
    let mut s = scenario(ClusterSource::Generate(spec), 5);
    let check = |s: &Scenario| -> Vec<f64> {
        let r = run(&s.resolve().unwrap(), &g, None, &mut |_, _| true).unwrap();
        // Independently: realize every seed and average each device's speed.
        let drawn: Vec<Vec<f64>> = (0..s.seeds)
            .map(|i| {
                let real = s.realize(&g, None, i).unwrap();
                real.cluster.devices.iter().map(|d| d.speed).collect()
            })
            .collect();
        let want: Vec<f64> = (0..4)
            .map(|d| drawn.iter().map(|seed| seed[d]).sum::<f64>() / s.seeds as f64)
            .collect();
        for row in speeds_of(&r) {
            assert_eq!(row, want);
        }
        let ids: Vec<&str> = r.results[0].devices.iter().map(|d| d.id.as_str()).collect();
        assert_eq!(ids, ["d0", "d1", "d2", "d3"]);
        // The seeds draw different speeds, so the mean is not any one seed's.
        assert!(drawn.iter().any(|seed| seed[0] != drawn[0][0]));
        want
    };
    let base = check(&s);
    for &v in &base {
        assert!((10.0..=100.0).contains(&v), "{v}");
    }
    // A set speed replaces the device's draw in every seed; the others keep theirs.
    s.what_if.speeds.insert("d2".into(), 33.25);
    let set = check(&s);
    assert_eq!(set[2], 33.25);
    assert_eq!([set[0], set[1], set[3]], [base[0], base[1], base[3]]);
}

/// A plan whose strict replay deadlocks (b planned before a on d0, but a feeds b and c) is a
/// row error naming the deadlock, never a hang; the work-conserving replay runs it.
#[test]
fn a_deadlocking_replay_is_an_error_that_says_so() {
    let g = testutil::graph(GRAPH);
    let c = Cluster::uniform(&[1.0, 1.0], 1.0, 0.0);
    let p = Problem::new(&g, &c).unwrap();
    let mut s = scenario(ClusterSource::File("c".into()), 1);
    s.placers = vec!["heft".into()];
    s.schedulers = vec!["given".into()];
    let plan = Plan {
        placement: vec![0, 0, 1],
        order: Some(crate::plan::Order {
            priority: vec![0.0; 3],
            sequences: Some(vec![vec![1, 0], vec![2]]),
            transfers: None,
        }),
        report: None,
    };
    plan.check(&p).unwrap();
    let e = simulate(&p, &s.resolve().unwrap(), &plan, (0, 0, 0), 0, false)
        .unwrap_err()
        .to_string();
    assert!(e.contains("deadlocked: 3 of 3 ops never ran"), "{e}");
    s.params.insert("given.work_conserving".into(), 1.0);
    let r = simulate(&p, &s.resolve().unwrap(), &plan, (0, 0, 0), 0, false).unwrap();
    assert_eq!(r.unfinished, 0);
}

/// Cancelling stops a comparison with `Error::Cancelled` (not a row error), also while a
/// placer runs; `heft x given` reports HEFT's plan and its makespan is the plan's.
#[test]
fn cancel_stops_the_run_and_plans_are_reported() {
    let g = testutil::graph(GRAPH);
    let text = r#"{"devices":[{"id":"x","speed":1},{"id":"y","speed":2}],"bandwidth":2}"#;
    let c = testutil::cluster(text);
    let mut s = scenario(ClusterSource::File("c".into()), 2);
    s.placers = vec!["hash".into(), "heft".into()];
    s.schedulers = vec!["fifo".into(), "given".into()];
    let mut calls = 0;
    let e = run(&s.resolve().unwrap(), &g, Some(&c), &mut |_, _| {
        calls += 1;
        calls < 3
    })
    .unwrap_err();
    assert_eq!(e, Error::Cancelled);
    let mut seen = Vec::new();
    let r = run(&s.resolve().unwrap(), &g, Some(&c), &mut |done, total| {
        seen.push((done, total));
        true
    })
    .unwrap();
    // 2 seeds x (2 placements + 3 pairs) steps, counted up to the total.
    assert_eq!(seen.last(), Some(&(10.0, 10)));
    let pairs: Vec<(&str, &str)> = r
        .results
        .iter()
        .map(|x| (x.placer.as_str(), x.scheduler.as_str()))
        .collect();
    assert_eq!(
        pairs,
        [("hash", "fifo"), ("heft", "fifo"), ("heft", "given")]
    );
    assert_eq!(r.notes.len(), 1);
    let given = &r.results[2];
    assert_eq!(given.plan_reports.len(), 2);
    for (m, rep) in given.makespans.iter().zip(&given.plan_reports) {
        assert_eq!(*m, rep.objective);
    }
    assert!(r.results[0].plan_reports.is_empty());
}

#[test]
fn mean_speed_of_equal_and_unequal_draws() {
    assert_eq!(mean_speed(&[0.1, 0.1, 0.1]), 0.1);
    assert_eq!(mean_speed(&[1.0, 2.0, 6.0]), 3.0);
    assert_eq!(mean_speed(&[]), 0.0);
}

#[test]
fn a_placer_failing_on_some_seeds_reports_which() {
    // a's output (1..100 bytes, redrawn per seed) must fit a 50-byte device: it does at
    // some seeds and not at others.
    let g = Graph::from_json(
        r#"{"nodes":[{"id":"a","cost":1},{"id":"b","cost":1}],"edges":[{"src":"a","dst":"b","bytes":1}]}"#,
        "g",
    )
    .unwrap();
    let c = Cluster::from_json(
        r#"{"devices":[{"id":"d","speed":1,"memory":50}],"bandwidth":1}"#,
        "c",
    )
    .unwrap();
    let mut s = Scenario::from_json(
        r#"{"graph":{"bundled":"g"},"cluster":{"file":"c"},"randomize":{"bytes":[1,100]},
            "placers":["single"],"schedulers":["fifo"],"seeds":10,"seed":3}"#,
    )
    .unwrap();
    s.graph = crate::scenario::GraphSource::Bundled("g".into());
    s.cluster = crate::scenario::ClusterSource::File("c".into());
    let r = &run(&s.resolve().unwrap(), &g, Some(&c), &mut |_, _| true)
        .unwrap()
        .results[0];
    assert!(
        !r.failed_seeds.is_empty() && !r.makespans.is_empty(),
        "{r:?}"
    );
    assert_eq!(r.makespans.len() + r.failed_seeds.len(), 10);
    assert!(r
        .error
        .as_deref()
        .unwrap()
        .contains(&format!("seed {}", r.failed_seeds[0])));
    // Which seeds fail follows from the redrawn sizes alone.
    for i in 0..10 {
        let real = s.realize(&g, Some(&c), i).unwrap();
        let too_big = real.overrides.unwrap().tensor_bytes[0] > 50.0;
        assert_eq!(r.failed_seeds.contains(&i), too_big, "seed {i}");
    }
}

/// A comparison as JSON with its wall-clock figures (placement seconds) zeroed: every
/// other number must be the same bits however the work was split.
fn bits(c: &Comparison) -> String {
    let mut c = c.clone();
    for r in &mut c.results {
        r.placement_seconds = 0.0;
    }
    serde_json::to_string(&c).unwrap()
}

/// Every placer and scheduler on 120 ops. Pesto's anytime search is held to 2,000 schedules
/// simulated (its automatic budget here is ~29,000, which made these tests the suite's
/// slowest by far): a smaller search still exercises its determinism across threads, splits
/// and seed caches, which is what the tests below check.
fn every_strategy(seeds: u32) -> (Scenario, Graph) {
    let text =
        crate::model::synthetic::layered_dag(crate::model::synthetic::SyntheticSpec::new(120, 3));
    let g = Graph::from_json(&text, "synthetic").unwrap();
    let mut s = Scenario::from_json(
        r#"{"graph":{"bundled":"g"},"cluster":{"generate":{"devices":5,"speed":[10,100],"bandwidth":[10,60],
            "memory_fraction":0.3}},"randomize":{"cost":[1,100],"bytes":[1,100],"mem":[0,0]},
            "links":"fcfs","link_order":"random","placers":["single"],"schedulers":["fifo"],"seeds":1,"seed":11,
            "params":{"pesto.budget":2000}}"#,
    )
    .unwrap();
    s.placers = place::PLACERS.iter().map(|p| p.name.to_string()).collect();
    s.schedulers = crate::schedule::SCHEDULERS
        .iter()
        .map(|p| p.name.to_string())
        .collect();
    s.seeds = seeds;
    (s, g)
}

/// Threads, and any split of the work items merged in any order, give the bits of the
/// sequential run; progress sums to the total from every thread.
#[test]
fn parallel_and_split_runs_have_the_bits_of_a_sequential_run() {
    // The third seed count, 9, only at the full test size (`PLACESIM_TEST_SIZE=full`): 1 and 3
    // already split items across seeds and reuse a kept seed cache.
    let full = std::env::var("PLACESIM_TEST_SIZE").is_ok_and(|s| s == "full");
    let counts: &[u32] = if full { &[1, 3, 9] } else { &[1, 3] };
    for &seeds in counts {
        let (s, g) = every_strategy(seeds);
        let seq = run(&s.resolve().unwrap(), &g, None, &mut |_, _| true).unwrap();
        let want = bits(&seq);
        // The scenario exercises row errors (memory) and plans, or the test says little.
        assert!(seq.results.iter().any(|r| !r.makespans.is_empty()));
        assert!(seq.results.iter().any(|r| !r.plan_reports.is_empty()));
        for threads in [1, 2, 3, 8] {
            let last = std::sync::Mutex::new((0.0, 0));
            let par = run_parallel(&s.resolve().unwrap(), &g, None, threads, &|d, t| {
                let mut l = last.lock().unwrap();
                l.0 = f64::max(l.0, d);
                l.1 = t;
                true
            })
            .unwrap();
            assert_eq!(bits(&par), want, "{seeds} seeds on {threads} threads");
            let (d, t) = *last.lock().unwrap();
            assert_eq!(d, t as f64, "progress reaches the total");
        }
        // Items run one by one, each in its own partial, merged backwards: with a fresh
        // seed cache each, and with one cache kept across them as a page worker keeps
        // it (then every item after the first of its seed reuses the cost model).
        let resolved = s.resolve().unwrap();
        let items = work_items(&s.resolve().unwrap(), 4);
        let mut kept = SeedCache::default();
        for shared in [false, true] {
            let mut parts: Vec<Partial> = items
                .iter()
                .map(|it| {
                    let mut fresh = SeedCache::default();
                    let cache = if shared { &mut kept } else { &mut fresh };
                    run_part(
                        &s.resolve().unwrap(),
                        &g,
                        None,
                        std::slice::from_ref(it),
                        cache,
                        &mut |_, _| true,
                    )
                    .unwrap()
                })
                .collect();
            parts.reverse();
            assert_eq!(
                bits(&merge(&s.resolve().unwrap(), &parts).unwrap()),
                want,
                "shared {shared}"
            );
        }
        assert_eq!(kept.kept.as_ref().map(|k| k.seed), Some(seeds - 1));
        let mut parts: Vec<Partial> = items
            .iter()
            .map(|it| {
                let mut cache = SeedCache::default();
                run_part(
                    &s.resolve().unwrap(),
                    &g,
                    None,
                    std::slice::from_ref(it),
                    &mut cache,
                    &mut |_, _| true,
                )
                .unwrap()
            })
            .collect();
        parts.reverse();
        // Through JSON (as the page's workers pass them): the same.
        let json = serde_json::to_string(&parts).unwrap();
        let back: Vec<Partial> = serde_json::from_str(&json).unwrap();
        assert_eq!(bits(&merge(&s.resolve().unwrap(), &back).unwrap()), want);
        assert!(items.iter().all(|it| item_units(&resolved, it) > 0));
    }
}

/// The page's finer tasks: each placer placed in one worker ([`place_item`]), its pairs run
/// in any worker, given the plan's bytes or holding it ([`simulate_pairs`]), joined
/// ([`join_pairs`]) and merged: the bits of the sequential run, row errors included.
#[test]
fn placement_tasks_and_their_pairs_anywhere_have_the_bits_of_a_sequential_run() {
    for seeds in [1, 2] {
        let (s, g) = every_strategy(seeds);
        let resolved = s.resolve().unwrap();
        let want = bits(&run(&resolved, &g, None, &mut |_, _| true).unwrap());
        let items = work_items(&resolved, 2);
        assert!(items.iter().all(|it| it.placers.len() == 1));
        // Two workers' caches, kept across tasks as a page worker keeps its session's.
        let (mut a, mut b) = (SeedCache::default(), SeedCache::default());
        let mut parts = Vec::new();
        let mut held_and_sent = 0;
        for (k, item) in items.iter().enumerate() {
            let (placer, other) = if k % 2 == 0 {
                (&mut a, &mut b)
            } else {
                (&mut b, &mut a)
            };
            let mut last = 0.0;
            let (part, plan) = place_item(&resolved, &g, None, item, placer, &mut |d, t| {
                assert_eq!(t, 1);
                last = d;
                true
            })
            .unwrap();
            assert_eq!(last, 1.0, "progress reaches the placement's one unit");
            let n = item_units(&resolved, item) - 1;
            let Some(plan) = plan else {
                // Did not place (or its seed failed): nothing to run, the part is whole.
                parts.push(join_pairs(part, Vec::new()).unwrap());
                continue;
            };
            // Odd positions where it placed (holding the plan), even ones in the other
            // worker (sent the plan), backwards; then put back in pair order.
            let odd: Vec<usize> = (0..n).filter(|j| j % 2 == 1).collect();
            let even: Vec<usize> = (0..n).filter(|j| j % 2 == 0).rev().collect();
            let at_home = simulate_pairs(
                &resolved,
                &g,
                None,
                item,
                None,
                &odd,
                placer,
                &mut |_, _| true,
            )
            .unwrap();
            let away = simulate_pairs(
                &resolved,
                &g,
                None,
                item,
                Some(&plan),
                &even,
                other,
                &mut |_, _| true,
            )
            .unwrap();
            held_and_sent += usize::from(!odd.is_empty() && !even.is_empty());
            let mut outcomes = vec![None; n];
            for (j, o) in odd.iter().zip(at_home).chain(even.iter().zip(away)) {
                outcomes[*j] = Some(o);
            }
            let outcomes: Vec<_> = outcomes.into_iter().map(Option::unwrap).collect();
            // Through JSON, as the workers pass them.
            let outcomes =
                serde_json::from_str(&serde_json::to_string(&outcomes).unwrap()).unwrap();
            parts.push(join_pairs(part, outcomes).unwrap());
        }
        assert!(held_and_sent > 3, "the test splits placements' pairs");
        parts.reverse();
        assert_eq!(
            bits(&merge(&resolved, &parts).unwrap()),
            want,
            "{seeds} seeds"
        );
    }
}

/// A simulation task without a plan it holds, with bytes that are not a plan or not this
/// problem's, or a placement task of several placers, is an error that says so; so is a
/// join that does not fit its part.
#[test]
fn placement_tasks_refuse_what_does_not_fit() {
    let (s, g) = every_strategy(1);
    let resolved = s.resolve().unwrap();
    let items = work_items(&resolved, 2);
    let item = &items[0];
    let mut cache = SeedCache::default();
    let go = &mut |_: f64, _: usize| true;
    // The error of simulating `pairs` of `item` on `plan`.
    let sim = |cache: &mut SeedCache, plan: Option<&[u8]>, pairs: &[usize]| {
        simulate_pairs(
            &resolved,
            &g,
            None,
            item,
            plan,
            pairs,
            cache,
            &mut |_, _| true,
        )
        .unwrap_err()
        .to_string()
    };
    let e = sim(&mut cache, None, &[0]);
    assert!(e.contains("no placement of placer 0 at seed 0"), "{e}");
    let e = sim(&mut cache, Some(b"{"), &[0]);
    assert!(e.contains("does not decode"), "{e}");
    let (part, plan) = place_item(&resolved, &g, None, item, &mut cache, go).unwrap();
    let mut plan: serde_json::Value = serde_json::from_slice(&plan.unwrap()).unwrap();
    plan["placement"][0] = 99.into();
    let plan = serde_json::to_vec(&plan).unwrap();
    let e = sim(&mut cache, Some(&plan), &[0]);
    assert!(e.contains("does not fit"), "{e}");
    let e = sim(&mut cache, None, &[50]);
    assert!(e.contains("pair position 50 is out of range"), "{e}");
    let two = WorkItem {
        seed: 0,
        placers: vec![0, 1],
    };
    let e = place_item(&resolved, &g, None, &two, &mut cache, go)
        .unwrap_err()
        .to_string();
    assert!(e.contains("one placer, not 2"), "{e}");
    let mut two_items = part.clone();
    two_items.items.push(part.items[0].clone());
    let e = join_pairs(two_items, Vec::new()).unwrap_err().to_string();
    assert!(e.contains("not exactly one item"), "{e}");
}

#[test]
fn work_items_split_by_placer_when_seeds_are_few() {
    let (s, _) = every_strategy(2);
    let n = place::PLACERS.len();
    let one = work_items(&s.resolve().unwrap(), 1);
    assert_eq!(one.len(), 2);
    assert_eq!(one[1].placers.len(), n);
    let two = work_items(&s.resolve().unwrap(), 2);
    assert_eq!(two.len(), 2 * n);
    assert_eq!(
        two[n],
        WorkItem {
            seed: 1,
            placers: vec![0]
        }
    );
    let (s, _) = every_strategy(8);
    assert_eq!(work_items(&s.resolve().unwrap(), 2).len(), 8);
}

#[test]
fn merge_refuses_missing_repeated_and_foreign_parts() {
    let (s, g) = every_strategy(2);
    let items = work_items(&s.resolve().unwrap(), 2);
    let part = |its: &[WorkItem]| {
        run_part(
            &s.resolve().unwrap(),
            &g,
            None,
            its,
            &mut SeedCache::default(),
            &mut |_, _| true,
        )
        .unwrap()
    };
    let e = merge(&s.resolve().unwrap(), &[part(&items[1..])])
        .unwrap_err()
        .to_string();
    assert!(e.contains("miss seed 0 of placer single"), "{e}");
    let e = merge(&s.resolve().unwrap(), &[part(&items), part(&items[..1])])
        .unwrap_err()
        .to_string();
    assert!(e.contains("repeat seed 0 of placer single"), "{e}");
    let e = merge(&s.resolve().unwrap(), &[]).unwrap_err().to_string();
    assert!(e.contains("no partial comparison"), "{e}");
    let mut other = part(&items);
    other.items[0].item.seed = 5;
    let e = merge(&s.resolve().unwrap(), &[other])
        .unwrap_err()
        .to_string();
    assert!(e.contains("seed index 5"), "{e}");
    let e = run_part(
        &s.resolve().unwrap(),
        &g,
        None,
        &[WorkItem {
            seed: 0,
            placers: vec![99],
        }],
        &mut SeedCache::default(),
        &mut |_, _| true,
    )
    .map(|p| merge(&s.resolve().unwrap(), &[p]))
    .unwrap()
    .unwrap_err()
    .to_string();
    assert!(e.contains("placer index 99 is out of range"), "{e}");
}

/// A seed the scenario cannot realize is the comparison's error, the same whether the
/// run is sequential or parallel (the first such seed, not the first to finish).
#[test]
fn a_seed_that_cannot_run_is_the_error_of_every_split() {
    let g = testutil::graph(GRAPH);
    let text = r#"{"devices":[{"id":"x","speed":1},{"id":"y","speed":2}],"bandwidth":2}"#;
    let c = testutil::cluster(text);
    let mut s = scenario(ClusterSource::File("c".into()), 3);
    // A set speed for a device the cluster lacks fails when a seed is realized.
    s.what_if.speeds.insert("nope".into(), 1.0);
    let seq = run(&s.resolve().unwrap(), &g, Some(&c), &mut |_, _| true);
    let par = run_parallel(&s.resolve().unwrap(), &g, Some(&c), 3, &|_, _| true);
    assert!(seq.is_err(), "{seq:?}");
    assert_eq!(seq, par);
}

#[test]
fn cancel_stops_a_parallel_run() {
    let (s, g) = every_strategy(4);
    let calls = std::sync::atomic::AtomicUsize::new(0);
    let e = run_parallel(&s.resolve().unwrap(), &g, None, 2, &|_, _| {
        calls.fetch_add(1, std::sync::atomic::Ordering::SeqCst) < 3
    })
    .unwrap_err();
    assert_eq!(e, Error::Cancelled);
}

/// The warm-up runs every default pair on its generated graph and cluster, and every
/// one but Expert's (which needs layers) runs: a failed pair would leave cold the code
/// it should warm.
#[test]
fn warm_up_runs_every_default_pair() {
    let (scenario, text) = warm_up_case(300, 5);
    let l = crate::scenario::load::load(scenario, &|_| Ok(text.clone().into_bytes())).unwrap();
    let c = run(
        &l.scenario.resolve().unwrap(),
        &l.graph,
        l.cluster.as_ref(),
        &mut |_, _| true,
    )
    .unwrap();
    assert_eq!(c.graph.nodes, 300);
    let placers = crate::place::default_placers();
    for p in &placers {
        assert!(c.results.iter().any(|r| &r.placer == p), "{p} did not run");
    }
    for r in &c.results {
        if r.placer == "expert" {
            // Expert splits by layer, and a generated graph has none: its row says so.
            assert!(
                r.error
                    .as_deref()
                    .is_some_and(|e| e.contains("nodes[].layer")),
                "{r:?}"
            );
            continue;
        }
        assert!(
            r.error.is_none(),
            "{}/{}: {:?}",
            r.placer,
            r.scheduler,
            r.error
        );
        assert!(r.makespan.is_finite() && r.makespan > 0.0);
    }
    assert!(c.results.iter().all(|r| r.devices.len() == 5));
}

/// A plan's item keys name its items' placers: one per placer when split, all of them
/// joined on one worker (the page orders items by these across runs).
#[test]
fn work_plan_keys_name_the_items_placers() {
    let (s, _) = every_strategy(1);
    let split = work_plan(&s.resolve().unwrap(), 2);
    assert_eq!(split.keys, s.placers);
    let one = work_plan(&s.resolve().unwrap(), 1);
    assert_eq!(one.keys, vec![s.placers.join(",")]);
}
