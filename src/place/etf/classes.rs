//! m-SCT: the candidates filed on each device counted by SCT class, so a waiting step passes
//! over a delayed device whose every candidate waits past the best start so far without
//! visiting one ([`Classes::all_wait`]).
//!
//! A ready op's urgent time is at least its urgent floor ([`State::urgent_floor`]): the
//! latest `max(free, now)` over its SCT devices that may take it now. For an op alone in its
//! unit (no colocation group) that set is its SCT devices the placer allows (static until it
//! runs) less those its memory does not fit now, and the memory it needs does not change
//! while it is ready ([`State::required`]). So the ops that share those devices (a class)
//! all wait past `bound` as soon as one of the devices is busy past `bound` and has room for
//! the most any of them needs. On devices alike every op is in one class, and a delayed
//! device's candidates all wait whenever another device is busy past the best (NASNet x10
//! over 8 identical devices: 36,642 of 55,701 walks met only such candidates).

use std::collections::BTreeMap;

use super::state::State;
use crate::model::cluster::DevIx;
use crate::model::graph::NodeIx;

/// Ops in no class: in a colocation group (their devices change when the group is placed),
/// with no SCT device the placer allows (urgent time `-inf`), or past [`MOST`] classes.
const NONE: u32 = u32::MAX;

/// At most this many classes: a check costs `O(classes x devices)`.
const MOST: usize = 32;

pub(super) struct Classes {
    /// Each op's class, or [`NONE`].
    of: Vec<u32>,
    /// Per class: its SCT devices the placer allows, and the most memory a member needs.
    classes: Vec<(Vec<DevIx>, f64)>,
    /// Per device, the candidates filed there in each class, then those in none
    /// (`d * (classes + 1) + class`).
    filed: Vec<u32>,
}

impl Classes {
    pub(super) fn new(s: &State) -> Classes {
        let n = s.problem.node_count();
        let k = s.problem.device_count();
        let mut masks: BTreeMap<Vec<DevIx>, u32> = BTreeMap::new();
        let mut classes: Vec<(Vec<DevIx>, f64)> = Vec::new();
        let mut of = vec![NONE; n];
        for v in 0..n as NodeIx {
            let unit = s.units.of[v as usize];
            if s.units.members[unit as usize].len() != 1 {
                continue;
            }
            let devices: Vec<DevIx> = (0..k as DevIx)
                .filter(|&d| s.sct_device(v, d) && s.allowed(v, d))
                .collect();
            if devices.is_empty() {
                continue;
            }
            let class = match masks.get(&devices) {
                Some(&class) => class,
                None if classes.len() == MOST => continue,
                None => {
                    let class = classes.len() as u32;
                    masks.insert(devices.clone(), class);
                    classes.push((devices, 0.0));
                    class
                }
            };
            let need = &mut classes[class as usize].1;
            *need = need.max(s.required(v).unwrap_or(0.0));
            of[v as usize] = class;
        }
        Classes {
            filed: vec![0; k * (classes.len() + 1)],
            of,
            classes,
        }
    }

    fn slot(&self, v: NodeIx, d: DevIx) -> usize {
        let row = d as usize * (self.classes.len() + 1);
        match self.of[v as usize] {
            NONE => row + self.classes.len(),
            c => row + c as usize,
        }
    }

    /// `v` is filed on `d` (`true`) or leaves it.
    pub(super) fn count(&mut self, v: NodeIx, d: DevIx, filed: bool) {
        let slot = self.slot(v, d);
        if filed {
            self.filed[slot] += 1;
        } else {
            self.filed[slot] -= 1;
        }
    }

    /// Whether every candidate filed on `d` but `f` (filed there when `f_filed`) has an
    /// urgent floor later than `bound`: then a waiting step finds none on `d` that starts
    /// by `bound`. Exact for every class, conservative for ops in none (never passed).
    pub(super) fn all_wait(
        &self,
        s: &State,
        d: DevIx,
        f: NodeIx,
        f_filed: bool,
        bound: f64,
    ) -> bool {
        let c = self.classes.len();
        let row = d as usize * (c + 1);
        let own = if f_filed { self.slot(f, d) } else { usize::MAX };
        (0..=c).all(|i| {
            let filed = self.filed[row + i] - u32::from(row + i == own);
            filed == 0
                || self.classes.get(i).is_some_and(|(devices, need)| {
                    devices
                        .iter()
                        .any(|&e| s.free[e as usize].max(s.now) > bound && s.fits_bytes(e, *need))
                })
        })
    }
}
