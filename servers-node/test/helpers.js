// Shared test helpers: in-process servers on port 0, raw-socket exchanges, and child processes of server.js.

import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

import { createServer } from '../app.js';

export const SERVER_JS = fileURLToPath(new URL('../server.js', import.meta.url));

/** Starts `createServer(options)` on 127.0.0.1, port 0. Returns the server and its port. */
export async function startServer(options = {}) {
  const server = createServer(options);
  server.listen(0, '127.0.0.1');
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
