//! Cycle-free batch coarsening (Pesto21 §3.3): merge adjacent ops, many pairs per round,
//! until the graph is small enough for an exact or search-based planner, never creating a
//! cycle.
//!
//! One round: heights `H` (Definition 3.4: roots are 1, `H(v) = 1 + max H(pred)`); candidate
//! edges by priority, highest first; a greedy scan adds `(u, v)` to the batch `M` when
//! - (i) neither `u` nor `v` is in `M` yet (a matching);
//! - (ii) as printed: `|succ(u)| = 1`, or `|prec(v)| = 1`, or `H(v) = H(u) + 1`, or every
//!   other successor `w` of `u` has `H(w) > H(v)` (then `(u, v)` is the only path from `u`
//!   to `v`, Theorem 3.2; succ and prec are immediate, as §3.3's "height, outdegree and
//!   indegree" says);
//! - (iii) **corrected** (docs/pesto.md, erratum C-iii: the printed condition lets Fig. 6's
//!   two merges through and creates a cycle): for every pair `(u_j, v_j)` already in `M`,
//!   `(u, v_j)` is not an edge with `H(v_j) = H(v)`, and `(u_j, v)` is not an edge with
//!   `H(v) = H(v_j)`. Proof sketch: give a merged vertex the level of its top; every coarse
//!   edge then keeps or raises the level, and the only edges that keep it are cross edges
//!   from the bottom of a tight pair to a head at the same height; a cycle would need only
//!   such edges, which (iii) forbids;
//! - placesim's device rule: the two vertices may run on a common device;
//!
//! and stops once `|V| - |M|` reaches the target. The batch is contracted; should a cycle
//! ever appear (it cannot, by the proof; a property test checks thousands of DAGs), the batch
//! is undone and only its first pair, safe by Theorem 3.2, is merged, and the round says so.
//! Rounds repeat until the vertices that count reach the target or no pair qualifies.
//!
//! Where this departs from §3.3 (docs/pesto.md): only vertices with work and edges count
//! toward the target (isolated and zero-work ops do not consume it, so a graph with
//! hundreds of isolated ops is not squeezed into one connected vertex); a pair whose merged
//! work would exceed [`WORK_SHARE`] of the graph's work (or `2 / target`, for small
//! targets) is refused, so no coarse vertex swallows the graph; and, after the rounds,
//! isolated vertices are merged among themselves, by the devices they may use, under the
//! same cap.
//!
//! Rounds are updated in place, not rebuilt (issue 24x; same result, bit for bit, as the
//! rebuild it replaced, which the tests keep in `coarsen/reference.rs` and compare on random
//! graphs and every bundled graph):
//! - a vertex is keyed by its first member's topological position; the final numbering is
//!   in that order, so keys order the candidates `(bytes desc, src, dst)` exactly as the
//!   renumbered ids did, and the vertices are renumbered once, after the rounds;
//! - each coarse edge keeps its distinct tensors (sorted ids); a merge re-points only the
//!   edges whose ends move or that a moved edge joins, unites their tensor lists and re-sums
//!   them in id order, sorts those changed edges and merges them into the kept candidate
//!   list (still sorted); members, work (summed over the members in topological order) and
//!   allowed devices change only for the merged pairs;
//! - heights come from one Kahn pass over the contracted graph, which is also the cycle
//!   check (the petgraph check before), so the fallback (undo the batch, merge its first
//!   pair) is decided exactly as before.
//!
//! Issue 24a: small rounds cost what they change. A round whose batch merges at least one
//! pair per [`SMALL_BATCH`] live edges still makes the pass above (`rounds.rs`; it changes
//! a good share of the graph); from the first smaller batch on, the live graph is updated in
//! place (`live.rs`): edges in a slab with predecessor and successor trees, so a merge moves
//! only one side's edges (the higher key's; since 24d the smaller side's); heights settled
//! from the vertices whose predecessors changed, lowest height first, each taking
//! `1 + max` of a multiset of its predecessors' heights
//! (the cycle check: when no vertex is left to update every vertex satisfies Definition
//! 3.4's equation, which no graph with a cycle can, and which fixes a DAG's heights; should
//! the updates cost more than a pass, Kahn's algorithm decides, so the fallback is decided
//! exactly as before); a running count of the counted vertices (only a merged pair changes
//! whether it counts); candidates grouped by an owning end (the end of higher degree), merged
//! in scan order from the owners' lists, so an owner in the batch skips all its edges at
//! once; edges refused for the work cap or the devices leave the candidates (a kept end's
//! work only grows, its devices only shrink). On a fan-in star a round is `O(log V)`:
//! 80,000 ops in 0.12 s (was 6.6 s).
//!
//! Issue 24d: the tail rounds of real graphs (NASNet copies: hundreds of rounds, one pair
//! per copy) no longer pay for the refused edges or the members' order:
//! - members are joined by appending the smaller list to the larger and adding the works
//!   (`works.rs`); the work cap is still decided on the fold in topological order, exactly:
//!   the running sum is within a proven bound of it, and only a pair whose sum lies within
//!   that bound of the cap is folded in order (the lists are sorted once, at the end);
//!   before, every merge re-folded the members from the first insertion (two thirds of the
//!   in-place rounds' time on NASNet copies);
//! - edges refused by rule (ii) are parked, watched by their source, head and a witness
//!   (another successor of the source, no higher than the head), and woken only when the
//!   witness stops being a successor or one of the three changes height, which is when
//!   the refusal may lapse (`live.rs`'s scan doc); a woken edge is checked again and parked
//!   again in `O(log)` while still refused (NASNet x10: 5,750 examinations by the scan under
//!   rule (ii) instead of 104,220);
//! - a merged pair keeps the slot (edges, lists) of the end with more edges, which takes
//!   the lower key; an owner's candidates are in two lists, out-edges and in-edges, each
//!   ordered by bytes and the other end's key (the scan order with the owner's key fixed),
//!   so a hub whose key moves keeps its lists: only their heads and the hub's edges held in
//!   other vertices' lists are re-keyed. Before, the higher key's edges always moved, so a
//!   fan-in star whose bytes grow with the leaves' topological positions (each round merges
//!   an earlier leaf: the hub's key moves every round) re-keyed all its edges each round:
//!   20,000 leaves took 9.2 s, now 0.03 s.
//!
//! NASNet x10 coarsens in ~39 ms (was ~86), x40 in ~275 ms (was ~540). Left: the first
//! rounds' passes (`rounds.rs`) are now most of it (~22 of ~37 ms at x10, ~140 of ~250 at
//! x40); rule (iii) and used-end refusals are examined again each round (1-2% of the
//! examinations on NASNet copies); a parked edge whose source or head is a vertex that
//! changes height each round is woken and parked again each round (`O(log)` each, ~42,000
//! on NASNet x10); a merge still moves the smaller side's edges, `O(small log)`.
//!
//! Choices:
//! - Priority: the paper's "estimated communication time" of the edge. Any per-pair mean of
//!   `latency + bytes / bandwidth` grows with the bytes, so edges are ranked by the summed
//!   bytes of the distinct tensors between the two vertices, ties by lower (src, dst) index.
//! - Colocation groups are not merged (contracting non-adjacent members can create cycles):
//!   [`Coarse::units`] joins the coarse vertices of each group into one placement unit.
//! - Members of a coarse vertex are kept in topological order; expanding a coarse placement
//!   gives each member its vertex's device ([`Coarse::expand`]).

