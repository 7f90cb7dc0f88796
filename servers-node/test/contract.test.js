// Every case of contract/cases.json against in-process servers: one with the default capacity, and one with
// `--max-users 10000` (a store that is full from the start) for the cases that require it.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';

import { loadCases, runCase } from './contract-runner.js';
import { startServer, stopServer } from './helpers.js';

const cases = loadCases();
let main;
let full;

before(async () => {
  main = await startServer();
  full = await startServer({ maxUsers: 10_000 });
});
after(async () => {
  await stopServer(main.server);
  await stopServer(full.server);
});

function targetFor(requires) {
  if (requires === undefined) return { port: main.port };
  const keys = Object.keys(requires);
  if (keys.length === 1 && requires.max_users === 10_000) return { port: full.port };
  return null;
}

test('cases.json has cases with unique names', () => {
  assert.ok(cases.length > 100);
  assert.equal(new Set(cases.map((c) => c.name)).size, cases.length);
});

for (const testCase of cases) {
  test(`contract: ${testCase.name}`, async (t) => {
    const { skipped, problems } = await runCase(testCase, targetFor, { requireContentLength: true });
    if (skipped) {
      // A case this suite cannot run must be visible as a failure here: every requirement is ours to meet.
      assert.fail(`no server for requires ${JSON.stringify(testCase.requires)}`);
    }
    assert.deepEqual(problems, [], `${testCase.name} (${testCase.rule})`);
  });
}
