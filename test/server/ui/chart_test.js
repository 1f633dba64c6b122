// Unit tests of the pure parts of src/server/ui/chart.js (axis ticks, SI
// formatting, hover lookup). Run with TZ=UTC: node test/server/ui/chart_test.js
'use strict';
const assert = require('assert');
const path = require('path');
const Chart = require(path.join(__dirname, '../../../src/server/ui/chart.js'));

const { test, finish } = require('./harness');

test('SI formatting', () => {
  const cases = [[0, '0'], [1, '1'], [999, '999'], [1000, '1k'], [1234, '1.23k'], [1.5e6, '1.5M'],
                 [2.5e9, '2.5G'], [7e12, '7T'], [3e15, '3P'], [0.5, '500m'], [0.0012, '1.2m'],
                 [3e-6, '3µ'], [4e-9, '4n'], [-1234, '-1.23k'], [999.9, '1k'], [NaN, 'NaN'],
                 [Infinity, 'Infinity']];
  for (const [v, want] of cases) assert.strictEqual(Chart.formatSI(v), want, String(v));
  assert.strictEqual(Chart.formatSI(1234567, 6), '1.23457M');
});

test('value ticks are nice and cover the range', () => {
  const t = Chart.valueTicks(3, 97, 5);
  assert.strictEqual(t.step, 20);
  assert.deepStrictEqual(t.ticks, [0, 20, 40, 60, 80, 100]);
  assert.ok(t.lo <= 3 && t.hi >= 97);
  const small = Chart.valueTicks(0.001, 0.0042, 4);
  assert.ok(small.lo <= 0.001 && small.hi >= 0.0042);
  assert.ok(small.ticks.length >= 3 && small.ticks.length <= 8, small.ticks);
  const neg = Chart.valueTicks(-5, 5, 4);
  assert.ok(neg.ticks.includes(0));
  const flat = Chart.valueTicks(7, 7, 4);  // one value: a range around it
  assert.ok(flat.lo < 7 && flat.hi > 7);
});

test('time ticks align to the step and label by span', () => {
  const t0 = Date.UTC(2024, 0, 2, 10, 7, 13);
  const hour = Chart.timeTicks(t0, t0 + 3600 * 1000, 8);
  assert.ok(hour.length >= 4 && hour.length <= 8, hour.length);
  const step = hour[1].t - hour[0].t;
  assert.strictEqual(step, 10 * 60 * 1000);
  for (const k of hour) assert.strictEqual(k.t % step, 0);
  assert.strictEqual(hour[0].label, '10:10');
  const secs = Chart.timeTicks(t0, t0 + 60 * 1000, 6);
  assert.strictEqual(secs[0].label, '10:07:20');
  const days = Chart.timeTicks(t0, t0 + 10 * 86400 * 1000, 6);
  assert.strictEqual(days[0].label, '2024-01-04');
  const midnight = Chart.timeTicks(t0, t0 + 2 * 86400 * 1000, 8);
  assert.ok(midnight.some((k) => k.label === '01-03'), midnight.map((k) => k.label));
  assert.ok(Chart.timeTicks(0, 1, 5).length <= 200);
});

test('hover finds the nearest point within the gap', () => {
  const pts = [[1000, 1], [2000, 2], [4000, 4]];
  assert.deepStrictEqual(Chart.valueNear(pts, 1900, 500), [2000, 2]);
  assert.deepStrictEqual(Chart.valueNear(pts, 2100, 500), [2000, 2]);
  assert.deepStrictEqual(Chart.valueNear(pts, 3900, 500), [4000, 4]);
  assert.strictEqual(Chart.valueNear(pts, 3000, 500), null);
  assert.deepStrictEqual(Chart.valueNear(pts, 0, 1000), [1000, 1]);
  assert.strictEqual(Chart.valueNear([], 0, 1000), null);
});

test('formatTime', () => {
  assert.strictEqual(Chart.formatTime(Date.UTC(2024, 1, 3, 4, 5, 6)), '2024-02-03 04:05:06');
});

finish();