use serde::Serialize;

use crate::model::cluster::DevIx;
use crate::model::graph::NodeIx;
use crate::model::problem::Problem;
use crate::util::merge_sorted;

mod live;
mod rounds;
mod works;

use live::Live;
use rounds::{
    contract, counted_live, first_edges, kahn_heights, live_heights, Adjacency, BatchScratch, Scan,
};
use works::Works;

/// What one round did.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Round {
    pub vertices: usize,
    pub edges: usize,
    /// Pairs merged.
    pub merged: usize,
    /// Percent of the round's starting edges that vanished.
    pub edges_removed_pct: f64,
    /// Whether the batch was undone for a cycle (never expected).
    pub fallback: bool,
}

impl Round {
    /// A round that merged `merged` pairs and left `vertices` and `edges` of the `before`
    /// edges it started with.
    fn after(before: usize, vertices: usize, edges: usize, merged: usize, fallback: bool) -> Round {
        Round {
            vertices,
            edges,
            merged,
            edges_removed_pct: if before > 0 {
                100.0 * (before - edges) as f64 / before as f64
            } else {
                0.0
            },
            fallback,
        }
    }
}

/// A coarsened graph.
#[derive(Debug, Clone, PartialEq)]
pub struct Coarse {
    /// Coarse vertex of each node.
    pub of: Vec<u32>,
    /// Nodes of each coarse vertex, in topological order.
    pub members: Vec<Vec<NodeIx>>,
    /// Coarse edges `(src, dst, bytes)`, sorted.
    pub edges: Vec<(u32, u32, f64)>,
    /// The starting graph and every round.
    pub rounds: Vec<Round>,
}

