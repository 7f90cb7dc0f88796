// Flags and environment variables (contract, "Running a server"), and what a bad one does to the process.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';

import { ConfigError, parseConfig } from '../config.js';
import { SERVER_JS } from './helpers.js';

test('the first bad flag on the command line is the one reported, before any variable', () => {
  const reported = (args, env) => {
    try {
      parseConfig(args, env);
    } catch (error) {
      assert.ok(error instanceof ConfigError, String(error));
      return error.message;
    }
    assert.fail(`no error for ${args.join(' ')}`);
  };
  assert.match(reported(['--workers', '0', '--port', 'x'], { MAX_USERS: '1' }), /^--workers: /);
  assert.match(reported(['--port', 'x', '--workers', '0'], {}), /^--port: /);
});

test('defaults', () => {
  assert.deepEqual(parseConfig([], {}), {
    help: false,
    host: '127.0.0.1',
    port: 3000,
    workers: 1,
    maxUsers: 1_000_000,
    log: false,
    headerTimeoutMs: 10_000,
    bodyTimeoutMs: 10_000,
    shutdownTimeoutMs: 10_000,
  });
});

test('flags, in both forms, win over the environment', () => {
  const env = { HOST: '0.0.0.0', PORT: '8080', WORKERS: '4', MAX_USERS: '20000', BODY_TIMEOUT_MS: '500' };
  const fromEnv = parseConfig([], env);
  assert.equal(fromEnv.host, '0.0.0.0');
  assert.equal(fromEnv.port, 8080);
  assert.equal(fromEnv.workers, 4);
  assert.equal(fromEnv.maxUsers, 20_000);
  assert.equal(fromEnv.bodyTimeoutMs, 500);
  const config = parseConfig(['--host', '::1', '--port=0', '--workers', '2', '--max-users=16777216', '--log'], env);
  assert.equal(config.host, '::1');
  assert.equal(config.port, 0);
  assert.equal(config.workers, 2);
  assert.equal(config.maxUsers, 16_777_216);
  assert.equal(config.log, true);
});

test('bad values are ConfigErrors', () => {
  const bad = [
    [['--port', '65536']],
    [['--port', '-1']],
    [['--port', '1e3']],
    [['--port', ' 80']],
    [['--port']],
    [['--port', '1', '--port', '2']],
    [['--workers', '0']],
    [['--max-users', '9999']],
    [['--max-users', '16777217']],
    [['--host', 'localhost']],
    [['--host=']],
    [['--nope']],
    [['--log=yes']],
    [['--help=1']],
    [['serve']],
    [['--']],
    [['--', '--port', '1']],
    [['-p', '1']],
    [['--port', '-1']],
    [[], { PORT: 'abc' }],
    [[], { MAX_USERS: '1' }],
    [[], { WORKERS: 'many' }],
  ];
  for (const [args, env = {}] of bad) {
    assert.throws(() => parseConfig(args, env), ConfigError, JSON.stringify([args, env]));
  }
});

test('a bad value is worded as in every twin, a negative number included', () => {
  const message = (args, env = {}) => {
    try {
      parseConfig(args, env);
    } catch (error) {
      return error.message;
    }
    return assert.fail(`no error for ${args.join(' ')}`);
  };
  assert.equal(message(['--port', '-1']), "--port: '-1' is not a number");
  assert.equal(message(['--port', 'abc']), "--port: 'abc' is not a number");
  assert.equal(message(['--port', '70000']), '--port: 70000 is out of range (0..65535)');
  assert.equal(message([], { PORT: 'abc' }), "PORT: 'abc' is not a number");
});

test('a bad flag exits 2 with one line on stderr and no stack trace', () => {
  // `--port -1` and `--host --port 1`: util.parseArgs calls the value ambiguous, in a message of three lines.
  const cases = [
    ['--port', 'x'],
    ['--bogus'],
    ['--max-users', '5'],
    ['--workers', '0'],
    ['--port', '-1'],
    ['--host', '--port', '1'],
  ];
  for (const args of cases) {
    const run = spawnSync(process.execPath, [SERVER_JS, ...args], { encoding: 'utf8', timeout: 10_000 });
    assert.equal(run.status, 2, args.join(' '));
    assert.equal(run.stdout, '', args.join(' '));
    assert.match(run.stderr, /^error: [^\n]+\n$/, args.join(' '));
    assert.doesNotMatch(run.stderr, /\bat /);
  }
  const env = spawnSync(process.execPath, [SERVER_JS], { encoding: 'utf8', env: { ...process.env, PORT: 'x' } });
  assert.equal(env.status, 2);
  assert.match(env.stderr, /^error: PORT[^\n]+\n$/);
});
