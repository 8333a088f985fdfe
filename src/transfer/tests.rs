//! Tests of the link orders together (each order's own are in its file). Here: why `tio` and
//! `tao` stay above `(V + E) log V * k`: their ranks decide Orthogonal Vectors.
//!
//! TicTac19's Algorithm 1 (§4.1) gives every compute op of a device its dependency set
//! `dep(op)`, the recvs it depends on through any path, and a recv's impending load `M+` is
//! the least `op.M` over the ops with more than one outstanding dependency that include it
//! (docs/tictac.md, readings A7, A9). With every recv on one channel, `op.M` is `|dep(op)|`
//! times the recv time: the number of *distinct* recv ancestors of an op. Both orderings read
//! it, TIO (§4.3) as its whole key, TAO (§4.2) as Eq. 5's tie-break.
//!
//! **The reduction.** Orthogonal Vectors (OV): given `A` and `B`, `n` vectors each in
//! `{0, 1}^D`, is some `a . b = 0`? Build, on three devices `S`, `d`, `E`:
//! - on `S`, one op per `a` in `A`; its tensor goes to an op `u_a` on `d` (a recv of `d`);
//! - on `E`, one op `c_j` per coordinate that some `a` has: `u_a -> c_j` when `a_j = 1`;
//! - on `d`, one op `y_b` per `b` in `B`: `c_j -> y_b` when `b_j = 1`, and two recvs `z0`, `z1`
//!   from `S` into every `y_b`;
//! - a gadget: `n + 2` recvs from `S` into one op `Z` on `d`, first in the transfer order.
//!
//! Then `dep(y_b) = {z0, z1} + {a : a . b != 0}`, so `M+(z0) = 2 + min over b of |{a : a . b
//! != 0}|` (in recv times), which is below the gadget's `n + 2` exactly when some `b` is
//! orthogonal to some `a`. Every compute cost is 0, so every `P` is 0, Eq. 5's two minima tie,
//! and `M+` decides. So the gadget's first recv has TIO rank 0 (nothing is below it), and is
//! TAO's first pick (the lowest index among the least `M+`, reading A3), **iff the answer to OV
//! is no**. The instance has `O(n + D)` ops and `O(n D)` edges.
//!
//! OV with `D = c log n` takes `n^(2 - o(1))` time unless the Strong Exponential Time
//! Hypothesis fails (Williams, "A new algorithm for optimal 2-constraint satisfaction and its
//! implications", TCS 2005). So a method that computes TIO's or TAO's ranks in
//! `O((V + E)^(2 - e))` time, and in particular in `(V + E) log V * k`, would refute SETH.
//! Neither ordering can be made near-linear and still be TicTac19's; docs/cost.md says what
//! placesim does instead (bit sets, `O((V + E) |R| / 64)`).
//!
//! The test below runs the reduction on random instances and checks both orderings against
//! a brute-force OV answer. It also guards the definition: an "optimisation" that counted
//! paths instead of distinct recvs, or left out paths through other devices, fails it.

use super::tao::tao_ranks;
use super::tio::tio_ranks;
use crate::model::cluster::{Cluster, DevIx};
use crate::model::graph::Graph;
use crate::model::problem::Problem;
use crate::rng::Rng;
use crate::sim::transfers_of;
use crate::testutil::joined;

/// The reduction's devices: the senders, the device whose recvs are ranked, the coordinates.
const S: DevIx = 0;
const RECV: DevIx = 1;
const E: DevIx = 2;

/// The reduction's graph, cluster and placement for `a` and `b` (0/1 vectors of one length).
fn instance(a: &[Vec<bool>], b: &[Vec<bool>]) -> (Graph, Cluster, Vec<DevIx>) {
    let dim = a.first().map_or(0, Vec::len);
    let mut nodes = Vec::new();
    let mut edges = Vec::new();
    let mut placement = Vec::new();
    let mut node = |id: String, dev: DevIx| {
        nodes.push(format!(r#"{{"id":"{id}","cost":0}}"#));
        placement.push(dev);
    };
    let mut edge = |src: &str, dst: &str| {
        edges.push(format!(
            r#"{{"src":"{src}","dst":"{dst}","bytes":1,"tensor":"out"}}"#
        ))
    };
    // The gadget first, so its recvs take the lowest transfer indices.
    for g in 0..a.len() + 2 {
        node(format!("g{g}"), S);
        edge(&format!("g{g}"), "Z");
    }
    node("Z".into(), RECV);
    node("z0".into(), S);
    node("z1".into(), S);
    for i in 0..a.len() {
        node(format!("a{i}"), S);
        node(format!("u{i}"), RECV);
        edge(&format!("a{i}"), &format!("u{i}"));
    }
    // A coordinate no `a` has would be a recv of its own: left out (it decides nothing).
    let used: Vec<usize> = (0..dim).filter(|&j| a.iter().any(|v| v[j])).collect();
    for &j in &used {
        node(format!("c{j}"), E);
        for i in (0..a.len()).filter(|&i| a[i][j]) {
            edge(&format!("u{i}"), &format!("c{j}"));
        }
    }
    for (k, v) in b.iter().enumerate() {
        node(format!("y{k}"), RECV);
        edge("z0", &format!("y{k}"));
        edge("z1", &format!("y{k}"));
        for &j in used.iter().filter(|&&j| v[j]) {
            edge(&format!("c{j}"), &format!("y{k}"));
        }
    }
    let c = Cluster::uniform(&[1.0; 3], 1.0, 0.0);
    (joined(&nodes, &edges), c, placement)
}

fn orthogonal_pair(a: &[Vec<bool>], b: &[Vec<bool>]) -> bool {
    a.iter()
        .any(|x| b.iter().any(|y| x.iter().zip(y).all(|(&p, &q)| !(p && q))))
}

/// On random OV instances, the gadget's first recv has TIO rank 0, and TAO rank 0 (its
/// first pick), exactly when no `a` is orthogonal to any `b`. Both answers occur.
#[test]
fn tio_and_tao_ranks_decide_orthogonal_vectors() {
    let mut rng = Rng::new(24);
    let mut answers = [0; 2];
    for _ in 0..300 {
        let n = 1 + rng.below(6) as usize;
        let dim = 1 + rng.below(5) as usize;
        let mut vectors = || -> Vec<Vec<bool>> {
            (0..n)
                .map(|_| (0..dim).map(|_| rng.below(3) != 0).collect())
                .collect()
        };
        let (a, b) = (vectors(), vectors());
        let (g, c, placement) = instance(&a, &b);
        let p = Problem::new(&g, &c).unwrap();
        let xs = transfers_of(&p, &placement);
        let gadget = xs
            .iter()
            .position(|t| {
                t.dst == RECV && g.nodes[g.tensors[t.tensor as usize].src as usize].id == "g0"
            })
            .unwrap();
        let ov = orthogonal_pair(&a, &b);
        answers[ov as usize] += 1;
        for (name, ranks) in [
            ("tio", tio_ranks(&p, &placement, &xs)),
            ("tao", tao_ranks(&p, &placement, &xs)),
        ] {
            assert_eq!(
                ranks[gadget] != Some(0.0),
                ov,
                "{name} on a = {a:?}, b = {b:?}: gadget rank {:?}",
                ranks[gadget]
            );
        }
    }
    assert!(answers.iter().all(|&x| x > 50), "{answers:?}");
}
