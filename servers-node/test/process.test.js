// `node server.js` as a child process: the start-up line, and SIGTERM/SIGINT draining.

import { test } from 'node:test';
import assert from 'node:assert/strict';

import { QUIET_HOST, RawConnection, exitOf, postUser, sleep, spawnServer } from './helpers.js';

test('the start-up line gives the real port, the seed and the workers', async () => {
  const { child, line, port } = await spawnServer([]);
  assert.match(line, /^listening on http:\/\/127\.0\.0\.1:\d+ \(10000 users, 1 worker\)$/);
  assert.ok(port > 0);
  const conn = await RawConnection.open(port);
  conn.write('GET /users/500 HTTP/1.1\r\nHost: x\r\n\r\n');
  assert.equal((await conn.response()).body.toString(), '{"id":500,"name":"User 500","email":"user500@example.com"}');
  conn.destroy();
  child.kill('SIGTERM');
  assert.equal(await exitOf(child), 0);
});

test('environment variables configure the server like flags', async () => {
  const { child, line } = await spawnServer([], { HOST: '127.0.0.1', MAX_USERS: '10000' });
  const port = Number(/:(\d+) /.exec(line)[1]);
  const conn = await RawConnection.open(port);
  conn.write(postUser('A', 'a@b'));
  assert.equal((await conn.response()).status, 507);
  conn.destroy();
  child.kill('SIGINT');
  assert.equal(await exitOf(child), 0);
});

test('SIGTERM: in-flight requests finish, idle connections close, new ones are refused, exit 0', async () => {
  const { child, port } = await spawnServer(['--log', '--host', QUIET_HOST]);
  const idle = await RawConnection.open(port, QUIET_HOST);
  idle.write('GET /health HTTP/1.1\r\nHost: x\r\n\r\n');
  assert.equal((await idle.response()).status, 200);
  // A request whose body is still on its way when the signal comes.
  const slow = await RawConnection.open(port, QUIET_HOST);
  const body = '{"name":"Slow","email":"s@t"}';
  slow.write(
    `POST /users HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
  );
  slow.write(body.slice(0, 10));
  await sleep(100);

  child.kill('SIGTERM');
  await idle.closed;
  // `http.Server.close()` closes idle connections just before the listening socket, in the same tick; a client in
  // another process can see the first and reconnect before the second. A moment later the port refuses.
  await sleep(100);
  await assert.rejects(RawConnection.open(port, QUIET_HOST), { code: 'ECONNREFUSED' });
  assert.equal(child.exitCode, null, 'the server waits for the request in progress');
  slow.write(body.slice(10));
  const response = await slow.response();
  assert.equal(response.status, 201);
  assert.equal(response.body.toString(), '{"id":10001,"name":"Slow","email":"s@t"}');
  assert.equal(await exitOf(child), 0);
});

test('the shutdown deadline closes what is left, and still exits 0', async () => {
  const { child, port } = await spawnServer(['--shutdown-timeout-ms', '300']);
  const stuck = await RawConnection.open(port);
  stuck.write('POST /users HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 50\r\n\r\n{');
  await sleep(100);
  child.kill('SIGTERM');
  await stuck.closed;
  assert.equal(await exitOf(child), 0);
});

test('a port in use is an error: exit 1 with one line, no stack trace', async () => {
  const { child, port } = await spawnServer([]);
  const { spawnSync } = await import('node:child_process');
  const { SERVER_JS } = await import('./helpers.js');
  const second = spawnSync(process.execPath, [SERVER_JS, '--port', String(port)], {
    encoding: 'utf8',
    timeout: 10_000,
  });
  assert.equal(second.status, 1);
  assert.match(second.stderr, /^error: cannot listen on 127\.0\.0\.1:\d+: [^\n]*EADDRINUSE[^\n]*\n$/);
  const cluster = spawnSync(process.execPath, [SERVER_JS, '--port', String(port), '--workers', '2'], {
    encoding: 'utf8',
    timeout: 10_000,
  });
  assert.equal(cluster.status, 1);
  assert.match(cluster.stderr, /^error: cannot listen on 127\.0\.0\.1:\d+: [^\n]*EADDRINUSE[^\n]*\n$/);
  child.kill('SIGTERM');
  assert.equal(await exitOf(child), 0);
});
