//! The constraint model of Pesto21 §3.2.2's problem with the simulator's semantics, posted
//! one constraint family at a time, each family a short function below (in the order they
//! are posted, which the solver's variable numbering and so its search depend on):
//!
//! - `placement`: a literal per (unit, allowed device), exactly one true (affinity `O_i`;
//!   colocation units share it, §3.2.2 "x_i1 = ... = x_ik");
//! - `symmetry`: identical devices open in index order;
//! - `memory`: static memory per device (eq. (8) as a hard capacity);
//! - `tasks`: a start and an end per task, the end at least its run time on the device
//!   used, the makespan after every end;
//! - `messages`: a send per (message, consuming device) with a consumer there and not its
//!   producer (the simulator's routing; §3.2.2's augmented vertex k), after its producer,
//!   lasting `latency + bytes / bandwidth` of the directed link it crosses, before its
//!   consumers there;
//! - `devices`: one op at a time per device (eq. (4)), as implications on the placement
//!   literals, for pairs the graph does not order;
//! - `congestion`: under `fcfs`, one send of more than 0 bytes at a time per directed link
//!   (eq. (7); 0-byte sends are latency-only signals, as in the simulator); with the `fifo`
//!   link order, in the order their producers ended (ties free; one producer's in message
//!   order);
//! - in a window of a larger schedule (`CpInstance::window`, `optim::lns`), with `tasks`:
//!   each task starts after its release on the device used and the makespan is at least
//!   its end plus its tail there;
//! - `redundant`: each device's load at most the makespan, the total load at most `k`
//!   times it, and a cumulative of capacity `k` over the tasks at their shortest run times
//!   (without them a 15-op instance took minutes).
//!
//! Times are integers at the model's scale (`instance::time_scale`): exact when every duration
//! is integral there, else rounded down (a relaxation whose optimum is still a bound).
//!
//! What it is not: the search (`search`: branching, budget, the SAT-UNSAT loop) or the
//! instance (`instance`).

use pumpkin_constraints::{cumulative, less_than_or_equals};
use pumpkin_core::options::SolverOptions;
use pumpkin_core::proof::ConstraintTag;
use pumpkin_core::variables::{AffineView, DomainId, Literal, TransformableVariable};
use pumpkin_core::Solver;

use super::instance::CpInstance;
use crate::model::cluster::{exceeds, DevIx};
use crate::model::problem::Problem;

/// The posted model: the solver and the variables the search branches on and reads back.
pub struct Model {
    pub solver: Solver,
    /// The placement literals: per unit, one per allowed device (the true literal for a unit
    /// with one device).
    pub x: Vec<Vec<Literal>>,
    /// Start and end of each task, and the makespan.
    pub start: Vec<DomainId>,
    pub end: Vec<DomainId>,
    pub cmax: DomainId,
    pub sends: Vec<Send>,
    /// The literals choosing each disjunction's order (devices, then links).
    pub order_lits: Vec<Literal>,
}

/// A send: message `msg` to device `dst`.
pub struct Send {
    pub msg: u32,
    pub dst: DevIx,
    pub start: DomainId,
    pub end: DomainId,
    /// Literal per source device: the send crosses link (source, dst).
    pub by: Vec<(DevIx, Literal)>,
}

/// The model of `inst`, its times in steps of `1 / scale` seconds up to `horizon`.
pub fn post(problem: &Problem, inst: &CpInstance, scale: f64, horizon: i32) -> Model {
    let mut solver = Solver::with_options(SolverOptions {
        memory_preallocated: 1,
        ..SolverOptions::default()
    });
    let tag = solver.new_constraint_tag();
    let mut m = Posting {
        solver,
        tag,
        scale,
        horizon,
    };
    let places = placement(&mut m, inst);
    symmetry(&mut m, problem, &places);
    memory(&mut m, problem, &places);
    let tasks = tasks(&mut m, &places);
    let sends = messages(&mut m, problem, &places, &tasks);
    let mut order_lits = devices(&mut m, &places, &tasks);
    if inst.fcfs {
        order_lits.extend(congestion(&mut m, inst, &sends, &tasks.end));
    }
    redundant(&mut m, problem, &places, &tasks);
    Model {
        solver: m.solver,
        x: places.x,
        start: tasks.start,
        end: tasks.end,
        cmax: tasks.cmax,
        sends,
        order_lits,
    }
}

