import { test } from 'node:test';
import assert from 'node:assert/strict';

import { UserStore, firstIdForWorker } from '../store.js';

test('the seed is 10,000 users, deterministic', () => {
  const store = new UserStore({ capacity: 1_000_000 });
  assert.equal(store.size, 10_000);
  assert.deepEqual(store.get(1), { id: 1, name: 'User 1', email: 'user1@example.com' });
  assert.deepEqual(store.get(500), { id: 500, name: 'User 500', email: 'user500@example.com' });
  assert.equal(JSON.stringify(store.get(10_000)), '{"id":10000,"name":"User 10000","email":"user10000@example.com"}');
  assert.equal(store.get(0), undefined);
  assert.equal(store.get(10_001), undefined);
});

test('new users get the next id, and nothing else', () => {
  const store = new UserStore({ capacity: 1_000_000 });
  const a = store.create('A', 'a@b');
  const b = store.create('B', 'b@c');
  assert.deepEqual(Object.keys(a), ['id', 'name', 'email']);
  assert.equal(a.id, 10_001);
  assert.equal(b.id, 10_002);
  assert.equal(store.get(10_002), b);
});

test('a full store creates nothing and says so', () => {
  const store = new UserStore({ capacity: 10_002 });
  assert.notEqual(store.create('A', 'a@b'), null);
  assert.notEqual(store.create('B', 'b@c'), null);
  assert.equal(store.create('C', 'c@d'), null);
  assert.equal(store.size, 10_002);
  assert.equal(new UserStore({ capacity: 10_000 }).create('A', 'a@b'), null);
});

test('cluster workers hand out ids from disjoint blocks', () => {
  assert.equal(firstIdForWorker(1), 10_001);
  assert.equal(firstIdForWorker(2), 10_000 + 16_777_216 + 1);
  assert.equal(firstIdForWorker(3), 10_000 + 2 * 16_777_216 + 1);
  const store = new UserStore({ capacity: 1_000_000, firstId: firstIdForWorker(2) });
  assert.equal(store.create('A', 'a@b').id, 16_787_217);
});
