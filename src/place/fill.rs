//! Filling devices in a given order: the step `batch-split` and `critical-path` share
//! (Mayer17 §3.2.1 and §3.2.2 both put each unit, in their own order, on the feasible device
//! where it runs soonest).

use super::{assign, best_device, no_device_error, Groups, Loads, UNPLACED};
use crate::error::Result;
use crate::model::cluster::DevIx;
use crate::model::graph::NodeIx;
use crate::model::problem::Problem;

/// The device minimising `base(d)` plus the summed run time of the unit's members on `d`,
/// among those the unit may use that have memory left for it; ties go to the lower index.
/// With `base = 0` this is the unit's fastest feasible device. O(members x devices).
pub(crate) fn least_time(
    problem: &Problem,
    units: &Groups,
    loads: &Loads,
    unit: u32,
    base: impl Fn(DevIx) -> f64,
) -> Option<DevIx> {
    let members = &units.members[unit as usize];
    best_device(problem, units, loads, unit, |d| {
        base(d) + members.iter().map(|&m| problem.exec(m, d)).sum::<f64>()
    })
}

/// Places, in `order`, every node not placed yet together with its colocation group, each
/// on the feasible device minimising `base(loads, d)` plus the unit's run time there
/// ([`least_time`]); an error names the first unit no device can take.
pub(crate) fn place_in_order(
    placer: &str,
    problem: &Problem,
    units: &Groups,
    loads: &mut Loads,
    placement: &mut [DevIx],
    order: impl IntoIterator<Item = NodeIx>,
    base: impl Fn(&Loads, DevIx) -> f64,
) -> Result<()> {
    for v in order {
        if placement[v as usize] != UNPLACED {
            continue;
        }
        let unit = units.of[v as usize];
        let d = least_time(problem, units, loads, unit, |d| base(loads, d))
            .ok_or_else(|| no_device_error(placer, problem, units, unit))?;
        assign(problem, units, loads, placement, unit, d);
    }
    Ok(())
}
