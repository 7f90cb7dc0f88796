// Command-line flags and environment variables, exactly as the contract's table has them. Node's own
// `util.parseArgs` reads the flags; the code here adds what it has no notion of: the environment variable behind
// each flag, and the range of each value. A flag wins over its variable; anything unknown, repeated, malformed or out
// of range is a `ConfigError`, which server.js turns into one line on stderr and exit status 2.

import net from 'node:net';
import { parseArgs } from 'node:util';

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

/** What `util.parseArgs` is told: every option takes a value except `--log` and `--help` (`-h`). */
const PARSE_ARGS_OPTIONS = {
  ...Object.fromEntries(Object.keys(OPTIONS).map((name) => [name, { type: 'string' }])),
  log: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
};

/**
 * @param {string[]} args the arguments after the script name.
 * @param {Record<string, string | undefined>} env
 * @returns {{help: boolean, host: string, port: number, workers: number, maxUsers: number, log: boolean,
 *   headerTimeoutMs: number, bodyTimeoutMs: number, shutdownTimeoutMs: number}}
 */
export function parseConfig(args, env) {
  const { flags, log, help } = parseFlags(args);
  const settings = {};
  for (const [name, [variable, parse]] of Object.entries(OPTIONS)) {
    if (flags.has(name)) {
      settings[name] = flags.get(name);
    } else if (env[variable] !== undefined && env[variable] !== '') {
      // The environment fallback: a variable counts only when its flag is absent, and an empty one is unset.
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

/**
 * The flags, read by `util.parseArgs` in strict mode: it refuses an unknown flag, a missing value, a value given to
 * `--log` or `--help`, and any argument that is not a flag, each with an error whose `code` starts with
 * `ERR_PARSE_ARGS_`. It does not refuse a flag given twice (the last would win) or a lone `--` (which ends the
 * flags); the contract does, so the tokens it returns are checked for both. Each value is checked in command-line
 * order, so the first bad flag is the one reported.
 * @returns {{flags: Map<string, string | number>, log: boolean, help: boolean}}
 */
function parseFlags(args) {
  let parsed;
  try {
    parsed = parseArgs({
      args: joinDashValues(args),
      options: PARSE_ARGS_OPTIONS,
      strict: true,
      allowPositionals: false,
      tokens: true,
    });
  } catch (error) {
    if (error.code?.startsWith('ERR_PARSE_ARGS_')) {
      // Some of its messages go on with a tip on further lines; the contract wants one line, so keep the first.
      throw new ConfigError(`${error.message.split('\n')[0]} (try --help)`);
    }
    throw error;
  }
  const flags = new Map();
  for (const token of parsed.tokens) {
    if (token.kind === 'option-terminator') {
      throw new ConfigError("unexpected argument '--' (try --help)");
    }
    if (!Object.hasOwn(OPTIONS, token.name)) {
      continue; // `--log` and `--help`, which may be repeated.
    }
    if (flags.has(token.name)) {
      throw new ConfigError(`--${token.name} given more than once`);
    }
    flags.set(token.name, OPTIONS[token.name][1](token.value, `--${token.name}`));
  }
  return { flags, log: parsed.values.log === true, help: parsed.values.help === true };
}

/**
 * `--port -1` as `--port=-1`: parseArgs takes a value that starts with a dash for a flag and calls the option
 * "ambiguous", where the other twins say that `-1` is not a number. A value that starts with `--` stays a flag.
 * @param {string[]} args
 */
function joinDashValues(args) {
  const joined = [];
  for (let i = 0; i < args.length; i += 1) {
    const name = args[i].startsWith('--') ? args[i].slice(2) : null;
    const next = args[i + 1];
    if (name !== null && Object.hasOwn(OPTIONS, name) && next?.startsWith('-') && !next.startsWith('--')) {
      joined.push(`${args[i]}=${next}`);
      i += 1;
    } else {
      joined.push(args[i]);
    }
  }
  return joined;
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
