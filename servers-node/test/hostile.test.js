// The second hostile-input review's cases, for what a one-request case of contract/cases.json cannot say: what
// happens to the requests pipelined behind an answer, whether a connection stays open, what is (not) stored, and
// answers that come only at a time limit. Raw sockets against an in-process server whose limits are lowered to 300 ms.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';

import { UserStore } from '../store.js';
import { RawConnection, postUser, startServer, stopServer } from './helpers.js';

const LIMIT_MS = 300;
const store = new UserStore({ capacity: 1_000_000 });
let server;
let port;

before(async () => {
  ({ server, port } = await startServer({ store, headerTimeoutMs: LIMIT_MS, bodyTimeoutMs: LIMIT_MS }));
});
after(() => stopServer(server));

const GET = (path, extra = '') => `GET ${path} HTTP/1.1\r\nHost: x\r\n${extra}\r\n`;
const JSON_HEAD = 'POST /users HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n';

/** Sends `bytes` on a new connection; returns every response until the server closes it or goes quiet. */
async function exchangeAll(bytes, { quietMs = 200 } = {}) {
  const conn = await RawConnection.open(port);
  conn.write(bytes);
  const responses = [];
  for (;;) {
    let response;
    try {
      response = await conn.response({ timeoutMs: quietMs });
    } catch {
      conn.destroy();
      return { responses, closed: false };
    }
    if (response === null) return { responses, closed: true };
    responses.push(response);
  }
}

const statuses = ({ responses }) => responses.map((r) => r.status);

test('Connection: close: a request pipelined behind it gets nothing, and the connection closes', async () => {
  const outcome = await exchangeAll(GET('/health', 'Connection: close\r\n') + GET('/health'));
  assert.deepEqual(statuses(outcome), [200]);
  assert.equal(outcome.closed, true);
});

test('HTTP/1.0 without keep-alive: a request pipelined behind it gets nothing', async () => {
  const outcome = await exchangeAll('GET /health HTTP/1.0\r\n\r\n' + GET('/health'));
  assert.deepEqual(statuses(outcome), [200]);
  assert.equal(outcome.closed, true);
});

test('Connection: close behind a POST in progress: the POST is answered, nothing after it', async () => {
  const outcome = await exchangeAll(postUser('Closer', 'c@d', 'Connection: close\r\n') + GET('/health'));
  assert.deepEqual(statuses(outcome), [201]);
  assert.equal(outcome.closed, true);
});

test('a malformed request pipelined behind complete ones: each of them is answered first, then 400', async () => {
  // Node writes one response at a time and queues the others; the parser reports the malformed bytes in the same
  // pass that handed over the requests before them. The 400 used to end the connection before the queued answers
  // went out: the second GET here got none, and a POST's user was stored with no 201 ever sent.
  const gets = await exchangeAll(GET('/health') + GET('/') + 'G / HTTP/1.1\r\n\r\n');
  assert.deepEqual(statuses(gets), [200, 200, 400]);
  assert.equal(gets.closed, true);
  const posted = await exchangeAll(GET('/health') + postUser('Queued', 'q@d') + 'G / HTTP/1.1\r\n\r\n');
  assert.deepEqual(statuses(posted), [200, 201, 400]);
  assert.equal(posted.closed, true);
  // A framing error llhttp finds only after handing the head over (Transfer-Encoding: identity): that request gets
  // the 400 alone, after the POST's 201 (which was lost).
  const framing = await exchangeAll(postUser('Framed', 'f@d') + GET('/', 'Transfer-Encoding: identity\r\n'));
  assert.deepEqual(statuses(framing), [201, 400]);
  assert.equal(framing.closed, true);
  // A request queued between them is still answered (marking the whole connection left it unanswered, and the 400
  // waiting for it forever).
  const queued = await exchangeAll(
    postUser('Queued', 'q@e') + GET('/users/500') + GET('/', 'Transfer-Encoding: identity\r\n'),
  );
  assert.deepEqual(statuses(queued), [201, 200, 400]);
  assert.equal(queued.closed, true);
});

test('Upgrade is ignored: every request around it is answered in order, and the connection stays open', async () => {
  const upgrade = 'Connection: keep-alive, Upgrade\r\nUpgrade: websocket\r\n';
  const outcome = await exchangeAll(GET('/users/1') + GET('/users/2', upgrade) + GET('/users/3') + GET('/health'));
  assert.deepEqual(statuses(outcome), [200, 200, 200, 200]);
  assert.deepEqual(
    outcome.responses.slice(0, 3).map((r) => JSON.parse(r.body).id),
    [1, 2, 3],
  );
  assert.equal(outcome.closed, false);
});

