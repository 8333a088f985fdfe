//! The scheduling instance the constraint model is posted for (Pesto21 §3.2.2): tasks,
//! placement units, messages, and what a schedule of it replays as. For the instance
//! itself tasks are the ops, units the colocation groups and messages the tensors (the
//! simulator's routing); for a coarse graph (§3.3) tasks are coarse vertices (run times
//! summed, members back to back) and every coarse edge is a message of its own, of its summed
//! bytes (§3.2.2's augmented vertex per edge). A coarse schedule is expanded (§3.3: members
//! on their vertex's device, by the vertex's start then topological position).
//!
//! What it is not: the model's constraints (`model`) or its search (`search`).

use crate::analysis::topo_position;
use crate::model::cluster::DevIx;
use crate::model::graph::NodeIx;
use crate::model::groups::Groups;
use crate::model::problem::Problem;
use crate::model::LinkModel;
use crate::plan::{Order, Placement};
use crate::transform::coarsen::Coarse;

use crate::optim::{by_priority, device_classes};

/// A scheduling instance for the constraint model: tasks run on one device each (their
/// unit's), and each message is sent once per device that has a consumer of it and not its
/// producer. For the instance itself tasks are the ops, units the colocation groups and
/// messages the tensors (the simulator's routing); for a coarse graph (Pesto21 §3.3) tasks
/// are coarse vertices and every coarse edge is a message of its own (§3.2.2's augmented
/// vertex per edge).
pub struct CpInstance {
    /// Run time of each task on each device, in seconds (infinite where it may not run).
    pub exec: Vec<Vec<f64>>,
    /// Unit of each task.
    pub unit: Vec<u32>,
    /// Static footprint of each unit.
    pub footprint: Vec<f64>,
    /// Devices each unit may use, ascending.
    pub allowed: Vec<Vec<DevIx>>,
    /// Messages: producer, distinct consumers, bytes.
    pub messages: Vec<(u32, Vec<u32>, f64)>,
    /// Whether a message of more than 0 bytes occupies its directed link (`fcfs`).
    pub fcfs: bool,
    /// Whether each link sends first come, first served (the `fifo` link order): of two
    /// sends on one link, the one whose producer ended first goes first, and one producer's
    /// sends go in message order (as the simulator announces them). Only for the instance
    /// itself ([`CpInstance::with_fifo`]); without it the model orders links freely.
    pub fifo: bool,
    /// Symmetry class of each device (identical devices share one).
    pub class: Vec<usize>,
    /// A window of a larger schedule (`optim::lns`): each task's release and tail per
    /// device; `None` for a whole instance.
    pub window: Option<WindowTimes>,
}

/// What a window of a larger schedule sees of the rest (`optim::lns`), per task and device,
/// in seconds: `release`, the earliest start there (its inputs from outside the window
/// arrived, the device freed by the ops before the window), and `tail`, the time from its
/// end there to the schedule's end through its consumers outside the window. The model's
/// makespan is then at least each task's end plus its tail.
pub struct WindowTimes {
    pub release: Vec<Vec<f64>>,
    pub tail: Vec<Vec<f64>>,
}

/// A schedule of a [`CpInstance`], in seconds.
pub struct CpSchedule {
    /// Device of each unit.
    pub device: Vec<DevIx>,
    /// Start of each task.
    pub start: Vec<f64>,
    /// Sends `(start, message, destination)`, in start order.
    pub sends: Vec<(f64, u32, DevIx)>,
}

impl CpInstance {
    /// The instance itself: ops, colocation units, one message per tensor.
    pub fn of_problem(problem: &Problem, links: LinkModel) -> CpInstance {
        let g = problem.graph;
        let n = problem.node_count();
        let k = problem.device_count();
        let units = Groups::new(problem);
        let exec: Vec<Vec<f64>> = (0..n as NodeIx)
            .map(|v| (0..k as DevIx).map(|d| problem.exec(v, d)).collect())
            .collect();
        let allowed = (0..units.len() as u32)
            .map(|u| {
                (0..k as DevIx)
                    .filter(|&d| units.allowed(problem, u, d))
                    .collect()
            })
            .collect();
        let messages = g
            .tensors
            .iter()
            .enumerate()
            .map(|(t, tensor)| {
                let mut cs: Vec<u32> = tensor
                    .edges
                    .iter()
                    .map(|&e| g.edges[e as usize].dst)
                    .collect();
                cs.sort_unstable();
                cs.dedup();
                (tensor.src, cs, problem.tensor_bytes[t])
            })
            .collect();
        let class = device_classes(problem, &exec);
        CpInstance {
            exec,
            unit: units.of,
            footprint: units.footprint,
            allowed,
            messages,
            fcfs: links == LinkModel::Fcfs,
            fifo: false,
            class,
            window: None,
        }
    }

