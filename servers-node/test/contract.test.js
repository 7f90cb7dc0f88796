// Every case of contract/cases.json against in-process servers: one with the default settings, plus one per
// distinct `requires` (a store of capacity 10,000, full from the start; a 1 s head time limit).

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';

import { loadCases, runCase } from './contract-runner.js';
import { startServer, stopServer } from './helpers.js';

const cases = loadCases();
let main;
/** The settings a case may require, as the server's options. */
const OPTIONS = { max_users: 'maxUsers', header_timeout_ms: 'headerTimeoutMs' };
/** JSON of a `requires` → the server started with those settings. */
const bySettings = new Map();

before(async () => {
  main = await startServer();
  for (const { requires } of cases) {
    const key = JSON.stringify(requires);
    if (requires === undefined || bySettings.has(key)) continue;
    if (!Object.keys(requires).every((name) => name in OPTIONS)) continue;
    const options = Object.fromEntries(Object.entries(requires).map(([name, value]) => [OPTIONS[name], value]));
    bySettings.set(key, await startServer(options));
  }
});
after(async () => {
  await stopServer(main.server);
  for (const { server } of bySettings.values()) await stopServer(server);
});

/** The server for a case's `requires`, or null for a requirement this suite does not know how to meet. */
function targetFor(requires) {
  if (requires === undefined) return { port: main.port };
  const started = bySettings.get(JSON.stringify(requires));
  return started === undefined ? null : { port: started.port };
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
