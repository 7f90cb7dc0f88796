// POST /users rules 1 and 3 to 6, one table per rule; each row names its case in the failure message.

import { test } from 'node:test';
import assert from 'node:assert/strict';

import { ApiError } from '../error.js';
import { codePointsExceed, isJsonMediaType, parseNewUser } from '../validation.js';

const body = (text) => Buffer.from(text, 'utf8');

test('a valid body gives the two strings, exactly as sent', () => {
  assert.deepEqual(parseNewUser(body('{"name":"  Ann ","email":"ann@example.com","id":7}')), {
    ok: true,
    name: '  Ann ',
    email: 'ann@example.com',
  });
});

test('rule 3: not UTF-8, not JSON, or not an object is invalid json', () => {
  const cases = {
    empty: Buffer.alloc(0),
    bom: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), body('{"name":"A","email":"a@b"}')]),
    'invalid byte': Buffer.concat([body('{"name":"A'), Buffer.from([0xff]), body('","email":"a@b"}')]),
    'overlong encoding': Buffer.concat([body('{"name":"'), Buffer.from([0xc0, 0xaf]), body('","email":"a@b"}')]),
    'encoded surrogate': Buffer.concat([body('{"name":"'), Buffer.from([0xed, 0xa0, 0x80]), body('","email":"a@b"}')]),
    'invalid byte in an unknown value': Buffer.concat([
      body('{"name":"A","email":"a@b","x":"'),
      Buffer.from([0xc3]),
      body('"}'),
    ]),
    array: body('[{"name":"A","email":"a@b"}]'),
    null: body('null'),
    string: body('"x"'),
    number: body('1'),
    'trailing garbage': body('{"name":"A","email":"a@b"} x'),
    'two values': body('{}{}'),
    'single quotes': body("{'name':'A'}"),
    'trailing comma': body('{"name":"A",}'),
    NaN: body('{"n":NaN}'),
  };
  for (const [name, bytes] of Object.entries(cases)) {
    assert.deepEqual(parseNewUser(bytes), { ok: false, error: ApiError.INVALID_JSON }, name);
  }
});

test('rule 3: what JSON.parse accepts is accepted, however deep or large', () => {
  const cases = {
    'deep arrays': `{"x":${'['.repeat(32_000)}${']'.repeat(32_000)},"name":"A","email":"a@b"}`,
    'huge numbers': '{"n":1e400,"k":123456789012345678901234567890,"name":"A","email":"a@b"}',
    'surrounding whitespace': ' \r\n\t{"name":"A","email":"a@b"}\n ',
    'lone surrogate in an unknown key and value': '{"\\udc00":"\\ud800","name":"A","email":"a@b"}',
    'duplicate keys, the last wins': '{"name":"\\ud800","name":1e400,"email":"x","name":"A","email":"a@b"}',
  };
  for (const [name, text] of Object.entries(cases)) {
    assert.deepEqual(parseNewUser(body(text)), { ok: true, name: 'A', email: 'a@b' }, name);
  }
});

test('rule 4: a final name or email with an unpaired surrogate is invalid json, before rule 5', () => {
  const cases = {
    'lone high surrogate': '{"name":"\\ud800","email":"a@b"}',
    'lone low surrogate': '{"name":"a\\udc00b","email":"a@b"}',
    reversed: '{"name":"\\udc00\\ud800","email":"a@b"}',
    'in the email': '{"name":"A","email":"a@\\ud83d"}',
    'email checked before the empty name': '{"name":"","email":"\\udfff"}',
    'name without email': '{"name":"\\ud800"}',
  };
  for (const [name, text] of Object.entries(cases)) {
    assert.deepEqual(parseNewUser(body(text)), { ok: false, error: ApiError.INVALID_JSON }, name);
  }
});

test('rule 5: name must be a string of 1 to 200 code points', () => {
  const n = (count, unit = 'n') => unit.repeat(count);
  const cases = [
    ['missing', '{"email":"a@b"}', 'name required'],
    ['null', '{"name":null,"email":"a@b"}', 'name required'],
    ['number', '{"name":5,"email":"a@b"}', 'name required'],
    ['array', '{"name":["A"],"email":"a@b"}', 'name required'],
    ['empty', '{"name":"","email":"no-at"}', 'name required'],
    ['inherited from __proto__', '{"__proto__":{"name":"X"},"email":"a@b"}', 'name required'],
    ['201 code points', `{"name":"${n(201)}","email":"a@b"}`, 'name too long'],
    ['201 astral code points', `{"name":"${n(201, '😀')}","email":"a@b"}`, 'name too long'],
  ];
  for (const [name, text, message] of cases) {
    assert.deepEqual(parseNewUser(body(text)), { ok: false, error: { status: 400, message } }, name);
  }
  // 200 emoji are 400 UTF-16 code units but 200 code points: allowed.
  assert.equal(parseNewUser(body(`{"name":"${n(200, '😀')}","email":"a@b"}`)).ok, true);
  assert.equal(parseNewUser(body(`{"name":"${n(200)}","email":"a@b"}`)).ok, true);
});

test('rule 6: email must be a string of at most 254 code points with an @', () => {
  const cases = {
    missing: '{"name":"A"}',
    'no at': '{"name":"A","email":"ab"}',
    'fullwidth at': '{"name":"A","email":"a＠b"}',
    empty: '{"name":"A","email":""}',
    number: '{"name":"A","email":5}',
    '255 code points': `{"name":"A","email":"a@${'é'.repeat(253)}"}`,
    'last duplicate not a string': '{"name":"A","email":"a@b","email":5}',
  };
  for (const [name, text] of Object.entries(cases)) {
    assert.deepEqual(parseNewUser(body(text)), { ok: false, error: ApiError.INVALID_EMAIL }, name);
  }
  assert.equal(parseNewUser(body(`{"name":"A","email":"a@${'é'.repeat(252)}"}`)).ok, true);
  assert.equal(parseNewUser(body('{"name":"A","email":"@"}')).ok, true);
});

test('codePointsExceed counts code points, not UTF-16 units', () => {
  assert.equal(codePointsExceed('😀😀', 2), false);
  assert.equal(codePointsExceed('😀😀😀', 2), true);
  assert.equal(codePointsExceed('abc', 3), false);
  assert.equal(codePointsExceed('abcd', 3), true);
});

test('rule 1: the media type is application/json, whatever the case, parameters, spaces and tabs', () => {
  const accepted = [
    'application/json',
    'Application/JSON',
    'application/json; charset=utf-8',
    ' \tapplication/json \t ;x',
    'application/json;',
  ];
  const refused = [
    undefined,
    '',
    'text/plain',
    'application/jsonx',
    'application/json-patch+json',
    'application',
    'application/json, text/plain',
    'application/json\u00a0',
    '\u00a0application/json',
  ];
  for (const value of accepted) assert.equal(isJsonMediaType(value), true, JSON.stringify(value));
  for (const value of refused) assert.equal(isJsonMediaType(value), false, JSON.stringify(value));
});
