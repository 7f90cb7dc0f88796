// The server factory: a `node:http` server with the users API's handler and the contract's transport rules (the head
// checks `node:http` leaves to the application, in `checkHead`), and its graceful close. server.js runs it from the
// command line; the tests start it in-process on port 0. The Rust server's transport.rs and the Go server's
// transport.go do the same job.

import http from 'node:http';

import { BODY_LIMIT, DRAIN_LIMIT } from './body.js';
import { ApiError } from './error.js';
import { logWhenFinished } from './request_log.js';
import { internalError, route, sendEmpty, sendError } from './routes.js';
import { UserStore, firstIdForWorker } from './store.js';
import { trimSpacesAndTabs } from './validation.js';

/** The contract's two time limits and the shutdown deadline, each 10 s; tests lower them. */
export const HEADER_TIMEOUT_MS = 10_000;
export const BODY_TIMEOUT_MS = 10_000;
export const SHUTDOWN_TIMEOUT_MS = 10_000;

/** What Node adds to `keepAliveTimeout` (HTTP_SERVER_KEEP_ALIVE_TIMEOUT_BUFFER in lib/_http_server.js). */
const KEEP_ALIVE_TIMEOUT_BUFFER_MS = 1_000;

/** The largest request head, in bytes: Node's default, set here so that the number is visible. */
const MAX_HEADER_SIZE = 16_384;

/** The most header fields a request may have (Node's `maxHeadersCount` would only drop the others silently). */
const MAX_HEADER_FIELDS = 100;

/**
 * Creates the server, not yet listening.
 * @param {object} [options]
 * @param {number} [options.maxUsers] store capacity, seed included (`--max-users`; default 1,000,000).
 * @param {number} [options.workerId] the cluster worker id that picks the id block (1 for a single process).
 * @param {UserStore} [options.store] a store to use instead of a new one (tests look into it).
 * @param {number} [options.headerTimeoutMs] time for a complete request head, and for an idle keep-alive connection.
 * @param {number} [options.bodyTimeoutMs] time for a complete body after its head.
 * @param {boolean} [options.log] one line per request on stderr.
 * @param {(req: http.IncomingMessage) => void} [options.beforeRoute] test hook, see `createHandler`.
 * @returns {http.Server}
 */
export function createServer(options = {}) {
  const {
    maxUsers = 1_000_000,
    workerId = 1,
    headerTimeoutMs = HEADER_TIMEOUT_MS,
    bodyTimeoutMs = BODY_TIMEOUT_MS,
    log = false,
    beforeRoute,
  } = options;
  const store = options.store ?? new UserStore({ capacity: maxUsers, firstId: firstIdForWorker(workerId) });

  const handler = createHandler({ store, bodyTimeoutMs, log, beforeRoute });
  const server = http.createServer(
    {
      // First time limit: the head must be complete this long after connect (on a keep-alive connection, after the
      // first byte of the next request; until that byte the idle timer below applies). Node checks it every `connectionsCheckingInterval` (30 s by default, which
      // would let a silent connection live up to 40 s), so the check runs ten times per limit instead.
      headersTimeout: headerTimeoutMs,
      connectionsCheckingInterval: Math.max(10, Math.floor(headerTimeoutMs / 10)),
      // Node's `requestTimeout` (5 minutes by default) counts from the start of the request, head included; the
      // contract's body limit counts from the end of the head, so the routes and body.js time bodies themselves.
      requestTimeout: 0,
      maxHeaderSize: MAX_HEADER_SIZE,
      // Node's own missing-Host answer is a chunked 400; `checkHead` answers it with a Content-Length.
      requireHostHeader: false,
    },
    handler.handleRequest,
  );
  // An idle keep-alive connection is closed `headerTimeoutMs` after its last response. Node waits one second longer
  // than `keepAliveTimeout` (a fixed buffer, so that clients, which see `Keep-Alive: timeout=…`, give up first), so
  // the setting is one second short of the limit.
  server.keepAliveTimeout = Math.max(1, headerTimeoutMs - KEEP_ALIVE_TIMEOUT_BUFFER_MS);
  server.on('clientError', (error, socket) => onClientError(error, socket, handler));
  // Without this listener Node answers any `Expect` other than 100-continue itself, with a chunked 417 (and an empty
  // Expect too); with it, such a request comes here instead of to 'request', and `checkHead` decides.
  server.on('checkExpectation', handler.handleRequest);
  // The server speaks no other protocol, so `Upgrade` is ignored, see below.
  server.on('upgrade', (req, stream, head) => serveIgnoringUpgrade(server, handler, req, stream, head, bodyTimeoutMs));
  return server;
}

