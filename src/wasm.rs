//! The wasm-bindgen adapter: the engine's entry points as JavaScript functions.
//!
//! Thin on purpose: each function parses its JSON arguments, calls the library
//! ([`crate::compare`], [`crate::report::trace`], [`crate::scenario::link`]) and serializes the
//! result with `serde-wasm-bindgen` (maps become plain objects). Every engine error becomes
//! a thrown JavaScript `Error` whose message is the engine's own, so the page can show it
//! as is. No logic lives here: anything worth testing is tested natively in the library.
//!
//! Inputs the browser holds as text (a graph file, a cluster file) are passed as text; a
//! scenario's `file` sources cannot be read here and say so.

use serde::Serialize;
use wasm_bindgen::prelude::*;

use crate::compare;
use crate::error::Error;
use crate::model::cluster::Cluster;
use crate::model::graph::Graph;
use crate::params::ParamSpec;
use crate::report::trace;
use crate::scenario::link;
use crate::scenario::load::{FileRef, Prior};
use crate::scenario::{Resolved, Scenario};

// The JavaScript types of what these functions return, for the generated placesim.d.ts
// (`make lint` type-checks the page with it): JSDoc typedefs in www/types.js.
#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &str = r#"import type {
  Comparison, GraphHash, GraphInfo, Limits, Link, PageView, PairOutcome, PairRun, Partial, Scenario,
  Strategies, SweepPlan, SweepResult, SweepSpec, WorkItem, WorkPlan,
} from "../types.js";"#;

fn to_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, JsError> {
    value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|e| JsError::new(&e.to_string()))
}

fn from_js<T: serde::de::DeserializeOwned>(value: JsValue) -> Result<T, JsError> {
    serde_wasm_bindgen::from_value(value).map_err(|e| JsError::new(&e.to_string()))
}

fn js_err(e: Error) -> JsError {
    JsError::new(&e.to_string())
}

#[derive(Serialize)]
struct StrategyInfo {
    name: &'static str,
    summary: &'static str,
    params: &'static [ParamSpec],
}

#[derive(Serialize)]
struct Strategies {
    placers: Vec<StrategyInfo>,
    schedulers: Vec<StrategyInfo>,
    link_orders: Vec<StrategyInfo>,
}

/// Every registered placer, scheduler and link order: names, summaries, parameters.
#[wasm_bindgen(unchecked_return_type = "Strategies")]
pub fn strategies() -> Result<JsValue, JsError> {
    let info = |name, summary, params| StrategyInfo {
        name,
        summary,
        params,
    };
    to_js(&Strategies {
        placers: crate::place::PLACERS
            .iter()
            .map(|p| info(p.name, p.summary, p.params))
            .collect(),
        schedulers: crate::schedule::SCHEDULERS
            .iter()
            .map(|s| info(s.name, s.summary, s.params))
            .collect(),
        link_orders: crate::transfer::LINK_ORDERS
            .iter()
            .map(|q| info(q.name, q.summary, q.params))
            .collect(),
    })
}

#[derive(Serialize)]
struct Limits {
    max_devices: usize,
    max_seeds: u32,
    max_iterations: u32,
    min_positive: f64,
    max_amount: f64,
}

/// The engine's input limits (devices, seeds, iterations, amounts), so the page's form refuses what the
/// engine would.
#[wasm_bindgen(unchecked_return_type = "Limits")]
pub fn limits() -> Result<JsValue, JsError> {
    to_js(&Limits {
        max_devices: crate::model::cluster::MAX_DEVICES,
        max_seeds: crate::scenario::MAX_SEEDS,
        max_iterations: crate::scenario::MAX_ITERATIONS,
        min_positive: crate::model::MIN_POSITIVE,
        max_amount: crate::model::MAX_AMOUNT,
    })
}

#[derive(Serialize)]
struct GraphInfo {
    name: String,
    nodes: usize,
    edges: usize,
    colocation_groups: usize,
    op_types: usize,
}

