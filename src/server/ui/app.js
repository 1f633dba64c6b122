// Sundial web page: the query builder, autocomplete, the chart and the
// page URL. Uses only the server's public API: /api/aggregators,
// /api/suggest, /api/search/lookup, /api/query (and /api/status and
// /api/stats in status.js).
// Every value from the server or the URL reaches the DOM as textContent or
// an input's value, never as HTML.
(function () {
  'use strict';

  const Q = window.SundialQuery;
  const $ = (sel, from) => (from || document).querySelector(sel);

  // ---- Errors ----

  const errorBox = $('#error');

  function showError(text) {
    errorBox.textContent = text;
    errorBox.hidden = false;
  }

  function clearError() {
    errorBox.textContent = '';
    errorBox.hidden = true;
  }

  // Fetches JSON from the API. Rejects with an Error whose message is the
  // server's error (OpenTSDB's {"error":{"code","message","details"}}) or
  // the network failure.
  async function apiGet(path) {
    let resp;
    try {
      resp = await fetch(path, { headers: { Accept: 'application/json' } });
    } catch (e) {
      throw new Error('Cannot reach the server: ' + e.message);
    }
    const text = await resp.text();
    let body = null;
    try {
      body = text ? JSON.parse(text) : null;
    } catch (e) {
      body = null;
    }
    if (!resp.ok) {
      const err = body && body.error;
      let msg = 'HTTP ' + resp.status;
      if (err && err.message) msg += ': ' + err.message;
      if (err && err.details) msg += '\n' + err.details;
      throw new Error(msg);
    }
    return body;
  }
  window.SundialApi = { get: apiGet, showError: showError };

  // ---- Autocomplete ----

  // Attaches a suggestion list to input; source(prefix) resolves to names.
  function attachSuggest(input, source) {
    const list = document.createElement('ul');
    list.className = 'suggestions';
    list.setAttribute('role', 'listbox');
    list.hidden = true;
    input.setAttribute('aria-autocomplete', 'list');
    input.parentNode.appendChild(list);
    let active = -1;
    let seq = 0;
    let timer = null;

    function close() {
      list.hidden = true;
      active = -1;
    }

    function choose(text) {
      input.value = text;
      close();
      input.dispatchEvent(new Event('change', { bubbles: true }));
    }

    function render(names) {
      list.textContent = '';
      active = -1;
      for (const name of names) {
        const li = document.createElement('li');
        li.setAttribute('role', 'option');
        li.textContent = name;
        li.addEventListener('mousedown', (e) => {
          e.preventDefault();  // keep the focus in the input
          choose(name);
        });
        list.appendChild(li);
      }
      list.hidden = names.length === 0 || document.activeElement !== input;
    }

    async function update() {
      const mine = ++seq;
      try {
        const names = await source(input.value);
        if (mine === seq) render(names.slice(0, 50));
      } catch (e) {
        if (mine === seq) close();
        showError(e.message);
      }
    }

    input.addEventListener('input', () => {
      clearTimeout(timer);
      timer = setTimeout(update, 120);
    });
    input.addEventListener('focus', () => {
      clearTimeout(timer);
      timer = setTimeout(update, 0);
    });
    input.addEventListener('blur', close);
    input.addEventListener('keydown', (e) => {
      const items = list.querySelectorAll('li');
      if (list.hidden || items.length === 0) return;
      if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
        e.preventDefault();
        if (active >= 0) items[active].classList.remove('active');
        const down = e.key === 'ArrowDown';
        if (active < 0) active = down ? 0 : items.length - 1;
        else active = (active + (down ? 1 : items.length - 1)) % items.length;
        items[active].classList.add('active');
        items[active].scrollIntoView({ block: 'nearest' });
      } else if (e.key === 'Enter' && active >= 0) {
        e.preventDefault();
        choose(items[active].textContent);
      } else if (e.key === 'Escape') {
        close();
      }
    });
  }

  function suggest(type, prefix) {
    return apiGet('/api/suggest?type=' + type + '&max=50&q=' + encodeURIComponent(prefix));
  }

  // Tag keys and values of a metric's series (a Map key -> Set of values)
  // from /api/search/lookup, kept for 30 s; null when the metric has more
  // series than one lookup returns, so that the caller asks /api/suggest.
  const kLookupLimit = 1000;
  const lookupCache = new Map();

  async function metricTags(metric) {
    const hit = lookupCache.get(metric);
    if (hit && Date.now() - hit.at < 30000) return hit.tags;
    const r = await apiGet('/api/search/lookup?limit=' + kLookupLimit + '&m=' + encodeURIComponent(metric));
    const results = (r && r.results) || [];
    let tags = new Map();
    for (const series of results) {
      for (const k of Object.keys(series.tags || {})) {
        if (!tags.has(k)) tags.set(k, new Set());
        tags.get(k).add(series.tags[k]);
      }
    }
    if (r && r.totalResults > results.length) tags = null;
    lookupCache.set(metric, { at: Date.now(), tags: tags });
    return tags;
  }

  // Suggestions for a tag key (key === null) or for the values of a key:
  // those of the block's metric when it has one, else any.
  async function tagSuggest(block, key, prefix) {
    const metric = $('.metric', block).value.trim();
    if (metric) {
      let tags = null;
      try {
        tags = await metricTags(metric);
      } catch (e) {
        tags = null;  // e.g. a metric not written yet: suggest from all names
      }
      if (tags) {
        const names = key === null ? Array.from(tags.keys()) : Array.from(tags.get(key) || []);
        return names.filter((n) => n.startsWith(prefix)).sort();
      }
    }
    return suggest(key === null ? 'tagk' : 'tagv', prefix);
  }

  // ---- The builder ----

  let aggregators = ['sum', 'avg', 'min', 'max', 'count', 'dev', 'zimsum', 'mimmax', 'mimmin', 'none'];

  function fillSelect(select, values, selected) {
    select.textContent = '';
    for (const v of values) {
      const o = document.createElement('option');
      o.value = v;
      o.textContent = v;
      select.appendChild(o);
    }
    if (selected !== undefined && values.indexOf(selected) < 0) {
      const o = document.createElement('option');
      o.value = selected;
      o.textContent = selected;
      select.appendChild(o);
    }
    if (selected !== undefined) select.value = selected;
  }

  function addFilterRow(block, filter) {
    const row = document.importNode($('#filter-template').content, true).firstElementChild;
    const key = $('.tag-key', row);
    const value = $('.tag-value', row);
    key.value = filter ? filter.key : '';
    value.value = filter ? filter.value : '';
    $('.group-by', row).checked = filter ? filter.groupBy : true;
    $('.remove-filter', row).addEventListener('click', () => {
      row.remove();
      refreshExpression();
    });
    attachSuggest(key, (p) => tagSuggest(block, null, p));
    attachSuggest(value, (p) => {
      // Suggest for the last alternative of "a|b|c" and keep the others.
      const bar = p.lastIndexOf('|');
      const head = bar < 0 ? '' : p.slice(0, bar + 1);
      return tagSuggest(block, key.value.trim(), p.slice(bar + 1)).then((names) => names.map((n) => head + n));
    });
    $('.filters', block).appendChild(row);
  }

  function numberQueries() {
    document.querySelectorAll('#queries .query').forEach((b, i) => {
      $('.query-index', b).textContent = String(i + 1);
    });
  }

  function addQueryBlock(q) {
    const block = document.importNode($('#query-template').content, true).firstElementChild;
    $('.metric', block).value = q ? q.metric : '';
    fillSelect($('.aggregator', block), aggregators, q ? q.aggregator : 'sum');
    const ds = q && q.downsample;
    $('.ds-interval', block).value = ds ? ds.interval : '';
    fillSelect($('.ds-fn', block), aggregators.filter((a) => a !== 'none'), ds ? ds.fn : 'avg');
    $('.ds-fill', block).value = ds ? ds.fill : 'none';
    const rate = q && q.rate;
    $('.rate', block).checked = !!rate;
    $('.counter', block).checked = !!(rate && rate.counter);
    $('.counter-max', block).value = rate ? rate.counterMax : '';
    $('.reset-value', block).value = rate ? rate.resetValue : '';
    $('.drop-resets', block).checked = !!(rate && rate.dropResets);
    $('.rate-options', block).hidden = !rate;
    $('.rate', block).addEventListener('change', (e) => {
      $('.rate-options', block).hidden = !e.target.checked;
    });
    if (q && q.explicitTags) block.dataset.explicitTags = 'true';
    for (const f of (q ? q.filters : [])) addFilterRow(block, f);
    $('.add-filter', block).addEventListener('click', () => addFilterRow(block, null));
    $('.remove-query', block).addEventListener('click', () => {
      if (document.querySelectorAll('#queries .query').length > 1) block.remove();
      numberQueries();
      refreshExpression();
    });
    attachSuggest($('.metric', block), (p) => suggest('metrics', p));
    $('#queries').appendChild(block);
    numberQueries();
  }

  // The sub-query a block describes.
  function readBlock(block) {
    const q = {
      aggregator: $('.aggregator', block).value,
      metric: $('.metric', block).value.trim(),
      downsample: null,
      rate: null,
      filters: [],
      explicitTags: block.dataset.explicitTags === 'true',
    };
    const interval = $('.ds-interval', block).value.trim();
    if (interval) q.downsample = { interval: interval, fn: $('.ds-fn', block).value, fill: $('.ds-fill', block).value };
    if ($('.rate', block).checked) {
      q.rate = {
        counter: $('.counter', block).checked,
        counterMax: $('.counter-max', block).value.trim(),
        resetValue: $('.reset-value', block).value.trim(),
        dropResets: $('.drop-resets', block).checked,
      };
    }
    block.querySelectorAll('.filter').forEach((row) => {
      q.filters.push({ key: $('.tag-key', row).value.trim(), value: $('.tag-value', row).value.trim(),
                       groupBy: $('.group-by', row).checked });
    });
    return q;
  }

  function readState() {
    const queries = [];
    document.querySelectorAll('#queries .query').forEach((b) => {
      const q = readBlock(b);
      if (q.metric) queries.push(q);
    });
    return { start: $('#start').value.trim() || '1h-ago', end: $('#end').value.trim(), queries: queries };
  }

  function refreshExpression() {
    const state = readState();
    $('#m-expr').textContent = state.queries.map(Q.formatM).join('  ');
    $('#curl').value = state.queries.length ? Q.curlCommand(location.origin, state) : '';
  }

  // ---- Time range ----

  function toLocalInput(ms) {
    const d = new Date(ms - new Date(ms).getTimezoneOffset() * 60000);
    return d.toISOString().slice(0, 19);
  }

  function syncAbsoluteInputs() {
    const s = $('#start').value.trim();
    const e = $('#end').value.trim();
    $('#abs-from').value = /^\d{12,}$/.test(s) ? toLocalInput(Number(s)) : '';
    $('#abs-to').value = /^\d{12,}$/.test(e) ? toLocalInput(Number(e)) : '';
  }

  // ---- Running a query ----

  // Label of a result series: metric{tag=value,...}, with the query number
  // when there are several queries.
  function seriesLabel(r, index, many) {
    const tags = Object.keys(r.tags || {}).sort().map((k) => k + '=' + r.tags[k]).join(',');
    return (many ? '#' + (index + 1) + ' ' : '') + r.metric + (tags ? '{' + tags + '}' : '');
  }

  let chart = null;
  let runSeq = 0;

  async function run(pushHistory) {
    const state = readState();
    refreshExpression();
    if (state.queries.length === 0) {
      showError('Enter a metric to query.');
      return;
    }
    const qs = Q.toQueryString(state);
    const url = '/?' + qs;
    if (location.pathname + location.search !== url) {
      if (pushHistory) history.pushState(null, '', url);
      else history.replaceState(null, '', url);
    }
    const mine = ++runSeq;
    $('#chart').dataset.state = 'loading';
    clearError();
    try {
      const result = await apiGet('/api/query?arrays&ms&show_query&' + qs);
      if (mine !== runSeq) return;
      const many = state.queries.length > 1;
      const series = (result || []).map((r) => ({
        label: seriesLabel(r, r.query && typeof r.query.index === 'number' ? r.query.index : 0, many),
        points: Array.isArray(r.dps) ? r.dps.map((p) => [Number(p[0]), p[1] === null ? null : Number(p[1])])
                                     : Object.keys(r.dps || {}).map((t) => [Number(t), Number(r.dps[t])]),
      }));
      chart.setData(series);
      $('#chart').dataset.state = 'done';
    } catch (e) {
      if (mine !== runSeq) return;
      chart.setData([]);
      $('#chart').dataset.state = 'error';
      showError(e.message);
    }
  }

  function loadFromUrl() {
    const state = Q.fromQueryString(location.search);
    $('#start').value = state.start;
    $('#end').value = state.end;
    syncAbsoluteInputs();
    $('#queries').textContent = '';
    for (const q of state.queries) addQueryBlock(q);
    if (state.queries.length === 0) addQueryBlock(null);
    refreshExpression();
    if (state.queries.length > 0) run(false);
    // After run(), which clears old errors before it waits for the answer.
    if (state.errors.length) showError('Cannot read the query in the URL:\n' + state.errors.join('\n'));
  }

  // ---- Wiring ----

  function showView(id) {
    document.querySelectorAll('.view').forEach((v) => { v.hidden = v.id !== id; });
    document.querySelectorAll('nav .tab').forEach((t) => t.classList.toggle('active', t.dataset.view === id));
    window.SundialStatus.setActive(id === 'status-view');
  }

  // While the chart is zoomed, offers to query just the zoomed span (finer
  // than the chart's points when a downsample interval suits the whole range).
  function addZoomQueryButton() {
    const button = document.createElement('button');
    button.type = 'button';
    button.id = 'use-zoom';
    button.textContent = 'Query this range';
    button.hidden = true;
    chart.toolbar.insertBefore(button, chart.toolbar.firstChild);
    let zoomRange = null;
    $('#chart').addEventListener('zoom', (e) => {
      zoomRange = e.detail.range;
      button.hidden = zoomRange === null;
    });
    button.addEventListener('click', () => {
      if (!zoomRange) return;
      $('#start').value = String(Math.floor(zoomRange[0]));
      $('#end').value = String(Math.ceil(zoomRange[1]));
      syncAbsoluteInputs();
      button.hidden = true;
      run(true);
    });
  }

  // The preset buttons (relative ranges) and the date pickers (absolute).
  function wireTimeRange() {
    document.querySelectorAll('[data-range]').forEach((b) => {
      b.addEventListener('click', () => {
        $('#start').value = b.dataset.range + '-ago';
        $('#end').value = '';
        syncAbsoluteInputs();
        run(true);
      });
    });
    $('#abs-from').addEventListener('change', (e) => {
      if (e.target.value) $('#start').value = String(new Date(e.target.value).getTime());
    });
    $('#abs-to').addEventListener('change', (e) => {
      $('#end').value = e.target.value ? String(new Date(e.target.value).getTime()) : '';
    });
  }

  async function init() {
    chart = new window.SundialChart($('#chart'));
    addZoomQueryButton();
    try {
      const list = await apiGet('/api/aggregators');
      if (Array.isArray(list) && list.length) aggregators = list.slice().sort();
    } catch (e) {
      showError(e.message);
    }
    document.querySelectorAll('nav .tab').forEach((t) => {
      t.addEventListener('click', () => {
        showView(t.dataset.view);
        const hash = t.dataset.view === 'status-view' ? '#status' : '';
        history.replaceState(null, '', location.pathname + location.search + hash);
      });
    });
    $('#query-form').addEventListener('submit', (e) => {
      e.preventDefault();
      run(true);
    });
    $('#query-form').addEventListener('input', refreshExpression);
    $('#query-form').addEventListener('change', refreshExpression);
    $('#add-query').addEventListener('click', () => addQueryBlock(null));
    wireTimeRange();
    $('#copy-curl').addEventListener('click', () => {
      const text = $('#curl').value;
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(text).catch(() => $('#curl').select());
      } else {
        $('#curl').select();
        document.execCommand('copy');
      }
    });
    window.addEventListener('popstate', loadFromUrl);
    loadFromUrl();
    showView(location.hash === '#status' ? 'status-view' : 'query-view');
  }

  init();
})();
