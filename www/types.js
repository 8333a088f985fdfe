// JSDoc types of what the page gets from the engine (src/wasm.rs), checked by
// `tsc --noEmit` (jsconfig.json; `make lint`). Each mirrors a Rust type; tests/mirrors.rs walks
// the engine's comparison JSON along these typedefs (every key typed, every required one written):
//   Comparison, PairResult, DeviceResult, GraphSummary,  src/compare/types.rs
//   WorkItem, Partial, PairOutcome, WarmUpCase            src/compare/items.rs, mod.rs
//   Scenario and its parts                                src/scenario/mod.rs
//   SolveReport                                           src/plan.rs
//   Timeline, TimelineDevice                              src/report/trace.rs
//   Link, LinkGraph, GraphHash, PageView                  src/scenario/link/
//   Strategies, StrategyInfo, ParamSpec, GraphInfo, Limits  src/wasm.rs, src/params.rs
// Numbers are seconds, bytes and work per second unless said otherwise.
//
// Nothing here runs: the module only holds types (`import('./types.js').Comparison`).

/**
 * @typedef {object} DeviceResult One device's figures for a pair, over the seeds.
 * @property {string} id
 * @property {string} kind
 * @property {number} speed mean over the seeds (after the what-if)
 * @property {number} busy mean seconds busy
 * @property {number} utilization mean busy / makespan
 * @property {number} ops mean number of ops run
 * @property {number} peak_memory highest peak over the seeds, bytes
 * @property {number | null} memory capacity in bytes; null when unlimited
 * @property {boolean} oom whether any seed exceeded the capacity
 */

/**
 * @typedef {object} PairResult One placer x scheduler pair.
 * @property {string} placer
 * @property {string} scheduler
 * @property {number} makespan mean over the seeds
 * @property {number} makespan_std
 * @property {number} makespan_min
 * @property {number} makespan_max
 * @property {number[]} makespans one per seed that placed
 * @property {number[]} [failed_seeds] seed indices at which the placer failed
 * @property {number} lower_bound
 * @property {number} gap mean of makespan / lower bound
 * @property {number} traffic_bytes
 * @property {number} transfers
 * @property {number} placement_seconds
 * @property {boolean} oom
 * @property {DeviceResult[]} devices
 * @property {SolveReport[]} [plan_reports] the placer's own report per seed, when it plans
 * @property {PlanSummary} [plan] those reports over the seeds (compare::PlanSummary)
 * @property {string} [error] why the pair has no numbers
 * @property {string} link_order the row's link order
 * @property {Distribution} [iteration_time] every iteration of every seed (several
 *   iterations or a replica), with the sorted times for a CDF
 * @property {number} [throughput] iterations per second, 1 / mean iteration time
 * @property {OrderingResult} [ordering] TicTac19's ordering metrics (replica scenarios)
 */

/**
 * @typedef {object} Distribution One number over runs (compare::Distribution).
 * @property {number} mean
 * @property {number} std
 * @property {number} min
 * @property {number} max
 * @property {number} p5
 * @property {number} p50
 * @property {number} p95
 * @property {number[]} [sorted] every value, ascending (for a CDF)
 */

/**
 * @typedef {object} WorkerOrdering One worker's TicTac19 Eq. 1-4 figures.
 * @property {string} id
 * @property {number} time mean time the worker finished
 * @property {number} upper Eq. 1 bound (everything sequential)
 * @property {number} lower Eq. 2 bound (its busiest resource)
 * @property {number | null} efficiency Eq. 3
 * @property {number | null} speedup Eq. 4
 */

/**
 * @typedef {object} OrderingResult TicTac19's ordering metrics of a replica row.
 * @property {WorkerOrdering[]} workers
 * @property {number | null} efficiency E, mean over the workers (1 best order, 0 worst)
 * @property {number | null} speedup S, mean over the workers
 * @property {Distribution} straggler (slowest worker - fastest) / iteration time
 * @property {number} straggler_tail
 * @property {number} theoretical_best iteration time if every worker hit its Eq. 2 bound
 * @property {number} theoretical_worst iteration time if every worker took its Eq. 1 bound
 * @property {Distribution} normalized theoretical best / iteration time
 */