/// Loads and validates graph JSON; returns its summary or throws the engine's error.
#[wasm_bindgen(unchecked_return_type = "GraphInfo")]
pub fn validate_graph(text: &str, fallback_name: &str) -> Result<JsValue, JsError> {
    graph_info(&Graph::from_json(text, fallback_name).map_err(js_err)?)
}

/// A graph's summary for the page (`GraphInfo`).
fn graph_info(g: &Graph) -> Result<JsValue, JsError> {
    to_js(&GraphInfo {
        name: g.name.clone(),
        nodes: g.node_count(),
        edges: g.edge_count(),
        colocation_groups: g.groups.len(),
        op_types: g.op_types.len(),
    })
}

#[derive(Serialize)]
struct ImportedGraph {
    text: String,
    notes: Vec<String>,
}

/// An uploaded graph file's bytes (an ONNX model, or graph JSON) as graph JSON text and the
/// import's notes (ops not sized, external data), through the library's graph-file path
/// (`scenario::load::graph_file`); throws the engine's error. `batch`: the size of dynamic
/// first dimensions (0: none given); `input_shapes`: `NAME=DIMS` texts (as `--input-shape`);
/// `allow_unsized`: go on when ops that carry FLOPs cannot be sized (as `--allow-unsized`);
/// `dtype`: the precision floating-point tensors are counted at (as `--dtype`; empty: the
/// model's own).
#[wasm_bindgen(unchecked_return_type = "{text: string, notes: string[]}")]
pub fn import_graph(
    bytes: Vec<u8>,
    file_name: &str,
    train: bool,
    batch: u32,
    input_shapes: Vec<String>,
    allow_unsized: bool,
    dtype: &str,
) -> Result<JsValue, JsError> {
    use crate::import::onnx::Dtype;
    let mut options = crate::import::onnx::Options {
        train,
        batch: (batch > 0).then_some(u64::from(batch)),
        allow_unsized,
        dtype: (!dtype.is_empty())
            .then(|| Dtype::parse(dtype))
            .transpose()
            .map_err(js_err)?,
        ..Default::default()
    };
    for s in &input_shapes {
        options.add_input_shape(s).map_err(js_err)?;
    }
    let read = crate::scenario::load::graph_file(file_name, bytes, &options).map_err(js_err)?;
    to_js(&ImportedGraph {
        text: read.text,
        notes: read.notes,
    })
}

/// Loads and validates cluster JSON; returns its devices (memory `Infinity` when unlimited)
/// or throws the engine's error.
#[wasm_bindgen(
    unchecked_return_type = "{id: string, kind: string, speed: number, memory: number}[]"
)]
pub fn validate_cluster(text: &str) -> Result<JsValue, JsError> {
    let c = Cluster::from_json(text, "cluster").map_err(js_err)?;
    to_js(&c.devices)
}

/// The scenario, its graph and its fixed cluster (when not generated), through the
/// library's one loading path; the page holds the texts of a bundled or uploaded graph and
/// of an uploaded cluster file.
fn load(
    scenario_json: &str,
    graph_text: Option<String>,
    cluster_text: Option<String>,
) -> Result<(Scenario, Graph, Option<Cluster>), Error> {
    let scenario = Scenario::from_json(scenario_json)?;
    let loaded = crate::scenario::load::load(scenario, &files(graph_text, cluster_text))?;
    Ok((loaded.scenario, loaded.graph, loaded.cluster))
}

/// The files of a scenario, as the page passes their texts.
fn files(
    graph_text: Option<String>,
    cluster_text: Option<String>,
) -> impl Fn(FileRef) -> Result<Vec<u8>, Error> {
    move |f| match f {
        FileRef::BundledGraph(_) | FileRef::GraphFile(_) => {
            graph_text.clone().map(String::into_bytes).ok_or_else(|| {
                Error::Scenario("the page passed no graph text for a bundled or file graph".into())
            })
        }
        FileRef::ClusterFile(path) => {
            cluster_text
                .clone()
                .map(String::into_bytes)
                .ok_or_else(|| Error::Io {
                    path: path.to_string(),
                    message: "files cannot be read in the browser; upload the cluster".into(),
                })
        }
    }
}