/// The solver being posted to, the one tag every constraint carries (no proof is logged),
/// and the time scale and horizon.
struct Posting {
    solver: Solver,
    tag: ConstraintTag,
    scale: f64,
    horizon: i32,
}

impl Posting {
    /// An integer time in `[0, horizon]`.
    fn time(&mut self) -> DomainId {
        self.solver.new_bounded_integer(0, self.horizon)
    }

    /// Posts `a <= b`.
    fn before(&mut self, a: DomainId, b: DomainId) {
        self.solver
            .add_constraint(less_than_or_equals(
                vec![var(a), var(b).scaled(-1)],
                0,
                self.tag,
            ))
            .post();
    }

    /// Posts `l -> a <= b`.
    fn before_if(&mut self, l: Literal, a: DomainId, b: DomainId) {
        self.solver
            .add_constraint(less_than_or_equals(
                vec![var(a), var(b).scaled(-1)],
                0,
                self.tag,
            ))
            .implied_by(l);
    }

    /// Posts `s + p <= e`, when `l` is true (always when `l` is `None`).
    fn lasts(&mut self, s: DomainId, e: DomainId, p: i32, l: Option<Literal>) {
        let c = self.solver.add_constraint(less_than_or_equals(
            vec![var(s), var(e).scaled(-1)],
            -p,
            self.tag,
        ));
        match l {
            Some(l) => c.implied_by(l),
            None => c.post(),
        }
    }
}

impl Posting {
    /// Posts `s >= r`, when `l` is true (always when `l` is `None`).
    fn not_before(&mut self, s: DomainId, r: i32, l: Option<Literal>) {
        let c =
            self.solver
                .add_constraint(less_than_or_equals(vec![var(s).scaled(-1)], -r, self.tag));
        match l {
            Some(l) => c.implied_by(l),
            None => c.post(),
        }
    }
}

/// The placement literals of an instance.
struct Places<'i> {
    inst: &'i CpInstance,
    x: Vec<Vec<Literal>>,
}

impl Places<'_> {
    /// The literal "unit `u` on device `d`", `None` where `u` may not use `d`.
    fn on(&self, u: u32, d: DevIx) -> Option<Literal> {
        let u = u as usize;
        self.inst.allowed[u]
            .iter()
            .position(|&e| e == d)
            .map(|i| self.x[u][i])
    }
}

/// Placement (§3.2.2's `x_ij`): one literal per (unit, allowed device), exactly one true.
fn placement<'i>(m: &mut Posting, inst: &'i CpInstance) -> Places<'i> {
    let t = m.solver.get_true_literal();
    let x: Vec<Vec<Literal>> = inst
        .allowed
        .iter()
        .map(|ds| {
            if ds.len() == 1 {
                vec![t]
            } else {
                ds.iter().map(|_| m.solver.new_literal()).collect()
            }
        })
        .collect();
    for xs in &x {
        if xs.len() > 1 {
            m.solver
                .add_clause(xs.iter().map(|l| l.get_true_predicate()), m.tag);
            for i in 0..xs.len() {
                for j in i + 1..xs.len() {
                    m.solver.add_clause(
                        [xs[i].get_false_predicate(), xs[j].get_false_predicate()],
                        m.tag,
                    );
                }
            }
        }
    }
    Places { inst, x }
}

/// Symmetry: identical devices open in index order. Unit `i` goes to the next device of a
/// class only when some earlier unit is on the previous one.
fn symmetry(m: &mut Posting, problem: &Problem, places: &Places) {
    let inst = places.inst;
    let k = problem.device_count();
    let nu = inst.allowed.len();
    for e in 0..k {
        let Some(d) = (0..e).rev().find(|&d| inst.class[d] == inst.class[e]) else {
            continue;
        };
        for i in 0..nu {
            let Some(xe) = places.on(i as u32, e as DevIx) else {
                continue;
            };
            let mut clause = vec![xe.get_false_predicate()];
            clause.extend(
                (0..i)
                    .filter_map(|j| places.on(j as u32, d as DevIx))
                    .map(|l| l.get_true_predicate()),
            );
            m.solver.add_clause(clause, m.tag);
        }
    }
}

