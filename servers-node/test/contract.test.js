// Every case of contract/cases.json against in-process servers: one with the default settings, plus one per
// distinct `requires.max_users` (for instance a store of capacity 10,000, full from the start).

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';

import { loadCases, runCase } from './contract-runner.js';
import { startServer, stopServer } from './helpers.js';

const cases = loadCases();
let main;
/** max_users → the server started with that capacity. */
const byCapacity = new Map();

before(async () => {
  main = await startServer();
  for (const { requires } of cases) {
    if (requires?.max_users !== undefined && !byCapacity.has(requires.max_users)) {
      byCapacity.set(requires.max_users, await startServer({ maxUsers: requires.max_users }));
    }
  }
});
after(async () => {
  await stopServer(main.server);
  for (const { server } of byCapacity.values()) await stopServer(server);
});

/** The server for a case's `requires`, or null for a requirement this suite does not know how to meet. */
function targetFor(requires) {
  if (requires === undefined) return { port: main.port };
  const known = Object.keys(requires).every((key) => key === 'max_users');
  return known && byCapacity.has(requires.max_users) ? { port: byCapacity.get(requires.max_users).port } : null;
}

test('cases.json has cases with unique names', () => {
  assert.ok(cases.length > 100);
  assert.equal(new Set(cases.map((c) => c.name)).size, cases.length);
});

for (const testCase of cases) {
  test(`contract: ${testCase.name}`, async () => {
    const { skipped, problems } = await runCase(testCase, targetFor, { requireContentLength: true });
    // A skipped case fails here: every requirement in cases.json is one this suite must be able to meet.
    assert.equal(skipped, false, `no server for requires ${JSON.stringify(testCase.requires)}`);
    assert.deepEqual(problems, [], `${testCase.name} (${testCase.rule})`);
  });
}