/// Coarse edges of a grouping: the summed bytes of distinct tensors between two vertices.
fn coarse_edges(problem: &Problem, of: &[u32]) -> Vec<(u32, u32, f64)> {
    let g = problem.graph;
    let mut keyed: Vec<(u32, u32, u32)> = g
        .edges
        .iter()
        .filter(|e| of[e.src as usize] != of[e.dst as usize])
        .map(|e| (of[e.src as usize], of[e.dst as usize], e.tensor))
        .collect();
    keyed.sort_unstable();
    keyed.dedup();
    let mut out: Vec<(u32, u32, f64)> = Vec::new();
    for (a, b, t) in keyed {
        let bytes = problem.tensor_bytes[t as usize];
        match out.last_mut() {
            Some(last) if last.0 == a && last.1 == b => last.2 += bytes,
            _ => out.push((a, b, bytes)),
        }
    }
    out
}

/// Heights (Definition 3.4) of a DAG of `n` vertices; `None` when it has a cycle.
fn heights(n: usize, edges: &[(u32, u32, f64)]) -> Option<Vec<u32>> {
    let mut indeg = vec![0u32; n];
    let mut succ: Vec<Vec<u32>> = vec![Vec::new(); n];
    for &(a, b, _) in edges {
        indeg[b as usize] += 1;
        succ[a as usize].push(b);
    }
    let mut h = vec![1u32; n];
    let succ = |v: usize| succ[v].iter().copied();
    kahn_heights(0..n as u32, indeg, succ, &mut h).then_some(h)
}

/// Renumbers groups of nodes: coarse vertex ids in order of their first member's
/// topological position.
fn renumber(problem: &Problem, group: &[u32]) -> (Vec<u32>, Vec<Vec<NodeIx>>) {
    let g = problem.graph;
    let mut new_id = vec![u32::MAX; group.len()];
    let mut of = vec![0u32; g.node_count()];
    let mut members: Vec<Vec<NodeIx>> = Vec::new();
    for &v in g.topo_order() {
        let old = group[v as usize] as usize;
        if new_id[old] == u32::MAX {
            new_id[old] = members.len() as u32;
            members.push(Vec::new());
        }
        of[v as usize] = new_id[old];
        members[new_id[old] as usize].push(v);
    }
    (of, members)
}

/// Largest share of the graph's work one coarse vertex may take, unless a single op already
/// takes more or the target is below 20 (then `2 / target`, so that the target can be met):
/// not in Pesto21 §3.3 (docs/pesto.md, "where coarsening departs").
pub const WORK_SHARE: f64 = 0.1;

/// The most work one coarse vertex may take when coarsening towards `target`.
pub fn work_cap(problem: &Problem, target: usize) -> f64 {
    let w = op_work(problem);
    let total: f64 = w.iter().sum();
    let biggest = w.iter().copied().fold(0.0, f64::max);
    (WORK_SHARE.max(2.0 / target.max(1) as f64) * total).max(biggest)
}

/// Work of each op: its run time on the fastest device it may use (0 when it may use none,
/// which `Problem::new` rules out).
fn op_work(problem: &Problem) -> Vec<f64> {
    (0..problem.node_count() as NodeIx)
        .map(|v| {
            let m = problem
                .exec_row(v)
                .iter()
                .copied()
                .filter(|t| t.is_finite())
                .fold(f64::INFINITY, f64::min);
            if m.is_finite() {
                m
            } else {
                0.0
            }
        })
        .collect()
}

