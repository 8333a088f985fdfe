use super::*;
use crate::model::cluster::Cluster;
use crate::model::cluster::DevIx;
use crate::model::graph::Graph;
use crate::rng::Rng;
use crate::testutil::parse;

const LEGACY: Options = Options {
    channel: false,
    static_memory: true,
};

const ALL: [Options; 4] = [
    Options {
        channel: true,
        static_memory: false,
    },
    Options {
        channel: true,
        static_memory: true,
    },
    Options {
        channel: false,
        static_memory: false,
    },
    LEGACY,
];

/// A small random instance: integer costs and bytes (so that starts tie), shared
/// tensors, colocation groups, `mem`, a CPU-only op now and then, two to four devices
/// (GPUs and a CPU, two speeds), memory that sometimes binds.
fn random_instance(seed: u64) -> (Graph, Cluster) {
    let mut rng = Rng::derive(seed, &["etf-test"], 0);
    let n = 4 + rng.below(24) as usize;
    let k = 2 + rng.below(3) as usize;
    let mut nodes = Vec::new();
    let mut edges = Vec::new();
    for i in 0..n {
        let mut node = format!(r#"{{"id":"n{i}","cost":{}"#, 1 + rng.below(4));
        if rng.below(3) == 0 {
            node += &format!(r#","mem":{}"#, rng.below(6));
        }
        if i > 0 && rng.below(6) == 0 {
            node += &format!(r#","colocate":"g{}""#, rng.below(2));
        } else if rng.below(12) == 0 {
            node += r#","device":"cpu""#;
        }
        node += "}";
        nodes.push(node);
        if i == 0 {
            continue;
        }
        for _ in 0..rng.below(4) {
            let src = rng.below(i as u64);
            let bytes = rng.below(5);
            if rng.below(3) == 0 {
                edges.push(format!(
                    r#"{{"src":"n{src}","dst":"n{i}","bytes":{bytes},"tensor":"out"}}"#
                ));
            } else {
                edges.push(format!(
                    r#"{{"src":"n{src}","dst":"n{i}","bytes":{bytes}}}"#
                ));
            }
        }
    }
    let memory = if rng.below(2) == 0 {
        String::new()
    } else {
        format!(r#","memory":{}"#, 8 + rng.below(30))
    };
    let devices: Vec<String> = (0..k)
        .map(|d| {
            let kind = if d == 0 && rng.below(2) == 0 {
                "cpu"
            } else {
                "gpu"
            };
            format!(
                r#"{{"id":"d{d}","kind":"{kind}","speed":{}{memory}}}"#,
                1 + rng.below(2)
            )
        })
        .collect();
    let graph = format!(
        r#"{{"nodes":[{}],"edges":[{}]}}"#,
        nodes.join(","),
        edges.join(",")
    );
    let cluster = format!(
        r#"{{"devices":[{}],"bandwidth":{},"latency":{}}}"#,
        devices.join(","),
        1 + rng.below(3),
        rng.below(2) as f64 * 0.5
    );
    let g = Graph::from_json(&graph, "g");
    let c = Cluster::from_json(&cluster, "c");
    match (g, c) {
        (Ok(g), Ok(c)) => (g, c),
        // A group whose members demand different devices: drop the CPU pins.
        _ => parse(&graph.replace(r#","device":"cpu""#, ""), &cluster),
    }
}

/// A wide instance: layers of 12 to 40 side-by-side ops, each fed by one to three ops of
/// the layer before (shared tensors now and then, sizes that make transfers cost), four to
/// eight devices, memory that sometimes binds. Many ready ops wait on channels at once:
/// the shape where a channel move raises many stored estimates (issue 24). With
/// `rounding`, run times are 0 or multiples of 2^54 and tensors 0 to 3 times 2^52 bytes
/// plus 0 to 3, so a channel plus a transfer time rounds: unequal transfer times give
/// equal estimates (ties that must still go to the lower position), and zero times give
/// `0.0` sums.
fn wide_instance(seed: u64, rounding: bool) -> (Graph, Cluster) {
    wide_copies(seed, rounding, 1)
}

/// `copies` side-by-side copies of [`wide_instance`]'s graph (ids prefixed `cI`): the
/// copies' ops wait on the same transfer times from the same devices, so they share
/// bundles, whose leading channel turns as the channels move (issue 24e). With two or
/// more copies, one op in eight is in one of three colocation groups the copies share, and
/// memory binds half the time.
fn wide_copies(seed: u64, rounding: bool, copies: usize) -> (Graph, Cluster) {
    wide_on(seed, rounding, copies, false)
}

/// [`wide_copies`], on devices all of one speed when `alike` (their links are alike too):
/// each op's SCT devices are every device, so m-SCT's waiting steps meet steps where every
/// device is delayed (issue 24j).
fn wide_on(seed: u64, rounding: bool, copies: usize, alike: bool) -> (Graph, Cluster) {
    let label = if rounding {
        "etf-rounding-test"
    } else {
        "etf-wide-test"
    };
    let mut rng = Rng::derive(seed, &[label], 0);
    // Devices alike, half the time: every consumer of a producer reads one tensor, so
    // tensors reach devices for one consumer while others are ready.
    let shared = alike && rng.below(2) == 0;
    let layers = 3 + rng.below(3) as usize;
    let mut nodes = Vec::new();
    let mut edges = Vec::new();
    let mut previous: Vec<usize> = Vec::new();
    for _ in 0..layers {
        let width = 12 + rng.below(29) as usize;
        let mut layer = Vec::new();
        for _ in 0..width {
            let i = nodes.len();
            let cost = 1 + rng.below(4);
            let cost = if rounding {
                format!("{}", (cost - 1) as f64 * 2f64.powi(54))
            } else {
                cost.to_string()
            };
            let mut node = format!(r#"{{"id":"n{i}","cost":{cost}"#);
            if rng.below(4) == 0 {
                node += &format!(r#","mem":{}"#, rng.below(4));
            }
            if copies > 1 && rng.below(8) == 0 {
                // A group every copy shares: bundles whose members' units get placed.
                node += &format!(r#","colocate":"g{}""#, rng.below(3));
            }
            nodes.push(node + "}");
            if !previous.is_empty() {
                for _ in 0..1 + rng.below(3) {
                    let src = previous[rng.below(previous.len() as u64) as usize];
                    let bytes = if rounding {
                        let big = rng.below(4) as f64 * 2f64.powi(52);
                        big + rng.below(4) as f64
                    } else {
                        1.0 + rng.below(8) as f64
                    };
                    let tensor = if shared || rng.below(3) == 0 {
                        r#","tensor":"out""#
                    } else {
                        ""
                    };
                    edges.push(format!(
                        r#"{{"src":"n{src}","dst":"n{i}","bytes":{bytes}{tensor}}}"#
                    ));
                }
            }
            layer.push(i);
        }
        previous = layer;
    }
    let copy = |items: &[String]| -> Vec<String> {
        (0..copies)
            .flat_map(|c| {
                items
                    .iter()
                    .map(move |x| x.replace(r#"":"n"#, &format!(r#"":"c{c}n"#)))
            })
            .collect()
    };
    let (nodes, edges) = (copy(&nodes), copy(&edges));
    let k = 4 + rng.below(5) as usize;
    let memory = if copies > 1 && rng.below(2) == 0 {
        format!(r#","memory":{}"#, 60 + rng.below(200))
    } else if rng.below(4) == 0 {
        format!(r#","memory":{}"#, 24 + rng.below(40))
    } else {
        String::new()
    };
    // Devices alike are two or three, so that often every one of them is delayed.
    let k = if alike { 2 + k % 2 } else { k };
    // Devices alike in speed now and then have a link unlike the others: transfers from a
    // producer then differ by destination.
    let links = if alike && rng.below(2) == 0 {
        r#","links":[{"src":"d0","dst":"d1","bandwidth":7}]"#
    } else {
        ""
    };
    let memory = if alike && rng.below(2) == 0 {
        // Room for all: the classes' urgent times are read (memory short for some member
        // of a class makes it walk).
        String::new()
    } else {
        memory
    };
    let devices: Vec<String> = (0..k)
        .map(|d| {
            let speed = 1 + rng.below(2);
            let speed = if alike { 1 } else { speed };
            format!(r#"{{"id":"d{d}","kind":"gpu","speed":{speed}{memory}}}"#)
        })
        .collect();
    parse(
        &format!(
            r#"{{"nodes":[{}],"edges":[{}]}}"#,
            nodes.join(","),
            edges.join(",")
        ),
        &format!(
            r#"{{"devices":[{}],"bandwidth":{},"latency":{}{links}}}"#,
            devices.join(","),
            1 + rng.below(3),
            rng.below(2) as f64 * 0.5
        ),
    )
}

/// m-ETF's heaps against its direct loop on `p`, for every option: the same placement,
/// or both an error. Returns how many placements were compared.
fn heaps_agree(p: &Problem, label: &str) -> usize {
    let none = vec![None; p.node_count()];
    let mut placed = 0;
    for opts in ALL {
        let fast = schedule_index("m-etf", p, &none, opts, true);
        let simple = schedule_simple("m-etf", p, &none, opts);
        // Unchecked, devices that cannot win are not asked.
        let pruned = schedule_index("m-etf", p, &none, opts, false);
        assert_eq!(pruned.is_ok(), fast.is_ok(), "{label} {opts:?}");
        if let (Ok(a), Ok(b)) = (&pruned, &fast) {
            assert_eq!(a, b, "{label} {opts:?}: pruned");
        }
        match (&fast, &simple) {
            (Ok(a), Ok(b)) => {
                assert_eq!(a, b, "{label} {opts:?}");
                placed += 1;
            }
            (Err(_), Err(_)) => {}
            _ => panic!("{label} {opts:?}: {fast:?} against {simple:?}"),
        }
    }
    placed
}

/// The heaps against the direct loop on wide instances, for every option: the same
/// placement, or both an error.
#[test]
fn heaps_match_the_direct_loop_on_wide_graphs() {
    let mut placed = 0;
    for seed in 0..24 {
        let (g, c) = wide_instance(seed, false);
        let p = Problem::new(&g, &c).expect("a wide instance is valid");
        placed += heaps_agree(&p, &format!("wide seed {seed}"));
    }
    assert!(placed > 60, "only {placed} wide placements compared");
}

/// The same where sums round (see [`wide_instance`]): estimates tie across different
/// transfer times, across terms and at zero.
#[test]
fn heaps_match_the_direct_loop_where_sums_round() {
    let mut placed = 0;
    for seed in 0..24 {
        let (g, c) = wide_instance(seed, true);
        let p = Problem::new(&g, &c).expect("a wide instance is valid");
        placed += heaps_agree(&p, &format!("rounding seed {seed}"));
    }
    assert!(placed > 60, "only {placed} rounding placements compared");
}

/// The heaps against the direct loop on three copies of wide instances (shared colocation
/// groups, memory that binds): the same placement (or both an error), with bundles of
/// several members re-filed as their channels turn.
#[test]
fn heaps_match_the_direct_loop_on_copies() {
    use super::indexed::{Count, COUNTS, COUNT_KINDS};
    COUNTS.with(|c| c.set([0; COUNT_KINDS]));
    let mut placed = 0;
    for seed in 0..24 {
        for rounding in [false, true] {
            let (g, c) = wide_copies(seed, rounding, 3);
            let p = Problem::new(&g, &c).expect("copies of a wide instance are valid");
            placed += heaps_agree(&p, &format!("copies seed {seed} rounding {rounding}"));
        }
    }
    let counts = COUNTS.with(|c| c.get());
    let (joined, turned) = (
        counts[Count::Joined as usize],
        counts[Count::Turned as usize],
    );
    eprintln!("{placed} placements, {joined} joined a bundle, {turned} bundles turned");
    assert!(placed > 60, "only {placed} placements of copies compared");
    assert!(
        joined > 400,
        "only {joined} candidates joined a bundle with members"
    );
    assert!(turned > 400, "only {turned} bundles of several re-filed");
}

/// m-SCT's checked run (every waiting step against the direct step), its unchecked run and
/// its direct loop on copies of wide instances, with both kinds of favourites: the same
/// placement, or all three an error.
#[test]
fn sct_on_copies_matches_the_direct_loop() {
    let mut placed = 0;
    for seed in 0..6 {
        for (rounding, copies) in [(false, 2), (true, 3)] {
            let (g, c) = wide_copies(seed, rounding, copies);
            let p = Problem::new(&g, &c).expect("copies of a wide instance are valid");
            for favourite in [last_favourite(&p), every_other_favourite(&p)] {
                for opts in ALL {
                    let label = format!("seed {seed} copies {copies} {opts:?}");
                    let simple = schedule_simple("m-sct", &p, &favourite, opts);
                    let checked = schedule_index("m-sct", &p, &favourite, opts, true);
                    let pruned = schedule_index("m-sct", &p, &favourite, opts, false);
                    match (&checked, &simple, &pruned) {
                        (Ok(a), Ok(b), Ok(c)) => {
                            assert_eq!(a, b, "{label}");
                            assert_eq!(a, c, "{label}: pruned");
                            placed += 1;
                        }
                        (Err(_), Err(_), Err(_)) => {}
                        _ => panic!("{label}: {checked:?} {simple:?} {pruned:?}"),
                    }
                }
            }
        }
    }
    assert!(
        placed > 40,
        "only {placed} m-SCT placements of copies compared"
    );
}

/// Favourites for m-SCT's loop in tests: each op's first successor, every other op.
fn every_other_favourite(p: &Problem) -> Vec<Option<NodeIx>> {
    let g = p.graph;
    (0..p.node_count() as NodeIx)
        .map(|v| {
            (v % 2 == 0)
                .then(|| g.out_edges(v).first().map(|&e| g.edges[e as usize].dst))
                .flatten()
        })
        .collect()
}

/// m-SCT through the index (waiting steps included) against
/// the direct loop in every step: the same placement (or both an error) on random and
/// wide instances and copies of them (bundles), for every option, checked and unchecked.
#[test]
fn sct_index_matches_the_direct_loop() {
    let mut placed = 0;
    let mut waited = 0;
    let instances = (0..300)
        .map(random_instance)
        .chain((0..12).map(|seed| wide_instance(seed, false)))
        .chain((0..12).map(|seed| wide_instance(seed, true)))
        .chain((0..8).map(|seed| wide_copies(seed, seed % 2 == 1, 3)));
    for (i, (g, c)) in instances.enumerate() {
        let Ok(p) = Problem::new(&g, &c) else {
            continue;
        };
        let favourite = every_other_favourite(&p);
        for opts in ALL {
            let simple = schedule_simple("m-sct", &p, &favourite, opts);
            for check in [true, false] {
                let fast = schedule_index("m-sct", &p, &favourite, opts, check);
                match (&fast, &simple) {
                    (Ok(a), Ok(b)) => {
                        assert_eq!(a, b, "instance {i} {opts:?} check {check}");
                        placed += 1;
                    }
                    (Err(_), Err(_)) => {}
                    _ => panic!("instance {i} {opts:?}: {fast:?} against {simple:?}"),
                }
            }
        }
        let etf = schedule_simple("m-etf", &p, &vec![None; p.node_count()], LEGACY);
        let sct = schedule_simple("m-sct", &p, &favourite, LEGACY);
        if let (Ok(a), Ok(b)) = (etf, sct) {
            waited += usize::from(a != b);
        }
    }
    assert!(placed > 1200, "only {placed} placements compared");
    // The favourites change placements, so steps where a device waits were compared.
    assert!(waited > 20, "favourites changed only {waited} placements");
}

/// The heaps against the direct loop, and the legacy options against the loop this one
/// replaced: the same placement (or both an error) on 400 random instances, for every
/// option, with and without favourites.
#[test]
fn heaps_match_the_direct_loop_and_legacy_matches_before() {
    let mut placed = 0;
    for seed in 0..400 {
        let (g, c) = random_instance(seed);
        let Ok(p) = Problem::new(&g, &c) else {
            continue;
        };
        placed += heaps_agree(&p, &format!("seed {seed}"));
        let none = vec![None; p.node_count()];
        let before = legacy::legacy_schedule("m-etf", &p, &none);
        let now = schedule("m-etf", &p, &none, LEGACY);
        assert_eq!(before.is_ok(), now.is_ok(), "seed {seed}");
        if let (Ok(a), Ok(b)) = (before, now) {
            assert_eq!(a, b, "seed {seed}: legacy m-etf");
        }
        let favourite = every_other_favourite(&p);
        let before = legacy::legacy_schedule("m-sct", &p, &favourite);
        let now = schedule("m-sct", &p, &favourite, LEGACY);
        assert_eq!(before.is_ok(), now.is_ok(), "seed {seed}");
        if let (Ok(a), Ok(b)) = (before, now) {
            assert_eq!(a, b, "seed {seed}: legacy m-sct");
        }
    }
    assert!(placed > 800, "only {placed} placements compared");
}

/// Favourites for m-SCT's loop in tests: each op's last successor.
fn last_favourite(p: &Problem) -> Vec<Option<NodeIx>> {
    let g = p.graph;
    (0..p.node_count() as NodeIx)
        .map(|v| g.out_edges(v).last().map(|&e| g.edges[e as usize].dst))
        .collect()
}

/// m-SCT's waiting steps from the index against the direct step, step by step (the checked
/// run asserts each against `State::direct_step`) and placement by placement, with every op
/// or every other op favouring a child, on random instances (colocation, memory, a CPU, two
/// speeds) and wide ones (up to eight devices, sums that round), for every option; once as
/// the placer runs, and once without passing candidates over by a device that is not
/// delayed (`OPEN_RULE`), which spares most visits and walks, so those are met too. The
/// counts show the cases were met: delayed devices visited, or passed over whole (every
/// candidate waits, or is no better than on a device not delayed, by its SCT class), urgent
/// times computed there, candidates passed over for their SCT device or one not delayed,
/// and those passed over by an urgent time seen in an earlier step.
#[test]
fn waiting_steps_match_the_direct_step() {
    use super::indexed::{COUNTS, COUNT_KINDS, OPEN_RULE};
    let rule = |on: bool| {
        OPEN_RULE.with(|r| r.set(on));
        COUNTS.with(|c| c.set([0; COUNT_KINDS]));
        let placed = waiting_steps_agree();
        OPEN_RULE.with(|r| r.set(true));
        (placed, COUNTS.with(|c| c.get()))
    };
    let (
        placed,
        [steps, devices, urgent, elsewhere, visits, walks, seen, all_wait, open, read, ..],
    ) = rule(false);
    eprintln!("without the open rule: {placed} placements, {steps} waiting steps, {devices} delayed devices, {urgent} urgent, {elsewhere} elsewhere, {visits} visits, {walks} walks, {seen} seen, {all_wait} passed whole, {read} read from a class's urgent times");
    assert!(placed > 800, "only {placed} placements compared");
    assert!(steps > 4000, "only {steps} waiting steps");
    assert_eq!(open, 0, "passed over by a device not delayed");
    assert!(devices > 1500, "only {devices} delayed devices visited");
    // Delayed devices passed over whole: every candidate there waits past the best.
    assert!(
        all_wait > 1000,
        "only {all_wait} delayed devices passed whole"
    );
    assert!(urgent > 1000, "only {urgent} urgent times computed");
    assert!(elsewhere > 30, "only {elsewhere} candidates passed over");
    // A visit takes a candidate out that beats the best so far on its own start: each
    // becomes the best, or is delayed, passed over, or the favourite child (urgent times
    // are computed in walks too).
    assert!(
        visits > urgent / 2,
        "{visits} visits, {urgent} urgent times"
    );
    // Visits that met a candidate passed over by its urgent floor, or too many, walked.
    assert!(walks > 150, "only {walks} walks");
    // Candidates passed over by the urgent time seen in an earlier step where the floor
    // alone would not have passed them.
    assert!(
        seen > 100,
        "only {seen} passed over by an urgent time seen before"
    );
    let (on, [steps_on, devices_on, urgent_on, _, _, _, _, all_wait_on, open, read_on, ..]) =
        rule(true);
    eprintln!("with it: {on} placements, {steps_on} waiting steps, {devices_on} delayed devices, {urgent_on} urgent, {all_wait_on} passed whole, {open} passed over by a device not delayed, {read_on} read from a class's urgent times");
    assert_eq!((on, steps_on), (placed, steps), "the same runs");
    assert!(
        open > 100,
        "only {open} passed over by a device not delayed"
    );
    assert!(
        all_wait_on > all_wait + 500,
        "{all_wait_on} delayed devices passed whole, {all_wait} without the rule"
    );
    assert!(
        devices_on > 500,
        "only {devices_on} delayed devices visited"
    );
    assert!(urgent_on > 500, "only {urgent_on} urgent times computed");
}

/// m-SCT on devices alike, where steps come with every device delayed: the class's least
/// urgent time, read from [`urgents::Urgents`] instead of walking a delayed device, against
/// the direct step (the checked run) and the direct loop, for every option (without the
/// channel model, and where memory binds, the classes answer nothing and are walked), with
/// wide instances and copies of them (colocation groups shared, tensors shared, so some
/// members stop being regular when a tensor arrives), and ops of placed groups answered
/// apart (pinned).
#[test]
fn class_urgent_times_match_the_direct_step_on_devices_alike() {
    use super::indexed::{COUNTS, COUNT_KINDS};
    COUNTS.with(|c| c.set([0; COUNT_KINDS]));
    let instances = (0..64)
        .map(|seed| wide_on(seed + 200, seed % 4 == 3, 1, true))
        .chain((0..8).map(|seed| wide_on(seed + 300, seed % 2 == 1, 3, true)));
    let placed = sct_steps_agree(instances);
    let [steps, devices, urgent, _, _, walks, _, all_wait, open, read, _, _, pinned] =
        COUNTS.with(|c| c.get());
    eprintln!("{placed} placements, {steps} waiting steps, {devices} delayed devices visited, {urgent} urgent, {walks} walks, {all_wait} passed whole, {open} passed over by a device not delayed, {read} read from a class's urgent times, {pinned} answered by their pinned ops");
    assert!(placed > 400, "only {placed} placements compared");
    assert!(
        pinned > 100,
        "only {pinned} delayed devices answered by their pinned ops"
    );
    assert!(
        read > 250,
        "only {read} delayed devices read from urgent times"
    );
    assert!(devices > 500, "only {devices} delayed devices visited");
}

/// [`waiting_steps_match_the_direct_step`]'s runs: how many placements agreed.
fn waiting_steps_agree() -> usize {
    let instances = (0..200)
        .map(random_instance)
        .chain((0..8).map(|seed| wide_instance(seed + 100, false)))
        .chain((0..8).map(|seed| wide_instance(seed + 100, true)));
    sct_steps_agree(instances)
}

/// m-SCT's checked run (each waiting step against the direct step) against its direct loop
/// on `instances`, with both kinds of favourites and every option: the same placement, or
/// both an error. How many placements agreed.
fn sct_steps_agree(instances: impl Iterator<Item = (Graph, Cluster)>) -> usize {
    let mut placed = 0;
    for (i, (g, c)) in instances.enumerate() {
        let Ok(p) = Problem::new(&g, &c) else {
            continue;
        };
        for favourite in [last_favourite(&p), every_other_favourite(&p)] {
            for opts in ALL {
                let simple = schedule_simple("m-sct", &p, &favourite, opts);
                let fast = schedule_index("m-sct", &p, &favourite, opts, true);
                match (&fast, &simple) {
                    (Ok(a), Ok(b)) => {
                        assert_eq!(a, b, "instance {i} {opts:?}");
                        placed += 1;
                    }
                    (Err(_), Err(_)) => {}
                    _ => panic!("instance {i} {opts:?}: {fast:?} against {simple:?}"),
                }
            }
        }
    }
    placed
}

/// One waiting step on a hand-set state, from the index ([`indexed::waiting_step`], after
/// the devices are asked as the loop asks them) and directly: `(start, position, device,
/// op)`.
fn both_steps(s: &State, pos: &[u32]) -> [Option<(f64, u32, DevIx, NodeIx)>; 2] {
    let k = s.problem.device_count() as DevIx;
    let mut ix = index::Index::new(s, pos, 0, true);
    let ready: Vec<NodeIx> = (0..s.problem.node_count() as NodeIx)
        .filter(|&v| s.pending[v as usize] == 0)
        .collect();
    for &v in &ready {
        ix.ready(s, v);
        for d in (0..k).filter(|&d| s.allowed(v, d) && s.fits(v, d)) {
            ix.file(s, v, d, pos[v as usize]);
        }
    }
    let (mut chosen, mut delayed) = (None, Vec::new());
    for d in 0..k {
        let index::Best::Found(t, v) = ix.device_best(s, d, f64::INFINITY) else {
            continue;
        };
        match s.waits_for[d as usize] {
            Some((f, ready)) if f != v && ready <= t => delayed.push((t, d)),
            _ => {
                let p = pos[v as usize];
                if chosen.is_none_or(|(bt, bp, bd, _)| (t, p, d) < (bt, bp, bd)) {
                    chosen = Some((t, p, d, v));
                }
            }
        }
    }
    let mut scratch = indexed::Waiting::new(k as usize);
    let fast = indexed::waiting_step(s, &mut ix, pos, chosen, &mut delayed, &mut scratch);
    let direct = s
        .direct_step(&ready, pos)
        .map(|(t, p, d, i)| (t, p, d, ready[i]));
    [fast, direct]
}

/// Hand-made waiting steps. Ops x0, x1, p and f, all ready, cost 1, on two identical devices;
/// d1 is busy until 3, d0 is free and waits for f (which may only use d1) from time 0.
/// - x0 may use d0 only: its urgent time is its start there, 0, so it is not delayed (the
///   answer comes from visiting d0, whose best pair is delayed): x0 at 0 on d0. x1 and p
///   would start at 0 on d0 but their urgent time is 3 (d1).
/// - x0 may use d1 only: everything starts at 3 (x1 and p delayed on d0 to their urgent time
///   3), x0 first in order, on d1.
/// - d0 waits for x1 itself (the favourite is not delayed), x0 free to go anywhere: x0's
///   urgent time is 3, x1 starts at 0 on d0.
#[test]
fn hand_made_waiting_steps() {
    let cluster = r#"{"devices":[{"id":"d0","kind":"gpu","speed":1},{"id":"d1","kind":"gpu","speed":1}],"bandwidth":1,"latency":0}"#;
    let graph = |pin: &str| {
        format!(
            r#"{{"nodes":[{{"id":"x0","cost":1{pin}}},{{"id":"x1","cost":1}},{{"id":"p","cost":1}},{{"id":"f","cost":1,"device":"d1"}}],
                "edges":[]}}"#
        )
    };
    let cases = [
        (r#","device":"d0""#, 3, (0.0, 0, 0)),
        (r#","device":"d1""#, 3, (3.0, 0, 1)),
        ("", 1, (0.0, 1, 0)),
    ];
    for (pin, waits, (t, v, d)) in cases {
        let (g, c) = parse(&graph(pin), cluster);
        let p = Problem::new(&g, &c).expect("a valid instance");
        let pos = topo_position(&p);
        for opts in ALL {
            let mut s = State::new(&p, opts);
            s.free = vec![0.0, 3.0];
            s.waits_for[0] = Some((waits, 0.0));
            let [fast, direct] = both_steps(&s, &pos);
            assert_eq!(fast, direct, "{pin} {opts:?}");
            assert_eq!(fast, Some((t, pos[v as usize], d, v)), "{pin} {opts:?}");
        }
    }
}

/// A delayed device with many candidates that start when the answer does: only those that
/// beat the best so far by their own start are visited. Devices d0 and d1 alike, d1 busy
/// until 3, d0 free and waiting for f (which may only use d1) from time 0. Op a may go
/// anywhere: its urgent time is 3 (d1), so on d0 it is delayed to 3, and no better than on
/// d1, which is not delayed (passed over without its urgent time). Ops x0..x39 may only use
/// d0: their urgent time is their start there, 0. The answer is x0 at 0 on d0, and d0's
/// visit takes out a (passed over), x0 (the answer), and no other: x1..x39 start at 0 too,
/// but after x0 in order. (Visiting every candidate that may start by the answer took all
/// 41.)
#[test]
fn a_delayed_device_visits_only_what_beats_the_answer() {
    use super::indexed::{COUNTS, COUNT_KINDS};
    let cluster = r#"{"devices":[{"id":"d0","kind":"gpu","speed":1},{"id":"d1","kind":"gpu","speed":1}],"bandwidth":1,"latency":0}"#;
    let xs: Vec<String> = (0..40)
        .map(|i| format!(r#"{{"id":"x{i}","cost":1,"device":"d0"}}"#))
        .collect();
    let graph = format!(
        r#"{{"nodes":[{{"id":"a","cost":1}},{},{{"id":"f","cost":1,"device":"d1"}}],"edges":[]}}"#,
        xs.join(",")
    );
    let (g, c) = parse(&graph, cluster);
    let p = Problem::new(&g, &c).expect("a valid instance");
    let pos = topo_position(&p);
    let f = 41;
    let x0 = 1;
    for opts in ALL {
        let mut s = State::new(&p, opts);
        s.free = vec![0.0, 3.0];
        s.waits_for[0] = Some((f, 0.0));
        COUNTS.with(|c| c.set([0; COUNT_KINDS]));
        let [fast, direct] = both_steps(&s, &pos);
        let [_, devices, urgent, _, visits, _, _, _, open, ..] = COUNTS.with(|c| c.get());
        assert_eq!(fast, direct, "{opts:?}");
        assert_eq!(fast, Some((0.0, pos[x0 as usize], 0, x0)), "{opts:?}");
        assert_eq!((devices, urgent, visits, open), (1, 1, 2, 1), "{opts:?}");
    }
}

/// The urgent time a waiting step remembers ([`index::Index::seen_urgent`]) is a lower
/// bound while its device may take the op. In both cases `v`'s urgent time is its start on
/// d1 (d0 holds its producer `u`), and then one more op is placed:
/// - `w` (no run time), which takes only `a` of `u`'s two tensors `a` and `b` to `v`, on
///   d1: `a` arrives there; with channels, `b` then goes out after it on channels that
///   moved, so `v`'s start on d1 does not fall (without, the estimate reads no arrival),
///   and the time seen holds;
/// - `x`, colocated with `v`, on d0: `v` may only use d0 now, where it starts sooner, and
///   the time seen is forgotten.
#[test]
fn the_urgent_time_seen_stays_a_lower_bound() {
    let cluster = r#"{"devices":[{"id":"d0","kind":"gpu","speed":1},{"id":"d1","kind":"gpu","speed":1}],"bandwidth":1,"latency":0}"#;
    let arrival = r#"{"nodes":[{"id":"u","cost":1},{"id":"v","cost":1},{"id":"w","cost":0}],
        "edges":[{"src":"u","dst":"v","bytes":2,"tensor":"a"},{"src":"u","dst":"v","bytes":3,"tensor":"b"},
                 {"src":"u","dst":"w","bytes":2,"tensor":"a"}]}"#;
    let shut_out = r#"{"nodes":[{"id":"u","cost":1},{"id":"v","cost":1,"colocate":"g"},{"id":"x","cost":0,"colocate":"g"}],
        "edges":[{"src":"u","dst":"v","bytes":4}]}"#;
    for (graph, device, holds) in [(arrival, 1, true), (shut_out, 0, false)] {
        let (g, c) = parse(graph, cluster);
        let p = Problem::new(&g, &c).expect("a valid instance");
        let pos = topo_position(&p);
        let (u, v, other) = (0, 1, 2);
        for opts in ALL {
            let mut s = State::new(&p, opts);
            let mut ix = index::Index::new(&s, &pos, 0, true);
            s.commit(u, 0, 0.0);
            let before = ix.urgent(&s, v, f64::INFINITY);
            assert_eq!(
                s.urgent_past(v, None, f64::INFINITY),
                (before, Some(1)),
                "{opts:?}"
            );
            assert_eq!(ix.seen_urgent(&s, v), before, "{opts:?}");
            let start = s.start(other, device).expect("it fits");
            s.commit(other, device, start);
            let arrived = s.arrival(0, 1).is_some();
            assert_eq!(arrived, holds && opts.channel, "{opts:?}: a tensor on d1");
            for t in std::mem::take(&mut s.sent) {
                ix.arrived(t, device);
            }
            let (after, seen) = (s.urgent(v), ix.seen_urgent(&s, v));
            if holds {
                assert!(after >= before, "{opts:?}: {after} against {before}");
                assert_eq!(seen, before, "{opts:?}");
            } else {
                assert!(after < before, "{opts:?}: {after} against {before}");
                assert_eq!(seen, f64::NEG_INFINITY, "{opts:?}");
            }
        }
    }
}
