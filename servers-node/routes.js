// The request handler: routing on method and raw path, the handlers of the five routes, and the few transport rules
// that can only be checked once Node has parsed a request head.
//
// Every response is written by `send()`, which always sets Content-Length itself: `res.end(body)` after
// `writeHead()` without it would go out chunked, and the contract wants a length on every response. Every JSON body
// is serialised with `JSON.stringify` when it is sent, never cached, so that both servers do the same work per
// request.

import { readBody } from './body.js';
import { isJsonMediaType, parseNewUser } from './validation.js';

const JSON_TYPE = 'application/json';
const TEXT_TYPE = 'text/plain; charset=utf-8';

/** The most header fields a request may have (Node's `maxHeadersCount` would only drop the others silently). */
const MAX_HEADER_FIELDS = 100;

/** A canonical decimal id: no sign, no leading zero, digits only. */
const ID_PATTERN = /^[1-9][0-9]*$/;

/**
 * Builds the 'request' listener, and `pendingOn(socket)`, which transport.js asks before answering a parse error.
 *
 * Node parses pipelined requests eagerly: while POST /users waits for its body, the parser may already have handed
 * over the next request on the same connection. Node keeps the *responses* in order, but the handlers would run out
 * of order (a pipelined `GET /users/{new id}` would be answered 404 before the POST stored the user). So a request
 * that arrives while an earlier one on its connection is still being handled waits for it. Only POST /users ever
 * waits, so on a connection without one nothing is queued.
 *
 * @param {object} options
 * @param {import('./store.js').UserStore} options.store
 * @param {number} options.bodyTimeoutMs how long a body may take after its head (contract: 10 s).
 * @param {boolean} [options.log] log one line per request on stderr.
 * @param {(req: import('node:http').IncomingMessage) => void} [options.beforeRoute] a test hook, called before
 *   routing; tests make it throw to check the 500 path. The server itself never sets it.
 */
export function createHandler({ store, bodyTimeoutMs, log = false, beforeRoute }) {
  /** socket → the last request still being handled on it, and a promise settled when it has been answered. */
  const inProgress = new WeakMap();
  /** socket → a promise settled when the last response started on it is done (transport.js waits for it, see Upgrade). */
  const lastResponse = new WeakMap();

  /** Handles one request; returns a promise (which never rejects) if the handler has to wait for the body. */
  function handle(req, res) {
    try {
      if (!checkHead(req, res)) {
        return undefined;
      }
      if (beforeRoute !== undefined) {
        beforeRoute(req);
      }
      const pending = route(req, res, store, bodyTimeoutMs);
      return pending?.catch((error) => internalError(req, res, error));
    } catch (error) {
      internalError(req, res, error);
      return undefined;
    }
  }

  function handleRequest(req, res) {
    // 'close' comes after Node has detached the response from the socket ('finish' comes before).
    lastResponse.set(req.socket, new Promise((resolve) => res.once('close', resolve)));
    if (log) {
      logWhenFinished(req, res);
    }
    const socket = req.socket;
    const earlier = inProgress.get(socket);
    const done = earlier === undefined ? handle(req, res) : earlier.done.then(() => handle(req, res));
    if (done !== undefined) {
      const entry = { req, done };
      inProgress.set(socket, entry);
      done.then(() => {
        if (inProgress.get(socket) === entry) inProgress.delete(socket);
      });
    }
  }

  /** The request still being handled on `socket`, if any: `{req, done}`. */
  function pendingOn(socket) {
    return inProgress.get(socket);
  }

  /** Calls `then` once every response started on `socket` so far is out and let go of the socket. */
  function afterResponses(socket, then) {
    (lastResponse.get(socket) ?? Promise.resolve()).then(then);
  }

  return { handleRequest, pendingOn, afterResponses };
}

/**
 * The transport rules `node:http` leaves to the application. Returns false when it has answered already; every
 * refusal here closes the connection, because the request's body (if any) is left unread.
 */
