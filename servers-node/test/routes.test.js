import { test } from 'node:test';
import assert from 'node:assert/strict';

import { pathOf } from '../routes.js';

test('pathOf: the raw path, query dropped, absolute-form reduced, nothing decoded or normalised', () => {
  const cases = {
    '/users/7': '/users/7',
    '/users/7?x=1': '/users/7',
    '/users/7?': '/users/7',
    '/?a': '/',
    '/%75sers/1': '/%75sers/1',
    '/users/../users/1': '/users/../users/1',
    '//': '//',
    'http://127.0.0.1/users/7': '/users/7',
    'http://example.com:8080/users/8?z=1': '/users/8',
    'http://127.0.0.1/': '/',
    'http://127.0.0.1': '/',
    'http://127.0.0.1?x=/users/1': '/',
    '*': '*',
  };
  for (const [target, path] of Object.entries(cases)) {
    assert.equal(pathOf(target), path, target);
  }
});