/**
 * @typedef {object} SolveReport A planning placer's report of its plan.
 * @property {number} objective the makespan it predicts for its plan, seconds
 * @property {number} [bound] a lower bound, when it proves one
 * @property {'none' | 'instance' | 'coarse'} bound_of what the bound bounds
 * @property {'heuristic' | 'feasible' | 'coarse_optimal' | 'optimal'} status
 * @property {number} work
 * @property {string} work_unit
 * @property {number} [coarse_vertices] vertices of the coarse graph searched (Pesto21 §3.3)
 * @property {Improvement[]} [history] the search's convergence, one point per improvement
 */

/**
 * @typedef {object} Improvement One point of a search's convergence history (plan::Improvement).
 * @property {number} work work done when it was reached, in the report's work unit
 * @property {number} objective best makespan found so far (the makespan's unit)
 * @property {number} bound best lower bound of the instance proven so far
 */

/**
 * @typedef {object} PlanSummary A planning placer's reports of one row over its seeds.
 * @property {number} objective mean predicted makespan, seconds
 * @property {number} [bound] mean proven bound, when every seed has one
 * @property {'none' | 'instance' | 'coarse'} bound_scope what the bound bounds
 * @property {string} status the weakest seed's claim, worded by pesto.md §5.6
 * @property {number} [coarse_vertices] that seed's coarse graph size, when coarsened
 * @property {Improvement[]} [history] the first seed's convergence history
 */

/**
 * @typedef {object} SweepSpec A sweep's axis and checked factors (src/scenario/sweep.rs).
 * @property {'compute' | 'bandwidth' | 'latency'} axis
 * @property {number[]} factors
 */

/**
 * @typedef {object} SweepPoint One pair at one factor.
 * @property {number} factor
 * @property {string} placer
 * @property {string} scheduler
 * @property {string} link_order
 * @property {number} makespan mean over the seeds
 * @property {number} makespan_std
 * @property {number} makespan_min
 * @property {number} makespan_max
 * @property {number} lower_bound
 * @property {PlanSummary} [plan]
 * @property {string} [error]
 */

/**
 * @typedef {object} Sweep Every pair at every factor (sweep::Sweep).
 * @property {'compute' | 'bandwidth' | 'latency'} axis
 * @property {number[]} factors
 * @property {string} graph
 * @property {boolean} physical seconds (true) or abstract units
 * @property {SweepPoint[]} points factor by factor, each factor's pairs in row order
 */

/**
 * @typedef {object} SweepPlan What `sweep_plan` returns.
 * @property {SweepSpec} spec
 * @property {string[]} scenarios each factor's scenario JSON
 */

/**
 * @typedef {object} SweepResult What `sweep_merge` returns.
 * @property {Sweep} sweep
 * @property {string} csv the bytes `placesim sweep --csv` prints
 */

/**
 * @typedef {object} GraphSummary
 * @property {string} name
 * @property {number} nodes
 * @property {number} edges
 * @property {number} colocation_groups
 */

/**
 * @typedef {object} Comparison What `placesim compare --json` prints and the page shows.
 * @property {Scenario} scenario
 * @property {GraphSummary} graph
 * @property {number} critical_path_bound
 * @property {number} work_bound
 * @property {string[]} [notes] why some combinations are absent
 * @property {PairResult[]} results
 */

/** @typedef {[number, number]} Range `[lo, hi]` */

/**
 * @typedef {object} ClusterGen A cluster drawn per seed from ranges.
 * @property {number} devices
 * @property {Range} speed
 * @property {Range} bandwidth
 * @property {Range} [latency]
 * @property {number} [memory]
 * @property {number} [memory_fraction]
 * @property {string[]} [kinds]
 */

/**
 * @typedef {object} DeviceJson A device of cluster JSON (docs/format.md).
 * @property {string} id
 * @property {string} [kind]
 * @property {number} speed
 * @property {number} [memory]
 */

