//! m-SCT: the candidates filed on each device counted by SCT class, so a waiting step passes
//! over a delayed device none of whose candidates beats the step's answer there without
//! visiting one ([`Classes::passes`]), or reads what they offer from [`Urgents`].
//!
//! [`Urgents`]: super::urgents::Urgents
//!
//! On a delayed device `d`, a ready op `v` starts at the later of its own start and its
//! urgent time, the latest of its starts over the SCT devices that may take it now (`d`
//! among them when `d` is one). Its SCT devices that may take it are, for an op whose unit
//! is not placed yet, those the placer allows (static until the unit is placed) less those
//! its memory does not fit now, and the memory it needs does not change while it is ready
//! ([`State::required`]). So the ops that share those devices (a class) are all no better
//! on `d` than the step's answer as soon as one of the devices has room for the most any of
//! them needs and either
//! - is busy past the best start so far: their urgent times are later (NASNet x10 over 8
//!   identical devices: 36,642 of 55,701 walks met only such candidates), or
//! - is not delayed (`open`): the step asked it, and its answer is no later than the op's
//!   own start there, which is no later than the op's urgent time ([`waiting_step`]).
//!
//! On devices alike every op is in one class until its unit is placed, and a step where
//! some devices are delayed and others not passes them all over.
//!
//! [`waiting_step`]: super::indexed::waiting_step

use std::collections::BTreeMap;

use super::state::State;
use crate::model::cluster::DevIx;
use crate::model::graph::NodeIx;

/// Ops in no class: in a unit already placed (their one device is its device), with no SCT
/// device the placer allows (urgent time `-inf`), or past [`MOST`] classes.
const NONE: u32 = u32::MAX;

/// At most this many classes: a check costs `O(classes x devices)`.
const MOST: usize = 32;

pub(super) struct Classes {
    /// Each op's class, or [`NONE`] (from when its unit is placed: [`Classes::placed`]).
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

    /// How many classes there are.
    pub(super) fn len(&self) -> usize {
        self.classes.len()
    }

    /// `v`'s class, if it is in one.
    pub(super) fn class_of(&self, v: NodeIx) -> Option<u32> {
        Some(self.of[v as usize]).filter(|&c| c != NONE)
    }

    /// Class `c`'s SCT devices the placer allows.
    pub(super) fn devices(&self, c: u32) -> &[DevIx] {
        &self.classes[c as usize].0
    }

    /// The most memory a member of class `c` needs.
    pub(super) fn need(&self, c: u32) -> f64 {
        self.classes[c as usize].1
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

    /// `v`'s unit is placed: from now on its devices are its unit's alone, so it leaves its
    /// class (call once it is unfiled everywhere: the index counts it apart from then on).
    pub(super) fn placed(&mut self, v: NodeIx) {
        self.of[v as usize] = NONE;
    }

    /// Whether `ok` holds for the class of every candidate filed on `d` but `f` (filed
    /// there when `f_filed`): asked once per class with candidates there, `None` for the
    /// ops in no class.
    pub(super) fn all_on(
        &self,
        d: DevIx,
        f: NodeIx,
        f_filed: bool,
        mut ok: impl FnMut(Option<u32>) -> bool,
    ) -> bool {
        let c = self.classes.len();
        let row = d as usize * (c + 1);
        let own = if f_filed { self.slot(f, d) } else { usize::MAX };
        (0..=c).all(|i| {
            let filed = self.filed[row + i] - u32::from(row + i == own);
            filed == 0 || ok((i < c).then_some(i as u32))
        })
    }

    /// Whether no member of class `c` beats `bound` on a delayed device: one of its devices
    /// has room for every member and is busy past `bound` (each waits past it) or in
    /// `open` (not delayed: the step's answer is no later than a member's own start there).
    pub(super) fn passes(&self, s: &State, c: u32, bound: f64, open: &[bool]) -> bool {
        let (devices, need) = &self.classes[c as usize];
        devices.iter().any(|&e| {
            (open[e as usize] || s.free[e as usize].max(s.now) > bound) && s.fits_bytes(e, *need)
        })
    }
}
