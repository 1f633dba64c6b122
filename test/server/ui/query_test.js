// Unit tests of src/server/ui/query.js (the m= syntax and the page URL).
// Run: node test/server/ui/query_test.js (ctest: ui_query_js).
'use strict';
const assert = require('assert');
const path = require('path');
const Q = require(path.join(__dirname, '../../../src/server/ui/query.js'));

const { test, finish } = require('./harness');

test('parses every part of an m= expression', () => {
  const q = Q.parseM('sum:1m-avg-zero:rate{counter,1000,5}:cpu.user{host=*,dc=a|b}{env=prod}');
  assert.deepStrictEqual(q, {
    aggregator: 'sum', metric: 'cpu.user',
    downsample: { interval: '1m', fn: 'avg', fill: 'zero' },
    rate: { counter: true, counterMax: '1000', resetValue: '5', dropResets: false },
    filters: [{ key: 'host', value: '*', groupBy: true }, { key: 'dc', value: 'a|b', groupBy: true },
              { key: 'env', value: 'prod', groupBy: false }],
  });
});

test('filters with parentheses and commas inside', () => {
  const q = Q.parseM('max:m{host=literal_or(a,b),x=regexp(.*)}');
  assert.deepStrictEqual(q.filters.map((f) => [f.key, f.value]),
                         [['host', 'literal_or(a,b)'], ['x', 'regexp(.*)']]);
});

test('round trips through formatM', () => {
  for (const m of ['sum:cpu', 'avg:5m-max:cpu{host=*}', 'sum:rate:net.bytes',
                   'sum:rate{counter}:net.bytes', 'sum:rate{dropcounter,,0}:x',
                   'sum:rate{counter,100}:x', 'zimsum:1h-sum-nan:m{a=b}{c=d}', 'sum:m{}{c=d}',
                   'count:explicit_tags:m{host=a}']) {
    assert.strictEqual(Q.formatM(Q.parseM(m)), m);
  }
});

test('fill none is left out and empty filter rows are dropped', () => {
  const q = { aggregator: 'sum', metric: 'm', downsample: { interval: '1m', fn: 'avg', fill: 'none' },
              rate: null, filters: [{ key: 'host', value: '', groupBy: true }, { key: '', value: 'x', groupBy: false }] };
  assert.strictEqual(Q.formatM(q), 'sum:1m-avg:m');
});

test('rejects malformed expressions with a message', () => {
  for (const [m, want] of [['cpu', /aggregator:metric/], ['sum:', /no metric/], ['sum:m{host}', /key=value/],
                           ['sum:m{a=b', /closing/], ['sum:x-y-z-w:m', /downsample/],
                           ['sum:rate{gauge}:m', /counter or dropcounter/], ['sum:m{a=b}{c=d}{e=f}', /two/]]) {
    assert.throws(() => Q.parseM(m), want, m);
  }
});

test('page URL round trip', () => {
  const state = { start: '1h-ago', end: '1700000000000', queries: [Q.parseM('sum:rate:cpu{host=*}'), Q.parseM('max:mem')] };
  const qs = Q.toQueryString(state);
  assert.strictEqual(qs, 'start=1h-ago&end=1700000000000&m=sum:rate:cpu{host=*}&m=max:mem');
  const back = Q.fromQueryString('?' + qs);
  assert.deepStrictEqual(back.queries, state.queries);
  assert.strictEqual(back.start, '1h-ago');
  assert.strictEqual(back.end, '1700000000000');
  assert.deepStrictEqual(back.errors, []);
});

test('URL values are percent-encoded where they must be', () => {
  const qs = Q.toQueryString({ start: '2024/01/02 03:04', end: '', queries: [Q.parseM('sum:m{k=a&b#c}')] });
  assert.strictEqual(qs, 'start=2024/01/02%2003:04&m=sum:m{k=a%26b%23c}');
  assert.strictEqual(Q.fromQueryString(qs).queries[0].filters[0].value, 'a&b#c');
});

test('bad m= in the URL is reported, good ones kept', () => {
  const s = Q.fromQueryString('m=nonsense&m=sum:ok');
  assert.strictEqual(s.queries.length, 1);
  assert.strictEqual(s.errors.length, 1);
  assert.strictEqual(s.start, '1h-ago');
});

test('curl command quotes for the shell', () => {
  const cmd = Q.curlCommand('http://h:4242', { start: '1h-ago', end: '', queries: [Q.parseM("sum:m{k=it's}")] });
  assert.strictEqual(cmd, "curl -sG 'http://h:4242/api/query' --data-urlencode 'start=1h-ago'" +
                          " --data-urlencode 'm=sum:m{k=it'\\''s}'");
});

finish();