/**
 * @typedef {{devices: DeviceJson[], bandwidth: number, latency?: number, name?: string,
 *   [more: string]: unknown}} ClusterJson
 */

/**
 * @typedef {{bundled: string} | {file: string} | {inline: object}} GraphSource
 * @typedef {{generate: ClusterGen} | {file: string} | {inline: ClusterJson}} ClusterSource
 */

/**
 * @typedef {object} Randomize
 * @property {Range} [cost]
 * @property {Range} [bytes]
 * @property {Range} [mem]
 */

/**
 * @typedef {object} Replication TicTac19's parameter-server replicas (src/scenario/mod.rs).
 * @property {string[]} workers
 * @property {string[]} ps
 * @property {string} [forward_target] prune the graph to this op and its ancestors first
 * @property {boolean} [aggregate]
 * @property {string[]} [param_ops]
 * @property {boolean} [params_from_sources]
 * @property {number} [balance]
 */

/**
 * @typedef {object} WhatIf
 * @property {number} compute
 * @property {number} bandwidth
 * @property {number} [latency] multiplies every link latency (1 when absent)
 * @property {Record<string, number>} [speeds] device id -> speed
 */

/**
 * @typedef {'outputs' | 'inputs_outputs' | 'mem' | 'live'} Footprint What a node's static
 *   placement footprint counts: op memory plus output tensors, plus input and output tensors
 *   (Pesto21 §3.1), or op memory only; `live` charges placers op memory only and lets the
 *   simulated peak of live tensors judge (docs/format.md).
 */

/**
 * @typedef {object} Scenario The engine's description of a comparison.
 * @property {number} version
 * @property {GraphSource} graph
 * @property {ClusterSource} cluster
 * @property {Randomize} [randomize]
 * @property {string[]} placers
 * @property {string[]} schedulers
 * @property {Record<string, number>} [params] `strategy.parameter` -> value
 * @property {'parallel' | 'fcfs'} links
 * @property {string | string[]} link_order one order, or several (a row per order)
 * @property {Footprint} [footprint] the static placement footprint rule ('outputs' when absent)
 * @property {Replication} [replica] TicTac19's parameter-server replicas
 * @property {number} [iterations] simulated steps per seed (1 when absent)
 * @property {number} seeds
 * @property {number} seed
 * @property {WhatIf} [what_if]
 */

/**
 * @typedef {object} TimelineDevice
 * @property {string} id
 * @property {string} kind
 * @property {number} speed
 * @property {number | null} memory capacity; null when unlimited
 * @property {number} busy
 * @property {number} peak_memory
 * @property {boolean} oom
 * @property {number} ops
 */

/**
 * @typedef {object} Timeline One run's schedule, compact (report::trace::timeline).
 * @property {number} makespan
 * @property {number} lower_bound
 * @property {number} placement_seconds
 * @property {TimelineDevice[]} devices
 * @property {string[]} nodes node ids by index
 * @property {string[]} op_types
 * @property {number[]} op_type per node, an index into op_types
 * @property {[number, number, number][]} ops per node: [device, start, end]
 * @property {[number, number, number, number, number, number, number][]} transfers
 *   per transfer: [src device, dst device, ready, start, end, bytes, producer node]
 * @property {number[][]} memory per device: [t0, bytes0, t1, bytes1, ...]
 * @property {number[]} [ready] per node: when its last input was on its device (seconds)
 * @property {number[]} [edges] the graph's edges flattened: [src, dst, bytes, ...]
 * @property {CriticalPath} [critical_path] the chain of ops and transfers that determines the makespan
 */

/**
 * @typedef {{op: number} | {transfer: number}} CriticalStep a node index, or a transfer index
 * @typedef {object} CriticalPath The critical path of a run (analysis::critical::critical_path).
 * @property {CriticalStep[]} steps in time order
 * @property {number} idle seconds on the chain where nothing on it ran
 */

