//! Hand-computed simulations. Each expected number is worked out in the comment above it.

use super::*;
use crate::model::cluster::Cluster;
use crate::model::graph::Graph;
use crate::rng::Rng;
use crate::schedule::fifo::Fifo;
use crate::transfer::fifo::FifoLinks;

fn run(graph: &str, cluster: &Cluster, placement: &[DevIx], links: LinkModel) -> SimResult {
    crate::testutil::simulate_fifo(graph, cluster, placement, links)
}

#[test]
fn chain_on_one_device_sums_its_costs() {
    // a(2) -> b(4) -> c(6) on a device of speed 2: 1 + 2 + 3 = 6; nothing crosses devices.
    let c = Cluster::uniform(&[2.0, 1.0], 1.0, 0.0);
    let r = run(
        r#"{"nodes":[{"id":"a","cost":2},{"id":"b","cost":4},{"id":"c","cost":6}],
            "edges":[{"src":"a","dst":"b","bytes":5},{"src":"b","dst":"c","bytes":5}]}"#,
        &c,
        &[0, 0, 0],
        LinkModel::Parallel,
    );
    assert_eq!(r.makespan, 6.0);
    assert_eq!(r.traffic_bytes, 0.0);
    assert_eq!(
        r.trace.as_ref().unwrap().ops,
        vec![(0.0, 1.0), (1.0, 3.0), (3.0, 6.0)]
    );
    assert_eq!(r.devices[0].busy, 6.0);
    assert_eq!(r.devices[1].ops, 0);
    // Memory: a's output (5) lives 1..3, b's output (5) 3..6; at b's end both count: 10.
    assert_eq!(r.devices[0].peak_memory, 10.0);
}

const FORK_JOIN: &str = r#"{"nodes":[{"id":"a","cost":2,"mem":100},{"id":"b","cost":4},{"id":"c","cost":3},{"id":"d","cost":1}],
    "edges":[{"src":"a","dst":"b","bytes":3},{"src":"a","dst":"c","bytes":2},
             {"src":"b","dst":"d","bytes":1},{"src":"c","dst":"d","bytes":1}]}"#;

#[test]
fn fork_join_on_two_devices() {
    // Speeds 1, bandwidth 1, latency 0.5. a, b, d on d0; c on d1.
    // a 0..2; a->c sent 2..4.5 (0.5 + 2/1); c 4.5..7.5 on d1; b 2..6 on d0;
    // c->d sent 7.5..9 (0.5 + 1); d 9..10.
    let c = Cluster::uniform(&[1.0, 1.0], 1.0, 0.5);
    let r = run(FORK_JOIN, &c, &[0, 0, 1, 0], LinkModel::Parallel);
    let t = r.trace.as_ref().unwrap();
    assert_eq!(t.ops, vec![(0.0, 2.0), (2.0, 6.0), (4.5, 7.5), (9.0, 10.0)]);
    assert_eq!(r.makespan, 10.0);
    assert_eq!(r.traffic_bytes, 3.0);
    assert_eq!(r.links.len(), 2);
    assert_eq!(
        (r.links[0].src, r.links[0].dst, r.links[0].bytes),
        (0, 1, 2.0)
    );
    assert_eq!(
        (r.links[1].src, r.links[1].dst, r.links[1].bytes),
        (1, 0, 1.0)
    );
    // Memory on d0: 100 resident; at 2 a's outputs 3 + 2 -> 105 (peak); at 4.5 the copy of
    // a->c has left -> 103; at 6 b's output 1 arrives and its input 3 is freed -> 101;
    // at 9 c->d arrives -> 102; at 10 d frees both inputs -> 100.
    // d1: at 4.5 the copy arrives (2); at 7.5 c's output 1 is allocated before its input is
    // freed -> 3 (peak) then 1; at 9 the sent copy is freed -> 0.
    assert_eq!(r.devices[0].peak_memory, 105.0);
    assert_eq!(r.devices[1].peak_memory, 3.0);
    let curve0: Vec<f64> = t.memory[0].iter().map(|&(_, b)| b).collect();
    assert_eq!(
        curve0,
        vec![100.0, 103.0, 105.0, 103.0, 104.0, 101.0, 102.0, 101.0, 100.0]
    );
    assert_eq!(t.memory[1].last().unwrap().1, 0.0);
}

