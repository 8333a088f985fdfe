//! Tests of the `pesto` placer: hand-computed optima (T1-T5, E1), the anytime search against
//! proven optima, coarse graphs, warm starts, parameters and cancel.

use super::*;
use crate::plan::History;
use crate::sim::SimResult;
use crate::testutil::{cluster, graph};

/// Two identical GPUs, speed 1, bandwidth 1, latency 0, with
/// `memory` bytes each when given.
fn gpus(memory: Option<f64>) -> crate::model::cluster::Cluster {
    let m = memory.map_or(String::new(), |m| format!(r#","memory":{m}"#));
    cluster(&format!(
        r#"{{"devices":[{{"id":"g0","kind":"gpu","speed":1{m}}},{{"id":"g1","kind":"gpu","speed":1{m}}}],"bandwidth":1}}"#
    ))
}

fn ctx(links: LinkModel) -> PlaceContext<'static> {
    let mut ctx = PlaceContext::quiet(Rng::new(7));
    ctx.pair = ctx.pair.clone().with_links(links);
    ctx
}

/// The plan, and the makespan `pesto x given` simulates (the context's pair, which a
/// comparison runs the plan's row with).
fn solve(p: &Problem, links: LinkModel, params: Params) -> (Plan, SimResult) {
    let mut c = ctx(links);
    let plan = Pesto.plan(p, &params, &mut c).unwrap();
    verify(p, &plan.placement).unwrap();
    plan.check(p).unwrap();
    let r = c
        .pair
        .simulate(p, &plan.placement, plan.order.as_ref(), true);
    assert_eq!(r.unfinished, 0);
    (plan, r)
}

/// The plan's report, its history checked: improvements only (work never decreasing,
/// the objective never rising, the bound never falling but to stay at most the
/// objective, each point better in one of them), every bound at most its objective, at most `History::CAP` points, the last
/// within the report's work, at most its objective and, when the report bounds the
/// instance, at least its bound.
fn report(plan: &Plan) -> &SolveReport {
    let rep = plan.report.as_ref().unwrap();
    let h = &rep.history;
    assert!(!h.is_empty() && h.len() <= History::CAP, "{h:?}");
    for w in h.windows(2) {
        assert!(w[0].work <= w[1].work, "{h:?}");
        assert!(w[1].objective <= w[0].objective, "{h:?}");
        assert!(w[1].bound >= w[0].bound.min(w[1].objective), "{h:?}");
        assert!(
            w[1].objective < w[0].objective || w[1].bound > w[0].bound,
            "{h:?}"
        );
    }
    for x in h {
        assert!(x.bound <= x.objective, "{h:?}");
    }
    let last = h.last().unwrap();
    assert!(
        last.work <= rep.work && last.objective <= rep.objective,
        "{rep:?}"
    );
    if rep.bound_of == BoundScope::Instance {
        assert!(last.bound >= rep.bound.unwrap(), "{rep:?}");
    }
    rep
}

/// Asserts a proven optimum: status, bound == objective == the simulated makespan.
fn assert_optimal(plan: &Plan, r: &SimResult, want: f64) {
    let rep = report(plan);
    assert_eq!(rep.status, SolveStatus::Optimal, "{rep:?}");
    assert_eq!(rep.objective, want, "{rep:?}");
    assert_eq!(rep.bound, Some(want));
    assert_eq!(rep.bound_of, BoundScope::Instance);
    assert_eq!(r.makespan, want);
}

/// The defaults with a budget of 4,000 schedules simulated (about a hundredth of the
/// automatic one on these tiny instances), enough for them and quick in a debug build.
fn defaults() -> Params {
    Params::defaults(INFO.params).with("budget", 4000.0)
}

fn exact() -> Params {
    defaults().with("mode", 2.0)
}

/// docs/pesto.md T1: A(2) -> B(6), A -> C(6), B -> D(2), C -> D(2), every edge 1 byte.
fn t1() -> crate::model::graph::Graph {
    graph(
        r#"{"nodes":[{"id":"A","cost":2},{"id":"B","cost":6},{"id":"C","cost":6},{"id":"D","cost":2}],
            "edges":[{"src":"A","dst":"B","bytes":1},{"src":"A","dst":"C","bytes":1},
                     {"src":"B","dst":"D","bytes":1},{"src":"C","dst":"D","bytes":1}]}"#,
    )
}

