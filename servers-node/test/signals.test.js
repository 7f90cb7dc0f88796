// `node server.js` as a child process, for what only a real process can show: SIGHUP, SIGUSR1 and SIGUSR2 are
// ignored (and never open Node's inspector), and the listening socket's backlog is the 1,024 the server asks for.
// `ss` (iproute2) reads both from the kernel.

import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { RawConnection, childrenOf, exitOf, sleep, spawnServer } from './helpers.js';

const IGNORED = ['SIGHUP', 'SIGUSR1', 'SIGUSR2'];

/** The TCP ports `pid` listens on, from `ss -ltnp` (which shows the owner of sockets of our own user). */
function listeningPorts(pid) {
  const { stdout, status } = spawnSync('ss', ['-ltnpH'], { encoding: 'utf8' });
  assert.equal(status, 0, 'ss -ltnp failed');
  const ports = [];
  for (const line of stdout.split('\n')) {
    if (!line.includes(`pid=${pid},`)) continue;
    ports.push(Number(/:(\d+)\s/.exec(line.split(/\s+/)[3] + ' ')[1]));
  }
  return ports;
}

/** The backlog of the socket listening on 127.0.0.1:`port`: for a listening socket, ss shows it as Send-Q. */
function backlogOf(port) {
  const { stdout } = spawnSync('ss', ['-ltnH', `sport = :${port}`], { encoding: 'utf8' });
  const lines = stdout
    .trim()
    .split('\n')
    .filter((line) => line !== '');
  assert.equal(lines.length, 1, `one listening socket on port ${port}: ${stdout}`);
  return Number(lines[0].split(/\s+/)[2]);
}

/** Waits (at most 5 s) until `predicate()` holds. */
async function until(predicate, what) {
  for (let i = 0; i < 100; i++) {
    if (predicate()) return;
    await sleep(50);
  }
  assert.fail(`timed out waiting for ${what}`);
}

async function health(port) {
  const conn = await RawConnection.open(port);
  conn.write('GET /health HTTP/1.1\r\nHost: x\r\n\r\n');
  const response = await conn.response();
  conn.destroy();
  return response.status;
}

test('the check below sees an inspector: plain Node opens one on SIGUSR1', async () => {
  // Guards against a vacuous pass: the same `ss` check that finds nothing on the server finds the inspector here.
  // Port 0 rather than 9229, so that this test cannot collide with anything.
  const child = spawn(process.execPath, ['--inspect-port=0', '-e', 'setInterval(() => {}, 1000)'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  try {
    await sleep(300);
    assert.deepEqual(listeningPorts(child.pid), []);
    child.kill('SIGUSR1');
    await until(() => listeningPorts(child.pid).length === 1, 'the inspector');
  } finally {
    child.kill('SIGKILL');
    await exitOf(child);
  }
});

test('SIGHUP, SIGUSR1 and SIGUSR2 are ignored and logged; no inspector; the server goes on serving', async () => {
  const { child, port, stderr } = await spawnServer(['--log']);
  for (const signal of IGNORED) child.kill(signal);
  await until(() => IGNORED.every((signal) => stderr().includes(`ignored ${signal}\n`)), 'three log lines');
  await sleep(200);
  assert.equal(child.exitCode, null);
  assert.deepEqual(listeningPorts(child.pid), [port], 'nothing but the server listens (no inspector on 9229)');
  assert.doesNotMatch(stderr(), /Debugger/);
  assert.equal(await health(port), 200);
  child.kill('SIGTERM');
  assert.equal(await exitOf(child), 0);
});

test('without --log the ignored signals print nothing', async () => {
  const { child, port, stderr } = await spawnServer([]);
  for (const signal of IGNORED) child.kill(signal);
  await sleep(300);
  assert.equal(await health(port), 200);
  assert.equal(stderr(), '');
  child.kill('SIGTERM');
  assert.equal(await exitOf(child), 0);
});

test('cluster: the primary and every worker ignore them too, and no process opens an inspector', async () => {
  const { child, port, stderr } = await spawnServer(['--workers', '2', '--log']);
  const workers = childrenOf(child.pid);
  assert.equal(workers.length, 2);
  for (const pid of [child.pid, ...workers]) {
    for (const signal of IGNORED) process.kill(pid, signal);
  }
  const count = (signal) =>
    stderr()
      .split('\n')
      .filter((line) => line === `ignored ${signal}`).length;
  await until(() => IGNORED.every((signal) => count(signal) === 3), 'nine log lines');
  await sleep(200);
  assert.equal(child.exitCode, null);
  assert.deepEqual(childrenOf(child.pid).sort(), workers.sort(), 'no worker died or was replaced');
  for (const pid of [child.pid, ...workers]) {
    assert.equal(listeningPorts(pid).includes(9229), false, `pid ${pid} listens on 9229`);
    assert.ok(
      listeningPorts(pid).every((p) => p === port),
      `pid ${pid} listens on ${listeningPorts(pid)}`,
    );
  }
  assert.equal(await health(port), 200);
  child.kill('SIGTERM');
  assert.equal(await exitOf(child), 0);
});

test('the listen backlog is 1,024 (or the kernel cap below it), with one process and in cluster mode', async () => {
  const somaxconn = Number(readFileSync('/proc/sys/net/core/somaxconn', 'utf8'));
  const expected = Math.min(1024, somaxconn);
  for (const args of [[], ['--workers', '2']]) {
    const { child, port } = await spawnServer(args);
    assert.equal(backlogOf(port), expected, `backlog with ${args.join(' ') || 'one process'}`);
    child.kill('SIGTERM');
    assert.equal(await exitOf(child), 0);
  }
});