function checkHead(req, res) {
  // `rawHeaders` holds names and values one after the other, so 100 fields are 200 entries.
  if (req.rawHeaders.length > 2 * MAX_HEADER_FIELDS) {
    sendEmpty(res, 431);
    return false;
  }
  // llhttp takes `GET /health` without a version for HTTP/0.9; only 1.0 and 1.1 are served.
  if (req.httpVersionMajor !== 1) {
    sendEmpty(res, 400);
    return false;
  }
  // HTTP/1.1 requires Host. Node's own check (`requireHostHeader`) answers with a chunked 400, so the server turns
  // it off and checks here.
  if (req.httpVersionMinor === 1 && req.headers.host === undefined) {
    sendEmpty(res, 400);
    return false;
  }
  // An authority-form target (`127.0.0.1:80`) belongs to CONNECT alone (RFC 9112 section 3.2.3). An origin-form
  // target starts with '/', an absolute-form one has a scheme, and `*` is OPTIONS's asterisk-form.
  if (req.method !== 'CONNECT' && !req.url.startsWith('/') && !req.url.includes('://') && req.url !== '*') {
    sendEmpty(res, 400);
    return false;
  }
  // Any transfer coding but one `chunked` is one this server does not understand: 501 (RFC 9112 section 6.1),
  // before a byte of the body is read, so that nothing framed by a Content-Length beside it is ever stored.
  if (!isPlainChunked(transferCodings(req))) {
    sendError(req, res, 501, 'unsupported transfer encoding', true);
    return false;
  }
  // An expectation other than 100-continue cannot be met (RFC 9110 section 10.1.1). An empty Expect is no
  // expectation at all. Node leaves this to the application once a 'checkExpectation' listener exists (transport.js).
  const expect = req.headers.expect?.trim().toLowerCase();
  if (expect !== undefined && expect !== '' && expect !== '100-continue') {
    sendEmpty(res, 417);
    return false;
  }
  return true;
}

/** The values of every Transfer-Encoding field, in order, or `null` when there is none. */
function transferCodings(req) {
  let values = null;
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    if (req.rawHeaders[i].toLowerCase() === 'transfer-encoding') {
      (values ??= []).push(req.rawHeaders[i + 1]);
    }
  }
  return values;
}

/** True for no Transfer-Encoding at all, or exactly one field holding exactly one `chunked`. */
function isPlainChunked(values) {
  return values === null || (values.length === 1 && values[0].trim().toLowerCase() === 'chunked');
}

/** Whether a request carries a body: a Content-Length above 0, or any Transfer-Encoding (chunked, after checkHead). */
function hasBody(req) {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && Number(length) > 0);
}

/**
 * Dispatches on the raw path, then on the method: a known path with the wrong method is 405 whatever its id.
 * Returns the promise of POST /users, the one handler that waits (for its body); every other route has written its
 * response before it returns, and returns `undefined`.
 */
function route(req, res, store, bodyTimeoutMs) {
  const method = req.method;
  const path = pathOf(req.url);
  if (path === '/users' && method === 'POST') {
    return createUser(req, res, store, bodyTimeoutMs);
  }
  // Every other route ignores a body. The connection is closed after the answer (the contract's keep-alive rule:
  // a body left unread ends the connection), and until then Node reads and discards it.
  if (hasBody(req)) {
    res.setHeader('Connection', 'close');
    discardUnreadBody(req, bodyTimeoutMs);
  }

  if (path === '/') {
    if (method === 'GET' || method === 'HEAD') {
      return send(req, res, 200, TEXT_TYPE, 'Hello, World!');
    }
    return methodNotAllowed(req, res, 'GET, HEAD');
  }
  if (path === '/health') {
    if (method === 'GET' || method === 'HEAD') {
      return sendJson(req, res, 200, { status: 'ok' });
    }
    return methodNotAllowed(req, res, 'GET, HEAD');
  }
  if (path === '/users') {
    return methodNotAllowed(req, res, 'POST');
  }
  if (path.startsWith('/users/')) {
    const segment = path.slice('/users/'.length);
    if (segment.length > 0 && !segment.includes('/')) {
      if (method === 'GET' || method === 'HEAD') {
        return getUser(req, res, store, segment);
      }
      return methodNotAllowed(req, res, 'GET, HEAD');
    }
  }
  return sendError(req, res, 404, 'not found');
}

/** GET /users/{id}: the id must be the canonical decimal of an existing user; anything else is simply not found. */
function getUser(req, res, store, segment) {
  // A number too long for a double to hold exactly can only round to an id far above any the store hands out.
  const user = ID_PATTERN.test(segment) ? store.get(Number(segment)) : undefined;
  if (user === undefined) {
    return sendError(req, res, 404, 'not found');
  }
  return sendJson(req, res, 200, user);
}

