// Shared test helpers: in-process servers on port 0, raw-socket exchanges, child processes of server.js, and
// visible skips for tests that need something a machine may lack (root, a program, CPUs).

import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { accessSync, constants, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { createServer } from '../app.js';
import { parseResponse } from './contract-runner.js';

export const SERVER_JS = fileURLToPath(new URL('../server.js', import.meta.url));

/**
 * A loopback address of its own for tests that check that a closed port refuses connections: test files run in
 * parallel, and another file's server on 127.0.0.1 could be given the port just freed.
 */
export const QUIET_HOST = '127.0.0.2';

/** Starts `createServer(options)` on 127.0.0.1 (or `host`), port 0. Returns the server and its port. */
export async function startServer(options = {}, host = '127.0.0.1') {
  const server = createServer(options);
  server.listen(0, host);
  await once(server, 'listening');
  return { server, port: server.address().port };
}

/** Closes an in-process server, connections included. */
export async function stopServer(server) {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}

/**
 * Spawns `node server.js ...args` and waits for its start-up line.
 * @returns {Promise<{child: import('node:child_process').ChildProcess, port: number, line: string, stderr: () => string}>}
 */
export async function spawnServer(args, env = {}) {
  const child = spawn(process.execPath, [SERVER_JS, '--port', '0', ...args], {
    env: { ...process.env, HOST: '', PORT: '', WORKERS: '', MAX_USERS: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const line = await new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      const end = stdout.indexOf('\n');
      if (end !== -1) resolve(stdout.slice(0, end));
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code} before listening: ${stderr}`)));
  });
  const port = Number(/:(\d+) \(/.exec(line)[1]);
  return { child, port, line, stdout: () => stdout, stderr: () => stderr };
}

/** Waits for a child process to exit; returns its exit code (or signal name). */
export async function exitOf(child) {
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode ?? child.signalCode;
  const [code, signal] = await once(child, 'exit');
  return code ?? signal;
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A raw client connection that reads responses one by one (keep-alive, pipelining, half-sent requests).
 */
export class RawConnection {
  static async open(port, host = '127.0.0.1') {
    const socket = net.connect({ host, port });
    await once(socket, 'connect');
    return new RawConnection(socket);
  }

  constructor(socket) {
    this.socket = socket;
    this.buffer = Buffer.alloc(0);
    this.ended = false;
    this.error = null;
    this.waiters = [];
    this.closed = new Promise((resolve) => socket.once('close', resolve));
    socket.on('data', (chunk) => {
      this.buffer = Buffer.concat([this.buffer, chunk]);
      this.#wake();
    });
    socket.on('end', () => {
      this.ended = true;
      this.#wake();
    });
    socket.on('close', () => {
      this.ended = true;
      this.#wake();
    });
    socket.on('error', (error) => {
      this.error = error;
    });
  }

  #wake() {
    for (const wake of this.waiters.splice(0)) wake();
  }

  write(bytes) {
    this.socket.write(bytes);
  }

  /** The next response, or `null` if the server closed the connection first. Rejects after `timeoutMs`. */
  async response({ head = false, timeoutMs = 5000 } = {}) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const response = parseResponse(this.buffer, { headRequest: head, ended: this.ended });
      if (response !== null) {
        this.buffer = this.buffer.subarray(responseLength(this.buffer, response, head));
        return response;
      }
      if (this.ended) return null;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error('no response in time');
      await new Promise((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  destroy() {
    this.socket.destroy();
  }
}

/** The bytes one parsed response took (responses here always carry a Content-Length). */
function responseLength(buffer, response, head) {
  const headEnd = buffer.indexOf('\r\n\r\n') + 4;
  return head ? headEnd : headEnd + response.body.length;
}

/** A POST /users request with a JSON body. */
export function postUser(name, email, extraHeaders = '') {
  const body = JSON.stringify({ name, email });
  return (
    `POST /users HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n${extraHeaders}` +
    `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
  );
}

/** Milliseconds since `start` (a `performance.now()` value). */
export const since = (start) => performance.now() - start;

// Visible skips, the same as crates/testkit on the Rust side (its header says why). A test that needs something a
// machine may lack asks first:
//
//   test('pages render in chromium', (t) => {
//     if (!requireOrSkip(t, 'pages render in chromium', Need.tool('chromium'))) return;
//     ...
//   });
//
// A skip prints `skipped: <test>: <reason>` on stderr, calls `t.skip(reason)`, and, when FAIRPAIR_SKIP_DIR names a
// directory, writes a new file there holding one line `<need-key>\t<test>\t<reason>`, which scripts/test lists at the
// end (and fails on in CI when .ci/provides says CI provides that need).

/**
 * What a test needs from the machine: `Need.root`, `Need.tool('go')`, `Need.cpus(2)`. Each has its `key` (`root`,
 * `tool:<name>`, `cpus:<n>`, as in .ci/provides) and `unmet()`: null when the machine meets it, otherwise why not.
 */
export const Need = Object.freeze({
  root: Object.freeze({
    key: 'root',
    unmet: () => (process.getuid() === 0 ? null : `needs root, runs as user id ${process.getuid()}`),
  }),
  tool: (name) =>
    Object.freeze({
      key: `tool:${name}`,
      unmet: () => (toolPath(name) === null ? `needs \`${name}\` on PATH, not found there` : null),
    }),
  cpus: (n) =>
    Object.freeze({
      key: `cpus:${n}`,
      unmet: () => {
        // availableParallelism honours this process's CPU affinity, as the Rust side's count does.
        const have = os.availableParallelism();
        return have >= n ? null : `needs ${n} CPUs, this process may use ${have}`;
      },
    }),
});

/** The program `name` as found on PATH (an executable file), or null. */
export function toolPath(name) {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (dir === '') continue;
    const candidate = path.join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // Not here: try the next directory.
    }
  }
  return null;
}