/// T1: OPT = 11 under fcfs and parallel links: {A,B} | {C,D} (or its mirror), each path
/// 2 + 6 + 1 + 2; B and C on one device give >= 16, D with B gives 12. LB: CP 10.
#[test]
fn t1_diamond_is_proven_optimal_at_11() {
    let g = t1();
    let c = gpus(None);
    let p = Problem::new(&g, &c).unwrap();
    for links in [LinkModel::Fcfs, LinkModel::Parallel] {
        let (plan, r) = solve(&p, links, exact());
        assert_optimal(&plan, &r, 11.0);
        let pl = &plan.placement;
        assert_eq!(pl[0], pl[1]);
        assert_eq!(pl[2], pl[3]);
        assert_ne!(pl[0], pl[2]);
    }
}

/// T2 congestion + memory (footprint = `mem`): S(1, mem 5) -> X and
/// Y (1, mem 5 each); X -> T(1, mem 0), Y -> T; every edge 3 bytes; 10 bytes per GPU.
/// fcfs OPT = 8 at {S,X} | {Y,T} (S->Y [1,4], X->T [4,7], T [7,8]); parallel OPT = 6.
#[test]
fn t2_congestion_and_memory() {
    let g = graph(
        r#"{"nodes":[{"id":"S","cost":1,"mem":5},{"id":"X","cost":1,"mem":5},{"id":"Y","cost":1,"mem":5},{"id":"T","cost":1}],
            "edges":[{"src":"S","dst":"X","bytes":3},{"src":"S","dst":"Y","bytes":3},
                     {"src":"X","dst":"T","bytes":3},{"src":"Y","dst":"T","bytes":3}]}"#,
    );
    let c = gpus(Some(10.0));
    let mut p = Problem::new(&g, &c).unwrap();
    p.footprint = p.mem.clone();
    let (plan, r) = solve(&p, LinkModel::Fcfs, exact());
    assert_optimal(&plan, &r, 8.0);
    let (plan, r) = solve(&p, LinkModel::Parallel, exact());
    assert_optimal(&plan, &r, 6.0);
    // The instance bound max(CP, work) = 3 is valid but loose.
    assert_eq!(lower_bound(&p), 3.0);
}

/// T3 order only: A(1) -> B(4), A -> C(1), C -> D(4); A, B, C pinned to g0, D to g1.
/// OPT = 7: g0 runs A, C, B; C->D in [2,3]; D in [3,7]. B before C gives 11.
#[test]
fn t3_order_matters() {
    let g = graph(
        r#"{"nodes":[{"id":"A","cost":1,"device":"g0"},{"id":"B","cost":4,"device":"g0"},
                     {"id":"C","cost":1,"device":"g0"},{"id":"D","cost":4,"device":"g1"}],
            "edges":[{"src":"A","dst":"B","bytes":1},{"src":"A","dst":"C","bytes":1},{"src":"C","dst":"D","bytes":1}]}"#,
    );
    let c = gpus(None);
    let p = Problem::new(&g, &c).unwrap();
    let (plan, r) = solve(&p, LinkModel::Fcfs, exact());
    assert_optimal(&plan, &r, 7.0);
    let ops = &r.trace.as_ref().unwrap().ops;
    assert_eq!(ops[2], (1.0, 2.0));
    assert_eq!(ops[3], (3.0, 7.0));
}

/// T4, six ops (optimum checked by brute force): p = [2,5,1,4,2,1] for A..F; A->B 1, A->C 1,
/// C->D 2, A->E 1, B->F 1, D->F 1, E->F 1 bytes. OPT = 10. LB: CP 8, work 7.5.
#[test]
fn t4_six_ops() {
    let g = graph(
        r#"{"nodes":[{"id":"A","cost":2},{"id":"B","cost":5},{"id":"C","cost":1},{"id":"D","cost":4},{"id":"E","cost":2},{"id":"F","cost":1}],
            "edges":[{"src":"A","dst":"B","bytes":1},{"src":"A","dst":"C","bytes":1},{"src":"C","dst":"D","bytes":2},
                     {"src":"A","dst":"E","bytes":1},{"src":"B","dst":"F","bytes":1},{"src":"D","dst":"F","bytes":1},{"src":"E","dst":"F","bytes":1}]}"#,
    );
    let c = gpus(None);
    let p = Problem::new(&g, &c).unwrap();
    assert_eq!(lower_bound(&p), 8.0);
    let (plan, r) = solve(&p, LinkModel::Fcfs, exact());
    assert_optimal(&plan, &r, 10.0);
    // Mode 0 proves it by itself on a graph this small.
    let (plan, r) = solve(&p, LinkModel::Fcfs, defaults());
    assert_optimal(&plan, &r, 10.0);
}

