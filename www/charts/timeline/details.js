// The timeline's text beside the canvas: the legend (op types by time, transfers, memory,
// makespan and lower bound), the hover tooltip's rows, and the details panel of a selected
// op or transfer (its inputs and outputs from the run's edges). Every text is textContent.
// Not here: the canvas (paint.js), or choosing what is selected (interaction.js, index.js).

import { INK, formatSeconds, formatBytes, formatCount, formatSig, htmlEl, num } from '../svg.js';

/** The legend under the chart. */
export function buildLegend(root, P) {
  const order = [];
  for (let t = 0; t < P.opTypes.length; t++) if (P.typeCount[t] > 0) order.push(t);
  order.sort((a, b) => P.typeTime[b] - P.typeTime[a] || a - b);
  const legend = htmlEl('div', 'pc-tl-legend', null, root);
  const shown = order.slice(0, 16);
  for (const t of shown) {
    const item = htmlEl('span', 'pc-tl-legend-item', null, legend);
    item.setAttribute('data-op-type', String(P.opTypes[t]));
    const sw = htmlEl('span', 'pc-tl-swatch', null, item);
    sw.style.background = P.typeColors[t];
    htmlEl('span', null, P.opTypes[t] === '' ? '(no type)' : P.opTypes[t], item);
  }
  if (order.length > shown.length) htmlEl('span', 'pc-tl-legend-more', `+${order.length - shown.length} more op types`, legend);
  if (P.transferCount > 0) {
    const item = htmlEl('span', 'pc-tl-legend-item', null, legend);
    const sw = htmlEl('span', 'pc-tl-swatch', null, item);
    sw.style.background = INK.transfer;
    htmlEl('span', null, 'transfer', item);
  }
  const mem = htmlEl('span', 'pc-tl-legend-item', null, legend);
  const sw = htmlEl('span', 'pc-tl-swatch', null, mem);
  sw.style.background = INK.memoryFill;
  sw.style.border = `1px solid ${INK.memory}`;
  htmlEl('span', null, 'memory in use, scaled to each device\'s peak (red: above capacity)', mem);
  for (const [label, color, dashed] of [['makespan', INK.text, false], ['lower bound', INK.oom, true]]) {
    const item = htmlEl('span', 'pc-tl-legend-item', null, legend);
    const line = htmlEl('span', 'pc-tl-swatch', null, item);
    line.style.cssText = `width:14px;height:0;border-radius:0;border-top:2px ${dashed ? 'dashed' : 'solid'} ${color}`;
    htmlEl('span', null, label, item);
  }
}

/**
 * Inputs (`dir` 'in') or outputs ('out') of op `v`: [[other node, bytes], ...] in edge order.
 * @returns {[number, number][]}
 */
function neighbours(P, v, dir) {
  if (!P.adjacency) {
    // CSR of the flattened edges [src, dst, bytes, ...], built on the first selection.
    const e = P.edges;
    const m = Math.floor(e.length / 3);
    const n = P.nodeCount;
    const build = (key) => {
      const start = new Int32Array(n + 1);
      for (let i = 0; i < m; i++) start[e[3 * i + key] + 1] += 1;
      for (let i = 0; i < n; i++) start[i + 1] += start[i];
      const fill = start.slice(0, n);
      const at = new Int32Array(m);
      for (let i = 0; i < m; i++) at[fill[e[3 * i + key]]++] = i;
      return { start, at };
    };
    P.adjacency = { out: build(0), in: build(1) };
  }
  const { start, at } = P.adjacency[dir];
  /** @type {[number, number][]} */
  const list = [];
  for (let j = start[v]; j < start[v + 1]; j++) {
    const i = at[j];
    list.push([P.edges[3 * i + (dir === 'in' ? 0 : 1)], P.edges[3 * i + 2]]);
  }
  return list;
}

const DETAIL_LIST_MAX = 12;