/// A round whose batch merges fewer than one pair per this many live edges hands over to
/// the in-place updates (`live.rs`); larger batches change a good share of the graph, and a
/// pass over it (`rounds.rs`) costs less per change.
const SMALL_BATCH: usize = 32;

/// Vertices that count toward the target: those with work and at least one edge (isolated
/// and zero-work vertices do not consume it).
fn counted(n: usize, edges: &[(u32, u32, f64)], work: &[f64]) -> usize {
    let mut linked = vec![false; n];
    for &(a, b, _) in edges {
        linked[a as usize] = true;
        linked[b as usize] = true;
    }
    (0..n).filter(|&x| linked[x] && work[x] > 0.0).count()
}

/// Coarsens `problem`'s graph towards `target` vertices (Pesto21 uses about 200), counting
/// only vertices with work and edges; no vertex takes more than [`WORK_SHARE`] of the work
/// (unless one op does); isolated vertices are merged among themselves at the end, by the
/// devices they may use, under the same share.
pub fn coarsen(problem: &Problem, target: usize) -> Coarse {
    coarsen_split(problem, target, SMALL_BATCH)
}

/// [`coarsen`], handing over to the in-place rounds at the first batch of fewer than one
/// pair per `small_batch` live edges (0: from the first round; the tests run both ways).
fn coarsen_split(problem: &Problem, target: usize, small_batch: usize) -> Coarse {
    let g = problem.graph;
    let k = problem.device_count();
    let op_work = op_work(problem);
    let cap = work_cap(problem, target);
    let n = g.node_count();
    let topo = g.topo_order();
    let mut pos = vec![0u32; n];
    for (i, &v) in topo.iter().enumerate() {
        pos[v as usize] = i as u32;
    }
    // Vertices by key: the topological position of their first member.
    let mut members: Vec<Vec<NodeIx>> = topo.iter().map(|&v| vec![v]).collect();
    let mut work: Vec<f64> = topo.iter().map(|&v| op_work[v as usize]).collect();
    let mut allowed: Vec<Vec<bool>> = topo
        .iter()
        .map(|&v| (0..k as DevIx).map(|d| problem.allowed(v, d)).collect())
        .collect();
    let mut live: Vec<u32> = (0..n as u32).collect();
    let mut tensors: Vec<Vec<u32>> = Vec::new();
    let mut edges = first_edges(problem, &pos, &mut tensors);
    let mut rounds = vec![Round {
        vertices: live.len(),
        edges: edges.len(),
        merged: 0,
        edges_removed_pct: 0.0,
        fallback: false,
    }];
    let target = target.max(1);
    let mut succ = Adjacency::new(n, &edges, true);
    let mut h = live_heights(n, &live, &edges, &succ).expect("the graph is acyclic");
    let mut group: Vec<u32> = (0..n as u32).collect();
    let mut touched = vec![false; n];
    let mut scratch = BatchScratch::new(n);
    let mut linked = vec![false; n];
    let mut dead = vec![false; n];
    let mut handover: Option<Vec<(u32, u32)>> = None;
    loop {
        let active = counted_live(&live, &edges, &work, &mut linked);
        if active <= target {
            break;
        }
        let pred = Adjacency::new(n, &edges, false);
        let scan = Scan {
            edges: &edges,
            succ: &succ,
            pred: &pred,
            h: &h,
            work: &work,
            allowed: &allowed,
            k,
            cap,
        };
        let batch = scan.batch(active, target, &mut scratch);
        if batch.is_empty() {
            break;
        }
        if batch.len().saturating_mul(small_batch) <= edges.len() {
            handover = Some(batch);
            break;
        }
        let before = edges.len();
        let slots = tensors.len();
        let mut retired: Vec<u32> = Vec::new();
        let mut fallback = false;
        let mut pairs: &[(u32, u32)] = &batch;
        let (next, next_succ, next_h) = loop {
            for &(u, v) in pairs {
                let m = u.min(v);
                group[u as usize] = m;
                group[v as usize] = m;
                touched[u as usize] = true;
                touched[v as usize] = true;
            }
            retired.clear();
            let next = contract(
                problem,
                &edges,
                &group,
                &touched,
                &mut tensors,
                &mut retired,
            );
            for &(u, v) in pairs {
                group[u as usize] = u;
                group[v as usize] = v;
                touched[u as usize] = false;
                touched[v as usize] = false;
            }
            for &(u, v) in pairs {
                dead[u.max(v) as usize] = true;
            }
            let next_live: Vec<u32> = live
                .iter()
                .copied()
                .filter(|&x| !dead[x as usize])
                .collect();
            for &(u, v) in pairs {
                dead[u.max(v) as usize] = false;
            }
            let next_succ = Adjacency::new(n, &next, true);
            match live_heights(n, &next_live, &next, &next_succ) {
                Some(next_h) => {
                    live = next_live;
                    break (next, next_succ, next_h);
                }
                None => {
                    assert!(!fallback, "one pair is safe (Theorem 3.2)");
                    tensors.truncate(slots);
                    fallback = true;
                    pairs = &batch[..1];
                }
            }
        };
        for &(u, v) in pairs {
            let (m, o) = (u.min(v) as usize, u.max(v) as usize);
            let gone = std::mem::take(&mut members[o]);
            let joined = merge_sorted(&members[m], &gone, |&k, &g| {
                pos[k as usize] < pos[g as usize]
            });
            work[m] = joined.iter().map(|&v| op_work[v as usize]).sum();
            members[m] = joined;
            join_allowed(&mut allowed, m, o);
        }
        // Joined edges' tensor lists are no longer read (a new list holds their union).
        for &slot in &retired {
            tensors[slot as usize] = Vec::new();
        }
        edges = next;
        succ = next_succ;
        h = next_h;
        rounds.push(Round::after(
            before,
            live.len(),
            edges.len(),
            pairs.len(),
            fallback,
        ));
    }
    drop((edges, succ, h, tensors, live));
    let from = Handover {
        members,
        work,
        allowed,
        batch: handover,
        rounds,
    };
    live_rounds(problem, target, cap, &pos, &op_work, from)
}