fn t5() -> crate::model::graph::Graph {
    graph(
        r#"{"nodes":[{"id":"S","cost":3,"mem":2},{"id":"X","cost":1,"mem":3},{"id":"Y","cost":4,"mem":3},{"id":"Z","cost":2,"mem":1}],
            "edges":[{"src":"S","dst":"X","bytes":4},{"src":"S","dst":"Y","bytes":3},{"src":"S","dst":"Z","bytes":2}]}"#,
    )
}

/// T5, Fig. 5 in miniature: S(3, mem 2) -> X(1, mem 3) [4 bytes], Y(4, mem 3) [3],
/// Z(2, mem 1) [2]; 6 bytes per GPU. fcfs OPT = 9 at {S,Y,Z} | {X}; parallel OPT = 8 at
/// {S,Y} | {X,Z}, which scores 10 or 11 under fcfs. `pesto.congestion=0` (searching as if
/// links never contended) picks that placement and so does worse under fcfs than the
/// congestion-aware search.
#[test]
fn t5_congestion_awareness() {
    let g = t5();
    let c = gpus(Some(6.0));
    let mut p = Problem::new(&g, &c).unwrap();
    p.footprint = p.mem.clone();
    let (plan, r) = solve(&p, LinkModel::Fcfs, exact());
    assert_optimal(&plan, &r, 9.0);
    let pl = &plan.placement;
    assert_eq!(
        (pl[0] == pl[2], pl[0] == pl[3], pl[0] == pl[1]),
        (true, true, false)
    );
    let (plan, r) = solve(&p, LinkModel::Parallel, exact());
    assert_optimal(&plan, &r, 8.0);
    let (plan, r) = solve(&p, LinkModel::Fcfs, defaults().with("congestion", 0.0));
    let rep = report(&plan);
    assert!(rep.objective >= 10.0, "{rep:?}");
    assert_eq!(rep.objective, r.makespan);
    assert_eq!(rep.status, SolveStatus::Feasible);
    let pl = &plan.placement;
    assert_eq!(
        (pl[0] == pl[2], pl[1] == pl[3], pl[0] == pl[1]),
        (true, true, false)
    );
}

/// E1, the 2x2 LSTM grid: emb(1), l0t0(2), l0t1(2), l1t0(2), l1t1(2), sm(1); 1-byte edges
/// emb->l0t0, l0t0->l0t1, l0t0->l1t0, l0t1->l1t1, l1t0->l1t1, l1t1->sm. Brute force gives
/// OPT 9 (Expert's layer split reaches it: emb[0,1], l0t0[1,3], xfer[3,4],
/// l0t1[3,5], l1t0[4,6], xfer[5,6], l1t1[6,8], sm[8,9]); one device takes 10.
#[test]
fn e1_lstm_grid_optimum_is_9() {
    let g = graph(
        r#"{"nodes":[{"id":"emb","cost":1,"layer":0},{"id":"l0t0","cost":2,"layer":0},{"id":"l0t1","cost":2,"layer":0},
                     {"id":"l1t0","cost":2,"layer":1},{"id":"l1t1","cost":2,"layer":1},{"id":"sm","cost":1,"layer":1}],
            "edges":[{"src":"emb","dst":"l0t0","bytes":1},{"src":"l0t0","dst":"l0t1","bytes":1},{"src":"l0t0","dst":"l1t0","bytes":1},
                     {"src":"l0t1","dst":"l1t1","bytes":1},{"src":"l1t0","dst":"l1t1","bytes":1},{"src":"l1t1","dst":"sm","bytes":1}]}"#,
    );
    let c = gpus(None);
    let p = Problem::new(&g, &c).unwrap();
    for links in [LinkModel::Fcfs, LinkModel::Parallel] {
        let (plan, r) = solve(&p, links, exact());
        assert_optimal(&plan, &r, 9.0);
    }
}