/// A JS progress callback `(done, total)`: answering `false` stops the run.
fn js_progress(progress: &Option<js_sys::Function>) -> impl FnMut(f64, usize) -> bool + '_ {
    move |done: f64, total: usize| match progress {
        None => true,
        Some(f) => {
            let r = f.call2(
                &JsValue::NULL,
                &JsValue::from(done),
                &JsValue::from(total as f64),
            );
            !matches!(r, Ok(v) if v == JsValue::FALSE)
        }
    }
}

/// The work items of a scenario for a pool of `workers` (`compare::work_plan`): `{items,
/// units, total}`.
#[wasm_bindgen(unchecked_return_type = "WorkPlan")]
pub fn work_plan(scenario_json: &str, workers: u32) -> Result<JsValue, JsError> {
    let r = Resolved::from_json(scenario_json).map_err(js_err)?;
    to_js(&compare::work_plan(&r, workers as usize))
}

/// A scenario loaded in a worker, which then runs work items of it as they are handed out
/// (`compare::run_part`). Loading another scenario keeps the parsed graph when its text is
/// the same (`scenario::load::load_reusing`): a big graph is parsed once per worker.
#[wasm_bindgen]
#[derive(Default)]
pub struct Session {
    /// The loaded scenario and its resolution (resolved once, at load).
    loaded: Option<(crate::scenario::load::Loaded, Resolved)>,
    /// The last seed's cost model, for the next item of that seed (`compare::SeedCache`);
    /// new with every load.
    cache: compare::SeedCache,
    /// The plan the last `place_item` made, encoded, until `take_plan`.
    plan: Option<Vec<u8>>,
    /// A graph text parsed ahead (`parse_ahead`) and its graph, until a `load` of that text
    /// takes it.
    ahead: Option<Prior>,
}

/// The session's loaded scenario, or the error a request before `load` gets. A function of
/// the field, not a method, so a caller can still borrow the session's cache mutably.
fn loaded(
    loaded: &Option<(crate::scenario::load::Loaded, Resolved)>,
) -> Result<(&crate::scenario::load::Loaded, &Resolved), JsError> {
    let (l, r) = loaded
        .as_ref()
        .ok_or_else(|| JsError::new("no scenario is loaded"))?;
    Ok((l, r))
}

#[wasm_bindgen]
impl Session {
    #[wasm_bindgen(constructor)]
    pub fn new() -> Session {
        Session::default()
    }

    /// Loads a scenario with its graph (and cluster file) text, or throws the engine's error
    /// (and holds nothing). Without a graph text, the text this session holds: the one
    /// parsed ahead (`parse_ahead`) if any, else the loaded scenario's.
    pub fn load(
        &mut self,
        scenario_json: &str,
        graph_text: Option<String>,
        cluster_text: Option<String>,
    ) -> Result<(), JsError> {
        let previous = self.loaded.take().map(|(l, _)| l);
        self.cache = compare::SeedCache::default();
        self.plan = None;
        let scenario = Scenario::from_json(scenario_json).map_err(js_err)?;
        // No text: the page means the one this session holds (parsed ahead, else loaded),
        // which it sends once per worker rather than converting 19 MB again at every load.
        let graph_text = graph_text.or_else(|| {
            self.ahead
                .as_ref()
                .map(|p| p.text.clone())
                .or_else(|| previous.as_ref().map(|p| p.graph_text.clone()))
        });
        let priors = self
            .ahead
            .take()
            .into_iter()
            .chain(previous.map(Prior::from));
        let loaded =
            crate::scenario::load::load_reusing(scenario, &files(graph_text, cluster_text), priors)
                .map_err(js_err)?;
        let resolved = loaded.scenario.resolve().map_err(js_err)?;
        self.loaded = Some((loaded, resolved));
        Ok(())
    }

