// fairpair's Node reference server: the users API on `node:http` alone, with a `Map` for a store and
// `JSON.stringify` for every response. No framework, no dependencies.
//
// Run it with `node server.js` (or `npm start`), then try `curl http://127.0.0.1:3000/users/500`.
// Flags and environment variables (the contract's table; `node server.js --help` lists them):
//   --host / HOST (127.0.0.1), --port / PORT (3000; 0 = any free port), --workers / WORKERS (1; N > 1 runs a
//   `cluster`: a primary and N worker processes), --max-users / MAX_USERS (1,000,000; 10,000..16,777,216, per worker), --log (per-request
//   lines on stderr). Test-only: --header-timeout-ms, --body-timeout-ms, --shutdown-timeout-ms (10,000 each).
//
// The API (contract/CONTRACT.md has every rule):
//   GET  /users/{id}  200 the user, 404 {"error":"not found"}
//   POST /users       201 the new user with Location; 400, 408, 413, 415 or 507 with {"error":"…"}
//   GET  /health      200 {"status":"ok"}
//   GET  /            200 Hello, World! (text/plain)
//   HEAD on each GET route; another method on a known path is 405 with Allow.
//
// Code tour, the same files as the Go and Rust servers: this file (binding with the listen backlog, start-up line,
// signals, cluster) → config.js (flags) → transport.js (the server, `checkHead`, the request entry, `closeGracefully`)
// → routes.js (routing and handlers) → request_log.js (the --log line) → error.js (every error answer) → body.js
// (reading a body within limits) → validation.js (POST /users rules) → store.js (the Map). The tests are in test/,
// contract/cases.json is the contract as data.
//
// SIGTERM or SIGINT: stop accepting, finish the requests in progress (10 s at most), exit 0. SIGHUP, SIGUSR1 and
// SIGUSR2 are ignored (one line on stderr with --log); SIGUSR1 in particular never opens Node's inspector.

import cluster from 'node:cluster';
import process from 'node:process';

import { closeGracefully, createServer } from './transport.js';
import { ConfigError, USAGE, parseConfig } from './config.js';
import { SEED_USERS } from './store.js';

/** Signals that would otherwise end the process (SIGHUP, SIGUSR2) or open the inspector on port 9229 (SIGUSR1). */
const IGNORED_SIGNALS = ['SIGHUP', 'SIGUSR1', 'SIGUSR2'];

function main() {
  // First thing, before flags are even read: a listener replaces the default action. For SIGUSR1 that default is
  // Node's own handler, installed at start-up, which starts the inspector (a debugger that lets any local user run
  // code in the server); libuv's handler for a JS listener takes its place. Until this line runs (while the modules
  // load, a few milliseconds) the signal would still open the inspector: Node 20 has no flag to refuse it
  // (`--disable-sigusr1` came with Node 22.14).
  let log = false;
  for (const signal of IGNORED_SIGNALS) {
    process.on(signal, () => {
      if (log) process.stderr.write(`ignored ${signal}\n`);
    });
  }
  let config;
  try {
    config = parseConfig(process.argv.slice(2), process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`error: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  log = config.log;
  if (config.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }

  if (config.workers > 1 && cluster.isPrimary) {
    runPrimary(config);
  } else {
    runServer(config);
  }
}

/** The listen backlog every fairpair server asks for (CONTRACT.md, Running a server). */
const LISTEN_BACKLOG = 1024;

/** One process serving requests: the whole server with `--workers 1`, or one cluster worker. */
function runServer(config) {
  const worker = cluster.isWorker ? cluster.worker : null;
  const server = createServer({
    maxUsers: config.maxUsers,
    workerId: worker === null ? 1 : worker.id,
    headerTimeoutMs: config.headerTimeoutMs,
    bodyTimeoutMs: config.bodyTimeoutMs,
    log: config.log,
  });

  const onListenError = (error) => {
    const message = `cannot listen on ${config.host}:${config.port}: ${error.message}`;
    if (worker === null) {
      process.stderr.write(`error: ${message}\n`);
      process.exit(1);
    }
    // The primary prints it once, however many workers fail the same way.
    process.send({ type: 'listen-error', message }, () => process.exit(1));
  };
  server.once('error', onListenError);

  // An explicit backlog, so that a burst of 1,000 connects is absorbed (Node's default is 511); the kernel caps it
  // at net.core.somaxconn. In cluster mode the primary opens the socket and uses the workers' backlog.
  server.listen({ port: config.port, host: config.host, backlog: LISTEN_BACKLOG }, () => {
    // From now on an error (running out of file descriptors on accept, say) is logged, and the server goes on.
    server.off('error', onListenError);
    server.on('error', (error) => process.stderr.write(`server error: ${error.message}\n`));
    // In cluster mode the primary prints the start-up line once every worker listens.
    if (worker === null) {
      printListening(server.address(), config.workers);
    }
  });

  let closing = false;
  const shutdown = () => {
    if (closing) return;
    closing = true;
    closeGracefully(server, { timeoutMs: config.shutdownTimeoutMs }).then(() => process.exit(0));
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
}

/**
 * The cluster primary serves nothing itself: it starts the workers, prints the start-up line when all of them
 * listen, replaces a worker that dies, and on SIGTERM/SIGINT passes the signal on and waits for all of them.
 * Each worker has its own store and id block (store.js): the honest cost of `cluster`, see README.md.
 */
function runPrimary(config) {
  let listening = 0;
  let running = 0;
  let started = false;
  let stopping = false;

  cluster.on('fork', () => {
    running += 1;
  });

  cluster.on('listening', (_worker, address) => {
    listening += 1;
    if (!started && listening === config.workers) {
      started = true;
      printListening(address, config.workers);
    }
  });

  cluster.on('message', (_worker, message) => {
    if (message?.type === 'listen-error' && !stopping) {
      stopping = true;
      process.stderr.write(`error: ${message.message}\n`);
      for (const other of Object.values(cluster.workers)) other.process.kill('SIGKILL');
      process.exit(1);
    }
  });

  cluster.on('exit', (worker, code, signal) => {
    running -= 1;
    if (stopping) {
      if (running === 0) process.exit(0);
      return;
    }
    if (!started) {
      process.stderr.write(`error: worker ${worker.id} exited during start-up (${signal ?? `code ${code}`})\n`);
      stopping = true;
      for (const other of Object.values(cluster.workers)) other.process.kill('SIGKILL');
      process.exit(1);
    }
    // Its users are gone with it; the replacement starts from the seed, with a new id block (worker ids are never
    // reused), so no id is ever handed out twice.
    process.stderr.write(`worker ${worker.id} exited (${signal ?? `code ${code}`}); starting a replacement\n`);
    cluster.fork();
  });

  const shutdown = (signal) => {
    if (stopping) return;
    stopping = true;
    for (const worker of Object.values(cluster.workers)) worker.process.kill(signal);
    // Each worker keeps its own deadline; this one only guards against a worker that hangs past it.
    setTimeout(() => {
      for (const worker of Object.values(cluster.workers)) worker.process.kill('SIGKILL');
    }, config.shutdownTimeoutMs + 2_000).unref();
    if (running === 0) process.exit(0);
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));

  for (let i = 0; i < config.workers; i++) {
    cluster.fork();
  }
}

function printListening(address, workers) {
  const host = address.family === 'IPv6' || address.addressType === 6 ? `[${address.address}]` : address.address;
  const plural = workers === 1 ? 'worker' : 'workers';
  process.stdout.write(`listening on http://${host}:${address.port} (${SEED_USERS} users, ${workers} ${plural})\n`);
}

main();
