//! The discrete-event simulator of one training step (Mayer17 §4 rules).
//!
//! Input: a [`Problem`], a placement, a [`Scheduler`] (next op on a free device) and a
//! [`LinkOrder`] (next transfer on a free link). The simulator knows no strategy: it only
//! calls those two traits.
//!
//! Rules:
//! - A device runs at most one op at a time, non-preemptively. An op is executable when
//!   every input edge's tensor is on its device. A device with an executable op never idles:
//!   after all events of an instant are processed, every idle device that has executable
//!   ops is asked for one, in device index order. A scheduler may hold a device (answer
//!   `None` although it has executable ops: a strict replay waiting for its next planned
//!   op); the device is asked again whenever an op becomes executable on it.
//! - Every edge whose ends are on different devices needs its tensor on the consumer's
//!   device. A tensor is sent once per consuming device (edges sharing a `tensor` name).
//!   Link models: [`LinkModel::Parallel`] (transfers never contend, Mayer17) and
//!   [`LinkModel::Fcfs`] (one transfer at a time per directed link, queued in the
//!   [`LinkOrder`]'s order; Pesto21 §3.1). Zero-byte transfers (control edges) are
//!   signals: they take the link's latency and never occupy or wait for a link.
//! - Links choose among everything ready at an instant, as devices do: under `fcfs`, every
//!   transfer that becomes ready is pushed to the [`LinkOrder`]. An instant ends in three
//!   steps, each repeated while it adds events at the same time (zero-length ops): process
//!   the instant's events; let idle devices pick; then ask each free link with something
//!   queued for its next transfer (`pop`), in the order the links became free-with-work.
//!   So a link-order policy sees every transfer that became ready together, including the
//!   outputs of zero-cost ops a device runs one after another at that instant (TicTac19
//!   §3's case: parameter reads on a server). A policy may hold a link (`pop` answers
//!   `None`); it is asked again at the next push. Each send keeps the event number it
//!   would have had if sent the moment it became possible, so `fifo` sends exactly what the
//!   older send-at-once rule sent, at the same times and in the same event order.
//! - A run whose policies hold forever (a strict replay that deadlocks) ends when no event
//!   is left; [`SimResult::unfinished`] counts the ops that never ran, and the caller
//!   reports the run as failed. The loop never waits for anything but events, so it
//!   cannot hang.
//! - Memory per device (Mayer17 eq. 2): the `mem` of its ops for the whole step, plus
//!   every tensor copy held there. A copy is allocated when its producer finishes (on the
//!   producer's device) or when its transfer arrives (on the consumer's device), and freed
//!   when the last op reading it there has finished and, on the producer's device, every
//!   transfer of it has been sent. Outputs are allocated before inputs are freed, so an op's
//!   inputs and outputs count together at its end. Exceeding a device's memory is reported
//!   as `oom`, not prevented.

use std::sync::Arc;

use serde::Serialize;

use crate::model::cluster::DevIx;
use crate::model::graph::NodeIx;
use crate::model::problem::{EdgeLists, Problem};
use crate::model::LinkModel;
use crate::schedule::{Scheduler, SimView};
use crate::transfer::{LinkOrder, Transfer};
use crate::util::{from_total_order_bits, total_order_bits, MinHeap4};

pub mod critical;
pub mod ordering;

#[cfg(test)]
mod tests;

#[derive(Debug, Clone, Copy)]
pub struct SimOptions {
    pub links: LinkModel,
    /// Keep every op's and transfer's times and the memory curves (for timelines and
    /// traces); off for plain comparisons.
    pub record: bool,
}

/// What one device did.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DeviceStats {
    /// Seconds spent running ops.
    pub busy: f64,
    /// When the device's last op ended (0 when it ran none).
    pub finish: f64,
    pub ops: usize,
    /// Highest memory in use at any instant, bytes.
    pub peak_memory: f64,
    /// Whether the peak exceeded the device's memory.
    pub oom: bool,
}

/// What one directed link carried.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LinkStats {
    pub src: DevIx,
    pub dst: DevIx,
    pub bytes: f64,
    pub transfers: usize,
    /// Seconds the link spent sending tensors (latency included; zero-byte signals,
    /// which never occupy a link, are counted in `transfers` but not here).
    pub busy: f64,
    /// When the link's last transfer arrived.
    pub finish: f64,
}

/// Times of one transfer.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct TransferTimes {
    /// When the tensor was ready to send.
    pub ready: f64,
    pub start: f64,
    pub end: f64,
}