/// Memory (eq. (8) as a hard capacity on the static footprints): footprints rounded down
/// and the capacity up at a scale of 2^26 per device, a relaxation; a schedule that breaks
/// the real capacity is never used.
fn memory(m: &mut Posting, problem: &Problem, places: &Places) {
    let inst = places.inst;
    let nu = inst.allowed.len();
    for d in 0..problem.device_count() {
        let cap = problem.cluster.devices[d].memory;
        let users: Vec<usize> = (0..nu)
            .filter(|&u| places.on(u as u32, d as DevIx).is_some())
            .collect();
        let total: f64 = users.iter().map(|&u| inst.footprint[u]).sum();
        if !cap.is_finite() || !exceeds(total, cap) {
            continue;
        }
        let s = (1u32 << 26) as f64 / total;
        let terms: Vec<(i64, Literal)> = users
            .iter()
            .map(|&u| {
                let l = places.on(u as u32, d as DevIx).unwrap();
                ((inst.footprint[u] * s).floor() as i64, l)
            })
            .collect();
        let rhs = (cap * (1.0 + 1e-12) * s).ceil().min(i32::MAX as f64) as i64;
        post_linear(&mut m.solver, m.tag, &terms, &[], rhs);
    }
}

/// The tasks' times.
struct Tasks {
    start: Vec<DomainId>,
    end: Vec<DomainId>,
    cmax: DomainId,
    /// Each task's shortest run time over its allowed devices, in steps.
    shortest: Vec<i32>,
}

/// Tasks: a start and an end each; the end is at least the run time on the device used
/// (at least the shortest one whatever the device), and the makespan at least every end.
fn tasks(m: &mut Posting, places: &Places) -> Tasks {
    let inst = places.inst;
    let n = inst.tasks();
    let start: Vec<DomainId> = (0..n).map(|_| m.time()).collect();
    let end: Vec<DomainId> = (0..n).map(|_| m.time()).collect();
    let cmax = m.time();
    let mut shortest = vec![0i32; n];
    for v in 0..n {
        let u = inst.unit[v];
        let ds = &inst.allowed[u as usize];
        let p: Vec<i32> = ds
            .iter()
            .map(|&d| steps(inst.exec[v][d as usize], m.scale))
            .collect();
        shortest[v] = *p.iter().min().unwrap_or(&0);
        m.lasts(start[v], end[v], shortest[v], None);
        for (i, &d) in ds.iter().enumerate() {
            if p[i] > shortest[v] {
                let l = places.on(u, d).unwrap();
                m.lasts(start[v], end[v], p[i], Some(l));
            }
        }
        m.before(end[v], cmax);
        if let Some(w) = &inst.window {
            for &d in ds {
                let l = places
                    .on(u, d)
                    .filter(|&l| l != m.solver.get_true_literal());
                let r = (w.release[v][d as usize] * m.scale).floor().max(0.0);
                if r > 0.0 {
                    m.not_before(start[v], r.min(m.horizon as f64) as i32, l);
                }
                let t = (w.tail[v][d as usize] * m.scale).floor().max(0.0);
                if t > 0.0 {
                    m.lasts(end[v], cmax, t.min(m.horizon as f64) as i32, l);
                }
            }
        }
    }
    Tasks {
        start,
        end,
        cmax,
        shortest,
    }
}

/// Messages: every consumer starts after its producer ends; a send per (message,
/// destination device) with a consumer there not in the producer's unit, when the producer
/// may be elsewhere. It starts after its producer ends, lasts latency + bytes / bandwidth of
/// the link it crosses (a link that cannot carry it forbids the placement), and its
/// consumers there start after it arrives when the producer is elsewhere.
fn messages(m: &mut Posting, problem: &Problem, places: &Places, tasks: &Tasks) -> Vec<Send> {
    let inst = places.inst;
    let c = problem.cluster;
    let (start, end) = (&tasks.start, &tasks.end);
    let mut sends: Vec<Send> = Vec::new();
    for (msg, (p, cs, bytes)) in inst.messages.iter().enumerate() {
        let pu = inst.unit[*p as usize];
        let srcs = inst.allowed[pu as usize].clone();
        for &w in cs {
            m.before(end[*p as usize], start[w as usize]);
        }
        for d in 0..problem.device_count() as DevIx {
            let readers: Vec<u32> = cs
                .iter()
                .copied()
                .filter(|&w| {
                    inst.unit[w as usize] != pu && places.on(inst.unit[w as usize], d).is_some()
                })
                .collect();
            if readers.is_empty() || srcs.iter().all(|&s| s == d) {
                continue;
            }
            let xs = m.time();
            let xe = m.time();
            m.before(end[*p as usize], xs);
            m.before(xs, xe);
            let mut by = Vec::new();
            for &s in srcs.iter().filter(|&&s| s != d) {
                let ps = places.on(pu, s).unwrap();
                let time = c.transfer_time(s, d, *bytes);
                if !time.is_finite() {
                    for &w in &readers {
                        let pw = places.on(inst.unit[w as usize], d).unwrap();
                        m.solver.add_clause(
                            [ps.get_false_predicate(), pw.get_false_predicate()],
                            m.tag,
                        );
                    }
                    continue;
                }
                let y = m.solver.new_literal();
                m.lasts(xs, xe, steps(time, m.scale), Some(y));
                for &w in &readers {
                    let pw = places.on(inst.unit[w as usize], d).unwrap();
                    m.solver.add_clause(
                        [
                            ps.get_false_predicate(),
                            pw.get_false_predicate(),
                            y.get_true_predicate(),
                        ],
                        m.tag,
                    );
                }
                by.push((s, y));
            }
            // A reader on d waits for the send when its producer is elsewhere.
            for &w in &readers {
                let pw = places.on(inst.unit[w as usize], d).unwrap();
                let wait = m.solver.new_literal();
                let mut clause = vec![pw.get_false_predicate(), wait.get_true_predicate()];
                if let Some(pd) = places.on(pu, d) {
                    clause.push(pd.get_true_predicate());
                }
                m.solver.add_clause(clause, m.tag);
                m.before_if(wait, xe, start[w as usize]);
            }
            sends.push(Send {
                msg: msg as u32,
                dst: d,
                start: xs,
                end: xe,
                by,
            });
        }
    }
    sends
}

