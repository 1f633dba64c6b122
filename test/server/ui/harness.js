// The smallest test runner the web page's script tests need (no npm
// packages): test(name, fn) runs fn and reports "ok" or "FAIL" with the
// stack; finish() exits with status 1 if any test failed.
'use strict';

let failures = 0;

function test(name, fn) {
  try {
    fn();
    console.log('ok   ' + name);
  } catch (e) {
    failures++;
    console.log('FAIL ' + name + '\n' + e.stack);
  }
}

function finish() {
  if (failures > 0) {
    console.log(failures + ' test(s) failed');
    process.exit(1);
  }
}

module.exports = { test, finish };
