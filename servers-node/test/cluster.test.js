// `--workers 2`: the cluster primary and its workers, each with its own store and id block.

import { test } from 'node:test';
import assert from 'node:assert/strict';

import { firstIdForWorker } from '../store.js';
import { RawConnection, childrenOf, exitOf, postUser, sleep, spawnServer } from './helpers.js';

/** POSTs one user on a new connection and returns its id. */
async function createOnNewConnection(port, name) {
  const conn = await RawConnection.open(port);
  conn.write(postUser(name, 'c@d'));
  const response = await conn.response();
  conn.destroy();
  assert.equal(response.status, 201);
  return JSON.parse(response.body).id;
}

const blockOf = (id) => Math.floor((id - firstIdForWorker(1)) / 16_777_216) + 1;

test('cluster: unique ids across workers, own writes readable, dead workers replaced, SIGTERM exits 0', async () => {
  const { child, line, port, stderr } = await spawnServer(['--workers', '2']);
  try {
    assert.match(line, /^listening on http:\/\/127\.0\.0\.1:\d+ \(10000 users, 2 workers\)$/);
    assert.equal(childrenOf(child.pid).length, 2);

    // New connections are spread over both workers; every id is unique and comes from a worker's own block.
    const ids = [];
    for (let i = 0; i < 12; i++) ids.push(await createOnNewConnection(port, `U${i}`));
    assert.equal(new Set(ids).size, ids.length, `ids ${ids}`);
    assert.deepEqual([...new Set(ids.map(blockOf))].sort(), [1, 2], `ids ${ids}`);

    // On one keep-alive connection every request goes to the same worker, so a user is readable where it was made.
    const conn = await RawConnection.open(port);
    for (let i = 0; i < 5; i++) {
      conn.write(postUser(`Mine${i}`, 'm@n'));
      const created = await conn.response();
      assert.equal(created.status, 201);
      conn.write(`GET ${created.headers.get('location')[0]} HTTP/1.1\r\nHost: x\r\n\r\n`);
      const read = await conn.response();
      assert.equal(read.status, 200);
      assert.deepEqual(read.body, created.body);
    }
    conn.destroy();

    // A worker that dies is replaced by worker 3, with the third id block.
    const [victim] = childrenOf(child.pid);
    process.kill(victim, 'SIGKILL');
    let replaced = false;
    for (let i = 0; i < 100 && !replaced; i++) {
      await sleep(50);
      replaced = childrenOf(child.pid).length === 2 && !childrenOf(child.pid).includes(victim);
    }
    assert.ok(replaced, 'no replacement worker');
    let sawBlock3 = false;
    // It takes a moment to start and listen; until then the other worker takes every connection.
    for (let i = 0; i < 100 && !sawBlock3; i++) {
      sawBlock3 = blockOf(await createOnNewConnection(port, `R${i}`)) === 3;
      if (!sawBlock3) await sleep(50);
    }
    assert.ok(sawBlock3, 'the replacement hands out ids from block 3');
    assert.match(stderr(), /worker \d exited \(SIGKILL\); starting a replacement/);

    const workers = childrenOf(child.pid);
    child.kill('SIGTERM');
    assert.equal(await exitOf(child), 0);
    for (const pid of workers) {
      assert.throws(() => process.kill(pid, 0), { code: 'ESRCH' }, `worker ${pid} outlived the primary`);
    }
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
});