/// A negative budget (and other out-of-range values) is an error naming the parameter.
#[test]
fn bad_parameters_are_errors_naming_them() {
    let g = t5();
    let c = gpus(None);
    let p = Problem::new(&g, &c).unwrap();
    for (name, value) in [
        ("budget", -1.0),
        ("local", 2.0),
        ("mode", 3.0),
        ("exact_nodes", 0.5),
    ] {
        let e = Pesto
            .plan(&p, &defaults().with(name, value), &mut ctx(LinkModel::Fcfs))
            .unwrap_err()
            .to_string();
        assert!(e.contains(&format!("pesto.{name}")), "{e}");
    }
}

/// A user who cancels stops the search with `Error::Cancelled`.
#[test]
fn cancel_is_honoured() {
    let g = t5();
    let c = gpus(None);
    let p = Problem::new(&g, &c).unwrap();
    let mut calls = 0;
    let mut stop = |_: f64| {
        calls += 1;
        calls < 3
    };
    let mut c = PlaceContext::new(Rng::new(1), &mut stop);
    let e = Pesto.plan(&p, &defaults(), &mut c).unwrap_err();
    assert!(matches!(e, Error::Cancelled), "{e}");
}

/// The benchmarks' instance generator (`model::synthetic::gpu_instance`).
fn random_instance(
    n: usize,
    k: usize,
    seed: u64,
) -> (crate::model::graph::Graph, crate::model::cluster::Cluster) {
    crate::model::synthetic::gpu_instance(n, k, seed).unwrap()
}

/// H1 (a smoke test): on random 8-op instances on 2 and 3 GPUs with
/// fcfs links, exact mode proves an optimum; the anytime mode never goes below it and
/// reaches it with 40,000 schedules simulated (about a tenth of the automatic budget).
#[test]
fn h1_anytime_reaches_the_proven_optimum() {
    let mut proven = 0;
    for seed in 0..6u64 {
        let k = 2 + (seed % 2) as usize;
        let (g, c) = random_instance(8, k, seed);
        let p = Problem::new(&g, &c).unwrap();
        let (plan, r) = solve(&p, LinkModel::Fcfs, exact());
        let rep = report(&plan);
        assert_eq!(rep.objective, r.makespan);
        if rep.status != SolveStatus::Optimal {
            continue;
        }
        proven += 1;
        let opt = rep.objective;
        let anytime = defaults().with("mode", 1.0).with("budget", 40_000.0);
        let (any, ra) = solve(&p, LinkModel::Fcfs, anytime);
        let a = report(&any);
        assert_eq!(a.objective, ra.makespan);
        assert_eq!(a.status, SolveStatus::Feasible);
        assert!(a.bound.unwrap() <= opt);
        assert_eq!(
            a.objective, opt,
            "seed {seed}: anytime {} vs optimum {opt}",
            a.objective
        );
    }
    assert!(proven >= 5, "only {proven} of 6 proven");
}

/// Coarsened graphs: units are coarse vertices, the plan expands to the full graph, the
/// objective is still the simulated makespan, and nothing claims optimality on the
/// instance: the exact mode proves the coarse graph's optimum, reported with a bound of
/// the coarse graph only.
#[test]
fn coarse_search_expands_and_never_claims_optimality() {
    let (g, c) = random_instance(60, 3, 11);
    let p = Problem::new(&g, &c).unwrap();
    let params = defaults()
        .with("target", 15.0)
        .with("budget", 1100.0)
        .with("mode", 2.0);
    let (plan, r) = solve(&p, LinkModel::Fcfs, params.clone());
    let rep = report(&plan);
    assert_eq!(rep.objective, r.makespan);
    assert_eq!(rep.status, SolveStatus::CoarseOptimal, "{rep:?}");
    assert_eq!(rep.bound_of, BoundScope::Coarse);
    let n = SearchUnits::new(&p, 15).unwrap().coarse.unwrap().len();
    assert_eq!(rep.coarse_vertices, Some(n as u32));
    assert_eq!(
        rep.label(),
        format!("optimal for the {n}-vertex coarse graph")
    );
    // Without the exact search: the instance's bound, no claim.
    let (plan, r) = solve(&p, LinkModel::Fcfs, params.with("mode", 1.0));
    let rep = report(&plan);
    assert_eq!(rep.status, SolveStatus::Feasible);
    assert_eq!(rep.bound_of, BoundScope::Instance);
    assert!(rep.bound.unwrap() <= r.makespan);
    let units = SearchUnits::new(&p, 15).unwrap();
    assert!(
        units.coarse.is_some() && units.len() <= 20,
        "{}",
        units.len()
    );
}

