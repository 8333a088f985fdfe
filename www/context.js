// The page's runtime context: one object, made at start (app.js) and passed to the page's
// modules, holding what the page has made or loaded while it runs: the engine's lists, the
// current graph's text, the comparisons that ran, the pairs' timeline runs, the workers,
// the chart handles. Its runtime things live here, not in loose module variables.
// It also carries the few calls a lower module makes to an upper one (`on`: run the
// comparison, mark the results stale, show a pair), set by app.js, so that no module
// imports one above it (the layers: PAGE-MODULES.md).
// Not here: anything the user set (that is the State, www/state.js, which maps to and from
// the link), or any behaviour (the modules beside app.js).

/**
 * @typedef {import('./types.js').Comparison} Comparison
 * @typedef {{comparison: Comparison, key: string, ms: number, fragment?: string,
 *   graphText?: string | null, speedKey?: string}} Run a comparison the page ran
 * @typedef {{placer: string, scheduler: string, order: string, seed: number,
 *   result: {timeline: import('./timeline-data.js').TimelineData}, scenario: string,
 *   graphText?: string | null, trace: Blob | null, ms?: number}} PairRunState a pair's run for a timeline
 *   (its timeline in typed arrays, worker.js)
 * @typedef {{name: string, title: string, sentence: string}} Preset one of the papers' experiments
 * @typedef {object} Calls what lower modules ask of upper ones, wired by app.js
 * @property {(opts?: {auto?: boolean, reveal?: boolean}) => Promise<void>} run runs the state's comparison
 *   (runner.js runComparison; `auto`: a what-if re-run, quiet without a graph; `reveal`:
 *   the answer is scrolled into view after it)
 * @property {() => void} stale after a change of the settings: the link follows, the
 *   results say they are stale (controls.js staleResults)
 * @property {(placer: string, scheduler: string, order?: string) => void} choosePair shows a
 *   pair: its row, its charts, its timeline (runner.js choosePair)
 */

/**
 * @typedef {object} Context
 * @property {import('./state.js').State} state the user's settings (the one State)
 * @property {import('./state.js').Registry} all the default strategy lists (the engine's)
 * @property {import('./types.js').Strategies} strategyInfo the engine's strategies
 * @property {any[]} graphIndex the bundled graphs (graphs/index.json)
 * @property {any[]} clusterIndex the bundled clusters (graphs/index.json)
 * @property {Preset[]} presets the papers' experiments
 * @property {{name: string, scenario: string} | null} activePreset the preset last opened and
 *   its scenario (JSON): the menu shows it while the state's fragment is still that one
 * @property {import('./types.js').Limits} limits the engine's input limits (set at start)
 * @property {string | null} graphText text of the current graph (bundled or uploaded), null when missing
 * @property {string | null} graphName
 * @property {Run | null} current the comparison shown
 * @property {Run | null} baseline the comparison without the what-if
 * @property {number} runSeq the latest comparison started (an older one's answer is dropped)
 * @property {PairRunState | null} pairRun the chosen pair's timeline run
 * @property {PairRunState | null} pairRun2 the second timeline's run (state.pair2)
 * @property {any} charts the chart modules (www/charts/*), null when they failed to load
 * @property {number} chartsDue the latest drawing of the charts put off to after a frame
 *   (chart-panel.js drawChartsAfterFrame; an older one is dropped)
 * @property {any} timelineChart the first timeline chart's controller
 * @property {any} timelineChart2 the second timeline chart's controller
 * @property {{render: () => void} | null} sweepPanel the Sweep panel (www/sweep.js)
 * @property {string | null} writtenHash the fragment the page last wrote to the address bar
 * @property {Record<string, any>} timings where the time went (window.placesim.timings)
 * @property {{forwardWanted: boolean, note: string}} ps the parameter-server panel's own
 *   choices: forward-only wanted while it has no loss op yet (the state says training), and
 *   why the panel changed something else (links, orders), said under it
 * @property {import('./pool.js').Pool} pool the workers that run comparisons
 * @property {import('./pool.js').Runner} pairRunner the chosen pair's timeline worker
 * @property {import('./pool.js').Runner | undefined} pair2Runner the second timeline's worker, started when first needed
 * @property {import('./pool.js').Runner} traceRunner builds Chrome traces
 * @property {import('./pool.js').Runner} hashRunner hashes uploads and imports ONNX models
 * @property {import('./pool.js').Runner} inspectRunner validates graph texts (and hashes uploads) off the main thread
 * @property {Calls} on calls to upper modules (set by app.js before anything runs)
 */

/**
 * The context at start: nothing loaded, nothing run. Its workers are made by app.js's
 * main() once the engine is loaded (as the page always did), before any module runs one.
 * @param {import('./state.js').State} state
 * @param {Record<string, any>} timings
 * @returns {Context}
 */
export function createContext(state, timings) {
  /** @type {any} set at start (main) */
  const later = null;
  /** @param {string} name */
  const unwired = (name) => () => { throw new Error(`ctx.on.${name} is not wired (app.js)`); };
  return {
    state,
    all: { placers: [], schedulers: [] },
    strategyInfo: { placers: [], schedulers: [], link_orders: [] },
    graphIndex: [],
    clusterIndex: [],
    presets: [],
    limits: { max_devices: 1024, max_seeds: 1000, max_iterations: 10000, min_positive: 1e-30, max_amount: 1e30 },
    graphText: null,
    graphName: null,
    current: null,
    baseline: null,
    runSeq: 0,
    pairRun: null,
    pairRun2: null,
    charts: null,
    chartsDue: 0,
    timelineChart: null,
    timelineChart2: null,
    sweepPanel: null,
    writtenHash: null,
    timings,
    ps: { forwardWanted: false, note: '' },
    pool: later,
    pairRunner: later,
    pair2Runner: undefined,
    traceRunner: later,
    hashRunner: later,
    inspectRunner: later,
    activePreset: null,
    on: { run: unwired('run'), stale: unwired('stale'), choosePair: unwired('choosePair') },
  };
}