/// Vertex `o` merged into `m`: `m` may use the devices both could; `o`'s list is dropped.
fn join_allowed(allowed: &mut [Vec<bool>], m: usize, o: usize) {
    let other = std::mem::take(&mut allowed[o]);
    for (a, b) in allowed[m].iter_mut().zip(other) {
        *a = *a && b;
    }
}

/// What the rounds over the whole edge list hand the in-place rounds: the vertices (by key)
/// with their members, work and allowed devices, the first small batch (none when they
/// stopped for another reason) and the rounds so far.
struct Handover {
    members: Vec<Vec<NodeIx>>,
    work: Vec<f64>,
    allowed: Vec<Vec<bool>>,
    batch: Option<Vec<(u32, u32)>>,
    rounds: Vec<Round>,
}

/// The small rounds of [`coarsen_split`]: the live graph updated in place (`live.rs`) from
/// the handed-over batch until `target` or no pair is left, then the vertices renumbered
/// once (ids in key order) and the isolated ones merged ([`merge_isolated`]).
fn live_rounds(
    problem: &Problem,
    target: usize,
    cap: f64,
    pos: &[u32],
    op_work: &[f64],
    from: Handover,
) -> Coarse {
    let n = problem.graph.node_count();
    let Handover {
        members,
        work,
        mut allowed,
        batch: mut handover,
        mut rounds,
    } = from;
    // Small rounds: the live graph updated in place (`live.rs`), from the first small batch.
    let mut live = Live::build(problem, &members).expect("the graph is acyclic");
    let mut works = Works::new(members, work, pos, op_work);
    let mut active = (0..n as u32).filter(|&x| live.counts(x, &works)).count();
    loop {
        let batch = match handover.take() {
            Some(batch) => batch,
            None if active <= target => break,
            None => live.scan(active, target, cap, &mut works, &allowed),
        };
        if batch.is_empty() {
            break;
        }
        let before = live.edges;
        // Counted vertices before the merges: only the merged pairs change (every other
        // vertex keeps its work and at least one edge, if it had one).
        let was: Vec<usize> = batch
            .iter()
            .map(|&(u, v)| {
                usize::from(live.counts(u, &works)) + usize::from(live.counts(v, &works))
            })
            .collect();
        for &(u, v) in &batch {
            live.merge(problem, u, v);
        }
        let mut fallback = false;
        let mut pairs: &[(u32, u32)] = &batch;
        if !live.settle() {
            // Never expected (the module doc's proof): the graph before the batch again,
            // and only the batch's first pair, safe by Theorem 3.2.
            fallback = true;
            pairs = &batch[..1];
            live = Live::build(problem, works.members())
                .expect("the graph before the batch is acyclic");
            live.merge(problem, pairs[0].0, pairs[0].1);
            assert!(live.settle(), "one pair is safe (Theorem 3.2)");
        }
        for (&(u, v), was) in pairs.iter().zip(&was) {
            let (m, o) = (u.min(v), u.max(v));
            works.join(m, o);
            join_allowed(&mut allowed, m as usize, o as usize);
            active = active - was + usize::from(live.counts(m, &works));
        }
        rounds.push(Round::after(
            before,
            live.live,
            live.edges,
            pairs.len(),
            fallback,
        ));
    }
    // Renumber once: ids in key order.
    let mut members = works.into_members();
    let keys = live.keys();
    let mut id = vec![u32::MAX; n];
    for (i, &x) in keys.iter().enumerate() {
        id[x as usize] = i as u32;
    }
    let mut of = vec![0u32; n];
    let members: Vec<Vec<NodeIx>> = keys
        .iter()
        .map(|&x| std::mem::take(&mut members[x as usize]))
        .collect();
    for (i, ms) in members.iter().enumerate() {
        for &v in ms {
            of[v as usize] = i as u32;
        }
    }
    let mut edges: Vec<(u32, u32, f64)> = live
        .edge_list()
        .into_iter()
        .map(|(a, b, bytes)| (id[a as usize], id[b as usize], bytes))
        .collect();
    edges.sort_unstable_by_key(|e| (e.0, e.1));
    merge_isolated(problem, cap, of, members, edges, rounds)
}