    /// The same instance with links sending first come, first served (`fifo`), under
    /// `fcfs` links: the model's schedules then replay as the simulator sends, and its
    /// optimum is the `fifo` problem's (a larger one than the free order's).
    pub fn with_fifo(mut self, fifo: bool) -> CpInstance {
        self.fifo = fifo && self.fcfs;
        self
    }

    /// A coarse graph (`units` over its vertices): vertices run their members back to
    /// back, each coarse edge is one message of its summed bytes.
    pub fn of_coarse(problem: &Problem, coarse: &Coarse, links: LinkModel) -> CpInstance {
        let k = problem.device_count();
        let nc = coarse.len();
        let exec: Vec<Vec<f64>> = (0..nc as u32)
            .map(|x| {
                (0..k as DevIx)
                    .map(|d| coarse.exec(problem, x, d))
                    .collect()
            })
            .collect();
        let roots = coarse.units(problem);
        let mut dense = vec![u32::MAX; nc];
        let mut unit = vec![0u32; nc];
        let mut count = 0u32;
        for x in 0..nc {
            let r = roots[x] as usize;
            if dense[r] == u32::MAX {
                dense[r] = count;
                count += 1;
            }
            unit[x] = dense[r];
        }
        let mut footprint = vec![0.0; count as usize];
        for x in 0..nc {
            footprint[unit[x] as usize] += coarse.footprint(problem, x as u32);
        }
        let allowed = (0..count)
            .map(|u| {
                (0..k as DevIx)
                    .filter(|&d| (0..nc).all(|x| unit[x] != u || exec[x][d as usize].is_finite()))
                    .collect()
            })
            .collect();
        let messages = coarse
            .edges
            .iter()
            .map(|&(a, b, bytes)| (a, vec![b], bytes))
            .collect();
        let class = device_classes(problem, &exec);
        CpInstance {
            exec,
            unit,
            footprint,
            allowed,
            messages,
            fcfs: links == LinkModel::Fcfs,
            fifo: false,
            class,
            window: None,
        }
    }

    pub fn tasks(&self) -> usize {
        self.exec.len()
    }

    /// Whether the model would round its durations below `horizon` (real-valued run or
    /// transfer times: no integral time scale, [`time_scale`]).
    pub fn rounds(&self, problem: &Problem, horizon: f64) -> bool {
        !time_scale(&self.durations(problem), horizon).1
    }

    /// Every duration the model may use, for its time scale: every task on every allowed
    /// device, every message on every link it may cross (finite ones only).
    pub fn durations(&self, problem: &Problem) -> Vec<f64> {
        let k = problem.device_count();
        let c = problem.cluster;
        let mut durations: Vec<f64> = Vec::new();
        for (v, row) in self.exec.iter().enumerate() {
            for &d in &self.allowed[self.unit[v] as usize] {
                durations.push(row[d as usize]);
            }
        }
        for (p, _, bytes) in &self.messages {
            for &s in &self.allowed[self.unit[*p as usize] as usize] {
                for d in 0..k as DevIx {
                    if d != s {
                        durations.push(c.transfer_time(s, d, *bytes));
                    }
                }
            }
        }
        durations.into_iter().filter(|x| x.is_finite()).collect()
    }

    /// Makespan of running everything one after the other at its slowest, every message
    /// sent on its slowest link: a schedule of any placement, so an upper bound (the horizon
    /// of a coarse model, which has no incumbent of its own).
    pub fn serial_makespan(&self, problem: &Problem) -> f64 {
        let k = problem.device_count() as DevIx;
        let c = problem.cluster;
        let slowest =
            |xs: &mut dyn Iterator<Item = f64>| xs.filter(|x| x.is_finite()).fold(0.0, f64::max);
        let run: f64 = (0..self.tasks())
            .map(|v| {
                let ds = &self.allowed[self.unit[v] as usize];
                slowest(&mut ds.iter().map(|&d| self.exec[v][d as usize]))
            })
            .sum();
        let send: f64 = self
            .messages
            .iter()
            .map(|(_, cs, bytes)| {
                let time = slowest(&mut (0..k).flat_map(|s| {
                    (0..k)
                        .filter(move |&d| d != s)
                        .map(move |d| c.transfer_time(s, d, *bytes))
                }));
                time * cs.len() as f64
            })
            .sum();
        run + send
    }