#[test]
fn fcfs_links_queue_transfers_and_parallel_links_do_not() {
    // a on d0 sends two separate 4-byte tensors to b and c on d1; bandwidth 1, latency 0.
    // parallel: both arrive at 1 + 4 = 5; b 5..6, c 6..7 -> 7.
    // fcfs: the second waits for the first: arrives at 9; b 5..6, c 9..10 -> 10.
    let c = Cluster::uniform(&[1.0, 1.0], 1.0, 0.0);
    let g = r#"{"nodes":[{"id":"a","cost":1},{"id":"b","cost":1},{"id":"c","cost":1}],
        "edges":[{"src":"a","dst":"b","bytes":4},{"src":"a","dst":"c","bytes":4}]}"#;
    let par = run(g, &c, &[0, 1, 1], LinkModel::Parallel);
    let fcfs = run(g, &c, &[0, 1, 1], LinkModel::Fcfs);
    assert_eq!(par.makespan, 7.0);
    assert_eq!(fcfs.makespan, 10.0);
    let times = &fcfs.trace.as_ref().unwrap().transfer_times;
    assert_eq!(
        (times[1].ready, times[1].start, times[1].end),
        (1.0, 5.0, 9.0)
    );
    assert_eq!(fcfs.links[0].transfers, 2);
    // One named tensor consumed twice on d1 is sent once: both run after 5 -> 7, 4 bytes.
    let shared = r#"{"nodes":[{"id":"a","cost":1},{"id":"b","cost":1},{"id":"c","cost":1}],
        "edges":[{"src":"a","dst":"b","bytes":4,"tensor":"y"},{"src":"a","dst":"c","bytes":4,"tensor":"y"}]}"#;
    let one = run(shared, &c, &[0, 1, 1], LinkModel::Fcfs);
    assert_eq!(one.makespan, 7.0);
    assert_eq!(one.traffic_bytes, 4.0);
}

#[test]
fn control_edges_are_latency_only_signals() {
    // a -> b carries 10 bytes, a -> c is a control edge (0 bytes); b, c on d1; latency 2,
    // bandwidth 1. Under fcfs the control signal does not wait behind the tensor:
    // it arrives at 1 + 2 = 3, c runs 3..4; the tensor arrives at 1 + 2 + 10 = 13, b 13..14.
    let c = Cluster::uniform(&[1.0, 1.0], 1.0, 2.0);
    let g = r#"{"nodes":[{"id":"a","cost":1},{"id":"b","cost":1},{"id":"c","cost":1}],
        "edges":[{"src":"a","dst":"b","bytes":10},{"src":"a","dst":"c"}]}"#;
    let r = run(g, &c, &[0, 1, 1], LinkModel::Fcfs);
    let t = r.trace.as_ref().unwrap();
    assert_eq!(t.ops[2], (3.0, 4.0));
    assert_eq!(t.ops[1], (13.0, 14.0));
    assert_eq!(r.makespan, 14.0);
}

#[test]
fn out_of_memory_is_reported_not_prevented() {
    let c = Cluster::from_json(
        r#"{"devices":[{"id":"small","speed":1,"memory":5}],"bandwidth":1}"#,
        "c",
    )
    .unwrap();
    let r = run(
        r#"{"nodes":[{"id":"a","cost":1},{"id":"b","cost":1}],"edges":[{"src":"a","dst":"b","bytes":6}]}"#,
        &c,
        &[0, 0],
        LinkModel::Parallel,
    );
    assert_eq!(r.makespan, 2.0);
    assert_eq!(r.devices[0].peak_memory, 6.0);
    assert!(r.devices[0].oom);
}

#[test]
fn idle_devices_take_ready_ops_at_once() {
    // Two independent ops on one device and one on another: the device never idles while
    // it has an executable op, so d0 runs 0..1 and 1..2 and d1 runs 0..3.
    let c = Cluster::uniform(&[1.0, 1.0], 1.0, 0.0);
    let r = run(
        r#"{"nodes":[{"id":"a","cost":1},{"id":"b","cost":1},{"id":"c","cost":3}]}"#,
        &c,
        &[0, 0, 1],
        LinkModel::Parallel,
    );
    let mut d0: Vec<_> = r.trace.as_ref().unwrap().ops[..2].to_vec();
    d0.sort_by(|a, b| a.0.total_cmp(&b.0));
    assert_eq!(d0, vec![(0.0, 1.0), (1.0, 2.0)]);
    assert_eq!(r.makespan, 3.0);
}