/// After the rounds: isolated vertices merged among themselves, by the devices they may
/// use, in topological order, each group under the work share (no edge, so no cycle).
fn merge_isolated(
    problem: &Problem,
    cap: f64,
    mut of: Vec<u32>,
    mut members: Vec<Vec<NodeIx>>,
    mut edges: Vec<(u32, u32, f64)>,
    mut rounds: Vec<Round>,
) -> Coarse {
    let k = problem.device_count();
    let op_work = op_work(problem);
    let n = members.len();
    let mut linked = vec![false; n];
    for &(a, b, _) in &edges {
        linked[a as usize] = true;
        linked[b as usize] = true;
    }
    let work: Vec<f64> = members
        .iter()
        .map(|ms| ms.iter().map(|&v| op_work[v as usize]).sum())
        .collect();
    let mut group: Vec<u32> = (0..n as u32).collect();
    // (allowed devices, head vertex, work so far) of each open group.
    let mut open: Vec<(Vec<bool>, u32, f64)> = Vec::new();
    let mut merged = 0;
    for x in (0..n).filter(|&x| !linked[x]) {
        let ds: Vec<bool> = (0..k as DevIx)
            .map(|d| members[x].iter().all(|&v| problem.allowed(v, d)))
            .collect();
        match open.iter_mut().find(|o| o.0 == ds) {
            Some(o) if o.2 + work[x] <= cap => {
                group[x] = o.1;
                o.2 += work[x];
                merged += 1;
            }
            Some(o) => *o = (ds, x as u32, work[x]),
            None => open.push((ds, x as u32, work[x])),
        }
    }
    if merged > 0 {
        let grouped: Vec<u32> = of.iter().map(|&c| group[c as usize]).collect();
        (of, members) = renumber(problem, &grouped);
        edges = coarse_edges(problem, &of);
        rounds.push(Round {
            vertices: members.len(),
            edges: edges.len(),
            merged,
            edges_removed_pct: 0.0,
            fallback: false,
        });
    }
    Coarse {
        of,
        members,
        edges,
        rounds,
    }
}