/** The details panel of a selected op or transfer (every text with textContent). */
export function showDetails(el, P, info) {
  el.replaceChildren();
  if (!info) {
    htmlEl('p', 'pc-tl-empty', 'Click an op or transfer (or find one, or step along the critical path) to see its details here.', el);
    return;
  }
  const t = (x) => formatSeconds(x);
  const bytes = (b) => (b >= 1000 ? `${formatBytes(b)} (${formatCount(b)} B)` : formatBytes(b));
  const name = (v) => P.name(v);
  const deviceOf = (v) => {
    const li = P.opLane[v];
    return li >= 0 ? String(P.devices[P.lanes[li].device]?.id ?? '') : '';
  };
  let title;
  const rows = [];
  const lists = [];
  if (info.kind === 'op') {
    const v = info.node;
    const ready = num(P.ready[v]);
    title = `op ${info.id}`;
    rows.push(['op type', info.opType || '(none)'], ['device', info.deviceKind ? `${info.deviceId} (${info.deviceKind})` : info.deviceId],
      ['start', t(info.start)], ['end', t(info.end)], ['duration', t(info.duration)],
      ['inputs ready', t(ready)], ['waiting', `${t(Math.max(0, info.start - ready))} (start − inputs ready)`],
      ['critical path', P.critOp[v] ? 'yes: it determines the makespan' : 'no']);
    const line = ([u, b]) => `${name(u)} on ${deviceOf(u)}: ${bytes(b)}`;
    lists.push(['inputs', neighbours(P, v, 'in').map(line)], ['outputs', neighbours(P, v, 'out').map(line)]);
  } else if (info.kind === 'transfer') {
    const x = info.transfer;
    title = `transfer of ${info.producerId}`;
    rows.push(['link', `${info.srcId} → ${info.dstId}`], ['bytes', bytes(info.bytes)],
      ['ready', t(info.ready)], ['start', t(info.start)], ['end', t(info.end)], ['duration', t(info.duration)],
      ['waiting', `${t(info.queued)} (start − ready: queued for the link)`],
      ['critical path', P.critX[x] ? 'yes: it determines the makespan' : 'no']);
    const readers = neighbours(P, info.producer, 'out').filter(([u]) => P.opLane[u] >= 0 && P.lanes[P.opLane[u]].device === info.dst);
    lists.push(['read by', readers.map(([u, b]) => `${name(u)}: ${bytes(b)}`)]);
  } else {
    return;
  }
  htmlEl('h4', 'pc-tl-dtitle', title, el);
  const dl = htmlEl('dl', null, null, el);
  for (const [k, v] of rows) {
    htmlEl('dt', null, k, dl);
    htmlEl('dd', null, v, dl);
  }
  for (const [k, items] of lists) {
    htmlEl('dt', null, `${k} (${formatCount(items.length)})`, dl);
    const dd = htmlEl('dd', null, null, dl);
    if (items.length === 0) dd.textContent = 'none';
    const ul = htmlEl('ul', null, null, dd);
    for (const line of items.slice(0, DETAIL_LIST_MAX)) htmlEl('li', null, line, ul);
    if (items.length > DETAIL_LIST_MAX) htmlEl('li', null, `+${formatCount(items.length - DETAIL_LIST_MAX)} more`, ul);
  }
}

/** Shows the tooltip of a hit at the pointer (`tip`: svg.js's tooltip), or hides it. */
export function showTip(tip, P, h, clientX, clientY) {
  if (!h) {
    tip.hide();
    return;
  }
  if (h.kind === 'op') {
    tip.show(clientX, clientY, h.id, [
      ['op type', h.opType || '(none)'],
      ['device', h.deviceKind ? `${h.deviceId} (${h.deviceKind})` : h.deviceId],
      ['start', formatSeconds(h.start)],
      ['end', formatSeconds(h.end)],
      ['duration', formatSeconds(h.duration)],
    ]);
  } else if (h.kind === 'transfer') {
    tip.show(clientX, clientY, `transfer of ${h.producerId}`, [
      ['from → to', `${h.srcId} → ${h.dstId}`],
      ['bytes', h.bytes >= 1000 ? `${formatBytes(h.bytes)} (${formatCount(h.bytes)} B)` : formatBytes(h.bytes)],
      ['ready', formatSeconds(h.ready)],
      ['start', formatSeconds(h.start)],
      ['end', formatSeconds(h.end)],
      ['queued', formatSeconds(h.queued)],
      ['duration', formatSeconds(h.duration)],
    ]);
  } else {
    const lane = P.lanes[h.device];
    const rows = [['time', formatSeconds(h.time)], ['in use', formatBytes(h.bytes)]];
    if (lane.mem.cap !== null) rows.push(['capacity', `${formatBytes(lane.mem.cap)} (${formatSig((100 * h.bytes) / lane.mem.cap, 3)}%)`]);
    tip.show(clientX, clientY, `memory of ${h.deviceId}`, rows, lane.mem.cap !== null && h.bytes > lane.mem.cap ? 'above capacity' : null);
  }
}