/// The full schedule of a run, kept when [`SimOptions::record`] is set.
#[derive(Debug, Clone, PartialEq)]
pub struct Trace {
    /// Start and end of every node.
    pub ops: Vec<(f64, f64)>,
    pub transfers: Vec<Transfer>,
    pub transfer_times: Vec<TransferTimes>,
    /// Per device, `(time, bytes in use)` after each change, starting at time 0.
    pub memory: Vec<Vec<(f64, f64)>>,
}

/// The outcome of simulating one step.
#[derive(Debug, Clone, PartialEq)]
pub struct SimResult {
    pub makespan: f64,
    /// Bytes that crossed between devices.
    pub traffic_bytes: f64,
    pub devices: Vec<DeviceStats>,
    /// Links that carried at least one transfer, ordered by (src, dst).
    pub links: Vec<LinkStats>,
    /// Ops that never ran because the policies held their devices or links forever (a
    /// strict replay that deadlocks); 0 for every complete run.
    pub unfinished: usize,
    pub trace: Option<Trace>,
}

/// Work to dispatch once the events of an instant are processed, in the order it arose.
#[derive(Debug, Clone, Copy)]
enum Dispatch {
    /// A transfer sent without a link queue (parallel links, zero-byte signals).
    Send(u32),
    /// A free fcfs link that has something queued: ask its queue.
    Link(u32),
}

/// An event, packed into one integer whose order is the events' order: the time's
/// `total_cmp` order bits above the event number (`seq`, unique, under 2^32: see
/// [`event_key`]) above `what` (an op's region in the arena, or a transfer's slot with
/// [`TRANSFER_BIT`]). So the queue pops by time, then event number, as a heap of
/// `(time, seq)` would: the same strict order, the same pops.
type EventKey = u128;

const TRANSFER_BIT: u32 = 1 << 31;

/// `seq` counts at most one number per op start, per send and per link dispatch: under
/// `n + 3 * transfers`, which the arena's bound (`prepare`: under 2^31 words, 7 per op and
/// 9 per transfer) keeps under 2^32.
#[inline]
fn event_key(time: f64, seq: u64, what: u32) -> EventKey {
    debug_assert!(seq < 1 << 32);
    (total_order_bits(time) as u128) << 64 | (seq as u128) << 32 | what as u128
}

#[inline]
fn event_time(key: EventKey) -> f64 {
    from_total_order_bits((key >> 64) as u64)
}

#[inline]
fn event_what(key: EventKey) -> u32 {
    key as u32
}

/// The transfers a placement implies, and which tensor copy each edge reads.
struct Routing {
    transfers: Vec<Transfer>,
    /// Transfers of each tensor: `transfers[xfer_start[t]..xfer_start[t + 1]]`.
    xfer_start: Vec<u32>,
    /// Copy read by each edge: a tensor index (the producer's copy) or
    /// `tensors + transfer index` (the copy a transfer delivered).
    edge_copy: Vec<u32>,
    links: Vec<(DevIx, DevIx)>,
    /// Consumers of each transfer, flat (`consumers[cons_start[x]..cons_start[x + 1]]`):
    /// the same nodes as `transfers[x].consumers`, read by the event loop without chasing
    /// one allocation per transfer.
    cons_start: Vec<u32>,
    consumers: Vec<NodeIx>,
}

/// The problem's flat edge lists ([`EdgeLists`]), built once per problem and shared.
fn edge_lists(problem: &Problem) -> Arc<EdgeLists> {
    problem
        .memo
        .edge_lists
        .get_or_init(|| {
            let g = problem.graph;
            let mut l = EdgeLists::default();
            l.tensor_start.reserve(g.tensors.len() + 1);
            l.tensor_edges.reserve(g.edge_count());
            for tensor in &g.tensors {
                l.tensor_start.push(l.tensor_edges.len() as u32);
                l.tensor_edges
                    .extend(tensor.edges.iter().map(|&e| (e, g.edges[e as usize].dst)));
            }
            l.tensor_start.push(l.tensor_edges.len() as u32);
            l.out_start.reserve(g.node_count() + 1);
            l.out_dst.reserve(g.edge_count());
            for v in 0..g.node_count() as NodeIx {
                l.out_start.push(l.out_dst.len() as u32);
                l.out_dst.extend(g.successors(v));
            }
            l.out_start.push(l.out_dst.len() as u32);
            Arc::new(l)
        })
        .clone()
}

