// Sundial web page: the query model, free of the DOM.
//
// A sub-query is an object
//   { aggregator: 'sum', metric: 'cpu',
//     downsample: { interval: '1m', fn: 'avg', fill: 'none' } | null,
//     rate: null | { counter: false, counterMax: '', resetValue: '', dropResets: false },
//     filters: [ { key: 'host', value: '*', groupBy: true }, ... ] }
// and it is written in OpenTSDB's own m= syntax:
//   agg:[interval-fn[-fill]:][rate[{counter[,max[,reset]]}]:]metric[{groupBy filters}][{other filters}]
// The page state (time range plus sub-queries) is kept in the page URL as
//   /?start=1h-ago[&end=...]&m=<m>[&m=<m>...]
// so that a view can be bookmarked and shared.
(function (root) {
  'use strict';

  // Splits s at top-level occurrences of sep (outside braces and parentheses).
  function splitTop(s, sep) {
    const out = [];
    let depth = 0;
    let cur = '';
    for (const c of s) {
      if (c === '{' || c === '(') depth++;
      if (c === '}' || c === ')') depth = Math.max(0, depth - 1);
      if (c === sep && depth === 0) {
        out.push(cur);
        cur = '';
      } else {
        cur += c;
      }
    }
    out.push(cur);
    return out;
  }

  // "k=v,k2=v2" -> [{key, value, groupBy}], splitting only at top-level commas.
  function parseFilterList(body, groupBy) {
    if (body.trim() === '') return [];
    return splitTop(body, ',').map(function (part) {
      const eq = part.indexOf('=');
      if (eq <= 0) throw new Error('tag filter "' + part + '" has no key=value');
      return { key: part.slice(0, eq).trim(), value: part.slice(eq + 1).trim(), groupBy: groupBy };
    });
  }

  const kFills = ['none', 'nan', 'null', 'zero'];

  function parseDownsample(s) {
    const parts = s.split('-');
    if (parts.length < 2 || parts.length > 3 || parts[0] === '' || parts[1] === '') {
      throw new Error('downsample "' + s + '" is not interval-function[-fill]');
    }
    return { interval: parts[0], fn: parts[1], fill: parts[2] || 'none' };
  }

  function parseRate(s) {
    const rate = { counter: false, counterMax: '', resetValue: '', dropResets: false };
    const open = s.indexOf('{');
    if (open < 0) return rate;
    if (!s.endsWith('}')) throw new Error('rate options "' + s + '" lack a closing }');
    const opts = s.slice(open + 1, -1).split(',');
    const kind = opts[0].trim();
    if (kind === 'counter' || kind === 'dropcounter') {
      rate.counter = true;
      rate.dropResets = kind === 'dropcounter';
    } else if (kind !== '') {
      throw new Error('rate option "' + kind + '" is not counter or dropcounter');
    }
    rate.counterMax = (opts[1] || '').trim();
    rate.resetValue = (opts[2] || '').trim();
    return rate;
  }

  // Parses one m= expression. Throws Error with a readable message.
  function parseM(m) {
    const parts = splitTop(m.trim(), ':');
    if (parts.length < 2) throw new Error('m= needs at least aggregator:metric, got "' + m + '"');
    const q = { aggregator: parts[0], metric: '', downsample: null, rate: null, filters: [] };
    let last = parts[parts.length - 1];
    for (const p of parts.slice(1, -1)) {
      if (p === 'rate' || p.startsWith('rate{')) q.rate = parseRate(p);
      else if (p === 'explicit_tags') q.explicitTags = true;
      else q.downsample = parseDownsample(p);
    }
    const brace = last.indexOf('{');
    q.metric = brace < 0 ? last : last.slice(0, brace);
    if (q.metric === '') throw new Error('m= has no metric: "' + m + '"');
    if (brace >= 0) {
      const groups = [];
      let rest = last.slice(brace);
      while (rest.length > 0) {
        if (rest[0] !== '{') throw new Error('unexpected "' + rest + '" after the tag filters');
        const close = rest.indexOf('}');
        if (close < 0) throw new Error('tag filters lack a closing }');
        groups.push(rest.slice(1, close));
        rest = rest.slice(close + 1);
      }
      if (groups.length > 2) throw new Error('at most two {} filter groups are allowed');
      q.filters = parseFilterList(groups[0], true).concat(parseFilterList(groups[1] || '', false));
    }
    return q;
  }

  function formatRate(rate) {
    if (!rate.counter) return 'rate';
    const opts = [rate.dropResets ? 'dropcounter' : 'counter'];
    if (rate.counterMax !== '' || rate.resetValue !== '') opts.push(rate.counterMax);
    if (rate.resetValue !== '') opts.push(rate.resetValue);
    return 'rate{' + opts.join(',') + '}';
  }

  // The m= expression of a sub-query (filters with an empty key or value are
  // left out, so a half-filled builder row does not break the query).
  function formatM(q) {
    let s = q.aggregator + ':';
    if (q.downsample && q.downsample.interval) {
      s += q.downsample.interval + '-' + q.downsample.fn;
      if (q.downsample.fill && q.downsample.fill !== 'none') s += '-' + q.downsample.fill;
      s += ':';
    }
    if (q.rate) s += formatRate(q.rate) + ':';
    if (q.explicitTags) s += 'explicit_tags:';
    s += q.metric;
    const used = (q.filters || []).filter(function (f) { return f.key !== '' && f.value !== ''; });
    const grouped = used.filter(function (f) { return f.groupBy; });
    const other = used.filter(function (f) { return !f.groupBy; });
    const list = function (fs) { return fs.map(function (f) { return f.key + '=' + f.value; }).join(','); };
    if (grouped.length > 0 || other.length > 0) s += '{' + list(grouped) + '}';
    if (other.length > 0) s += '{' + list(other) + '}';
    return s;
  }

  // Percent-encodes a query-string value, leaving the characters of the m=
  // syntax readable (browsers and the server accept them as they are).
  function encodeValue(v) {
    return encodeURIComponent(v).replace(/%(3A|2C|3D|7B|7D|7C|2F|40)/g, function (_, h) {
      return String.fromCharCode(parseInt(h, 16));
    });
  }

  // The query string (without '?') for a page state {start, end, queries}.
  function toQueryString(state) {
    const parts = ['start=' + encodeValue(state.start)];
    if (state.end) parts.push('end=' + encodeValue(state.end));
    for (const q of state.queries) parts.push('m=' + encodeValue(formatM(q)));
    return parts.join('&');
  }

  // Reads a page state from a query string ('?start=..&m=..'). Expressions
  // that do not parse are returned in errors, the rest in queries.
  function fromQueryString(search) {
    const params = new URLSearchParams(search);
    const state = { start: params.get('start') || '1h-ago', end: params.get('end') || '', queries: [], errors: [] };
    for (const m of params.getAll('m')) {
      try {
        state.queries.push(parseM(m));
      } catch (e) {
        state.errors.push(e.message);
      }
    }
    return state;
  }

  // Quotes s for a POSIX shell.
  function shellQuote(s) {
    return "'" + String(s).replace(/'/g, "'\\''") + "'";
  }

  // A curl command that asks /api/query for the same data.
  function curlCommand(origin, state) {
    let cmd = 'curl -sG ' + shellQuote(origin + '/api/query') +
        ' --data-urlencode ' + shellQuote('start=' + state.start);
    if (state.end) cmd += ' --data-urlencode ' + shellQuote('end=' + state.end);
    for (const q of state.queries) cmd += ' --data-urlencode ' + shellQuote('m=' + formatM(q));
    return cmd;
  }

  const api = {
    parseM: parseM, formatM: formatM, toQueryString: toQueryString,
    fromQueryString: fromQueryString, curlCommand: curlCommand, shellQuote: shellQuote,
    fills: kFills,
  };
  root.SundialQuery = api;
  if (typeof module !== 'undefined' && module.exports) module.exports = api;
})(typeof window !== 'undefined' ? window : globalThis);