    /// Parses a graph's text ahead of the `load` that will use it (an upload: its scenario
    /// names the graph by its own name, known only once parsed); returns its summary, as
    /// `validate_graph` does, or throws the engine's error. A `load` of the same text takes
    /// the graph when the scenario reads it as this parse did (`scenario::load::Prior`).
    #[wasm_bindgen(unchecked_return_type = "GraphInfo")]
    pub fn parse_ahead(&mut self, text: String, fallback_name: &str) -> Result<JsValue, JsError> {
        self.ahead = None;
        let prior = Prior::parse(text, fallback_name).map_err(js_err)?;
        let info = graph_info(prior.graph())?;
        self.ahead = Some(prior);
        Ok(info)
    }

    /// Runs `items` and returns their partial comparison; `progress(done, total)` counts
    /// these items' units.
    #[wasm_bindgen(unchecked_return_type = "Partial")]
    pub fn run_items(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "WorkItem[]")] items: JsValue,
        progress: Option<js_sys::Function>,
    ) -> Result<JsValue, JsError> {
        let items: Vec<compare::WorkItem> = from_js(items)?;
        let (l, resolved) = loaded(&self.loaded)?;
        let part = compare::run_part(
            resolved,
            &l.graph,
            l.cluster.as_ref(),
            &items,
            &mut self.cache,
            &mut js_progress(&progress),
        )
        .map_err(js_err)?;
        to_js(&part)
    }

    /// Places the one placer of `item` (`compare::place_item`): a partial comparison whose
    /// placer's pairs have not run yet (their row errors when it did not place);
    /// `take_plan` then gives its plan for the workers that run those pairs.
    #[wasm_bindgen(unchecked_return_type = "Partial")]
    pub fn place_item(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "WorkItem")] item: JsValue,
        progress: Option<js_sys::Function>,
    ) -> Result<JsValue, JsError> {
        let item: compare::WorkItem = from_js(item)?;
        let (l, resolved) = loaded(&self.loaded)?;
        let (part, plan) = compare::place_item(
            resolved,
            &l.graph,
            l.cluster.as_ref(),
            &item,
            &mut self.cache,
            &mut js_progress(&progress),
        )
        .map_err(js_err)?;
        self.plan = plan;
        to_js(&part)
    }

    /// The plan the last `place_item` made, as bytes for `simulate_pairs` in another worker
    /// (opaque to the page), once; `undefined` when it did not place.
    pub fn take_plan(&mut self) -> Option<Vec<u8>> {
        self.plan.take()
    }

    /// Runs the pairs at positions `pairs` of `item`'s one placer (`compare::simulate_pairs`)
    /// on its placement: `plan` (bytes from `take_plan` in some worker), or `undefined` for
    /// the one this worker placed or was sent before in this run. Their outcomes, in order.
    #[wasm_bindgen(unchecked_return_type = "PairOutcome[]")]
    pub fn simulate_pairs(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "WorkItem")] item: JsValue,
        plan: Option<Vec<u8>>,
        pairs: Vec<u32>,
        progress: Option<js_sys::Function>,
    ) -> Result<JsValue, JsError> {
        let item: compare::WorkItem = from_js(item)?;
        let (l, resolved) = loaded(&self.loaded)?;
        let pairs: Vec<usize> = pairs.iter().map(|&j| j as usize).collect();
        let out = compare::simulate_pairs(
            resolved,
            &l.graph,
            l.cluster.as_ref(),
            &item,
            plan.as_deref(),
            &pairs,
            &mut self.cache,
            &mut js_progress(&progress),
        )
        .map_err(js_err)?;
        to_js(&out)
    }
}

/// A placement's part (`Session::place_item`) with its pairs' outcomes
/// (`Session::simulate_pairs`, in pair order): the part `run_items` returns for that item
/// (`compare::join_pairs`).
#[wasm_bindgen(unchecked_return_type = "Partial")]
pub fn join_pairs(
    #[wasm_bindgen(unchecked_param_type = "Partial")] part: JsValue,
    #[wasm_bindgen(unchecked_param_type = "PairOutcome[]")] outcomes: JsValue,
) -> Result<JsValue, JsError> {
    let part: compare::Partial = from_js(part)?;
    let outcomes: Vec<Result<compare::PairSample, Error>> = from_js(outcomes)?;
    to_js(&compare::join_pairs(part, outcomes).map_err(js_err)?)
}

