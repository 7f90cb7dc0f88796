// What the server prints, pinned (CONTRACT.md, "Running a server"): the `--log` line format all three servers share,
// silence on SIGTERM without --log, flag errors that name the environment variable, and --help with each range.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import test from 'node:test';

import { logLine } from '../request_log.js';
import { RawConnection, SERVER_JS, exitOf, spawnServer } from './helpers.js';

/** `2026-11-30T19:00:00.123Z GET /users/500 200 0.123ms`: time, method, target, status, latency. */
const LOG_LINE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z (\S+) (\S+) (\d{3}) \d+\.\d{3}ms$/;

test('the log line has the contract format', () => {
  const at = new Date(Date.UTC(2026, 10, 30, 19, 0, 0, 123));
  assert.equal(logLine(at, 'GET', '/users/500', 200, 0.1234), '2026-11-30T19:00:00.123Z GET /users/500 200 0.123ms');
  assert.match(logLine(at, 'POST', '/users', 201, 12.3456), LOG_LINE);
  assert.doesNotMatch('GET /users/500 HTTP/1.1 200 123µs', LOG_LINE);
});

/** Starts the server with `args`, sends each request on its own connection, stops it with SIGTERM. */
async function runAndStop(args, requests) {
  const { child, port, stderr } = await spawnServer(['--workers', '1', ...args]);
  for (const request of requests) {
    const conn = await RawConnection.open(port);
    conn.write(request);
    await conn.response();
    conn.destroy();
  }
  child.kill('SIGTERM');
  assert.equal(await exitOf(child), 0);
  return stderr();
}

test('--log writes one line per request in the contract format', async () => {
  const body = '{"name":"Ann","email":"ann@example.com"}';
  const stderr = await runAndStop(
    ['--log'],
    [
      'GET /users/500 HTTP/1.1\r\nHost: x\r\n\r\n',
      'GET /nope?x=1 HTTP/1.1\r\nHost: x\r\n\r\n',
      `POST /users HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    ],
  );
  const logged = stderr
    .split('\n')
    .map((line) => LOG_LINE.exec(line))
    .filter(Boolean)
    .map((m) => [m[1], m[2], Number(m[3])]);
  assert.deepEqual(logged, [
    ['GET', '/users/500', 200],
    ['GET', '/nope?x=1', 404],
    ['POST', '/users', 201],
  ]);
});

test('nothing is printed on SIGTERM without --log', async () => {
  assert.equal(await runAndStop([], ['GET /health HTTP/1.1\r\nHost: x\r\n\r\n']), '');
});

test('a bad value from the environment names the variable; the same value as a flag names the flag', () => {
  for (const [variable, value] of [
    ['PORT', 'abc'],
    ['WORKERS', '0'],
    ['MAX_USERS', '5'],
    ['HOST', 'nonsense.invalid'],
  ]) {
    const env = { ...process.env, HOST: '', PORT: '', WORKERS: '', MAX_USERS: '', [variable]: value };
    const fromEnv = spawnSync(process.execPath, [SERVER_JS], { encoding: 'utf8', env });
    assert.equal(fromEnv.status, 2, variable);
    const flag = `--${variable.toLowerCase().replace('_', '-')}`;
    assert.ok(fromEnv.stderr.includes(variable) && !fromEnv.stderr.includes(flag), fromEnv.stderr);
    const fromFlag = spawnSync(process.execPath, [SERVER_JS, flag, value], {
      encoding: 'utf8',
      env: { ...env, [variable]: '' },
    });
    assert.equal(fromFlag.status, 2, flag);
    assert.ok(fromFlag.stderr.includes(flag), fromFlag.stderr);
  }
});

test("--help shows each flag's range", () => {
  const help = spawnSync(process.execPath, [SERVER_JS, '--help'], { encoding: 'utf8' });
  assert.equal(help.status, 0);
  for (const range of ['0..65535', '1..1024', '10000..16777216']) {
    assert.ok(help.stdout.includes(range), `${range} in ${help.stdout}`);
  }
});
