// Sundial web page: the status view. Reads /api/status (version, uptime,
// series, disk use, WAL, rollups), /api/stats, whose counters, sampled
// twice, give the rates (points stored per second, points sent in query
// answers per second, HTTP requests per second), and /api/relay, whose
// targets get a table of their lag (points pending, age of the oldest
// unsent point) when the server relays to any.
(function (root) {
  'use strict';

  const kRefreshMs = 5000;

  function formatBytes(n) {
    if (!isFinite(n)) return '–';
    const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
    let i = 0;
    while (n >= 1024 && i < units.length - 1) {
      n /= 1024;
      i++;
    }
    return (i === 0 ? String(n) : n.toFixed(1)) + ' ' + units[i];
  }

  function formatDuration(s) {
    s = Math.max(0, Math.floor(s));
    const d = Math.floor(s / 86400);
    const h = Math.floor(s % 86400 / 3600);
    const m = Math.floor(s % 3600 / 60);
    const parts = [];
    if (d) parts.push(d + 'd');
    if (d || h) parts.push(h + 'h');
    if (d || h || m) parts.push(m + 'm');
    parts.push((s % 60) + 's');
    return parts.join(' ');
  }

  function plural(n, word) {
    return n + ' ' + word + (n === 1 ? '' : 's');
  }

  // Sums the values of /api/stats records with this metric whose tags
  // include every pair of `tags`; null when there is none.
  function statValue(stats, metric, tags) {
    let sum = null;
    for (const r of stats || []) {
      if (r.metric !== metric) continue;
      const t = r.tags || {};
      if (tags && Object.keys(tags).some((k) => t[k] !== tags[k])) continue;
      sum = (sum || 0) + Number(r.value);
    }
    return sum;
  }

  // Per-second rate of a counter between two stats samples, or null.
  function rate(prev, cur, metric, tags) {
    if (!prev || !cur) return null;
    const a = statValue(prev.stats, metric, tags);
    const b = statValue(cur.stats, metric, tags);
    const dt = (cur.at - prev.at) / 1000;
    if (a === null || b === null || dt <= 0) return null;
    return Math.max(0, b - a) / dt;
  }

  // The relay table's rows from a GET /api/relay answer: one per target,
  // [target, state, pending points, lag, points sent, last error]; empty
  // when no target is configured.
  function relayRows(relay) {
    if (!relay || !relay.enabled) return [];
    return (relay.targets || []).map((t) => [
      t.url + ' (' + t.protocol + ')',
      t.connected ? 'connected' : 'not connected',
      String(t.pendingPoints),
      t.pendingPoints > 0 || t.lagSeconds > 0 ? formatDuration(t.lagSeconds) + ' behind' : 'caught up',
      String(t.pointsSent),
      t.lastError || '',
    ]);
  }

  let active = false;
  let timer = null;
  let prev = null;
  let busy = false;

  function row(tbody, name, value, id) {
    const tr = document.createElement('tr');
    const th = document.createElement('th');
    th.textContent = name;
    const td = document.createElement('td');
    td.textContent = value;
    if (id) td.id = id;
    tr.appendChild(th);
    tr.appendChild(td);
    tbody.appendChild(tr);
  }

  function render(status, cur) {
    const tbody = document.querySelector('#status-table tbody');
    tbody.textContent = '';
    const v = status.version || {};
    row(tbody, 'Version', 'Sundial ' + (v.sundial_version || '?') + ' (OpenTSDB API ' + (v.version || '?') +
        ', revision ' + (v.short_revision || '?') + ')', 'st-version');
    row(tbody, 'Uptime', formatDuration(status.uptime), 'st-uptime');
    row(tbody, 'Series', String(status.series === undefined ? '–' : status.series), 'st-series');
    row(tbody, 'Points stored', String(status.points_stored === undefined ? '–' : status.points_stored), 'st-points');
    const pin = rate(prev, cur, 'tsd.datapoints.added');
    row(tbody, 'Points in / s', pin === null ? 'measuring…' : pin.toFixed(1), 'st-points-rate');
    const pout = rate(prev, cur, 'tsd.query.points.emitted');
    row(tbody, 'Points out / s (query answers)', pout === null ? 'measuring…' : pout.toFixed(1),
        'st-points-out-rate');
    const reqs = rate(prev, cur, 'tsd.rpc.received', { type: 'http' });
    row(tbody, 'HTTP requests / s', reqs === null ? 'measuring…' : reqs.toFixed(1), 'st-http-rate');
    const hits = statValue(cur.stats, 'tsd.query.cache.hits');
    if (hits !== null) {
      row(tbody, 'Query cache hits / misses', hits + ' / ' + statValue(cur.stats, 'tsd.query.cache.misses'));
    }
    if (status.read_only) row(tbody, 'Writes refused', status.read_only_reason || 'yes', 'st-read-only');
    row(tbody, 'Data directory', status.data_dir || '–');
    if (status.free_bytes !== undefined) row(tbody, 'Free disk space', formatBytes(status.free_bytes));
    if (status.wal) {
      row(tbody, 'WAL on disk (replayed at restart)',
          formatBytes(status.wal.bytes) + ' in ' + plural(status.wal.files, 'file'), 'st-wal');
      row(tbody, 'WAL written since start', formatBytes(status.wal.bytes_written) + ', ' + plural(status.wal.syncs, 'sync'));
    }
    if (status.rollup) {
      const w = status.rollup.watermark;
      row(tbody, 'Rollups built up to', w > 0 ? window.SundialChart.formatTime(w) : 'none yet', 'st-rollup');
      row(tbody, 'Rollups on disk', formatBytes(status.rollup.disk_bytes));
    }
    renderRelay(relayRows(cur.relay));
    const parts = document.querySelector('#partition-table tbody');
    parts.textContent = '';
    let total = 0;
    for (const p of status.partitions || []) {
      const tr = document.createElement('tr');
      for (const [text, num] of [[window.SundialChart.formatTime(p.start), false],
                                  [window.SundialChart.formatTime(p.end), false],
                                  [formatBytes(p.bytes), true], [String(p.files), true]]) {
        const td = document.createElement('td');
        td.textContent = text;
        if (num) td.className = 'num';
        tr.appendChild(td);
      }
      parts.appendChild(tr);
      total += p.bytes;
    }
    if (!status.partitions || status.partitions.length === 0) {
      const tr = document.createElement('tr');
      const td = document.createElement('td');
      td.colSpan = 4;
      td.textContent = 'none yet (data is still in memory and the WAL)';
      tr.appendChild(td);
      parts.appendChild(tr);
    }
    document.querySelector('#partition-table').dataset.total = String(total);
  }

  // Fills the relay table, shown only when the server relays.
  function renderRelay(rows) {
    const section = document.querySelector('#relay-section');
    const tbody = document.querySelector('#relay-table tbody');
    tbody.textContent = '';
    section.hidden = rows.length === 0;
    rows.forEach((cells, i) => {
      const tr = document.createElement('tr');
      tr.id = 'st-relay-' + i;
      cells.forEach((text, k) => {
        const td = document.createElement('td');
        td.textContent = text;
        if (k === 2 || k === 4) td.className = 'num';
        tr.appendChild(td);
      });
      tbody.appendChild(tr);
    });
  }

  async function refresh() {
    timer = null;
    busy = true;
    const first = prev === null;
    try {
      const [status, stats, relay] = await Promise.all([window.SundialApi.get('/api/status'),
                                                        window.SundialApi.get('/api/stats'),
                                                        window.SundialApi.get('/api/relay')]);
      const cur = { at: Date.now(), stats: stats, relay: relay };
      if (active) render(status, cur);
      prev = cur;
    } catch (e) {
      window.SundialApi.showError(e.message);
    }
    busy = false;
    // The first rates after one second, then every kRefreshMs.
    if (active && timer === null) timer = setTimeout(refresh, first ? 1000 : kRefreshMs);
  }

  // Starts (true) or stops (false) refreshing the view.
  function setActive(on) {
    active = on;
    if (on && timer === null && !busy) {
      refresh();
    } else if (!on && timer !== null) {
      clearTimeout(timer);
      timer = null;
    }
  }

  const api = { setActive: setActive, formatBytes: formatBytes, formatDuration: formatDuration,
                statValue: statValue, rate: rate, relayRows: relayRows };
  root.SundialStatus = api;
  if (typeof module !== 'undefined' && module.exports) module.exports = api;
})(typeof window !== 'undefined' ? window : globalThis);