/// One op at a time on a device (eq. (4)): two tasks the graph does not order, when on one
/// device, run one after the other. Returns the order literals.
fn devices(m: &mut Posting, places: &Places, tasks: &Tasks) -> Vec<Literal> {
    let inst = places.inst;
    let n = inst.tasks();
    let (start, end) = (&tasks.start, &tasks.end);
    let reach = inst.reachability();
    let reaches = |a: usize, b: usize| reach[a][b / 64] >> (b % 64) & 1 == 1;
    let mut order_lits: Vec<Literal> = Vec::new();
    for a in 0..n {
        for b in a + 1..n {
            if reaches(a, b) || reaches(b, a) {
                continue;
            }
            let (ua, ub) = (inst.unit[a], inst.unit[b]);
            let common: Vec<DevIx> = inst.allowed[ua as usize]
                .iter()
                .copied()
                .filter(|&d| places.on(ub, d).is_some())
                .collect();
            if common.is_empty() {
                continue;
            }
            let l1 = m.solver.new_literal();
            let l2 = m.solver.new_literal();
            m.before_if(l1, end[a], start[b]);
            m.before_if(l2, end[b], start[a]);
            if ua == ub {
                m.solver
                    .add_clause([l1.get_true_predicate(), l2.get_true_predicate()], m.tag);
            } else {
                for d in common {
                    m.solver.add_clause(
                        [
                            places.on(ua, d).unwrap().get_false_predicate(),
                            places.on(ub, d).unwrap().get_false_predicate(),
                            l1.get_true_predicate(),
                            l2.get_true_predicate(),
                        ],
                        m.tag,
                    );
                }
            }
            order_lits.extend([l1, l2]);
        }
    }
    order_lits
}

/// Congestion (eq. (7), `fcfs` links only): two sends of more than 0 bytes to one device
/// that may cross the same link run one after the other when they do. Returns the order
/// literals.
///
/// With `inst.fifo` the links send first come, first served, as the `fifo` link order does:
/// `b` may go before `a` only if `b`'s producer ended no later than `a`'s (ties either way),
/// and one producer's sends go in message order.
fn congestion(
    m: &mut Posting,
    inst: &CpInstance,
    sends: &[Send],
    end: &[DomainId],
) -> Vec<Literal> {
    let mut order_lits: Vec<Literal> = Vec::new();
    for i in 0..sends.len() {
        for j in i + 1..sends.len() {
            let (a, b) = (&sends[i], &sends[j]);
            if a.dst != b.dst
                || inst.messages[a.msg as usize].2 <= 0.0
                || inst.messages[b.msg as usize].2 <= 0.0
            {
                continue;
            }
            let shared: Vec<(Literal, Literal)> =
                a.by.iter()
                    .filter_map(|&(s, ya)| b.by.iter().find(|e| e.0 == s).map(|&(_, yb)| (ya, yb)))
                    .collect();
            if shared.is_empty() {
                continue;
            }
            let l1 = m.solver.new_literal();
            let l2 = m.solver.new_literal();
            m.before_if(l1, a.end, b.start);
            m.before_if(l2, b.end, a.start);
            if inst.fifo {
                let (pa, pb) = (
                    inst.messages[a.msg as usize].0,
                    inst.messages[b.msg as usize].0,
                );
                if pa == pb {
                    // Ready together: announced in message order (a's is the lower).
                    m.solver.add_clause([l2.get_false_predicate()], m.tag);
                } else {
                    m.before_if(l1, end[pa as usize], end[pb as usize]);
                    m.before_if(l2, end[pb as usize], end[pa as usize]);
                }
            }
            for (ya, yb) in shared {
                m.solver.add_clause(
                    [
                        ya.get_false_predicate(),
                        yb.get_false_predicate(),
                        l1.get_true_predicate(),
                        l2.get_true_predicate(),
                    ],
                    m.tag,
                );
            }
            order_lits.extend([l1, l2]);
        }
    }
    order_lits
}

