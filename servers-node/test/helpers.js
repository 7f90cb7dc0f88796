// Shared test helpers: in-process servers on port 0, raw-socket exchanges, and child processes of server.js.

import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import net from 'node:net';
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