/**
 * Builds the 'request' listener: the head checks, then the routes, with a failure turned into a 500; and
 * `pendingOn(socket)`, which `onClientError` asks before answering a parse error.
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
function createHandler({ store, bodyTimeoutMs, log = false, beforeRoute }) {
  /** socket → the last request still being handled on it, and a promise settled when it has been answered. */
  const inProgress = new WeakMap();
  /** socket → a promise settled when the last response started on it is done (`serveIgnoringUpgrade` waits for it). */
  const lastResponse = new WeakMap();
  /** socket → the last response started on it. */
  const lastRes = new WeakMap();
  /** Sockets on which an answer ended the connection: nothing more is served there. */
  const ended = new WeakSet();
  /** Requests whose head the parser refused after handing it over: they get the parser error's 400 alone. */
  const refused = new WeakSet();

  /** Handles one request; returns a promise (which never rejects) if the handler has to wait for the body. */
  function handle(req, res, previous) {
    // A request pipelined behind one whose answer ended the connection is not served: nothing of it may be stored,
    // and its answer would never be sent (Node's parser hands it over all the same).
    if (ended.has(req.socket) || refused.has(req) || endsConnection(previous)) {
      ended.add(req.socket);
      req.resume();
      return undefined;
    }
    try {
      // llhttp recognises the `close` option only where a space, a comma or the line's end follows it: `close` next
      // to a tab (`Connection: close<TAB>`) left the connection open and the requests behind it answered, where RFC
      // 9110 section 5.5 trims the tab and RFC 9112 section 9.6 requires the close. Hyper and Go's net/http read it.
      if (asksToClose(req)) {
        res.setHeader('Connection', 'close');
      }
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
    const previous = lastRes.get(req.socket);
    // Settled once every request before this one on the connection has been answered (see onClientError).
    const answeredBefore = Promise.all([inProgress.get(req.socket)?.done, lastResponse.get(req.socket)]);
    lastRes.set(req.socket, res);
    // 'close' comes after Node has detached the response from the socket ('finish' comes before).
    lastResponse.set(req.socket, new Promise((resolve) => res.once('close', resolve)));
    if (log) {
      logWhenFinished(req, res);
    }
    const socket = req.socket;
    const earlier = inProgress.get(socket);
    const done =
      earlier === undefined ? handle(req, res, previous) : earlier.done.then(() => handle(req, res, previous));
    if (done !== undefined) {
      const entry = { req, done, answeredBefore };
      inProgress.set(socket, entry);
      done.then(() => {
        if (inProgress.get(socket) === entry) inProgress.delete(socket);
      });
    }
  }

  /** The request still being handled on `socket`, if any: `{req, done, answeredBefore}`. */
  function pendingOn(socket) {
    return inProgress.get(socket);
  }

  /** Calls `then` once every response started on `socket` so far is out and let go of the socket. */
  function afterResponses(socket, then) {
    (lastResponse.get(socket) ?? Promise.resolve()).then(then);
  }

  /**
   * Whether an answer already sent on `socket` ends the connection (`Connection: close`): nothing after it may be
   * answered (RFC 9112 section 9.6), though Node's parser reads on.
   */
  function closedByAnswer(socket) {
    return ended.has(socket) || endsConnection(lastRes.get(socket));
  }

  /**
   * `req`, handed over but not yet handled, gets no answer of its own (nor anything after it); the requests queued
   * before it are still answered.
   */
  function refuse(req) {
    refused.add(req);
  }

  return { handleRequest, pendingOn, afterResponses, closedByAnswer, refuse };
}