/// Redundant constraints (implied by the others; without them the search decides nothing):
/// each device's load is at most the makespan, the devices' total load at most `k` times
/// it, and a cumulative of capacity `k` over the tasks at their shortest run times.
fn redundant(m: &mut Posting, problem: &Problem, places: &Places, tasks: &Tasks) {
    let inst = places.inst;
    let (n, k, nu) = (inst.tasks(), problem.device_count(), inst.allowed.len());
    let cmax = tasks.cmax;
    let mut all: Vec<(i64, Literal)> = Vec::new();
    for d in 0..k as DevIx {
        let mut terms: Vec<(i64, Literal)> = Vec::new();
        for u in 0..nu {
            let Some(l) = places.on(u as u32, d) else {
                continue;
            };
            let load: i64 = (0..n)
                .filter(|&v| inst.unit[v] == u as u32)
                .map(|v| steps(inst.exec[v][d as usize], m.scale) as i64)
                .sum();
            terms.push((load, l));
        }
        post_linear(&mut m.solver, m.tag, &terms, &[(-1, cmax)], 0);
        all.extend(terms);
    }
    post_linear(&mut m.solver, m.tag, &all, &[(-(k as i64), cmax)], 0);
    let busy: Vec<usize> = (0..n).filter(|&v| tasks.shortest[v] > 0).collect();
    if busy.len() > 1 {
        m.solver
            .add_constraint(cumulative(
                busy.iter().map(|&v| tasks.start[v]).collect::<Vec<_>>(),
                busy.iter().map(|&v| tasks.shortest[v]).collect::<Vec<_>>(),
                busy.iter().map(|_| 1).collect::<Vec<_>>(),
                k as i32,
                m.tag,
            ))
            .post();
    }
}

/// Pumpkin integer views: all terms of one linear constraint share this type.
type View = AffineView<DomainId>;

fn var(x: DomainId) -> View {
    x.scaled(1)
}

/// Posts `Σ a·literal + Σ b·var <= rhs`, folding the true literal (a pinned unit) into the
/// right-hand side and dropping zero coefficients (Pumpkin's linear propagator must not see
/// a view scaled by 0 or the constant literal).
fn post_linear(
    solver: &mut Solver,
    tag: ConstraintTag,
    lits: &[(i64, Literal)],
    vars: &[(i64, DomainId)],
    rhs: i64,
) {
    let t = solver.get_true_literal();
    let clamp = |x: i64| x.clamp(i32::MIN as i64 / 2, i32::MAX as i64 / 2) as i32;
    let mut rhs = rhs;
    let mut terms: Vec<View> = Vec::new();
    for &(a, l) in lits {
        if l == t {
            rhs -= a;
        } else if a != 0 {
            terms.push(l.get_integer_variable().scaled(clamp(a)));
        }
    }
    terms.extend(
        vars.iter()
            .filter(|v| v.0 != 0)
            .map(|&(b, x)| x.scaled(clamp(b))),
    );
    if terms.is_empty() {
        if rhs < 0 {
            solver.add_clause([t.get_false_predicate()], tag);
        }
        return;
    }
    solver
        .add_constraint(less_than_or_equals(terms, clamp(rhs), tag))
        .post();
}

/// A duration in model steps: rounded when integral (relative 1e-9), else rounded down.
pub fn steps(x: f64, scale: f64) -> i32 {
    let y = x * scale;
    if (y - y.round()).abs() <= 1e-9 * y.abs().max(1.0) {
        y.round() as i32
    } else {
        y.floor() as i32
    }
}