/// Merges partial comparisons (`compare::merge`) into the comparison: the same bits as
/// `compare` on one worker.
#[wasm_bindgen(unchecked_return_type = "Comparison")]
pub fn merge_parts(
    scenario_json: &str,
    #[wasm_bindgen(unchecked_param_type = "Partial[]")] parts: JsValue,
) -> Result<JsValue, JsError> {
    let r = Resolved::from_json(scenario_json).map_err(js_err)?;
    let parts: Vec<compare::Partial> = from_js(parts)?;
    to_js(&compare::merge(&r, &parts).map_err(js_err)?)
}

#[derive(Serialize)]
struct SweepPlan {
    spec: crate::scenario::sweep::SweepSpec,
    /// Each factor's scenario as JSON text, in the factors' order.
    scenarios: Vec<String>,
}

/// A sweep's checked factors (`scenario::sweep::SweepSpec::parse`, factors written `1,2,4,8`)
/// and each factor's scenario (`SweepSpec::scenarios`), or the engine's error naming the
/// axis's factors.
#[wasm_bindgen(unchecked_return_type = "SweepPlan")]
pub fn sweep_plan(scenario_json: &str, axis: &str, factors: &str) -> Result<JsValue, JsError> {
    let s = Scenario::from_json(scenario_json).map_err(js_err)?;
    let spec = crate::scenario::sweep::SweepSpec::parse(
        crate::scenario::sweep::Axis::parse(axis).map_err(js_err)?,
        factors,
    )
    .map_err(js_err)?;
    let scenarios = spec
        .scenarios(&s)
        .iter()
        .map(|x| serde_json::to_string(x).map_err(|e| JsError::new(&e.to_string())))
        .collect::<Result<Vec<_>, _>>()?;
    to_js(&SweepPlan { spec, scenarios })
}

#[derive(Serialize)]
struct SweepResult {
    sweep: crate::sweep::Sweep,
    /// `report::sweep::csv`: the bytes `placesim sweep --csv` prints.
    csv: String,
}

/// Merges each factor's partial comparisons into the sweep (`sweep::merge`) and its CSV.
#[wasm_bindgen(unchecked_return_type = "SweepResult")]
pub fn sweep_merge(
    scenario_json: &str,
    #[wasm_bindgen(unchecked_param_type = "SweepSpec")] spec: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Partial[][]")] parts: JsValue,
) -> Result<JsValue, JsError> {
    let s = Scenario::from_json(scenario_json).map_err(js_err)?;
    let spec: crate::scenario::sweep::SweepSpec = from_js(spec)?;
    let spec = crate::scenario::sweep::SweepSpec::new(spec.axis, spec.factors).map_err(js_err)?;
    let parts: Vec<Vec<compare::Partial>> = from_js(parts)?;
    let sweep = crate::sweep::merge(&s, &spec, &parts).map_err(js_err)?;
    to_js(&SweepResult {
        csv: crate::report::sweep::csv(&sweep),
        sweep,
    })
}

#[derive(Serialize)]
struct PairRun<'a> {
    timeline: trace::Timeline<'a>,
    /// Chrome trace-event JSON text (for download; Perfetto opens it); `null` unless asked.
    trace: Option<String>,
}