fn routing(problem: &Problem, placement: &[DevIx], lists: &EdgeLists) -> Routing {
    let g = problem.graph;
    let k = problem.device_count();
    let nt = g.tensors.len();
    let mut transfers: Vec<Transfer> = Vec::new();
    let mut xfer_start = Vec::with_capacity(nt + 1);
    let mut edge_copy = vec![0u32; g.edge_count()];
    // (device, edge, consumer): sorted by device, then edge (unique).
    let mut remote: Vec<(DevIx, u32, NodeIx)> = Vec::new();
    let mut link_id: Vec<u32> = Vec::new();
    let mut link_keys: Vec<u32> = Vec::new();
    let mut cons_start: Vec<u32> = vec![0];
    let mut flat: Vec<NodeIx> = Vec::new();
    for (t, tensor) in g.tensors.iter().enumerate() {
        xfer_start.push(transfers.len() as u32);
        let s = placement[tensor.src as usize];
        remote.clear();
        let edges =
            &lists.tensor_edges[lists.tensor_start[t] as usize..lists.tensor_start[t + 1] as usize];
        for &(e, w) in edges {
            let d = placement[w as usize];
            if d == s {
                edge_copy[e as usize] = t as u32;
            } else {
                remote.push((d, e, w));
            }
        }
        remote.sort_unstable();
        let mut i = 0;
        while i < remote.len() {
            let d = remote[i].0;
            let x = transfers.len() as u32;
            let mut consumers = Vec::new();
            while i < remote.len() && remote[i].0 == d {
                let (_, e, w) = remote[i];
                edge_copy[e as usize] = (nt as u32) + x;
                consumers.push(w);
                i += 1;
            }
            flat.extend_from_slice(&consumers);
            cons_start.push(flat.len() as u32);
            let key = s as usize * k + d as usize;
            transfers.push(Transfer {
                tensor: t as u32,
                src: s,
                dst: d,
                bytes: problem.tensor_bytes[t],
                link: key as u32, // dense ids assigned below
                consumers,
            });
            link_keys.push(key as u32);
        }
    }
    xfer_start.push(transfers.len() as u32);
    // Dense link ids in (src, dst) order.
    link_keys.sort_unstable();
    link_keys.dedup();
    link_id.extend(link_keys.iter().copied());
    for x in &mut transfers {
        x.link = link_id.binary_search(&x.link).expect("link key present") as u32;
    }
    let links = link_keys
        .iter()
        .map(|&key| ((key as usize / k) as DevIx, (key as usize % k) as DevIx))
        .collect();
    Routing {
        transfers,
        xfer_start,
        edge_copy,
        links,
        cons_start,
        consumers: flat,
    }
}

/// The transfers a placement implies, in the order and with the link indices a run gives
/// its [`LinkOrder`] (for inspecting a link order's ranks outside a run).
pub fn transfers_of(problem: &Problem, placement: &[DevIx]) -> Vec<Transfer> {
    routing(problem, placement, &edge_lists(problem)).transfers
}

/// Words of an op's header in [`Prepared::arena`]: its run time on its own device (two
/// words), its device, then the lengths of its four lists.
const HEAD: usize = 7;
/// Words of one send in an op's list before its consumers: transfer, link, bytes (two
/// words), duration (two), destination device, the copy it sends (or `ONCE`, see
/// [`Flight::tensor`]), its consumer count; then its consumers (`ONCE` marks those with one
/// input). What its arrival reads travels with it ([`Flight`]), so an arrival reads nothing
/// but the sender's region, read when it sent.
const SEND: usize = 9;

/// In an arena list, marks an entry that needs no shared count: a consumer whose only input
/// this is (ready at once, its `pending` untouched), or a copy read once (freed at once; its
/// device and bytes follow in the list).
const ONCE: u32 = 1 << 31;

fn push_f64(a: &mut Vec<u32>, x: f64) {
    let b = x.to_bits();
    a.push(b as u32);
    a.push((b >> 32) as u32);
}

#[inline]
fn read_f64(a: &[u32], i: usize) -> f64 {
    f64::from_bits(a[i] as u64 | (a[i + 1] as u64) << 32)
}

/// One tensor copy: its size and home device, and how many reads (edges and transfers) it
/// waits for before it is freed.
#[derive(Debug, Clone, Copy, Default)]
struct CopyRec {
    bytes: f64,
    dev: DevIx,
    refs: u32,
}

