//! What m-ETF's and m-SCT's loop is asked: Baechi's channel model or transfers alone, and
//! Baechi's memory rule or the static footprints ([`Options`], from the placers' parameters).

use crate::params::{ParamKind, ParamSpec, Params};

/// How the loop models transfers and memory (the placers' parameters).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Options {
    /// Baechi's one channel per device for its sends and receives (`true`), or transfers
    /// estimated alone, without contention.
    pub channel: bool,
    /// The static footprint rule (`true`), or Baechi's memory allocated when an op runs and
    /// freed after its last consumer.
    pub static_memory: bool,
}

impl Options {
    /// The options `params` set ([`CHANNEL`], [`STATIC_MEMORY`]; a parameter not given
    /// takes its default).
    pub fn from_params(params: &Params) -> Options {
        let switch = |spec: &ParamSpec| {
            let v = params.get(spec.name);
            if v.is_nan() {
                spec.default != 0.0
            } else {
                v != 0.0
            }
        };
        Options {
            channel: switch(&CHANNEL),
            static_memory: switch(&STATIC_MEMORY),
        }
    }
}

/// `channel`: Baechi's one channel per device (m-ETF's and m-SCT's parameter).
pub(crate) const CHANNEL: ParamSpec = ParamSpec {
    name: "channel",
    default: 1.0,
    kind: ParamKind::Switch,
    min: 0.0,
    min_open: false,
    max: 1.0,
    doc: "1: Baechi's transfer estimate, one channel per device shared by its sends and receives (DeviceWrapper.channel_available_ts); 0: each edge's transfer alone, without contention (the placements before this parameter)",
};

/// `static_memory`: the static footprint rule instead of Baechi's memory over time.
pub(crate) const STATIC_MEMORY: ParamSpec = ParamSpec {
    name: "static_memory",
    default: 0.0,
    kind: ParamKind::Switch,
    min: 0.0,
    min_open: false,
    max: 1.0,
    doc: "0: Baechi's memory rule, an op's mem and outputs allocated when it runs and its outputs freed after its last consumer ran; 1: the scenario's static footprints, summed per device (the rule before this parameter)",
};
