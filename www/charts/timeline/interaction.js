// The timeline's input: the find box and its buttons, the critical-path switch and step
// buttons, and on the canvas: wheel (zoom around the cursor; horizontal: pan; Shift:
// scroll lanes), drag (pan, and scroll lanes vertically), click (select), double-click
// (reset), and keys + - arrows 0 Home [ ] n N Esc /. Each input calls one of the chart's
// operations (index.js).
// Not here: what an operation does to the view or the selection (index.js), or painting.

/**
 * @typedef {object} TimelineInput the chart's elements and operations that input drives
 * @property {HTMLCanvasElement} canvas
 * @property {HTMLElement} scroller
 * @property {HTMLInputElement} search
 * @property {HTMLElement} nextBtn
 * @property {HTMLInputElement} critBox
 * @property {HTMLElement} prevStep
 * @property {HTMLElement} nextStep
 * @property {HTMLElement} resetBtn
 * @property {{t0: number, t1: number}} view the visible time range (read for a drag)
 * @property {() => number} cssH the canvas's height, CSS px
 * @property {() => number} plotL the plot's left edge, CSS px
 * @property {() => number} plotW the plot's width, CSS px
 * @property {() => boolean} hasQuery whether a search has run (its matches are kept)
 * @property {(t0: number, t1: number) => void} clampView
 * @property {(x: number, factor: number) => void} zoomAt
 * @property {(dx: number) => void} panPx
 * @property {() => void} schedule
 * @property {(x: number, y: number) => any} hitTest
 * @property {(h: any, ev: any) => void} setHover
 * @property {(h: any) => void} select
 * @property {(text: string) => number} setQuery
 * @property {(dir?: number) => boolean} nextMatch
 * @property {(dir: number) => void} stepCritical
 * @property {() => void} resetView
 */

/** Binds the chart's input to its operations. @param {TimelineInput} c */
export function bindInteraction(c) {
  const {
    canvas, scroller, search, nextBtn, critBox, prevStep, nextStep, resetBtn, view,
    plotL, plotW, clampView, zoomAt, panPx, schedule, hitTest, setHover, select, setQuery, nextMatch, stepCritical, resetView,
  } = c;
  // The find box, the critical path's switch and steps.
  search.addEventListener('input', () => setQuery(search.value));
  search.addEventListener('keydown', (ev) => {
    if (ev.key !== 'Enter') return;
    ev.preventDefault();
    if (!c.hasQuery()) setQuery(search.value);
    nextMatch(ev.shiftKey ? -1 : 1);
  });
  nextBtn.addEventListener('click', () => {
    if (!c.hasQuery()) setQuery(search.value);
    nextMatch(1);
  });
  critBox.addEventListener('change', schedule);
  prevStep.addEventListener('click', () => stepCritical(-1));
  nextStep.addEventListener('click', () => stepCritical(1));

  // The canvas: wheel, drag, click, double-click and keys.
  let drag = null;
  const local = (ev) => {
    const r = canvas.getBoundingClientRect();
    return [ev.clientX - r.left, ev.clientY - r.top];
  };
  canvas.addEventListener('wheel', (ev) => {
    ev.preventDefault();
    const [x] = local(ev);
    const unit = ev.deltaMode === 1 ? 16 : ev.deltaMode === 2 ? c.cssH() : 1;
    const dx = ev.deltaX * unit;
    const dy = ev.deltaY * unit;
    if (ev.shiftKey) {
      scroller.scrollTop += dy || dx;
    } else if (Math.abs(dx) > Math.abs(dy)) {
      panPx(dx);
    } else if (dy !== 0) {
      zoomAt(x, Math.exp(Math.max(-1, Math.min(1, dy * 0.0015))));
    }
  }, { passive: false });
  canvas.addEventListener('pointerdown', (ev) => {
    if (ev.button !== 0) return;
    const [x, y] = local(ev);
    drag = { x, y, t0: view.t0, t1: view.t1, top: scroller.scrollTop, moved: false };
    canvas.setPointerCapture(ev.pointerId);
  });
  canvas.addEventListener('pointermove', (ev) => {
    const [x, y] = local(ev);
    if (drag) {
      if (Math.abs(x - drag.x) + Math.abs(y - drag.y) > 3) drag.moved = true;
      if (drag.moved) {
        canvas.classList.add('pc-dragging');
        const dt = ((x - drag.x) / plotW()) * (drag.t1 - drag.t0);
        clampView(drag.t0 - dt, drag.t1 - dt);
        scroller.scrollTop = drag.top - (y - drag.y);
        setHover(null, null);
        schedule();
        return;
      }
    }
    setHover(hitTest(x, y), ev);
  });
  const endDrag = (ev) => {
    if (!drag) return;
    if (!drag.moved && ev.type === 'pointerup') {
      const [x, y] = local(ev);
      select(hitTest(x, y));
    }
    drag = null;
    canvas.classList.remove('pc-dragging');
    if (canvas.hasPointerCapture(ev.pointerId)) canvas.releasePointerCapture(ev.pointerId);
  };
  canvas.addEventListener('pointerup', endDrag);
  canvas.addEventListener('pointercancel', endDrag);
  canvas.addEventListener('pointerleave', () => {
    if (!drag) setHover(null, null);
  });
  canvas.addEventListener('dblclick', (ev) => {
    ev.preventDefault();
    resetView();
  });
  resetBtn.addEventListener('click', resetView);
  canvas.addEventListener('keydown', (ev) => {
    const mid = plotL() + plotW() / 2;
    if (ev.key === '+' || ev.key === '=') zoomAt(mid, 0.7);
    else if (ev.key === '-' || ev.key === '_') zoomAt(mid, 1 / 0.7);
    else if (ev.key === 'ArrowLeft') panPx(-plotW() * 0.2);
    else if (ev.key === 'ArrowRight') panPx(plotW() * 0.2);
    else if (ev.key === '0' || ev.key === 'Home') resetView();
    else if (ev.key === ']') stepCritical(1);
    else if (ev.key === '[') stepCritical(-1);
    else if (ev.key === 'n' || ev.key === 'N') nextMatch(ev.key === 'n' ? 1 : -1);
    else if (ev.key === 'Escape') select(null);
    else if (ev.key === '/') search.focus();
    else return;
    ev.preventDefault();
  });
  scroller.addEventListener('scroll', () => {
    setHover(null, null);
    schedule();
  });
}
