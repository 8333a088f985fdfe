//! How transfers share links: a property of the machine the scenario models, read by the
//! simulator, the link codec and the placers that decode candidates.

use serde::{Deserialize, Serialize};

/// How transfers share links.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LinkModel {
    /// Transfers never contend (Mayer17).
    #[default]
    Parallel,
    /// One transfer at a time per directed link, queued (Pesto21 §3.1).
    Fcfs,
}

impl LinkModel {
    pub fn name(self) -> &'static str {
        match self {
            LinkModel::Parallel => "parallel",
            LinkModel::Fcfs => "fcfs",
        }
    }

    pub fn parse(s: &str) -> Option<LinkModel> {
        match s {
            "parallel" => Some(LinkModel::Parallel),
            "fcfs" => Some(LinkModel::Fcfs),
            _ => None,
        }
    }
}