/**
 * @typedef {object} PairRun What `run_pair` returns (worker.js passes the page its timeline as
 * typed arrays instead: TimelineData in timeline-data.js).
 * @property {Timeline} timeline (null in the answer to a trace request: worker.js leaves it out)
 * @property {string | null} trace Chrome trace JSON text, when asked for
 * @property {Blob} [traceBlob] the trace as a Blob: set by worker.js (the page never gets the text)
 */

/**
 * @typedef {object} ParamSpec
 * @property {string} name
 * @property {number} default
 * @property {string} doc
 */

/**
 * @typedef {object} StrategyInfo
 * @property {string} name
 * @property {string} summary
 * @property {ParamSpec[]} params
 */

/**
 * @typedef {object} Strategies What `strategies()` returns.
 * @property {StrategyInfo[]} placers
 * @property {StrategyInfo[]} schedulers
 * @property {StrategyInfo[]} link_orders
 */

/**
 * @typedef {object} Limits What `limits()` returns: the engine's input limits.
 * @property {number} max_devices devices in a cluster (src/model/cluster.rs MAX_DEVICES)
 * @property {number} max_seeds seeds of a scenario (src/scenario/mod.rs MAX_SEEDS)
 * @property {number} max_iterations iterations per seed (src/scenario/mod.rs MAX_ITERATIONS)
 * @property {number} min_positive the smallest speed or bandwidth
 * @property {number} max_amount the largest amount (speed, bytes, seconds)
 */

/**
 * @typedef {object} GraphInfo What `validate_graph` returns.
 * @property {string} name
 * @property {number} nodes
 * @property {number} edges
 * @property {number} colocation_groups
 * @property {number} op_types
 */

/**
 * @typedef {object} GraphHash A graph a link names by the SHA-256 of its text.
 * @property {string} sha256 lowercase hex
 * @property {string} name
 */

/**
 * @typedef {{kind: 'bundled'} | {kind: 'embedded', name: string, text: string}
 *   | {kind: 'hashed', sha256: string, name: string}} LinkGraph How a link gives its graph.
 */

/**
 * @typedef {object} PageView What a page link carries besides its scenario.
 * @property {string | null} [pair] `placer/scheduler` whose timeline is shown
 * @property {number} [pair_seed] the seed index whose timeline is shown (0 by default)
 * @property {string | null} [pair2] a second pair whose timeline is shown below, on a shared time axis
 * @property {string | null} [sort] the table's sort column, `-` first for descending
 * @property {boolean} [log_scale] the makespan chart's value axis is logarithmic (key `scale=log`)
 * @property {SweepSpec | null} [sweep] the Sweep panel's axis and factors (key `sweep`; null: the default)
 * @property {boolean} [sweep_log] the sweep chart's factor axis is logarithmic (key `sweepscale=log`)
 */

/**
 * @typedef {object} WorkItem One unit of a comparison's work (compare::WorkItem).
 * @property {number} seed
 * @property {number[]} placers resolved placer indices
 */

/**
 * @typedef {object} Partial Part of a comparison (compare::Partial): opaque to the page,
 *   which passes it from a worker to `merge_parts`.
 * @property {GraphSummary} graph
 * @property {object[]} items
 */

/**
 * @typedef {unknown} PairOutcome One pair's outcome at one seed (`Result<compare::PairSample,
 *   Error>`): opaque to the page, which passes it from `Session.simulate_pairs` to `join_pairs`.
 */

/**
 * @typedef {object} WorkPlan What `work_plan` returns (compare::WorkPlan).
 * @property {WorkItem[]} items in merge order
 * @property {number[]} units progress units of each item
 * @property {number} total
 * @property {string[]} keys each item's placers' names, joined by ',' (the pool's item costs)
 */

/**
 * @typedef {object} WarmUpCase What `warm_up_case` returns (compare::warm_up_case).
 * @property {string} scenario the scenario's JSON
 * @property {string} graph_text the generated graph's text
 */

/**
 * @typedef {object} Link What `read_link` returns. For an embedded or hashed graph the
 *   scenario's graph is `{file: name}` and the text is in `graph`.
 * @property {Scenario} scenario
 * @property {LinkGraph} graph
 * @property {PageView} view
 */

export {};