test('Upgrade on a POST: its body is read and the user stored, and the next request sees it', async () => {
  const outcome = await exchangeAll(postUser('Up', 'u@p', 'Connection: Upgrade\r\nUpgrade: h2c\r\n') + GET('/users/1'));
  assert.deepEqual(statuses(outcome), [201, 200]);
  const created = JSON.parse(outcome.responses[0].body);
  assert.deepEqual(store.get(created.id), created);
});

// Since Node 26 Node parses an upgrade request's body itself, and hands the bytes after it over only once the body
// has ended when the body comes after the head: the cases below take that path there, the one above the other.
test('Upgrade on a POST whose body comes after its head, twice on one connection: both stored, all answered', async () => {
  const conn = await RawConnection.open(port);
  const upgrade = 'Connection: Upgrade\r\nUpgrade: h2c\r\n';
  const created = [];
  for (const name of ['Late', 'Later']) {
    const request = postUser(name, `${name.toLowerCase()}@u`, upgrade);
    const split = request.indexOf('\r\n\r\n') + 4;
    conn.write(request.slice(0, split));
    await new Promise((resolve) => setTimeout(resolve, 50));
    conn.write(request.slice(split) + GET('/health'));
    const response = await conn.response();
    assert.equal(response.status, 201, name);
    created.push(JSON.parse(response.body));
    assert.equal((await conn.response()).status, 200, `${name}: the request behind it`);
  }
  for (const user of created) assert.deepEqual(store.get(user.id), user);
  conn.destroy();
});

test('Upgrade on a chunked POST with a trailer: stored, and the next request answered', async () => {
  const body = '{"name":"Chunky","email":"c@u"}';
  const chunked = `${body.length.toString(16)}\r\n${body}\r\n0\r\nX-Note: kept\r\n\r\n`;
  const head = `${JSON_HEAD}Connection: Upgrade\r\nUpgrade: h2c\r\nTransfer-Encoding: chunked\r\n\r\n`;
  const outcome = await exchangeAll(head + chunked + GET('/health'));
  assert.deepEqual(statuses(outcome), [201, 200]);
  const created = JSON.parse(outcome.responses[0].body);
  assert.deepEqual(store.get(created.id), created);
});

test('Upgrade on a POST whose body never ends: 408 at the body limit, nothing stored', async () => {
  const before = store.size;
  const request = postUser('Stuck', 's@u', 'Connection: Upgrade\r\nUpgrade: h2c\r\n');
  const outcome = await exchangeAll(request.slice(0, -5), { quietMs: LIMIT_MS * 4 });
  assert.deepEqual(statuses(outcome), [408]);
  assert.equal(outcome.closed, true);
  assert.equal(store.size, before);
});

test('an unsupported Transfer-Encoding stores nothing, whatever it frames', async () => {
  const body = '{"name":"Smug","email":"s@x"}';
  const chunked = `${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`;
  const requests = {
    empty: `${JSON_HEAD}Transfer-Encoding: \r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    'gzip, chunked': `${JSON_HEAD}Transfer-Encoding: gzip, chunked\r\n\r\n${chunked}`,
    'chunked, chunked': `${JSON_HEAD}Transfer-Encoding: chunked, chunked\r\n\r\n${chunked}`,
    'two fields': `${JSON_HEAD}Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n${chunked}`,
    unknown: `${JSON_HEAD}Transfer-Encoding: foo\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    'with a GET behind': `${JSON_HEAD}Transfer-Encoding: gzip, chunked\r\n\r\n${chunked}${GET('/health')}`,
  };
  const before = store.size;
  for (const [name, bytes] of Object.entries(requests)) {
    const outcome = await exchangeAll(bytes);
    assert.equal(outcome.responses.length, 1, name);
    assert.ok([400, 501].includes(outcome.responses[0].status), `${name}: ${outcome.responses[0].status}`);
    assert.equal(outcome.closed, true, name);
  }
  assert.equal(store.size, before);
  // Where the application (not llhttp) answers, the answer is the contract's 501.
  const { responses } = await exchangeAll(requests['gzip, chunked']);
  assert.equal(responses[0].status, 501);
  assert.equal(responses[0].body.toString(), '{"error":"unsupported transfer encoding"}');
});

test('a framing field in a chunked trailer: 400, closed, nothing stored', async () => {
  const before = store.size;
  for (const trailer of ['Content-Length: 26', 'Transfer-Encoding: chunked', 'Host: y']) {
    const bytes = `${JSON_HEAD}Transfer-Encoding: chunked\r\n\r\n1a\r\n{"name":"T","email":"t@u"}\r\n0\r\n${trailer}\r\n\r\n`;
    const outcome = await exchangeAll(bytes);
    assert.deepEqual(statuses(outcome), [400], trailer);
    assert.equal(outcome.closed, true, trailer);
  }
  assert.equal(store.size, before);
  // Any other trailer field is fine.
  const ok = await exchangeAll(
    `${JSON_HEAD}Transfer-Encoding: chunked\r\n\r\n1a\r\n{"name":"T","email":"t@u"}\r\n0\r\nX-Sum: 1\r\n\r\n`,
  );
  assert.deepEqual(statuses(ok), [201]);
});

