// contract/json-bodies.json, the JSON bodies every twin's scanner and writer are tested on, checked here against the
// reference itself: JSON.parse and JSON.stringify must do what the tables say, so that the other twins' tests, which
// read the same file, test what the contract means; and parseNewUser must take as JSON exactly the bodies JSON.parse
// takes as an object.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

import { ApiError } from '../error.js';
import { parseNewUser } from '../validation.js';
import { bytesOf } from './contract-runner.js';

const BODIES_URL = new URL('../../contract/json-bodies.json', import.meta.url);
const bodies = JSON.parse(readFileSync(BODIES_URL, 'utf8'));

const isObject = (value) => typeof value === 'object' && value !== null && !Array.isArray(value);

/** JSON.parse's value for `text`, or `undefined` where it throws. */
function parsed(text) {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const INVALID_JSON = { ok: false, error: ApiError.INVALID_JSON };

test('json-bodies: the objects are objects to JSON.parse, and JSON to parseNewUser', () => {
  for (const c of bodies.objects.cases) {
    const body = bytesOf(c.body);
    assert.ok(isObject(parsed(body.toString('utf8'))), c.case);
    assert.notDeepEqual(parseNewUser(body), INVALID_JSON, c.case);
  }
});

test('json-bodies: the refused bodies are no object to JSON.parse, and invalid json to parseNewUser', () => {
  for (const c of bodies.refused.cases) {
    const body = bytesOf(c.body);
    assert.ok(!isObject(parsed(body.toString('utf8'))), c.case);
    assert.deepEqual(parseNewUser(body), INVALID_JSON, c.case);
  }
});

test('json-bodies: JSON.parse keeps the last top-level name and email', () => {
  // A member as the file names it, with a string's raw text decoded, and as JSON.parse's object holds it.
  const expected = (m) =>
    m.kind === 'string' ? { kind: 'string', value: JSON.parse(`"${m.raw}"`) } : { kind: m.kind };
  const member = (object, key) => {
    if (!Object.hasOwn(object, key)) return { kind: 'absent' };
    return typeof object[key] === 'string' ? { kind: 'string', value: object[key] } : { kind: 'other' };
  };
  for (const c of bodies.last_wins.cases) {
    const object = JSON.parse(bytesOf(c.body).toString('utf8'));
    assert.deepEqual(member(object, 'name'), expected(c.name), `${c.case}: name`);
    assert.deepEqual(member(object, 'email'), expected(c.email), `${c.case}: email`);
  }
});

test('json-bodies: strings decode as JSON.parse decodes them', () => {
  for (const c of bodies.strings.cases) {
    const value = JSON.parse(`"${c.raw}"`);
    if (c.decoded === null) assert.equal(value.isWellFormed(), false, c.case);
    else assert.equal(value, c.decoded, c.case);
  }
});

test('json-bodies: strings are written as JSON.stringify writes them', () => {
  for (const c of bodies.escaped.cases) assert.equal(JSON.stringify(c.text), c.written, c.case);
});