/// T1 coarsened to 3 vertices (`pesto.target=3`): all edges weigh 1 byte, so the first
/// candidate (A,B) merges and the round stops at 3 vertices: AB(8), C(6), D(2) with
/// edges AB->C, AB->D, C->D of 1 byte. The coarse graph's optimum is 16, everything on
/// one GPU: C on the other GPU waits for all of AB (8 + 1 + 6, then D at >= 17); D alone
/// waits for C (14 + 1 + 2 = 17). The instance's own optimum, 11 ({A,B} | {C,D}, a
/// placement of the coarse units), is what the plan reaches: a coarse optimum is no
/// bound of the instance (Pesto21 §3.3 restricts the schedule), so it is reported with
/// scope `coarse` and never compared with the instance's makespans.
#[test]
fn t1_coarsened_to_three_vertices_has_coarse_optimum_16() {
    let g = t1();
    let c = gpus(None);
    let p = Problem::new(&g, &c).unwrap();
    let units = SearchUnits::new(&p, 3).unwrap();
    assert_eq!(units.members, vec![vec![0, 1], vec![2], vec![3]]);
    for links in [LinkModel::Fcfs, LinkModel::Parallel] {
        let (plan, r) = solve(&p, links, exact().with("target", 3.0));
        let rep = report(&plan);
        assert_eq!(rep.status, SolveStatus::CoarseOptimal, "{rep:?}");
        assert_eq!(rep.bound_of, BoundScope::Coarse);
        assert_eq!(rep.bound, Some(16.0));
        assert_eq!(rep.objective, r.makespan);
        assert_eq!(rep.objective, 11.0);
    }
}

/// The anytime result is never worse than any warm start under the same decoder, and the
/// same inputs give the same plan.
#[test]
fn never_worse_than_a_warm_start_and_deterministic() {
    for seed in 0..3u64 {
        let (g, c) = random_instance(40, 2 + seed as usize, seed);
        let p = Problem::new(&g, &c).unwrap();
        let params = defaults().with("budget", 2500.0);
        let (plan, r) = solve(&p, LinkModel::Fcfs, params.clone());
        let (again, _) = solve(&p, LinkModel::Fcfs, params);
        assert_eq!(plan, again);
        let mut c = ctx(LinkModel::Fcfs);
        let mut dec = Decoder::new(&p, c.pair.clone(), 1);
        let warm = warm_starts(&p, &mut c, &mut dec).unwrap();
        // Every warm start but expert (these graphs have no layers), heft twice more, and
        // the layer cut when one fits.
        let mut d2 = Decoder::new(&p, c.pair.clone(), 1);
        let cut = layer_cut(&mut d2, &heft_rank_u(&p));
        assert_eq!(warm.len(), WARM.len() - 1 + 2 + cut.is_some() as usize);
        if let Some(cut) = cut {
            assert!(warm.iter().any(|w| w.makespan == cut.makespan));
        }
        assert!(r.makespan <= warm[0].makespan);
    }
}

/// `pesto.lns` (off by default): the windows run after the other searches on a share of
/// the budget, on a coarsened graph and on a whole one; their solver steps count in the
/// report's work and its unit, the history stays within it, the plan is valid and the
/// same inputs give the same plan.
#[test]
fn lns_windows_count_their_steps_and_are_deterministic() {
    for (n, target) in [(40, 200.0), (60, 20.0)] {
        let (g, c) = random_instance(n, 3, 4);
        let p = Problem::new(&g, &c).unwrap();
        let params = defaults()
            .with("mode", 1.0)
            .with("budget", 400.0)
            .with("target", target)
            .with("lns", 0.5)
            .with("lns_ops", 12.0);
        let (plan, r) = solve(&p, LinkModel::Fcfs, params.clone());
        let rep = report(&plan);
        assert_eq!(rep.objective, r.makespan);
        assert_eq!(rep.work_unit, "schedules simulated + solver steps", "{n}");
        let (again, _) = solve(&p, LinkModel::Fcfs, params.clone());
        assert_eq!(plan, again);
        // Off: no solver steps.
        let (off, _) = solve(&p, LinkModel::Fcfs, params.with("lns", 0.0));
        assert_eq!(report(&off).work_unit, "schedules simulated");
    }
}