test('keep-alive: a body read in full keeps the connection, a body left unread closes it', async () => {
  const kept = {
    201: postUser('Kept', 'k@l'),
    400: `${JSON_HEAD}Content-Length: 2\r\n\r\n{}`,
    '404 without a body': GET('/nope'),
    '405 without a body': 'DELETE /users/1 HTTP/1.1\r\nHost: x\r\n\r\n',
    '415 without a body': 'POST /users HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 0\r\n\r\n',
  };
  for (const [name, bytes] of Object.entries(kept)) {
    const outcome = await exchangeAll(bytes + GET('/health'));
    assert.equal(outcome.responses.length, 2, name);
    assert.equal(outcome.responses[1].status, 200, name);
    assert.equal(outcome.closed, false, name);
  }
  const closed = {
    '415 with a body': `POST /users HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello`,
    '413 drained': `${JSON_HEAD}Content-Length: 70000\r\n\r\n${'a'.repeat(70_000)}`,
    '404 with a body': 'POST /nope HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello',
    '405 with a body': 'PUT /users/1 HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello',
    'GET with a chunked body':
      'GET /health HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n',
  };
  for (const [name, bytes] of Object.entries(closed)) {
    const outcome = await exchangeAll(bytes + GET('/health'));
    assert.equal(outcome.responses.length, 1, name);
    assert.equal(outcome.responses[0].headers.get('connection')[0], 'close', name);
    assert.equal(outcome.closed, true, name);
  }
});

test('a body known to be too large gets 413 even when the client stops sending (not 408)', async () => {
  const requests = {
    declared: `${JSON_HEAD}Content-Length: 100000\r\n\r\n{"name":`,
    'declared 2^53+1': `${JSON_HEAD}Content-Length: 9007199254740993\r\n\r\n{"name":`,
    counted: `${JSON_HEAD}Transfer-Encoding: chunked\r\n\r\n11170\r\n${'a'.repeat(70_000)}\r\n`,
  };
  for (const [name, bytes] of Object.entries(requests)) {
    const outcome = await exchangeAll(bytes, { quietMs: 5000 });
    assert.deepEqual(statuses(outcome), [413], name);
    assert.equal(outcome.responses[0].body.toString(), '{"error":"payload too large"}', name);
    assert.equal(outcome.closed, true, name);
  }
});

test('a wrong Content-Type is answered 415 before the body limit, without the body', async () => {
  // A server with a body limit of a minute: only an answer that does not wait for the body comes within 5 s.
  const patient = await startServer({ bodyTimeoutMs: 60_000 });
  try {
    const conn = await RawConnection.open(patient.port);
    conn.write('POST /users HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 26\r\n\r\n');
    const response = await conn.response({ timeoutMs: 5000 });
    assert.equal(response.status, 415);
    assert.equal(response.headers.get('connection')[0], 'close');
    await conn.closed;
  } finally {
    await stopServer(patient.server);
  }
});

test('Expect: 417 on any value but 100-continue, on HTTP/1.0 too; 100-continue and an empty value are served', async () => {
  for (const bytes of [GET('/health', 'Expect: foo\r\n'), 'GET /health HTTP/1.0\r\nExpect: foo\r\n\r\n']) {
    const outcome = await exchangeAll(bytes + GET('/health'));
    assert.deepEqual(statuses(outcome), [417]);
    assert.equal(outcome.responses[0].headers.get('content-length')[0], '0');
    assert.equal(outcome.closed, true);
  }
  const served = await exchangeAll(
    GET('/health', 'Expect: \r\n') + postUser('Cont', 'c@d', 'Expect: 100-continue\r\n'),
  );
  assert.deepEqual(statuses(served), [200, 201]);
  assert.equal(served.closed, false);
});

test('HTTP/0.9 and an authority-form target: 400 and closed', async () => {
  for (const bytes of ['GET /health\r\n\r\n', 'GET 127.0.0.1:80 HTTP/1.1\r\nHost: x\r\n\r\n']) {
    const outcome = await exchangeAll(bytes);
    assert.deepEqual(statuses(outcome), [400], bytes);
    assert.equal(outcome.closed, true, bytes);
  }
  // OPTIONS's asterisk-form is no authority-form.
  assert.deepEqual(statuses(await exchangeAll('OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n')), [404]);
});
