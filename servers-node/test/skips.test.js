// The visible-skip helpers of helpers.js: the need-keys, the record format scripts/test reads, and requireOrSkip.
//
// Nothing here records into the real FAIRPAIR_SKIP_DIR: a record there would list as skipped a test that ran.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { Need, recordSkip, requireOrSkip, toolPath } from './helpers.js';

const MISSING = 'fairpair-no-such-program';

test('need keys', () => {
  assert.equal(Need.root.key, 'root');
  assert.equal(Need.tool('wrk').key, 'tool:wrk');
  assert.equal(Need.cpus(2).key, 'cpus:2');
});

test('a tool is found on PATH or said missing', () => {
  assert.match(toolPath('sh'), /\/sh$/);
  assert.equal(Need.tool('sh').unmet(), null);
  assert.equal(toolPath(MISSING), null);
  assert.match(Need.tool(MISSING).unmet(), new RegExp(`\`${MISSING}\``));
  assert.equal(Need.cpus(1).unmet(), null);
  assert.match(Need.cpus(1_000_000).unmet(), /^needs 1000000 CPUs/);
  assert.equal(Need.root.unmet() === null, process.getuid() === 0);
});

test('each skip is one line in a new file', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'fairpair-skips-'));
  try {
    const first = recordSkip(dir, 'a test', Need.tool('go'), 'needs `go` on PATH');
    const second = recordSkip(dir, 'another\ttest', Need.cpus(4), 'two\nlines');
    assert.notEqual(first, second);
    assert.equal(readFileSync(first, 'utf8'), 'tool:go\ta test\tneeds `go` on PATH\n');
    assert.equal(readFileSync(second, 'utf8'), 'cpus:4\tanother test\ttwo lines\n');
    assert.equal(readdirSync(dir).length, 2);
  } finally {
    rmSync(dir, { recursive: true });
  }
});

test('requireOrSkip records the skip, calls t.skip and returns false; a met need runs', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'fairpair-skips-'));
  const saved = process.env.FAIRPAIR_SKIP_DIR;
  process.env.FAIRPAIR_SKIP_DIR = dir;
  try {
    const reasons = [];
    const fakeT = { skip: (reason) => reasons.push(reason) };
    assert.equal(requireOrSkip(fakeT, 'self-test of requireOrSkip (not a real skip)', Need.tool('sh')), true);
    assert.deepEqual(reasons, []);
    assert.equal(requireOrSkip(fakeT, 'self-test of requireOrSkip (not a real skip)', Need.tool(MISSING)), false);
    assert.deepEqual(reasons, [Need.tool(MISSING).unmet()]);
    const files = readdirSync(dir);
    assert.equal(files.length, 1);
    const line = readFileSync(path.join(dir, files[0]), 'utf8');
    assert.equal(line, `tool:${MISSING}\tself-test of requireOrSkip (not a real skip)\t${reasons[0]}\n`);
  } finally {
    if (saved === undefined) delete process.env.FAIRPAIR_SKIP_DIR;
    else process.env.FAIRPAIR_SKIP_DIR = saved;
    rmSync(dir, { recursive: true });
  }
});