/** True when `need` is met. Otherwise records the skip of `test`, calls `t.skip`, and returns false. */
export function requireOrSkip(t, test, need) {
  const reason = need.unmet();
  if (reason === null) return true;
  skip(t, test, need, reason);
  return false;
}

/** Records that `test` does not run for want of `need`, for a reason of the caller's own, and calls `t.skip`. */
export function skip(t, test, need, reason) {
  process.stderr.write(`skipped: ${test}: ${reason}\n`);
  const dir = process.env.FAIRPAIR_SKIP_DIR;
  if (dir) recordSkip(dir, test, need, reason);
  t.skip(reason);
}

/** The record of one skip: one line of three tab-separated fields, tabs and line breaks inside them flattened. */
export function skipLine(test, need, reason) {
  const flat = (s) => String(s).replace(/[\t\r\n]/g, ' ');
  return `${need.key}\t${flat(test)}\t${flat(reason)}\n`;
}

let nextSkip = 0;

/** Writes the record into a new file in `dir` (created if needed), never appending to a shared one; returns its path. */
export function recordSkip(dir, test, need, reason) {
  mkdirSync(dir, { recursive: true });
  for (;;) {
    const file = path.join(dir, `node-${process.pid}-${nextSkip++}.skip`);
    try {
      writeFileSync(file, skipLine(test, need, reason), { flag: 'wx' });
      return file;
    } catch (e) {
      // A process id reused earlier in the same run only costs a retry.
      if (e.code !== 'EEXIST') throw e;
    }
  }
}

/** The pids whose parent is `pid`, from /proc (these kernels have no task children file). */
export function childrenOf(pid) {
  const children = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // The second field is "(comm)", which may contain spaces: read after its closing parenthesis.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[1]) === pid) children.push(Number(name));
    } catch {
      // The process went away while we looked.
    }
  }
  return children;
}
