// The routes: routing on method and raw path, the handlers of the five routes, and the one way each kind of answer
// is written. transport.js calls `route` for every request that passed its head checks.
//
// Every response is written by `send()`, which always sets Content-Length itself: `res.end(body)` after
// `writeHead()` without it would go out chunked, and the contract wants a length on every response. Every JSON body
// is serialised with `JSON.stringify` when it is sent, never cached, so that every server does the same work per
// request.

import { readBody } from './body.js';
import { ApiError } from './error.js';
import { isJsonMediaType, parseNewUser } from './validation.js';

const JSON_TYPE = 'application/json';
const TEXT_TYPE = 'text/plain; charset=utf-8';

/** A canonical decimal id: no sign, no leading zero, digits only. */
const ID_PATTERN = /^[1-9][0-9]*$/;

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
export function route(req, res, store, bodyTimeoutMs) {
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
  return sendError(req, res, ApiError.NOT_FOUND);
}

/** GET /users/{id}: the id must be the canonical decimal of an existing user; anything else is simply not found. */
function getUser(req, res, store, segment) {
  // A number too long for a double to hold exactly can only round to an id far above any the store hands out.
  const user = ID_PATTERN.test(segment) ? store.get(Number(segment)) : undefined;
  if (user === undefined) {
    return sendError(req, res, ApiError.NOT_FOUND);
  }
  return sendJson(req, res, 200, user);
}

/** POST /users, its rules checked in the contract's order. */
async function createUser(req, res, store, bodyTimeoutMs) {
  // Rule 1 is answered at once, without waiting for a body nobody will look at; the connection closes after it,
  // since that body is left unread.
  if (!isJsonMediaType(req.headers['content-type'])) {
    if (hasBody(req)) discardUnreadBody(req, bodyTimeoutMs);
    return sendError(req, res, ApiError.UNSUPPORTED_MEDIA_TYPE, hasBody(req));
  }
  const read = await readBody(req, { timeoutMs: bodyTimeoutMs });

  switch (read.outcome) {
    case 'aborted':
      // Nobody is left to answer, and nothing has been stored.
      return;
    case 'timed-out':
      return sendError(req, res, ApiError.REQUEST_TIMEOUT, true);
    case 'too-large':
      // Whether drained or cut at the drain limit or the time limit, a body known to be too large is a 413.
      return sendError(req, res, ApiError.PAYLOAD_TOO_LARGE, true);
    case 'bad-trailer':
      // A framing field in a trailer (RFC 9110 section 6.5.1) makes the whole request malformed.
      return sendEmpty(res, 400);
  }

  const parsed = parseNewUser(read.body);
  if (!parsed.ok) {
    return sendError(req, res, parsed.error);
  }
  const user = store.create(parsed.name, parsed.email);
  if (user === null) {
    sayStoreFull(store.capacity);
    return sendError(req, res, ApiError.STORE_FULL);
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
  return sendError(req, res, ApiError.METHOD_NOT_ALLOWED);
}

/**
 * An error as `{"error":"…"}`; `close` ends the connection after it (the request was not read to its end).
 * @param {{status: number, message: string}} error one of `ApiError`.
 */
export function sendError(req, res, error, close = false) {
  if (close) {
    res.setHeader('Connection', 'close');
  }
  return sendJson(req, res, error.status, { error: error.message });
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
export function sendEmpty(res, status) {
  // Set apart from writeHead, so that `getHeader` sees it (transport.js asks whether an answer ended the connection).
  res.setHeader('Connection', 'close');
  res.writeHead(status, { 'Content-Length': 0 });
  res.end();
}

/** A handler failed: log it (internal errors are logged, never sent) and answer 500 if nothing went out yet. */
export function internalError(req, res, error) {
  console.error(`internal error on ${req.method} ${req.url}: ${error?.stack ?? error}`);
  if (res.headersSent) {
    res.destroy();
    return;
  }
  for (const name of res.getHeaderNames()) {
    res.removeHeader(name);
  }
  sendError(req, res, ApiError.INTERNAL);
}

function ignore() {}

let storeFullSaid = false;

/**
 * The first 507 of a process says so on stderr, once and without `--log`: a POST load that fills the store goes on
 * getting answers, and a load tool that counts only connection errors would take those 507s for throughput. In
 * cluster mode each worker has its own store, and so its own line.
 * @param {number} capacity the store's `--max-users`.
 */
function sayStoreFull(capacity) {
  if (!storeFullSaid) {
    storeFullSaid = true;
    process.stderr.write(`store full: answering 507 to POST /users until restart (--max-users ${capacity})\n`);
  }
}