/** Whether a `Connection` field of `req` holds the `close` option (a comma-separated list, spaces and tabs trimmed). */
function asksToClose(req) {
  return req.rawHeaders.some(
    (value, i) =>
      i % 2 === 1 &&
      req.rawHeaders[i - 1].toLowerCase() === 'connection' &&
      value.split(',').some((option) => trimSpacesAndTabs(option).toLowerCase() === 'close'),
  );
}

/** Whether `res` (if any) has been sent with `Connection: close`. */
function endsConnection(res) {
  return res !== undefined && res.headersSent && String(res.getHeader('connection')).toLowerCase() === 'close';
}

/**
 * The transport rules `node:http` leaves to the application. Returns false when it has answered already; every
 * refusal here closes the connection, because the request's body (if any) is left unread.
 */
export function checkHead(req, res) {
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
  // The same section: more than one Host field gets 400 too (Node keeps the first in `req.headers.host`; Go's
  // net/http refuses them before any handler runs). `rawHeaders` holds every field as sent.
  if (req.rawHeaders.filter((value, i) => i % 2 === 0 && value.toLowerCase() === 'host').length > 1) {
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
    sendError(req, res, ApiError.UNSUPPORTED_TRANSFER_ENCODING, true);
    return false;
  }
  // An expectation other than 100-continue cannot be met (RFC 9110 section 10.1.1). An empty Expect is no
  // expectation at all. Node leaves this to the application once a 'checkExpectation' listener exists (createServer).
  // Each field on its own: Node joins repeated fields with ', ', which would turn two empty ones into ','. Only spaces
  // and tabs are trimmed: `trim()` would also take a no-break space (0xA0) away and ignore `Expect: <NBSP>`.
  const expectations = req.rawHeaders
    .filter((_, i) => i % 2 === 1 && req.rawHeaders[i - 1].toLowerCase() === 'expect')
    .map((value) => trimSpacesAndTabs(value).toLowerCase());
  if (expectations.some((expect) => expect !== '' && expect !== '100-continue')) {
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
  return values === null || (values.length === 1 && trimSpacesAndTabs(values[0]).toLowerCase() === 'chunked');
}

/**
 * A request with `Connection: Upgrade` and `Upgrade: …` is served as if it had neither (RFC 9110 section 7.8: a
 * server may ignore Upgrade). This takes a detour, because llhttp stops parsing at the end of such a request and
 * Node, without an 'upgrade' listener (or with a `shouldUpgradeCallback` that declines), serves the request but drops
 * whatever the client pipelined behind it and leaves the connection hanging. With a listener, Node detaches the
 * socket and hands over the bytes after the request; the request is rebuilt here without the upgrade and given back
 * to the server, with those bytes, as a new connection: it and everything behind it are then parsed and answered as
 * usual.
 *
 * Where the request's body is depends on the Node version. Up to Node 25, Node treats the end of the head as the end
 * of the request: the body is not parsed, and `head` holds it, still framed, followed by whatever came next. Since
 * Node 26, Node parses the body itself (RFC 9110 section 7.8: the upgraded protocol starts after the whole request),
 * streams it through `req` like any other body, and `head` holds only the bytes after it; when the body had not fully
 * arrived with the head, `stream` is not the socket but a wrapper that passes the bytes after the body on once the
 * body has ended. Rebuilding the request then takes the body from `req`, framed again as its head says.
 */
function serveIgnoringUpgrade(server, handler, req, stream, head, bodyTimeoutMs) {
  if (!NODE_PARSES_UPGRADE_BODIES) {
    handOver(server, handler, req.socket, [headWithoutUpgrade(req), head]);
    return;
  }
  const socket = req.socket;
  // The wrapper repeats the socket's errors; a reset would otherwise be an unhandled 'error' that ends the process.
  if (stream !== socket) stream.on('error', ignore);
  req.on('error', ignore);
  const chunks = [];
  let received = 0;
  // The body is held here until it ends, so its time limit and a bound on its size are kept here too. A body over
  // the limit is still read up to the drain limit, so that the rebuilt request gets the 413 as any other would.
  const timer = setTimeout(() => {
    req.off('end', onEnd);
    handler.afterResponses(socket, () => endWith(socket, clientErrorResponse({ code: 'ERR_HTTP_REQUEST_TIMEOUT' })));
  }, bodyTimeoutMs);
  req.on('data', (chunk) => {
    received += chunk.length;
    if (received > BODY_LIMIT + DRAIN_LIMIT) {
      clearTimeout(timer);
      socket.destroy();
      return;
    }
    chunks.push(chunk);
  });
  const onEnd = () => {
    clearTimeout(timer);
    if (socket.destroyed) return;
    const after = [head];
    if (stream !== socket) {
      // Node has pushed the bytes after the body into the wrapper and feeds it from the socket's 'data' events from
      // now on. The bytes go to the new connection instead, and the wrapper lets go of the socket: its listener is
      // the only 'data' listener left (Node removed its parser's), and the socket's reference to it, which Node keeps
      // under a private symbol, would make Node take a later upgrade on this connection for this one's.
      for (let chunk = stream.read(); chunk !== null; chunk = stream.read()) after.push(chunk);
      socket.removeAllListeners('data');
      for (const key of Object.getOwnPropertySymbols(socket)) {
        if (socket[key] === stream) delete socket[key];
      }
    }
    handOver(server, handler, socket, [headWithoutUpgrade(req), framedAgain(req, chunks), ...after]);
  };
  req.once('end', onEnd);
  // A client that goes away before the body ends gets no answer: nothing is left to time.
  req.once('close', () => clearTimeout(timer));
}

/** Whether this Node parses the body of an upgrade request itself (Node 26 and later, see `serveIgnoringUpgrade`). */
const NODE_PARSES_UPGRADE_BODIES = Number(process.versions.node.split('.')[0]) >= 26;

/** Gives `socket` back to the server as a new connection whose first bytes are `parts`. */
function handOver(server, handler, socket, parts) {
  // A response to an earlier request on this connection may still be going out through the old parser's queue:
  // the new one must not start writing before it ends.
  handler.afterResponses(socket, () => {
    if (socket.destroyed) return;
    // Bytes that arrived while waiting sit in the socket's own buffer, which the new parser does not look into.
    const waiting = [];
    for (let chunk = socket.read(); chunk !== null; chunk = socket.read()) waiting.push(chunk);
    server.emit('connection', socket);
    socket.emit('data', Buffer.concat([...parts, ...waiting]));
  });
}

/**
 * The body Node parsed out of `req`, framed again as its head declares, so that the rebuilt request reads as the
 * client sent it: as it is under Content-Length; as one chunk and the last chunk, with the trailer fields, under
 * Transfer-Encoding (which Node only lets through when it ends in chunked).
 */
function framedAgain(req, chunks) {
  const body = Buffer.concat(chunks);
  if (transferCodings(req) === null) return body;
  const trailer = [];
  for (let i = 0; i < req.rawTrailers.length; i += 2) {
    trailer.push(`${req.rawTrailers[i]}: ${req.rawTrailers[i + 1]}\r\n`);
  }
  const last = Buffer.from(`0\r\n${trailer.join('')}\r\n`, 'latin1');
  if (body.length === 0) return last;
  return Buffer.concat([Buffer.from(`${body.length.toString(16)}\r\n`, 'latin1'), body, Buffer.from('\r\n'), last]);
}

function ignore() {}

/** The request head of `req`, in its raw form, without its `Upgrade` field and the `upgrade` token of `Connection`. */
function headWithoutUpgrade(req) {
  const lines = [`${req.method} ${req.url} HTTP/${req.httpVersion}`];
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i].toLowerCase();
    let value = raw[i + 1];
    if (name === 'upgrade') continue;
    if (name === 'connection') {
      value = value
        .split(',')
        .map((token) => trimSpacesAndTabs(token))
        .filter((token) => token.toLowerCase() !== 'upgrade')
        .join(', ');
      if (value === '') continue;
    }
    lines.push(`${raw[i]}: ${value}`);
  }
  return Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
}