/// What `placesim coarsen` prints.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    pub graph: String,
    pub nodes: usize,
    pub edges: usize,
    pub target: usize,
    pub vertices: usize,
    pub coarse_edges: usize,
    /// Coarse vertices with work and edges (those the target counts).
    pub counted: usize,
    /// Coarse vertices without edges.
    pub isolated: usize,
    /// The largest coarse vertex's share of the work (fastest allowed device per op).
    pub largest_share: f64,
    /// Checked on the result (Kahn's algorithm), not assumed.
    pub acyclic: bool,
    /// The starting graph, then every round.
    pub rounds: Vec<Round>,
}

impl Coarse {
    /// The rounds and the result, with an acyclicity check of the coarse graph.
    pub fn summary(&self, problem: &Problem, target: usize) -> Summary {
        Summary {
            graph: problem.graph.name.clone(),
            nodes: problem.node_count(),
            edges: problem.graph.edge_count(),
            target,
            vertices: self.len(),
            coarse_edges: self.edges.len(),
            counted: counted(self.len(), &self.edges, &self.work(problem)),
            isolated: self.len() - {
                let mut linked = vec![false; self.len()];
                for &(a, b, _) in &self.edges {
                    linked[a as usize] = true;
                    linked[b as usize] = true;
                }
                linked.iter().filter(|&&l| l).count()
            },
            largest_share: {
                let w = self.work(problem);
                let total: f64 = w.iter().sum();
                if total > 0.0 {
                    w.iter().copied().fold(0.0, f64::max) / total
                } else {
                    0.0
                }
            },
            acyclic: heights(self.len(), &self.edges).is_some(),
            rounds: self.rounds.clone(),
        }
    }

    pub fn len(&self) -> usize {
        self.members.len()
    }

