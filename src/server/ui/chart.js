// Sundial web page: a small time-series line chart on a canvas.
//
//   const chart = new SundialChart(containerElement);
//   chart.setData([{ label: 'cpu{host=a}', points: [[tMs, value], ...] }, ...]);
//
// Draws a time axis with calendar-aligned ticks, a value axis with SI
// prefixes, one colour per series and a legend. Moving the mouse shows a
// crosshair and the value of every series at that time; dragging across the
// plot zooms the time axis, and "Reset zoom" (or a double click) undoes it;
// a finger does the same on a touch screen.
// Text from the data (labels) only ever reaches the DOM as textContent.
//
// The container gets data-series-count (series drawn) and data-zoomed
// ("true" while zoomed) attributes, for tests and for styling, and a
// 'zoom' event (detail.range = [t0, t1] in ms) after each drag-zoom; the
// toolbar element may take the caller's own buttons.
(function (root) {
  'use strict';

  const kPalette = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b',
                    '#e377c2', '#17becf', '#7f7f7f', '#bcbd22'];

  // A distinct colour for series i: the palette, then golden-angle hues.
  function seriesColor(i) {
    if (i < kPalette.length) return kPalette[i];
    return 'hsl(' + Math.round((i * 137.508) % 360) + ',65%,45%)';
  }

  const kPrefixes = [[1e15, 'P'], [1e12, 'T'], [1e9, 'G'], [1e6, 'M'], [1e3, 'k'], [1, ''],
                     [1e-3, 'm'], [1e-6, 'µ'], [1e-9, 'n']];

  // Formats v with an SI prefix and up to `digits` significant digits:
  // 1234 -> "1.23k", 0.005 -> "5m", 0 -> "0".
  function formatSI(v, digits) {
    if (!isFinite(v)) return String(v);
    if (v === 0) return '0';
    const a = Math.abs(v);
    let scale = kPrefixes[kPrefixes.length - 1];
    for (const p of kPrefixes) {
      if (a >= p[0] * 0.9995) {
        scale = p;
        break;
      }
    }
    const n = v / scale[0];
    return String(Number(n.toPrecision(digits || 3))) + scale[1];
  }

  // "Nice" value ticks covering [lo, hi], about `count` of them.
  function valueTicks(lo, hi, count) {
    if (!(hi > lo)) return { lo: lo - 1, hi: hi + 1, step: 1, ticks: [lo] };
    const raw = (hi - lo) / Math.max(1, count);
    const mag = Math.pow(10, Math.floor(Math.log10(raw)));
    let step = mag;
    for (const m of [1, 2, 2.5, 5, 10]) {
      step = m * mag;
      if (step >= raw) break;
    }
    const first = Math.floor(lo / step) * step;
    const last = Math.ceil(hi / step) * step;
    const ticks = [];
    for (let t = first; t <= last + step / 2 && ticks.length < 100; t += step) {
      ticks.push(Math.abs(t) < step * 1e-9 ? 0 : t);
    }
    return { lo: first, hi: last, step: step, ticks: ticks };
  }

  const kSecond = 1000;
  const kMinute = 60 * kSecond;
  const kHour = 60 * kMinute;
  const kDay = 24 * kHour;
  const kTimeSteps = [kSecond, 2 * kSecond, 5 * kSecond, 10 * kSecond, 15 * kSecond, 30 * kSecond,
                      kMinute, 2 * kMinute, 5 * kMinute, 10 * kMinute, 15 * kMinute, 30 * kMinute,
                      kHour, 2 * kHour, 3 * kHour, 6 * kHour, 12 * kHour,
                      kDay, 2 * kDay, 7 * kDay, 14 * kDay, 30 * kDay, 91 * kDay, 365 * kDay];

  function pad2(n) { return n < 10 ? '0' + n : String(n); }

  // Time ticks for [t0, t1] (ms), at most about `count`, aligned to the
  // step in local time (midnight for days). Each tick is {t, label}.
  function timeTicks(t0, t1, count) {
    const span = Math.max(1, t1 - t0);
    let step = kTimeSteps[kTimeSteps.length - 1];
    for (const s of kTimeSteps) {
      if (span / s <= count) {
        step = s;
        break;
      }
    }
    const offset = new Date(t0).getTimezoneOffset() * kMinute;
    let t = Math.ceil((t0 - offset) / step) * step + offset;
    const ticks = [];
    const spansDays = new Date(t0).toDateString() !== new Date(t1).toDateString();
    for (; t <= t1 && ticks.length < 200; t += step) {
      const d = new Date(t);
      let label;
      if (step >= kDay) {
        label = d.getFullYear() + '-' + pad2(d.getMonth() + 1) + '-' + pad2(d.getDate());
      } else {
        label = pad2(d.getHours()) + ':' + pad2(d.getMinutes());
        if (step < kMinute) label += ':' + pad2(d.getSeconds());
        if (spansDays && d.getHours() === 0 && d.getMinutes() === 0 && d.getSeconds() === 0) {
          label = pad2(d.getMonth() + 1) + '-' + pad2(d.getDate());
        }
      }
      ticks.push({ t: t, label: label });
    }
    return ticks;
  }

  // "2024-01-02 03:04:05" in local time.
  function formatTime(t) {
    const d = new Date(t);
    return d.getFullYear() + '-' + pad2(d.getMonth() + 1) + '-' + pad2(d.getDate()) + ' ' +
        pad2(d.getHours()) + ':' + pad2(d.getMinutes()) + ':' + pad2(d.getSeconds());
  }

  // Index of the last point with time <= t in sorted points, or -1.
  function pointAtOrBefore(points, t) {
    let lo = 0;
    let hi = points.length - 1;
    let best = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (points[mid][0] <= t) {
        best = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return best;
  }

  // The value of a series nearest to time t (within maxGap ms), or null.
  function valueNear(points, t, maxGap) {
    const i = pointAtOrBefore(points, t);
    let best = null;
    for (const j of [i, i + 1]) {
      if (j < 0 || j >= points.length) continue;
      const d = Math.abs(points[j][0] - t);
      if (d <= maxGap && (best === null || d < best.d)) best = { d: d, p: points[j] };
    }
    return best ? best.p : null;
  }

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  const kPad = { left: 64, right: 16, top: 12, bottom: 28 };

  class SundialChart {
    constructor(container) {
      this.container = container;
      this.series = [];
      this.view = null;  // [t0, t1] while zoomed
      this.drag = null;
      this.hoverX = null;
      container.classList.add('chart');
      this.toolbar = el('div', 'chart-toolbar');
      this.resetButton = el('button', 'chart-reset', 'Reset zoom');
      this.resetButton.type = 'button';
      this.resetButton.hidden = true;
      this.resetButton.addEventListener('click', () => this.resetZoom());
      this.toolbar.appendChild(this.resetButton);
      this.plot = el('div', 'chart-plot');
      // The lines go on one canvas and the crosshair and the drag selection
      // on a second one above it, so moving the mouse redraws no line.
      this.canvas = el('canvas', 'chart-lines');
      this.overlay = el('canvas', 'chart-overlay');
      this.tooltip = el('div', 'chart-tooltip');
      this.tooltip.hidden = true;
      this.plot.appendChild(this.canvas);
      this.plot.appendChild(this.overlay);
      this.plot.appendChild(this.tooltip);
      this.legend = el('ul', 'chart-legend');
      container.appendChild(this.toolbar);
      container.appendChild(this.plot);
      container.appendChild(this.legend);
      container.dataset.seriesCount = '0';
      // Pointer events: a mouse, a pen or a finger (a horizontal drag zooms;
      // CSS touch-action leaves vertical swipes to scroll the page).
      this.overlay.addEventListener('pointermove', (e) => this.onMove(e));
      this.overlay.addEventListener('pointerleave', () => this.onLeave());
      this.overlay.addEventListener('pointerdown', (e) => this.onDown(e));
      this.overlay.addEventListener('dblclick', () => this.resetZoom());
      window.addEventListener('pointerup', (e) => this.onUp(e));
      window.addEventListener('resize', () => this.draw());
    }

    // series: [{label, points: [[tMs, value|null], ...] sorted by time}].
    setData(series) {
      this.series = series.map((s, i) => ({ label: s.label, points: s.points, color: seriesColor(i) }));
      this.view = null;
      this.rangeCache = null;
      this.container.dataset.seriesCount = String(this.series.length);
      this.buildLegend();
      this.draw();
      this.container.dispatchEvent(new CustomEvent('zoom', { detail: { range: null } }));
    }

    resetZoom() {
      this.view = null;
      this.draw();
      this.container.dispatchEvent(new CustomEvent('zoom', { detail: { range: null } }));
    }

    // The full time range of the data, [t0, t1], or null without points.
    dataRange() {
      let t0 = Infinity;
      let t1 = -Infinity;
      for (const s of this.series) {
        if (s.points.length === 0) continue;
        t0 = Math.min(t0, s.points[0][0]);
        t1 = Math.max(t1, s.points[s.points.length - 1][0]);
      }
      return t0 <= t1 ? [t0, t1 === t0 ? t0 + 1000 : t1] : null;
    }

    buildLegend() {
      this.legend.textContent = '';
      this.legendValues = [];
      for (const s of this.series) {
        const item = el('li', 'legend-item');
        const swatch = el('span', 'legend-swatch');
        swatch.style.background = s.color;
        item.appendChild(swatch);
        item.appendChild(el('span', 'legend-label', s.label));
        const value = el('span', 'legend-value');
        item.appendChild(value);
        this.legendValues.push(value);
        this.legend.appendChild(item);
      }
    }

    // Sizes a canvas to the plot area (sharp on high-density screens) and
    // returns its cleared 2D context, in CSS pixels.
    prepareCanvas(canvas) {
      const ratio = window.devicePixelRatio || 1;
      const w = Math.max(200, this.plot.clientWidth);
      const h = Math.max(150, this.plot.clientHeight);
      if (canvas.width !== Math.round(w * ratio) || canvas.height !== Math.round(h * ratio)) {
        canvas.width = Math.round(w * ratio);
        canvas.height = Math.round(h * ratio);
      }
      canvas.style.width = w + 'px';
      canvas.style.height = h + 'px';
      const ctx = canvas.getContext('2d');
      ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
      ctx.clearRect(0, 0, w, h);
      this.width = w;
      this.height = h;
      return ctx;
    }

    // The lowest and highest finite value within [t0, t1], cached per range.
    valueRange(t0, t1) {
      if (this.rangeCache && this.rangeCache.t0 === t0 && this.rangeCache.t1 === t1) return this.rangeCache;
      let lo = Infinity;
      let hi = -Infinity;
      for (const s of this.series) {
        for (const p of s.points) {
          if (p[0] < t0 || p[0] > t1 || p[1] === null || !isFinite(p[1])) continue;
          if (p[1] < lo) lo = p[1];
          if (p[1] > hi) hi = p[1];
        }
      }
      if (lo > hi) {
        lo = 0;
        hi = 1;
      }
      this.rangeCache = { t0: t0, t1: t1, lo: lo, hi: hi };
      return this.rangeCache;
    }

    // Computes the scales for the current view; null when nothing to draw.
    layout() {
      const range = this.view || this.dataRange();
      if (!range) return null;
      const { lo, hi } = this.valueRange(range[0], range[1]);
      const plotH = this.height - kPad.top - kPad.bottom;
      const vt = valueTicks(lo, hi, Math.max(2, Math.floor(plotH / 40)));
      const x0 = kPad.left;
      const x1 = this.width - kPad.right;
      const y0 = this.height - kPad.bottom;
      const y1 = kPad.top;
      return {
        t0: range[0], t1: range[1], vt: vt, x0: x0, x1: x1, y0: y0, y1: y1,
        x: (t) => x0 + (t - range[0]) / (range[1] - range[0]) * (x1 - x0),
        y: (v) => y0 - (v - vt.lo) / (vt.hi - vt.lo) * (y0 - y1),
        t: (x) => range[0] + (x - x0) / (x1 - x0) * (range[1] - range[0]),
      };
    }

    // Redraws everything: axes, lines and the overlay.
    draw() {
      const ctx = this.prepareCanvas(this.canvas);
      this.resetButton.hidden = this.view === null;
      this.container.dataset.zoomed = this.view ? 'true' : 'false';
      const L = this.layout();
      this.L = L;
      if (!L) {
        ctx.fillStyle = '#888';
        ctx.font = '14px sans-serif';
        ctx.fillText(this.series.length ? 'No data points in this range' : 'No data', 20, 30);
        this.drawOverlay();  // clears it
        return;
      }
      this.drawAxes(ctx, L);
      ctx.save();
      ctx.beginPath();
      ctx.rect(L.x0, L.y1, L.x1 - L.x0, L.y0 - L.y1);
      ctx.clip();
      for (const s of this.series) this.drawSeries(ctx, L, s);
      ctx.restore();
      this.drawOverlay();
    }

    drawAxes(ctx, L) {
      ctx.font = '11px sans-serif';
      ctx.lineWidth = 1;
      ctx.strokeStyle = '#e3e3e3';
      ctx.fillStyle = '#555';
      ctx.textAlign = 'right';
      ctx.textBaseline = 'middle';
      for (const v of L.vt.ticks) {
        const y = Math.round(L.y(v)) + 0.5;
        ctx.beginPath();
        ctx.moveTo(L.x0, y);
        ctx.lineTo(L.x1, y);
        ctx.stroke();
        ctx.fillText(formatSI(v, 4), L.x0 - 6, y);
      }
      ctx.textAlign = 'center';
      ctx.textBaseline = 'top';
      for (const tick of timeTicks(L.t0, L.t1, Math.max(2, Math.floor((L.x1 - L.x0) / 90)))) {
        const x = Math.round(L.x(tick.t)) + 0.5;
        ctx.beginPath();
        ctx.moveTo(x, L.y1);
        ctx.lineTo(x, L.y0);
        ctx.stroke();
        ctx.fillText(tick.label, x, L.y0 + 6);
      }
      ctx.strokeStyle = '#999';
      ctx.strokeRect(L.x0 + 0.5, L.y1 + 0.5, L.x1 - L.x0, L.y0 - L.y1);
    }

    // Draws a series as lines between its points; a gap (a null or NaN
    // value, from fill policy nan/null) breaks the line, and a point with
    // gaps on both sides is drawn as a dot.
    drawSeries(ctx, L, s) {
      ctx.strokeStyle = s.color;
      ctx.fillStyle = s.color;
      ctx.lineWidth = 1.5;
      ctx.beginPath();
      let run = 0;  // points in the current unbroken stretch
      let lastX = 0;
      let lastY = 0;
      const dot = () => { if (run === 1) ctx.fillRect(lastX - 2, lastY - 2, 4, 4); };
      for (const p of s.points) {
        if (p[1] === null || !isFinite(p[1])) {
          dot();
          run = 0;
          continue;
        }
        const x = L.x(p[0]);
        const y = L.y(p[1]);
        if (run > 0) ctx.lineTo(x, y);
        else ctx.moveTo(x, y);
        run++;
        lastX = x;
        lastY = y;
      }
      dot();
      ctx.stroke();
    }

    // Redraws the crosshair and the drag selection only.
    drawOverlay() {
      const ctx = this.prepareCanvas(this.overlay);
      const L = this.L;
      if (!L) return;
      if (this.drag && Math.abs(this.drag.x1 - this.drag.x0) > 1) {
        ctx.fillStyle = 'rgba(31,119,180,0.15)';
        const a = Math.min(this.drag.x0, this.drag.x1);
        ctx.fillRect(a, L.y1, Math.abs(this.drag.x1 - this.drag.x0), L.y0 - L.y1);
      }
      if (this.hoverX !== null) {
        ctx.strokeStyle = '#444';
        ctx.lineWidth = 1;
        ctx.setLineDash([4, 3]);
        ctx.beginPath();
        ctx.moveTo(Math.round(this.hoverX) + 0.5, L.y1);
        ctx.lineTo(Math.round(this.hoverX) + 0.5, L.y0);
        ctx.stroke();
        ctx.setLineDash([]);
      }
    }

    canvasX(e) {
      const r = this.overlay.getBoundingClientRect();
      return e.clientX - r.left;
    }

    onMove(e) {
      const L = this.L;
      if (!L) return;
      const x = Math.min(L.x1, Math.max(L.x0, this.canvasX(e)));
      if (this.drag) this.drag.x1 = x;
      this.hoverX = x;
      this.drawOverlay();
      this.showValues(L, x);
    }

    // Fills the tooltip and the legend with every series' value at x.
    showValues(L, x) {
      const t = L.t(x);
      const maxGap = Math.max(1, (L.t1 - L.t0) / Math.max(1, L.x1 - L.x0) * 40);
      this.tooltip.textContent = '';
      this.tooltip.appendChild(el('div', 'tooltip-time', formatTime(t)));
      this.series.forEach((s, i) => {
        const p = valueNear(s.points, t, maxGap);
        const text = p && p[1] !== null ? formatSI(p[1], 6) : '–';
        this.legendValues[i].textContent = text;
        const row = el('div', 'tooltip-row');
        const swatch = el('span', 'legend-swatch');
        swatch.style.background = s.color;
        row.appendChild(swatch);
        row.appendChild(el('span', 'tooltip-label', s.label + ': '));
        row.appendChild(el('span', 'tooltip-value', text));
        this.tooltip.appendChild(row);
      });
      this.tooltip.hidden = false;
      const left = x + 14 + 260 > this.width ? Math.max(0, x - 274) : x + 14;
      this.tooltip.style.left = left + 'px';
      this.tooltip.style.top = (L.y1 + 4) + 'px';
    }

    onLeave() {
      this.hoverX = null;
      this.tooltip.hidden = true;
      for (const v of this.legendValues || []) v.textContent = '';
      if (!this.drag) this.drawOverlay();
    }

    onDown(e) {
      if (!this.L || e.button !== 0) return;
      e.preventDefault();
      const x = this.canvasX(e);
      this.drag = { x0: x, x1: x };
      // Keep the drag going when the pointer leaves the plot.
      if (this.overlay.setPointerCapture) this.overlay.setPointerCapture(e.pointerId);
    }

    onUp() {
      const d = this.drag;
      if (!d) return;
      this.drag = null;
      const L = this.L;
      if (L && Math.abs(d.x1 - d.x0) >= 5) {
        const a = L.t(Math.min(d.x0, d.x1));
        const b = L.t(Math.max(d.x0, d.x1));
        this.view = [a, b];
      }
      this.draw();
      if (this.view) this.container.dispatchEvent(new CustomEvent('zoom', { detail: { range: this.view } }));
    }
  }

  SundialChart.formatSI = formatSI;
  SundialChart.valueTicks = valueTicks;
  SundialChart.timeTicks = timeTicks;
  SundialChart.formatTime = formatTime;
  SundialChart.valueNear = valueNear;
  root.SundialChart = SundialChart;
  if (typeof module !== 'undefined' && module.exports) module.exports = SundialChart;
})(typeof window !== 'undefined' ? window : globalThis);