/**
 * Errors from the HTTP parser and the head timeout, before any request object exists. Without a listener Node
 * answers these itself, but without a Content-Length; with one, nothing may throw here or the process dies.
 * The connection always ends afterwards: the parser cannot resynchronise with the byte stream.
 */
function onClientError(error, socket, handler) {
  // The parser keeps reporting the same error for every later chunk of data: answer once.
  if (answered.has(socket)) return;
  answered.add(socket);
  // Bytes after a request that ends the connection (`Connection: close`, or HTTP/1.0 without keep-alive): nothing
  // more is read or answered there (RFC 9112 section 9.6). Node closes the connection once that request's answer
  // is out, so the error is simply left unanswered.
  if (error.code === 'HPE_CLOSED_CONNECTION') return;
  // The same after an answer of this server's that ends the connection (a head check's refusal, a 501): the bytes
  // behind it belong to no request of this connection, and Node closes it once that answer is out.
  if (handler.closedByAnswer(socket)) return;
  const response = clientErrorResponse(error);
  if (response === null) {
    socket.destroy();
    return;
  }
  // When the error is in a request pipelined behind one that is complete but not answered yet (a POST whose
  // handler is still running), its answer goes after that one's. An error inside the body of the request in
  // progress is answered at once: that request will never complete.
  const pending = handler.pendingOn(socket);
  if (pending !== undefined && !pending.req.complete) {
    // The error is in that request itself: in its body, or in its head's framing, which llhttp checks only after
    // it has handed the head over (`Transfer-Encoding: identity`). It gets no answer but the 400, which waits for
    // the answers to the requests before it (the fuzzer found a POST's 201 lost behind such a head).
    handler.refuse(pending.req);
    pending.answeredBefore.then(() => endWith(socket, response));
    return;
  }
  // Answers already given may not be out yet either: Node writes one response at a time and keeps the ones behind
  // it in a queue of its own, and the parser reports the error in the same pass over the bytes that handed over
  // the requests before it. Ending the socket now would drop those answers (the fuzzer found a pipelined HEAD left
  // unanswered, and a user stored by a POST whose 201 never went out), so the 400 waits for every one of them.
  const earlier = pending === undefined ? Promise.resolve() : pending.done;
  earlier.then(() => handler.afterResponses(socket, () => endWith(socket, response)));
}

