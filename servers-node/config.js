// Command-line flags and environment variables, exactly as the contract's table has them. A flag wins over its
// variable; anything unknown, repeated, malformed or out of range is a `ConfigError`, which server.js turns into
// one line on stderr and exit status 2.

import net from 'node:net';

import { BODY_TIMEOUT_MS, HEADER_TIMEOUT_MS, SHUTDOWN_TIMEOUT_MS } from './transport.js';
import { ID_BLOCK, SEED_USERS } from './store.js';

export class ConfigError extends Error {}

export const USAGE = `usage: node server.js [--host ADDR] [--port N] [--workers N] [--max-users N] [--log]
  --host ADDR      address to bind (env HOST, default 127.0.0.1)
  --port N         port to bind, 0..65535, 0 for any free port (env PORT, default 3000)
  --workers N      1..1024: 1 = one process; N > 1 = cluster with N workers (env WORKERS, default 1)
  --max-users N    store capacity, seed included, per worker (env MAX_USERS, ${SEED_USERS}..${ID_BLOCK}, default 1000000)
  --log            one line per request on stderr, e.g. 2026-11-30T19:00:00.123Z GET /users/500 200 0.123ms
For tests only (env HEADER_TIMEOUT_MS, BODY_TIMEOUT_MS, SHUTDOWN_TIMEOUT_MS; default 10000 each):
  --header-timeout-ms N    time for a complete request head, and for an idle keep-alive connection
  --body-timeout-ms N      time for a complete request body after its head
  --shutdown-timeout-ms N  how long SIGTERM/SIGINT waits for requests in progress`;

/** Every option: flag name → [environment variable, parser]; `--log` is the one flag without a value. */
const OPTIONS = {
  host: ['HOST', parseHost],
  port: ['PORT', (text, what) => parseInteger(text, what, 0, 65_535)],
  workers: ['WORKERS', (text, what) => parseInteger(text, what, 1, 1024)],
  'max-users': ['MAX_USERS', (text, what) => parseInteger(text, what, SEED_USERS, ID_BLOCK)],
  'header-timeout-ms': ['HEADER_TIMEOUT_MS', (text, what) => parseInteger(text, what, 1, 3_600_000)],
  'body-timeout-ms': ['BODY_TIMEOUT_MS', (text, what) => parseInteger(text, what, 1, 3_600_000)],
  'shutdown-timeout-ms': ['SHUTDOWN_TIMEOUT_MS', (text, what) => parseInteger(text, what, 0, 3_600_000)],
};

const DEFAULTS = {
  host: '127.0.0.1',
  port: 3000,
  workers: 1,
  'max-users': 1_000_000,
  'header-timeout-ms': HEADER_TIMEOUT_MS,
  'body-timeout-ms': BODY_TIMEOUT_MS,
  'shutdown-timeout-ms': SHUTDOWN_TIMEOUT_MS,
};

/**
 * @param {string[]} args the arguments after the script name.
 * @param {Record<string, string | undefined>} env
 * @returns {{help: boolean, host: string, port: number, workers: number, maxUsers: number, log: boolean,
 *   headerTimeoutMs: number, bodyTimeoutMs: number, shutdownTimeoutMs: number}}
 */
export function parseConfig(args, env) {
  const flags = new Map();
  let log = false;
  let help = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--help' || arg === '-h') {
      help = true;
      continue;
    }
    if (arg === '--log') {
      log = true;
      continue;
    }
    if (!arg.startsWith('--')) {
      throw new ConfigError(`unexpected argument '${arg}' (try --help)`);
    }
    const equals = arg.indexOf('=');
    const name = equals === -1 ? arg.slice(2) : arg.slice(2, equals);
    if (name === 'log') {
      throw new ConfigError('--log takes no value');
    }
    if (!Object.hasOwn(OPTIONS, name)) {
      throw new ConfigError(`unknown flag '--${name}' (try --help)`);
    }
    if (flags.has(name)) {
      throw new ConfigError(`--${name} given more than once`);
    }
    let value;
    if (equals !== -1) {
      value = arg.slice(equals + 1);
    } else if (i + 1 < args.length) {
      i += 1;
      value = args[i];
    } else {
      throw new ConfigError(`--${name} needs a value`);
    }
    flags.set(name, OPTIONS[name][1](value, `--${name}`));
  }

  const settings = {};
  for (const [name, [variable, parse]] of Object.entries(OPTIONS)) {
    if (flags.has(name)) {
      settings[name] = flags.get(name);
    } else if (env[variable] !== undefined && env[variable] !== '') {
      settings[name] = parse(env[variable], variable);
    } else {
      settings[name] = DEFAULTS[name];
    }
  }
  return {
    help,
    host: settings.host,
    port: settings.port,
    workers: settings.workers,
    maxUsers: settings['max-users'],
    log,
    headerTimeoutMs: settings['header-timeout-ms'],
    bodyTimeoutMs: settings['body-timeout-ms'],
    shutdownTimeoutMs: settings['shutdown-timeout-ms'],
  };
}

/** A plain decimal integer in [min, max]: no sign, no exponent, no hex, no blanks (unlike `Number()`). */
function parseInteger(text, what, min, max) {
  if (!/^[0-9]+$/.test(text)) {
    throw new ConfigError(`${what}: '${text}' is not a number`);
  }
  const value = Number(text);
  if (value < min || value > max) {
    throw new ConfigError(`${what}: ${text} is out of range (${min}..${max})`);
  }
  return value;
}

/**
 * An IP address, v4 or v6. The Rust server also resolves a host name such as `localhost`; this one keeps to
 * addresses (a name would need a resolver before listening), a difference the README lists.
 */
function parseHost(text, what) {
  if (net.isIP(text) === 0) {
    throw new ConfigError(`${what}: '${text}' is not an IP address`);
  }
  return text;
}