/** POST /users, its rules checked in the contract's order. */
async function createUser(req, res, store, bodyTimeoutMs) {
  // Rule 1 is answered at once, without waiting for a body nobody will look at; the connection closes after it,
  // since that body is left unread.
  if (!isJsonMediaType(req.headers['content-type'])) {
    if (hasBody(req)) discardUnreadBody(req, bodyTimeoutMs);
    return sendError(req, res, 415, 'content-type must be application/json', hasBody(req));
  }
  const read = await readBody(req, { timeoutMs: bodyTimeoutMs });

  switch (read.outcome) {
    case 'aborted':
      // Nobody is left to answer, and nothing has been stored.
      return;
    case 'timed-out':
      return sendError(req, res, 408, 'request timeout', true);
    case 'too-large':
      // Whether drained or cut at the drain limit or the time limit, a body known to be too large is a 413.
      return sendError(req, res, 413, 'payload too large', true);
    case 'bad-trailer':
      // A framing field in a trailer (RFC 9110 section 6.5.1) makes the whole request malformed.
      return sendEmpty(res, 400);
  }

  const parsed = parseNewUser(read.body);
  if (!parsed.ok) {
    return sendError(req, res, 400, parsed.error);
  }
  const user = store.create(parsed.name, parsed.email);
  if (user === null) {
    return sendError(req, res, 507, 'store full');
  }
  res.setHeader('Location', `/users/${user.id}`);
  return sendJson(req, res, 201, user);
}

/**
 * The path of a raw request target, as the contract matches it: no percent-decoding, no dot-segment removal, the
 * query dropped, and an absolute-form target (`http://host/users/7`) reduced to its path (`/users/7`).
 * @param {string} target `req.url`, which Node passes on exactly as it was sent.
 */
export function pathOf(target) {
  let start = 0;
  if (target.charCodeAt(0) !== 0x2f /* / */) {
    const scheme = target.indexOf('://');
    if (scheme !== -1) {
      // The authority ends at the first '/' or '?'; with no '/' after it the path is empty, which means '/'.
      let end = scheme + 3;
      while (end < target.length && target[end] !== '/' && target[end] !== '?') {
        end += 1;
      }
      if (end === target.length || target[end] === '?') {
        return '/';
      }
      start = end;
    }
  }
  const query = target.indexOf('?', start);
  if (query === -1) {
    return start === 0 ? target : target.slice(start);
  }
  return target.slice(start, query);
}

/**
 * Node reads and discards a body the handler did not read once the response is out; this puts the contract's body
 * time limit on that too, so a client cannot keep a connection busy by trickling a body nobody wants.
 */
function discardUnreadBody(req, timeoutMs) {
  if (req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined) {
    return;
  }
  const timer = setTimeout(() => req.socket.destroy(), timeoutMs);
  const done = () => clearTimeout(timer);
  req.once('end', done);
  req.once('close', done);
  req.on('error', ignore);
}

function methodNotAllowed(req, res, allow) {
  res.setHeader('Allow', allow);
  return sendError(req, res, 405, 'method not allowed');
}

/** An error as `{"error":"…"}`; `close` ends the connection after it (the request was not read to its end). */
function sendError(req, res, status, message, close = false) {
  if (close) {
    res.setHeader('Connection', 'close');
  }
  return sendJson(req, res, status, { error: message });
}

function sendJson(req, res, status, value) {
  return send(req, res, status, JSON_TYPE, JSON.stringify(value));
}

/** The one place a response with a body is written. HEAD gets the headers its GET would have, and no body. */
function send(req, res, status, contentType, body) {
  res.writeHead(status, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body) });
  res.end(req.method === 'HEAD' ? undefined : body);
}

/** An empty response that ends the connection, for requests refused before routing. */
function sendEmpty(res, status) {
  res.writeHead(status, { 'Content-Length': 0, Connection: 'close' });
  res.end();
}

/** A handler failed: log it (internal errors are logged, never sent) and answer 500 if nothing went out yet. */
function internalError(req, res, error) {
  console.error(`internal error on ${req.method} ${req.url}: ${error?.stack ?? error}`);
  if (res.headersSent) {
    res.destroy();
    return;
  }
  for (const name of res.getHeaderNames()) {
    res.removeHeader(name);
  }
  sendError(req, res, 500, 'internal error');
}

function logWhenFinished(req, res) {
  const start = process.hrtime.bigint();
  res.once('finish', () => {
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    process.stderr.write(`${logLine(new Date(), req.method, req.url, res.statusCode, ms)}\n`);
  });
}

/**
 * The `--log` line every fairpair server writes (CONTRACT.md, "Running a server"):
 * `2026-11-30T19:00:00.123Z GET /users/500 200 0.123ms` — the UTC time, the method, the target as sent, the status,
 * and the handler's latency in milliseconds with three decimals.
 * @param {Date} at @param {string} method @param {string} target @param {number} status @param {number} ms
 */
export function logLine(at, method, target, status, ms) {
  return `${at.toISOString()} ${method} ${target} ${status} ${ms.toFixed(3)}ms`;
}

function ignore() {}