    /// The plans a schedule replays as. For the instance: by priority (start order), and
    /// strictly (each device's ops and each link's sends in start order). For a coarse
    /// graph, expanded (Pesto21 §3.3): every op on its vertex's device, by priority
    /// (its vertex's start, then its topological position).
    pub fn plans(
        &self,
        problem: &Problem,
        coarse: Option<&Coarse>,
        s: &CpSchedule,
    ) -> Vec<(Placement, Order)> {
        let pos = topo_position(problem);
        let on: Vec<DevIx> = self.unit.iter().map(|&u| s.device[u as usize]).collect();
        match coarse {
            None => {
                let finish: Vec<f64> = (0..on.len())
                    .map(|v| s.start[v] + problem.exec(v as NodeIx, on[v]))
                    .collect();
                let mut strict = Order::of_schedule(problem, &on, &s.start, &finish, &pos);
                strict.transfers = Some(s.sends.iter().map(|&(_, m, d)| (m, d)).collect());
                vec![
                    (on.clone(), by_priority(strict.priority.clone())),
                    (on, strict),
                ]
            }
            Some(c) => {
                let placement = c.expand(&on);
                let n = problem.node_count();
                let mut ops: Vec<usize> = (0..n).collect();
                ops.sort_by(|&a, &b| {
                    s.start[c.of[a] as usize]
                        .total_cmp(&s.start[c.of[b] as usize])
                        .then(pos[a].cmp(&pos[b]))
                });
                let mut priority = vec![0.0; n];
                for (i, &v) in ops.iter().enumerate() {
                    priority[v] = -(i as f64);
                }
                vec![(placement, by_priority(priority))]
            }
        }
    }

    /// `reach[a]` has bit `b` when task `b` depends on task `a` (through messages).
    pub fn reachability(&self) -> Vec<Vec<u64>> {
        let n = self.tasks();
        let words = n.div_ceil(64);
        let mut succ: Vec<Vec<u32>> = vec![Vec::new(); n];
        let mut indeg = vec![0usize; n];
        for (p, cs, _) in &self.messages {
            for &c in cs {
                succ[*p as usize].push(c);
                indeg[c as usize] += 1;
            }
        }
        let mut order: Vec<usize> = (0..n).filter(|&a| indeg[a] == 0).collect();
        let mut i = 0;
        while i < order.len() {
            for &c in &succ[order[i]] {
                indeg[c as usize] -= 1;
                if indeg[c as usize] == 0 {
                    order.push(c as usize);
                }
            }
            i += 1;
        }
        let mut reach = vec![vec![0u64; words]; n];
        for &a in order.iter().rev() {
            for &c in &succ[a] {
                let c = c as usize;
                reach[a][c / 64] |= 1 << (c % 64);
                let (lo, hi) = if a < c {
                    let (x, y) = reach.split_at_mut(c);
                    (&mut x[a], &y[0])
                } else {
                    let (x, y) = reach.split_at_mut(a);
                    (&mut y[0], &x[c])
                };
                for (w, r) in lo.iter_mut().zip(hi) {
                    *w |= r;
                }
            }
        }
        reach
    }
}

/// Time scale of the model: the smallest of 1, 2, 4, 5, 8, 10, ... 10^6 at which every
/// duration is an integer (relative 1e-9) and the horizon stays below 2^26 steps; else the
/// scale that puts the horizon at 10^6 steps, where durations are rounded down (the model
/// is then a relaxation: its optimum is still a lower bound, but a schedule's replay may be
/// longer than its model makespan, and nothing is claimed optimal unless the replay equals
/// the bound).
pub fn time_scale(durations: &[f64], horizon: f64) -> (f64, bool) {
    let mut scales: Vec<f64> = Vec::new();
    let mut p = 1.0;
    while p <= 1e6 {
        scales.extend([p, 2.0 * p, 4.0 * p, 5.0 * p, 8.0 * p]);
        p *= 10.0;
    }
    let integral = |s: f64| {
        durations.iter().all(|&x| {
            let y = x * s;
            (y - y.round()).abs() <= 1e-9 * y.abs().max(1.0)
        })
    };
    scales
        .into_iter()
        .find(|&s| s * horizon <= (1u32 << 26) as f64 && integral(s))
        .map_or((ROUNDED_STEPS / horizon, false), |s| (s, true))
}

/// Steps of horizon when durations have to be rounded (see [`time_scale`]).
const ROUNDED_STEPS: f64 = 1e6;