    /// Work of each coarse vertex: its members' run times, each on its fastest device.
    pub fn work(&self, problem: &Problem) -> Vec<f64> {
        let w = op_work(problem);
        self.members
            .iter()
            .map(|ms| ms.iter().map(|&v| w[v as usize]).sum())
            .collect()
    }

    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }

    /// Run time of coarse vertex `x` on `d`: its members' sum (infinite where one may not
    /// run).
    pub fn exec(&self, problem: &Problem, x: u32, d: DevIx) -> f64 {
        self.members[x as usize]
            .iter()
            .map(|&v| problem.exec(v, d))
            .sum()
    }

    /// Static memory of coarse vertex `x`: its members' footprints.
    pub fn footprint(&self, problem: &Problem, x: u32) -> f64 {
        self.members[x as usize]
            .iter()
            .map(|&v| problem.footprint[v as usize])
            .sum()
    }

    /// Placement units over coarse vertices: the unit of each coarse vertex, joining the
    /// vertices that hold members of one colocation group (Pesto's `x_i1 = ... = x_ik`).
    pub fn units(&self, problem: &Problem) -> Vec<u32> {
        let mut parent: Vec<u32> = (0..self.len() as u32).collect();
        fn root(parent: &mut [u32], mut x: u32) -> u32 {
            while parent[x as usize] != x {
                parent[x as usize] = parent[parent[x as usize] as usize];
                x = parent[x as usize];
            }
            x
        }
        for group in &problem.graph.group_members {
            let mut first: Option<u32> = None;
            for &v in group {
                let r = root(&mut parent, self.of[v as usize]);
                match first {
                    None => first = Some(r),
                    Some(f) if f != r => parent[r.max(f) as usize] = r.min(f),
                    _ => {}
                }
                if let Some(f) = first {
                    first = Some(root(&mut parent, f));
                }
            }
        }
        (0..self.len() as u32)
            .map(|x| root(&mut parent, x))
            .collect()
    }

    /// The coarse graph in the graph format (docs: the graph JSON page), each vertex with
    /// `members`, its original node ids in topological order. A vertex is `c<i>`; its
    /// `cost` is its members' summed cost when every member has a cost and no per-kind
    /// `time` and the cluster times every op as cost / speed (no `op_speed` entry for a
    /// member's op type, no `op_overhead`), otherwise `time` per device kind of the cluster
    /// is the members' summed run time on the first device of that kind (without the
    /// cluster's what-if scale, which the reader applies again): exact when the devices of
    /// a kind share their speed and overhead, as on every bundled cluster; a summed cost
    /// would drop the op types, whose speeds the cluster sets apart. `mem` sums; `device` is the one device it may
    /// use, or the kind all its allowed devices share, when it may not use them all;
    /// `colocate` joins the vertices of one placement unit ([`Coarse::units`]); an edge
    /// carries the summed bytes of the distinct tensors between two vertices.
    pub fn to_graph_json(&self, problem: &Problem) -> serde_json::Value {
        use serde_json::{json, Map, Value};
        let g = problem.graph;
        let c = problem.cluster;
        let k = problem.device_count();
        let units = self.units(problem);
        let mut unit_size = vec![0usize; self.len()];
        for &u in &units {
            unit_size[u as usize] += 1;
        }
        let mut kinds: Vec<(String, DevIx)> = Vec::new();
        for (d, dev) in c.devices.iter().enumerate() {
            if !kinds.iter().any(|(kd, _)| *kd == dev.kind) {
                kinds.push((dev.kind.clone(), d as DevIx));
            }
        }
        let nodes: Vec<Value> = self
            .members
            .iter()
            .enumerate()
            .map(|(x, ms)| {
                let mut o = Map::new();
                o.insert("id".into(), json!(format!("c{x}")));
                let per_op = c.devices.iter().any(|d| d.op_overhead != 0.0)
                    || ms.iter().any(|&v| {
                        let op = &g.op_types[g.op_type(v) as usize];
                        c.op_speed.values().any(|t| t.contains_key(op))
                    });
                let plain = !per_op
                    && ms.iter().all(|&v| {
                        let n = &g.nodes[v as usize];
                        n.cost.is_some() && n.time.is_empty()
                    });
                if plain {
                    let cost: f64 = ms
                        .iter()
                        .map(|&v| g.nodes[v as usize].cost.unwrap_or(0.0))
                        .sum();
                    o.insert("cost".into(), json!(cost));
                } else {
                    let mut time = Map::new();
                    for (kind, d) in &kinds {
                        let t: f64 =
                            ms.iter().map(|&v| problem.exec(v, *d)).sum::<f64>() / c.time_scale(*d);
                        if t.is_finite() {
                            time.insert(kind.clone(), json!(t));
                        }
                    }
                    o.insert("time".into(), Value::Object(time));
                }
                let mem: f64 = ms.iter().map(|&v| g.nodes[v as usize].mem).sum();
                if mem != 0.0 {
                    o.insert("mem".into(), json!(mem));
                }
                let allowed: Vec<usize> = (0..k)
                    .filter(|&d| ms.iter().all(|&v| problem.allowed(v, d as DevIx)))
                    .collect();
                if allowed.len() < k {
                    if allowed.len() == 1 {
                        o.insert("device".into(), json!(c.devices[allowed[0]].id));
                    } else if allowed
                        .iter()
                        .all(|&d| c.devices[d].kind == c.devices[allowed[0]].kind)
                    {
                        o.insert("device".into(), json!(c.devices[allowed[0]].kind));
                    }
                }
                let u = units[x] as usize;
                if unit_size[u] > 1 {
                    o.insert("colocate".into(), json!(format!("unit{u}")));
                }
                if let Some(layer) = ms.iter().filter_map(|&v| g.nodes[v as usize].layer).min() {
                    o.insert("layer".into(), json!(layer));
                }
                let ids: Vec<&str> = ms
                    .iter()
                    .map(|&v| g.nodes[v as usize].id.as_str())
                    .collect();
                o.insert("members".into(), json!(ids));
                Value::Object(o)
            })
            .collect();
        let edges: Vec<Value> = self
            .edges
            .iter()
            .map(|&(a, b, bytes)| json!({"src": format!("c{a}"), "dst": format!("c{b}"), "bytes": bytes}))
            .collect();
        json!({
            "name": format!("{}_coarse{}", g.name, self.len()),
            "source": format!("placesim coarsen of {} ({} ops -> {} vertices, Pesto21 §3.3 with docs/pesto.md's departures)", g.name, g.node_count(), self.len()),
            "nodes": nodes,
            "edges": edges,
        })
    }

    /// A placement of the full graph from one of the coarse graph.
    pub fn expand(&self, coarse: &[DevIx]) -> Vec<DevIx> {
        self.of.iter().map(|&x| coarse[x as usize]).collect()
    }
}

#[cfg(test)]
mod reference;

#[cfg(test)]
mod tests;
