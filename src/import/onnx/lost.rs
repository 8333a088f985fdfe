//! Ops that could not be sized: which carry FLOPs, and the error (or, with unsized ops
//! allowed, the note) naming the first op that lost FLOPs and the share of the model lost.
//!
//! Not here: sizing ops (`infer`, `control`).

use std::collections::{BTreeMap, BTreeSet};

use super::infer::{self, elems, Info};
use super::proto;
use super::{bad, Options, Report, ALLOW_IT};
use crate::error::Result;

/// Ops that move or describe data and carry no FLOPs of their own: one of these that
/// cannot be sized loses nothing unless an op it feeds is lost too.
pub(super) const NO_FLOPS: &[&str] = &[
    "Shape",
    "Size",
    "Reshape",
    "Flatten",
    "Transpose",
    "Concat",
    "Split",
    "Slice",
    "Gather",
    "GatherElements",
    "GatherND",
    "Squeeze",
    "Unsqueeze",
    "Identity",
    "Dropout",
    "Cast",
    "CastLike",
    "Constant",
    "ConstantOfShape",
    "Expand",
    "Tile",
    "Pad",
    "Range",
    "NonZero",
    "DepthToSpace",
    "SpaceToDepth",
    "ScatterND",
    "ScatterElements",
    "Trilu",
    "OneHot",
    "EyeLike",
    "SequenceConstruct",
    "SequenceAt",
    "SplitToSequence",
    "ConcatFromSequence",
];

/// Ops whose output size depends on the values of their input.
pub(super) const DATA_DEPENDENT: &[&str] = &["NonZero", "Unique", "NonMaxSuppression", "Compress"];

/// What is known of a node's inputs, for an error: `x: 1x3x224x224`, `shape: int64[4],
/// values unknown`.
pub(super) fn inputs_text(n: &proto::NodeProto, infos: &BTreeMap<&str, Option<Info>>) -> String {
    n.input
        .iter()
        .filter(|x| !x.is_empty())
        .map(|x| {
            let what = match infos.get(x.as_str()).cloned().flatten() {
                None => "shape unknown".to_string(),
                Some(Info { shape: None, .. }) => "shape unknown".to_string(),
                Some(Info {
                    shape: Some(s),
                    value,
                    dtype,
                }) => {
                    let dims = if s.is_empty() {
                        "scalar".to_string()
                    } else {
                        s.iter().map(u64::to_string).collect::<Vec<_>>().join("x")
                    };
                    let small_int = matches!(dtype, 6 | infer::INT64) && elems(&s) <= 64.0;
                    match value {
                        None if small_int => format!("{dims}, values unknown"),
                        _ => dims,
                    }
                }
            };
            format!("'{x}' {what}")
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Whether an op type carries FLOPs of its own (unknown and custom ops are taken to).
pub(super) fn carries_flops(n: &proto::NodeProto) -> bool {
    let default_domain = n.domain.is_empty() || n.domain == "ai.onnx";
    !(default_domain && NO_FLOPS.contains(&n.op_type.as_str()))
}

/// The nodes not sized that lose FLOPs: those that carry FLOPs, and those that feed (through
/// nodes not sized) one that does. None: the import is an error naming the first of them, unless
/// unsized ops are allowed; then a note with the share of the model that is missing.
pub(super) fn check_lost(
    nodes: &[&proto::NodeProto],
    ids: &[String],
    producer: &BTreeMap<&str, usize>,
    lost: &[(usize, Option<infer::Fail>, String)],
    report: &Report,
    opts: &Options,
    change: &Option<(String, u64, u64)>,
) -> Result<Option<String>> {
    let lost_set: BTreeSet<usize> = lost.iter().map(|l| l.0).collect();
    // Reverse topological order over the lost nodes: a lost node blocks when it carries
    // FLOPs or a lost node reading its outputs blocks.
    let mut blocks: BTreeSet<usize> = BTreeSet::new();
    for &(i, _, _) in lost.iter().rev() {
        if carries_flops(nodes[i]) {
            blocks.insert(i);
        }
        if blocks.contains(&i) {
            for x in nodes[i].input.iter().filter(|x| !x.is_empty()) {
                if let Some(&p) = producer.get(x.as_str()) {
                    if lost_set.contains(&p) {
                        blocks.insert(p);
                    }
                }
            }
        }
    }
    let Some((first, fail, ins)) = lost.iter().find(|l| blocks.contains(&l.0)) else {
        return Ok(None);
    };
    let n = nodes[*first];
    let flop_ops = nodes.iter().filter(|n| carries_flops(n)).count();
    let lost_flop_ops = lost.iter().filter(|l| carries_flops(nodes[l.0])).count();
    let share = format!(
        "{} of {} ops ({:.0}%) not sized, {} of the {} ops that carry FLOPs ({:.0}%)",
        lost.len(),
        nodes.len(),
        100.0 * lost.len() as f64 / nodes.len() as f64,
        lost_flop_ops,
        flop_ops,
        100.0 * lost_flop_ops as f64 / flop_ops.max(1) as f64
    );
    if opts.allow_unsized {
        return Ok(Some(format!(
            "{share} (first: node '{}' ({})); their FLOPs are missing from the {:.4e} forward \
             FLOPs counted, and the edges they write have 0 bytes",
            ids[*first], n.op_type, report.forward_flops
        )));
    }
    let why = match fail {
        None => format!(
            "ops of domain '{}' have no shape rule here (a runtime's fused op: export without \
             runtime-specific optimizations)",
            n.domain
        ),
        Some(infer::Fail::NoRule) if DATA_DEPENDENT.contains(&n.op_type.as_str()) => format!(
            "the size of a {}'s output depends on the data, which an import does not see",
            n.op_type
        ),
        Some(infer::Fail::NoRule) => format!(
            "the importer has no shape rule for op type {} (docs/onnx.md lists the ops it sizes)",
            n.op_type
        ),
        Some(infer::Fail::NotSized) => format!(
            "its inputs do not give it a shape (inputs: {ins}); a shape or value computed at run \
             time, or attributes this importer does not read"
        ),
    };
    // The first lost op that carries FLOPs, when the first lost node only feeds it.
    let feeds = lost
        .iter()
        .find(|l| blocks.contains(&l.0) && carries_flops(nodes[l.0]))
        .filter(|l| l.0 != *first)
        .map_or(String::new(), |(i, _, ins)| {
            format!(
                "; it feeds node '{}' ({}), whose inputs are {ins}",
                ids[*i], nodes[*i].op_type
            )
        });
    let baked = match change {
        Some((input, old, new)) => format!(
            "; input '{input}' was exported at batch {old}, and batch {new} may not fit the shapes \
             baked into the model: re-export with a dynamic batch axis"
        ),
        None => String::new(),
    };
    Err(bad(format!(
        "node '{}' ({}) could not be sized: {why}{feeds}{baked}. {share}. Give the inputs static shapes \
         (input shape NAME=DIMS, with each input's rank), re-export with static shapes (or run \
         onnx.shape_inference / onnxsim on the model), or import with {ALLOW_IT} (they cost 0 \
         and the report gives the share missing)",
        ids[*first], n.op_type
    )))
}