/** Sockets whose client error has been answered. */
const answered = new WeakSet();

function endWith(socket, response) {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  socket.end(response, () => socket.destroy());
}

/** The bytes to answer a client error with, or `null` for a socket error (a reset, say) that leaves no one to answer. */
function clientErrorResponse(error) {
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    return emptyResponse('431 Request Header Fields Too Large');
  }
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    const body = JSON.stringify({ error: 'request timeout' });
    return (
      'HTTP/1.1 408 Request Timeout\r\nContent-Type: application/json\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
    );
  }
  if (typeof error.code === 'string' && error.code.startsWith('HPE_')) {
    return emptyResponse('400 Bad Request');
  }
  return null;
}

function emptyResponse(status) {
  return `HTTP/1.1 ${status}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`;
}

/**
 * Closes the server the way SIGTERM asks: stop accepting at once, let requests in progress finish, close each
 * keep-alive connection as soon as it is idle, and close whatever is left after `timeoutMs`.
 * @param {http.Server} server
 * @param {{timeoutMs?: number}} [options]
 * @returns {Promise<void>} resolves when every connection is closed.
 */
export function closeGracefully(server, { timeoutMs = SHUTDOWN_TIMEOUT_MS } = {}) {
  return new Promise((resolve) => {
    // A request that still arrives on an open connection is served, but its response says `Connection: close`.
    // (Prepended, so that it runs before the handler writes the response.)
    server.prependListener('request', (_req, res) => res.setHeader('Connection', 'close'));
    // `close()` closes the connections idle at this moment; a connection becomes idle when its last response is
    // out, so they are swept again until none is left.
    const sweep = setInterval(() => server.closeIdleConnections(), 50);
    const deadline = setTimeout(() => server.closeAllConnections(), timeoutMs);
    server.close(() => {
      clearInterval(sweep);
      clearTimeout(deadline);
      resolve();
    });
  });
}