/// One pair at one seed with its full schedule: `{timeline, trace}` where `timeline` is
/// `report::trace::timeline` and `trace` the Chrome trace JSON as text when `with_trace`
/// (building it costs about as much as the run, so the page asks only on export).
#[wasm_bindgen(unchecked_return_type = "PairRun")]
#[allow(clippy::too_many_arguments)]
pub fn run_pair(
    scenario_json: &str,
    graph_text: Option<String>,
    cluster_text: Option<String>,
    placer: &str,
    scheduler: &str,
    seed_index: u32,
    with_trace: bool,
) -> Result<JsValue, JsError> {
    let (scenario, graph, cluster) =
        load(scenario_json, graph_text, cluster_text).map_err(js_err)?;
    let real = compare::realize(&scenario, &graph, cluster.as_ref(), seed_index).map_err(js_err)?;
    let detail = compare::run_one(
        &scenario,
        &graph,
        &real.cluster,
        real.overrides.as_ref(),
        (placer, scheduler, None),
        seed_index,
    )
    .map_err(js_err)?;
    to_js(&PairRun {
        timeline: trace::timeline(&detail),
        trace: with_trace.then(|| trace::chrome_trace(&detail).to_string()),
    })
}

/// The engine's warm-up case (`compare::warm_up_case`): its scenario JSON and graph text.
#[derive(Serialize)]
pub struct WarmUpCase {
    scenario: String,
    graph_text: String,
}

/// The case the page runs once, at idle, in one worker, so that V8 has compiled the hot
/// code before a large run (`compare::warm_up_case`).
#[wasm_bindgen(unchecked_return_type = "WarmUpCase")]
pub fn warm_up_case(ops: u32, devices: u32) -> Result<JsValue, JsError> {
    let (scenario, graph_text) = compare::warm_up_case(ops as usize, devices as usize);
    let scenario = serde_json::to_string(&scenario).map_err(|e| JsError::new(&e.to_string()))?;
    to_js(&WarmUpCase {
        scenario,
        graph_text,
    })
}

/// A new random seed from the browser's crypto (exact as a JavaScript number).
#[wasm_bindgen]
pub fn fresh_seed() -> f64 {
    crate::rng::fresh_seed() as f64
}

/// SHA-256 of a graph's text, lowercase hex.
#[wasm_bindgen]
pub fn graph_sha256(text: &str) -> String {
    link::graph_sha256(text)
}

/// Whether a link embeds this graph text rather than naming it by hash (`link::embeds`).
#[wasm_bindgen]
pub fn graph_embeds(text: &str) -> bool {
    link::embeds(text)
}

/// Throws unless `text` is the graph a link names by hash (`link::check_graph`);
/// `linked` is `{sha256, name}`.
#[wasm_bindgen]
pub fn check_linked_graph(
    #[wasm_bindgen(unchecked_param_type = "GraphHash")] linked: JsValue,
    text: &str,
) -> Result<(), JsError> {
    let linked: link::GraphHash = from_js(linked)?;
    link::check_graph(&linked, text).map_err(js_err)
}

/// The page's link fragment (`link::page_fragment`): the scenario (an uploaded graph as
/// `{file: name}` with its `graph_text`), a graph still named by hash (`{sha256, name}` or
/// `null`), and the page's view (`{pair}`).
#[wasm_bindgen]
pub fn page_fragment(
    scenario_json: &str,
    graph_text: Option<String>,
    #[wasm_bindgen(unchecked_param_type = "GraphHash | null")] graph_hash: JsValue,
    #[wasm_bindgen(unchecked_param_type = "PageView")] view: JsValue,
) -> Result<String, JsError> {
    let s = Scenario::from_json(scenario_json).map_err(js_err)?;
    let hash: Option<link::GraphHash> = from_js(graph_hash)?;
    let view: link::PageView = from_js(view)?;
    link::page_fragment(&s, graph_text.as_deref(), hash.as_ref(), &view).map_err(js_err)
}

/// A link as the page reads it (`link::read_link`): `{scenario, graph, view}`.
#[wasm_bindgen(unchecked_return_type = "Link")]
pub fn read_link(f: &str) -> Result<JsValue, JsError> {
    to_js(&link::read_link(f).map_err(js_err)?)
}

/// The scenario an empty link means (`scenario::defaults`).
#[wasm_bindgen(unchecked_return_type = "Scenario")]
pub fn default_scenario() -> Result<JsValue, JsError> {
    to_js(&crate::scenario::defaults::defaults())
}
