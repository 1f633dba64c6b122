// Unit tests of the DOM-free parts of src/server/ui/status.js (formatting,
// counters and rates from /api/stats samples).
// Run: node test/server/ui/status_test.js (ctest: ui_status_js).
'use strict';
const assert = require('assert');
const path = require('path');
const S = require(path.join(__dirname, '../../../src/server/ui/status.js'));

const { test, finish } = require('./harness');

test('bytes', () => {
  assert.strictEqual(S.formatBytes(0), '0 B');
  assert.strictEqual(S.formatBytes(1023), '1023 B');
  assert.strictEqual(S.formatBytes(1536), '1.5 KiB');
  assert.strictEqual(S.formatBytes(5 * 1024 * 1024 * 1024), '5.0 GiB');
  assert.strictEqual(S.formatBytes(3 * 1024 ** 5), '3072.0 TiB');
  assert.strictEqual(S.formatBytes(NaN), '–');
});

test('durations', () => {
  assert.strictEqual(S.formatDuration(0), '0s');
  assert.strictEqual(S.formatDuration(59.9), '59s');
  assert.strictEqual(S.formatDuration(61), '1m 1s');
  assert.strictEqual(S.formatDuration(3600), '1h 0m 0s');
  assert.strictEqual(S.formatDuration(2 * 86400 + 5), '2d 0h 0m 5s');
  assert.strictEqual(S.formatDuration(-3), '0s');
});

const rec = (metric, value, tags) => ({ metric: metric, timestamp: 1, value: String(value),
                                        tags: Object.assign({ host: 'h' }, tags || {}) });

test('stat values sum the matching records', () => {
  const stats = [rec('tsd.rpc.received', 5, { type: 'http' }), rec('tsd.rpc.received', 7, { type: 'put' }),
                 rec('tsd.datapoints.added', 100, { type: 'all' })];
  assert.strictEqual(S.statValue(stats, 'tsd.rpc.received', { type: 'http' }), 5);
  assert.strictEqual(S.statValue(stats, 'tsd.rpc.received'), 12);
  assert.strictEqual(S.statValue(stats, 'tsd.datapoints.added'), 100);
  assert.strictEqual(S.statValue(stats, 'tsd.nothing'), null);
  assert.strictEqual(S.statValue(undefined, 'tsd.rpc.received'), null);
});

test('rates come from two samples', () => {
  const a = { at: 10000, stats: [rec('tsd.datapoints.added', 100)] };
  const b = { at: 12000, stats: [rec('tsd.datapoints.added', 700)] };
  assert.strictEqual(S.rate(a, b, 'tsd.datapoints.added'), 300);
  assert.strictEqual(S.rate(null, b, 'tsd.datapoints.added'), null);    // one sample: no rate yet
  assert.strictEqual(S.rate(a, a, 'tsd.datapoints.added'), null);       // no time passed
  assert.strictEqual(S.rate(b, { at: 13000, stats: [rec('tsd.datapoints.added', 5)] },
                            'tsd.datapoints.added'), 0);                 // a restart: never negative
  assert.strictEqual(S.rate(a, b, 'tsd.missing'), null);
});

test('points out / s sums every endpoint', () => {
  const out = (q, e) => [rec('tsd.query.points.emitted', q, { endpoint: 'query' }),
                         rec('tsd.query.points.emitted', e, { endpoint: 'export' })];
  const a = { at: 0, stats: out(10, 0) };
  const b = { at: 5000, stats: out(40, 20) };
  assert.strictEqual(S.rate(a, b, 'tsd.query.points.emitted'), 10);
  assert.strictEqual(S.rate(a, b, 'tsd.query.points.emitted', { endpoint: 'query' }), 6);
});

test('relay rows: one per target, none without a relay', () => {
  assert.deepStrictEqual(S.relayRows(undefined), []);
  assert.deepStrictEqual(S.relayRows({ enabled: false, targets: [] }), []);
  const relay = { enabled: true, targets: [
    { url: 'http://up1:4242', protocol: 'http', connected: true, pendingPoints: 0, lagSeconds: 0,
      pointsSent: 1200, lastError: '' },
    { url: 'telnet://up2:4242', protocol: 'telnet', connected: false, pendingPoints: 345,
      lagSeconds: 3725.4, pointsSent: 7, lastError: 'connection refused' },
  ] };
  assert.deepStrictEqual(S.relayRows(relay), [
    ['http://up1:4242 (http)', 'connected', '0', 'caught up', '1200', ''],
    ['telnet://up2:4242 (telnet)', 'not connected', '345', '1h 2m 5s behind', '7', 'connection refused'],
  ]);
});

finish();