/// One transfer, as the event loop reads it: what its arrival reads and how long it takes.
#[derive(Debug, Clone, Copy, Default)]
struct XferRec {
    flight: Flight,
    /// `cluster.transfer_time(src, dst, bytes)`.
    dur: f64,
}

/// A transfer on its way: what its arrival reads, copied when it is sent (from the
/// sender's region, read then) into a small table of transfers in flight.
#[derive(Debug, Clone, Copy, Default)]
struct Flight {
    bytes: f64,
    /// The copy it sends (the producer's), or `ONCE` when this transfer is that copy's only
    /// read: then it is freed on arrival from `src_dev` and `bytes`, without its count.
    tensor: u32,
    src_dev: DevIx,
    dst: DevIx,
    link: u32,
    /// Its consumers: `arena[cons..cons + n_cons]` (in its sender's region), marked `ONCE`
    /// when they have one input.
    cons: u32,
    n_cons: u32,
}

/// What runs of one problem under one placement share, whatever their scheduler and link
/// order: the transfers the placement implies and, gathered in index order into compact
/// tables, what the event loop reads per op, per tensor copy and per transfer. Build it once
/// ([`prepare`]) and simulate it under each scheduler ([`simulate_prepared`]): the results
/// are those of [`simulate`], which prepares and runs once.
///
/// Why compact tables: the loop visits ops in the schedulers' order, far from index order on
/// wide graphs, so each array it reads costs a cache miss per event. Each op has one
/// contiguous region of the arena, read when it starts and when it ends: a header (run time,
/// device, list lengths), then the bytes of each output something reads (allocated at its
/// end, two words each), the copy each in-edge reads (a copy read once: `ONCE | device` and
/// its bytes, freed without a count), its consumers on its own device (one per edge, out-edge
/// order; `ONCE` marks those with one input), and the transfers of its outputs in tensor
/// order, each with what sending it needs (transfer, link, bytes, duration) and what its
/// arrival needs (destination, the copy it frees, its consumers), copied at the send into
/// a small table of transfers in flight ([`Flight`]): an arrival reads no table indexed by
/// transfer (that read was a cache miss per transfer on wide graphs).
#[derive(Debug, Clone)]
pub struct Prepared {
    placement: Vec<DevIx>,
    transfers: Vec<Transfer>,
    links: Vec<(DevIx, DevIx)>,
    /// Each op's region in `arena`.
    at: Vec<u32>,
    arena: Vec<u32>,
    /// Each tensor copy's size and home device (read when it is freed).
    homes: Vec<(f64, DevIx)>,
    /// Each tensor copy's count of reads: a run counts down its own copy of it (4 bytes a
    /// copy to clone and to touch per read, apart from the homes a free reads).
    refs: Vec<u32>,
    xfers: Vec<XferRec>,
    /// Each op's in-edge count.
    pending: Vec<u32>,
    /// Each device's resident memory (`mem` of its ops), summed in op order.
    memory: Vec<f64>,
}

impl Prepared {
    /// The placement this was prepared for.
    pub fn placement(&self) -> &[DevIx] {
        &self.placement
    }

    /// The transfers the placement implies (as [`transfers_of`]).
    pub fn transfers(&self) -> &[Transfer] {
        &self.transfers
    }
}

/// Reference counts and homes of tensor copies: each tensor's copy on its producer's
/// device, then each transfer's on its destination, counting the edges that read a copy
/// ([`Routing::edge_copy`]) and the transfers sent from it.
fn copies(
    problem: &Problem,
    placement: &[DevIx],
    transfers: &[Transfer],
    edge_copy: &[u32],
) -> Vec<CopyRec> {
    let g = problem.graph;
    let nt = g.tensors.len();
    let nx = transfers.len();
    let mut copies: Vec<CopyRec> = Vec::with_capacity(nt + nx);
    copies.extend(g.tensors.iter().enumerate().map(|(t, tensor)| CopyRec {
        bytes: problem.tensor_bytes[t],
        dev: placement[tensor.src as usize],
        refs: 0,
    }));
    copies.extend(transfers.iter().map(|x| CopyRec {
        bytes: x.bytes,
        dev: x.dst,
        refs: 0,
    }));
    for &c in edge_copy {
        copies[c as usize].refs += 1;
    }
    for x in transfers {
        copies[x.tensor as usize].refs += 1;
    }
    copies
}