/// Pesto21 Fig. 5 in miniature (docs/pesto.md, vector T5): S(3) on g0 feeds X(1) [4 bytes] and
/// Z(2) [2 bytes] on g1, and Y(4) on g0; speeds 1, bandwidth 1, latency 0, fcfs links.
/// Both transfers become ready together at 3 on the one link g0 -> g1.
/// - fifo (announcement order, X first): X's tensor 3..7, Z's 7..9; X 7..8, Z 9..11: 11.
/// - an order that sees both and sends Z's first: Z's 3..5, X's 5..9; Z 5..7, X 9..10: 10.
///
/// Before links chose among everything ready at an instant, X's transfer went out at once
/// and no order could reach 10.
#[test]
fn links_choose_among_transfers_ready_at_the_same_instant() {
    use crate::plan::Order;
    use crate::schedule::given::Given;
    use crate::transfer::given::GivenLinks;
    use crate::transfer::LinkOrder;
    let g = Graph::from_json(
        r#"{"nodes":[{"id":"S","cost":3},{"id":"X","cost":1},{"id":"Y","cost":4},{"id":"Z","cost":2}],
            "edges":[{"src":"S","dst":"X","bytes":4},{"src":"S","dst":"Y","bytes":3},{"src":"S","dst":"Z","bytes":2}]}"#,
        "t5",
    )
    .unwrap();
    let c = Cluster::uniform(&[1.0, 1.0], 1.0, 0.0);
    let p = Problem::new(&g, &c).unwrap();
    let placement = [0, 1, 0, 1];
    let opts = SimOptions {
        links: LinkModel::Fcfs,
        record: true,
    };
    let fifo = simulate(
        &p,
        &placement,
        &mut Fifo::new(Rng::new(1)),
        &mut FifoLinks::default(),
        opts,
    );
    assert_eq!(fifo.makespan, 11.0);
    // Z's consumer first: the given order's consumer priority (no transfer order in the plan).
    let order = Order {
        priority: vec![4.0, 1.0, 3.0, 2.0],
        sequences: None,
        transfers: None,
    };
    let mut links = GivenLinks::new(true);
    links.hint(&order);
    let mut sched = Given::new(true);
    crate::schedule::Scheduler::hint(&mut sched, &order);
    let r = simulate(&p, &placement, &mut sched, &mut links, opts);
    let t = r.trace.unwrap();
    assert_eq!(t.ops, vec![(0.0, 3.0), (9.0, 10.0), (3.0, 7.0), (5.0, 7.0)]);
    assert_eq!(r.makespan, 10.0);
}

/// docs/tictac.md, vector V9: a server runs zero-cost reads p1, p2, p3 (one at a time,
/// in that order, all at t = 0), each sent to one worker (1 byte, bandwidth 1). A link
/// order ranking them p3, p2, p1 sends them in that order: the link chooses only once the
/// device has run every zero-length op of the instant. `fifo` sends p1, p2, p3.
#[test]
fn links_choose_after_zero_length_ops_of_the_instant() {
    use crate::plan::Order;
    use crate::transfer::given::GivenLinks;
    use crate::transfer::LinkOrder;
    let g = Graph::from_json(
        r#"{"nodes":[{"id":"p1","cost":0},{"id":"p2","cost":0},{"id":"p3","cost":0},{"id":"w","cost":1}],
            "edges":[{"src":"p1","dst":"w","bytes":1},{"src":"p2","dst":"w","bytes":1},{"src":"p3","dst":"w","bytes":1}]}"#,
        "v9",
    )
    .unwrap();
    let c = Cluster::uniform(&[1.0, 1.0], 1.0, 0.0);
    let p = Problem::new(&g, &c).unwrap();
    let placement = [0, 0, 0, 1];
    let opts = SimOptions {
        links: LinkModel::Fcfs,
        record: true,
    };
    // Reads run in index order on the server: priorities 3, 2, 1 for the given scheduler.
    let order = Order {
        priority: vec![3.0, 2.0, 1.0, 0.0],
        sequences: None,
        transfers: Some(vec![(2, 1), (1, 1), (0, 1)]),
    };
    let starts = |r: SimResult| -> Vec<f64> {
        r.trace
            .unwrap()
            .transfer_times
            .iter()
            .map(|t| t.start)
            .collect()
    };
    let mut sched = crate::schedule::given::Given::new(true);
    crate::schedule::Scheduler::hint(&mut sched, &order);
    let mut links = GivenLinks::new(true);
    links.hint(&order);
    let ranked = simulate(&p, &placement, &mut sched, &mut links, opts);
    // Transfers are p1's, p2's, p3's: p3's goes 0..1, p2's 1..2, p1's 2..3.
    assert_eq!(starts(ranked), [2.0, 1.0, 0.0]);
    let mut sched = crate::schedule::given::Given::new(true);
    crate::schedule::Scheduler::hint(&mut sched, &order);
    let fifo = simulate(&p, &placement, &mut sched, &mut FifoLinks::default(), opts);
    assert_eq!(starts(fifo), [0.0, 1.0, 2.0]);
}