/// Builds the tables runs of `problem` under `placement` share ([`Prepared`]).
pub fn prepare(problem: &Problem, placement: &[DevIx]) -> Prepared {
    let g = problem.graph;
    let lists = edge_lists(problem);
    let n = g.node_count();
    let k = problem.device_count();
    let nt = g.tensors.len();
    let Routing {
        transfers,
        xfer_start,
        edge_copy,
        links,
        cons_start,
        consumers,
    } = routing(problem, placement, &lists);
    let nx = transfers.len();
    let copies = copies(problem, placement, &transfers, &edge_copy);
    // A node with one input becomes ready when it arrives: marked, it skips `pending`.
    let once = |w: NodeIx| -> u32 {
        if g.in_edges(w).len() == 1 {
            ONCE | w
        } else {
            w
        }
    };
    let mut at: Vec<u32> = Vec::with_capacity(n);
    // Where each transfer's consumer list is, in its sender's region.
    let mut cons_at: Vec<u32> = vec![0; nx];
    let mut arena: Vec<u32> =
        Vec::with_capacity(HEAD * n + 2 * nt + 2 * g.edge_count() + SEND * nx + consumers.len());
    for v in 0..n as NodeIx {
        let d = placement[v as usize];
        let h = arena.len();
        at.push(u32::try_from(h).expect("simulator tables under 2^32 words"));
        push_f64(&mut arena, problem.exec(v, d));
        arena.extend_from_slice(&[d, 0, 0, 0, 0]);
        // Its outputs that something reads, allocated when it ends (until then no reader
        // can have run nor any transfer of them been sent, so their counts are still the
        // initial ones), by size.
        let mut n_alloc = 0;
        for &t in g.out_tensors(v) {
            if copies[t as usize].refs > 0 {
                push_f64(&mut arena, problem.tensor_bytes[t as usize]);
                n_alloc += 1;
            }
        }
        let in_edges = g.in_edges(v);
        for &e in in_edges {
            let c = edge_copy[e as usize];
            let copy = &copies[c as usize];
            if copy.refs == 1 {
                arena.push(ONCE | copy.dev);
                push_f64(&mut arena, copy.bytes);
            } else {
                arena.push(c);
            }
        }
        let mut n_local = 0u32;
        let out = &lists.out_dst
            [lists.out_start[v as usize] as usize..lists.out_start[v as usize + 1] as usize];
        for &w in out {
            if placement[w as usize] == d {
                arena.push(once(w));
                n_local += 1;
            }
        }
        let mut n_sends = 0;
        for &t in g.out_tensors(v) {
            for x in xfer_start[t as usize]..xfer_start[t as usize + 1] {
                let tr = &transfers[x as usize];
                arena.extend_from_slice(&[x, tr.link]);
                push_f64(&mut arena, tr.bytes);
                push_f64(
                    &mut arena,
                    problem.cluster.transfer_time(tr.src, tr.dst, tr.bytes),
                );
                let src = &copies[tr.tensor as usize];
                let (lo, hi) = (cons_start[x as usize], cons_start[x as usize + 1]);
                arena.extend_from_slice(&[
                    tr.dst,
                    if src.refs == 1 { ONCE } else { tr.tensor },
                    hi - lo,
                ]);
                cons_at[x as usize] = arena.len() as u32;
                arena.extend(consumers[lo as usize..hi as usize].iter().map(|&w| once(w)));
                n_sends += 1;
            }
        }
        arena[h + 3] = n_alloc;
        arena[h + 4] = in_edges.len() as u32;
        arena[h + 5] = n_local;
        arena[h + 6] = n_sends;
    }
    assert!(
        arena.len() < TRANSFER_BIT as usize
            && n < ONCE as usize
            && k < ONCE as usize
            && copies.len() < ONCE as usize,
        "simulator tables under 2^31 words"
    );
    let xfers = transfers
        .iter()
        .enumerate()
        .map(|(x, tr)| {
            let n_cons = cons_start[x + 1] - cons_start[x];
            let src = &copies[tr.tensor as usize];
            XferRec {
                flight: Flight {
                    bytes: tr.bytes,
                    tensor: if src.refs == 1 { ONCE } else { tr.tensor },
                    src_dev: src.dev,
                    dst: tr.dst,
                    link: tr.link,
                    cons: cons_at[x],
                    n_cons,
                },
                dur: problem.cluster.transfer_time(tr.src, tr.dst, tr.bytes),
            }
        })
        .collect();
    let pending = (0..n as NodeIx)
        .map(|v| g.in_edges(v).len() as u32)
        .collect();
    let mut memory = vec![0.0f64; k];
    for (v, &m) in problem.mem.iter().enumerate() {
        memory[placement[v] as usize] += m;
    }
    Prepared {
        placement: placement.to_vec(),
        transfers,
        links,
        at,
        arena,
        homes: copies.iter().map(|c| (c.bytes, c.dev)).collect(),
        refs: copies.iter().map(|c| c.refs).collect(),
        xfers,
        pending,
        memory,
    }
}

/// Simulates one step. `scheduler` and `queue` are initialised here for this run.
pub fn simulate(
    problem: &Problem,
    placement: &[DevIx],
    scheduler: &mut dyn Scheduler,
    queue: &mut dyn LinkOrder,
    options: SimOptions,
) -> SimResult {
    simulate_prepared(
        problem,
        &prepare(problem, placement),
        scheduler,
        queue,
        options,
    )
}

/// Simulates one step of `problem` under the placement `prepared` was built for (by
/// [`prepare`], from this problem): the result of [`simulate`]. `scheduler` and `queue` are
/// initialised here for this run.
pub fn simulate_prepared(
    problem: &Problem,
    prepared: &Prepared,
    scheduler: &mut dyn Scheduler,
    queue: &mut dyn LinkOrder,
    options: SimOptions,
) -> SimResult {
    let n = problem.graph.node_count();
    let k = problem.device_count();
    let placement: &[DevIx] = &prepared.placement;
    let transfers = &prepared.transfers;
    let links = &prepared.links;
    let arena: &[u32] = &prepared.arena;
    let xfers = &prepared.xfers;
    assert_eq!(placement.len(), n, "prepared for another problem");
    let nx = transfers.len();
    scheduler.init(problem, placement);
    queue.init(problem, placement, transfers, links.len());

    let homes: &[(f64, DevIx)] = &prepared.homes;
    let mut refs = prepared.refs.clone();
    let mut pending = prepared.pending.clone();
    let mut memory = prepared.memory.clone();
    let mut peak = memory.clone();
    let mut curves: Vec<Vec<(f64, f64)>> = if options.record {
        memory.iter().map(|&m| vec![(0.0, m)]).collect()
    } else {
        Vec::new()
    };
    let mut busy = vec![false; k];
    let mut busy_time = vec![0.0f64; k];
    let mut op_count = vec![0usize; k];
    let mut link_busy = vec![false; links.len()];
    let mut link_listed = vec![false; links.len()];
    // Sends that became possible during the instant, each with the event number it would
    // have had if sent at that moment (so FIFO runs keep the older send-at-once event order).
    let mut dispatch: Vec<(Dispatch, u64)> = Vec::new();
    let mut sending: Vec<(Dispatch, u64)> = Vec::new();
    let mut started = 0usize;
    let mut link_stats: Vec<LinkStats> = links
        .iter()
        .map(|&(src, dst)| LinkStats {
            src,
            dst,
            bytes: 0.0,
            transfers: 0,
            busy: 0.0,
            finish: 0.0,
        })
        .collect();
    let mut finish = vec![0.0f64; k];
    let mut op_times = if options.record {
        vec![(0.0, 0.0); n]
    } else {
        Vec::new()
    };
    let mut xfer_times = if options.record {
        vec![
            TransferTimes {
                ready: 0.0,
                start: 0.0,
                end: 0.0
            };
            nx
        ]
    } else {
        Vec::new()
    };
    let mut events: MinHeap4<EventKey> = MinHeap4::with_capacity(k + 64);
    // Transfers in flight (an arrival event names its slot), and the free slots.
    let mut flights: Vec<Flight> = Vec::with_capacity(k + 64);
    let mut free_slots: Vec<u32> = Vec::new();
    let mut seq = 0u64;
    let mut touched: Vec<DevIx> = Vec::new();
    let mut is_touched = vec![false; k];
    let mut makespan = 0.0f64;
    let mut traffic = 0.0f64;

    macro_rules! push_event {
        ($time:expr, $what:expr) => {{
            push_event!($time, $what, seq);
            seq += 1;
        }};
        ($time:expr, $what:expr, $seq:expr) => {{
            events.push(event_key($time, $seq, $what));
        }};
    }
    // Reads the first word of a newly ready op's region, so that the pick that runs it
    // (soon, on a wide graph often not) finds it in cache: the loop does not wait for it.
    let mut warm_sink = 0u32;
    macro_rules! warm {
        ($w:expr) => {{
            warm_sink ^= arena[prepared.at[$w as usize] as usize];
        }};
    }
    macro_rules! touch {
        ($d:expr) => {{
            let d = $d;
            if !is_touched[d as usize] {
                is_touched[d as usize] = true;
                touched.push(d);
            }
        }};
    }
    macro_rules! change_memory {
        ($d:expr, $delta:expr, $now:expr) => {{
            let d = $d as usize;
            memory[d] += $delta;
            if memory[d] > peak[d] {
                peak[d] = memory[d];
            }
            if options.record {
                curves[d].push(($now, memory[d]));
            }
        }};
    }
    // Sends transfer x on its link now (the link is free or the transfer is a signal); its
    // arrival gets event number `$seq` (reserved when the send became possible).
    // (Transfer x with its bytes, duration and link.)
    macro_rules! send {
        ($x:expr, $flight:expr, $duration:expr, $now:expr, $seq:expr) => {{
            let x = $x as usize;
            let flight: Flight = $flight;
            let (bytes, duration, link): (f64, f64, u32) = (flight.bytes, $duration, flight.link);
            let slot = match free_slots.pop() {
                Some(slot) => {
                    flights[slot as usize] = flight;
                    slot
                }
                None => {
                    flights.push(flight);
                    flights.len() as u32 - 1
                }
            };
            let ls = &mut link_stats[link as usize];
            ls.bytes += bytes;
            ls.transfers += 1;
            if bytes > 0.0 {
                // Zero-byte signals never occupy a link.
                ls.busy += duration;
            }
            if options.record {
                xfer_times[x].start = $now;
                xfer_times[x].end = $now + duration;
            }
            if options.links == LinkModel::Fcfs && bytes > 0.0 {
                link_busy[link as usize] = true;
            }
            push_event!($now + duration, slot | TRANSFER_BIT, $seq);
        }};
        ($x:expr, $now:expr, $seq:expr) => {{
            let tr = &xfers[$x as usize];
            send!($x, tr.flight, tr.dur, $now, $seq);
        }};
    }

    for v in 0..n as NodeIx {
        if pending[v as usize] == 0 {
            let d = placement[v as usize];
            scheduler.ready(v, d, 0.0);
            touch!(d);
        }
    }
    let mut now = 0.0f64;
    // An instant: its events first (one `events.pop()` site keeps the hot loop small), then
    // the devices pick, then the links; each may add events at the same instant (zero-length
    // ops and transfers), which are processed before the instant ends.
    loop {
        let at_now = matches!(events.peek(), Some(&e) if event_time(e) == now);
        if !at_now {
            if !touched.is_empty() {
                // Start ops on idle devices that have executable ones, in device order.
                touched.sort_unstable();
                for &d in &touched {
                    is_touched[d as usize] = false;
                    if busy[d as usize] {
                        continue;
                    }
                    let view = SimView { now, busy: &busy };
                    if let Some(v) = scheduler.pick(d, &view) {
                        let h = prepared.at[v as usize] as usize;
                        let duration = if arena[h + 2] == d {
                            read_f64(arena, h)
                        } else {
                            problem.exec(v, d)
                        };
                        busy[d as usize] = true;
                        busy_time[d as usize] += duration;
                        op_count[d as usize] += 1;
                        started += 1;
                        if options.record {
                            op_times[v as usize] = (now, now + duration);
                        }
                        push_event!(now + duration, h as u32);
                    }
                }
                touched.clear();
                continue;
            }
            if !dispatch.is_empty() {
                std::mem::swap(&mut dispatch, &mut sending);
                for (item, reserved) in sending.drain(..) {
                    match item {
                        Dispatch::Send(x) => send!(x, now, reserved),
                        Dispatch::Link(l) => {
                            link_listed[l as usize] = false;
                            if !link_busy[l as usize] {
                                if let Some(y) = queue.pop(l) {
                                    send!(y, now, reserved);
                                }
                            }
                        }
                    }
                }
                continue;
            }
        }
        let Some(ev) = events.pop() else {
            break;
        };
        now = event_time(ev);
        let what = event_what(ev);
        if what & TRANSFER_BIT == 0 {
            // An op finished (`what` is its region in the arena).
            let h = what as usize;
            let d = arena[h + 2];
            busy[d as usize] = false;
            finish[d as usize] = now;
            makespan = makespan.max(now);
            touch!(d);
            let mut i = h + HEAD;
            for _ in 0..arena[h + 3] {
                change_memory!(d, read_f64(arena, i), now);
                i += 2;
            }
            for _ in 0..arena[h + 4] {
                let c = arena[i];
                if c & ONCE != 0 {
                    change_memory!(c & !ONCE, -read_f64(arena, i + 1), now);
                    i += 3;
                } else {
                    i += 1;
                    let r = &mut refs[c as usize];
                    *r -= 1;
                    if *r == 0 {
                        let (bytes, dev) = homes[c as usize];
                        change_memory!(dev, -bytes, now);
                    }
                }
            }
            let n_local = arena[h + 5] as usize;
            for &w in &arena[i..i + n_local] {
                if w & ONCE != 0 {
                    scheduler.ready(w & !ONCE, d, now);
                    warm!(w & !ONCE);
                    continue;
                }
                pending[w as usize] -= 1;
                if pending[w as usize] == 0 {
                    scheduler.ready(w, d, now);
                    warm!(w);
                }
            }
            i += n_local;
            for _ in 0..arena[h + 6] {
                let (x, link) = (arena[i], arena[i + 1]);
                let bytes = read_f64(arena, i + 2);
                let duration = read_f64(arena, i + 4);
                let n_cons = arena[i + 8];
                let flight = Flight {
                    bytes,
                    tensor: arena[i + 7],
                    src_dev: d,
                    dst: arena[i + 6],
                    link,
                    cons: (i + SEND) as u32,
                    n_cons,
                };
                i += SEND + n_cons as usize;
                traffic += bytes;
                if options.record {
                    xfer_times[x as usize].ready = now;
                }
                if options.links == LinkModel::Fcfs && bytes > 0.0 {
                    let l = link as usize;
                    queue.push(x, now);
                    if !link_busy[l] && !link_listed[l] {
                        link_listed[l] = true;
                        dispatch.push((Dispatch::Link(l as u32), seq));
                        seq += 1;
                    }
                } else if options.links == LinkModel::Parallel {
                    // Nothing queues: sending now is sending in dispatch order.
                    let reserved = seq;
                    seq += 1;
                    send!(x, flight, duration, now, reserved);
                } else {
                    dispatch.push((Dispatch::Send(x), seq));
                    seq += 1;
                }
            }
        } else {
            // A transfer arrived.
            let slot = what & !TRANSFER_BIT;
            let tr = flights[slot as usize];
            free_slots.push(slot);
            link_stats[tr.link as usize].finish = now;
            if tr.tensor == ONCE {
                // A copy's bytes are its tensor's, as the transfer's.
                change_memory!(tr.src_dev, -tr.bytes, now);
            } else {
                let r = &mut refs[tr.tensor as usize];
                *r -= 1;
                if *r == 0 {
                    let (bytes, dev) = homes[tr.tensor as usize];
                    change_memory!(dev, -bytes, now);
                }
            }
            change_memory!(tr.dst, tr.bytes, now);
            let at = tr.cons as usize;
            for &w in &arena[at..at + tr.n_cons as usize] {
                if w & ONCE != 0 {
                    scheduler.ready(w & !ONCE, tr.dst, now);
                    warm!(w & !ONCE);
                    touch!(tr.dst);
                    continue;
                }
                pending[w as usize] -= 1;
                if pending[w as usize] == 0 {
                    scheduler.ready(w, tr.dst, now);
                    warm!(w);
                    touch!(tr.dst);
                }
            }
            if options.links == LinkModel::Fcfs && tr.bytes > 0.0 {
                let l = tr.link as usize;
                link_busy[l] = false;
                if !link_listed[l] {
                    link_listed[l] = true;
                    dispatch.push((Dispatch::Link(tr.link), seq));
                    seq += 1;
                }
            }
        }
    }

    std::hint::black_box(warm_sink);
    let devices = (0..k)
        .map(|d| DeviceStats {
            busy: busy_time[d],
            finish: finish[d],
            ops: op_count[d],
            peak_memory: peak[d],
            oom: crate::model::cluster::exceeds(peak[d], problem.cluster.devices[d].memory),
        })
        .collect();
    SimResult {
        makespan,
        traffic_bytes: traffic,
        devices,
        links: link_stats,
        unfinished: n - started,
        trace: options.record.then(|| Trace {
            ops: op_times,
            transfers: transfers.clone(),
            transfer_times: xfer_times,
            memory: curves,
        }),
    }
}
