// A small runner for contract/cases.json (schema in contract/README.md): it builds each case's request bytes,
// sends them over a raw TCP socket, reads one response, and checks it. Raw sockets rather than an HTTP client,
// because half the cases are requests a client library refuses to send, and because what is checked includes the
// framing (Content-Length, no chunking, whether the connection closes).

import net from 'node:net';
import { readFileSync } from 'node:fs';

export const CASES_URL = new URL('../../contract/cases.json', import.meta.url);

/** The cases, in file order. */
export function loadCases() {
  return JSON.parse(readFileSync(CASES_URL, 'utf8')).cases;
}

/** The bytes of a `request.body` or `raw` value: a string, or a list of strings, `{hex}` and `{repeat, times}`. */
export function bytesOf(value) {
  const parts = Array.isArray(value) ? value : [value];
  return Buffer.concat(
    parts.map((part) => {
      if (typeof part === 'string') return Buffer.from(part, 'utf8');
      if (typeof part.hex === 'string') return Buffer.from(part.hex, 'hex');
      if (typeof part.repeat === 'string') return Buffer.from(part.repeat.repeat(part.times), 'utf8');
      throw new Error(`unknown bytes part ${JSON.stringify(part)}`);
    }),
  );
}

/**
 * The request bytes of a case. For `request`, the runner adds `Host: 127.0.0.1` unless the case has a Host, and a
 * Content-Length when there is a body unless the case has a Content-Length or Transfer-Encoding.
 */
export function requestBytes(testCase) {
  if (testCase.raw !== undefined) {
    return bytesOf(testCase.raw);
  }
  const { method, target, headers = [], body } = testCase.request;
  const names = headers.map(([name]) => name.toLowerCase());
  const lines = [`${method} ${target} HTTP/1.1`];
  if (!names.includes('host')) lines.push('Host: 127.0.0.1');
  for (const [name, value] of headers) lines.push(`${name}: ${value}`);
  const bodyBytes = body === undefined ? Buffer.alloc(0) : bytesOf(body);
  if (body !== undefined && !names.includes('content-length') && !names.includes('transfer-encoding')) {
    lines.push(`Content-Length: ${bodyBytes.length}`);
  }
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), bodyBytes]);
}

/**
 * Parses one response from the start of `buffer`. Returns `null` while it is incomplete (`ended` says whether more
 * can come). Interim 1xx responses are skipped; `length` is how many bytes of `buffer` the response took (with them).
 * @returns {{status: number, headers: Map<string, string[]>, body: Buffer, chunked: boolean, length: number} | null}
 */
export function parseResponse(buffer, { headRequest = false, ended = false } = {}) {
  let offset = 0;
  for (;;) {
    const headEnd = buffer.indexOf('\r\n\r\n', offset);
    if (headEnd === -1) return null;
    const lines = buffer.subarray(offset, headEnd).toString('latin1').split('\r\n');
    const match = /^HTTP\/1\.[01] ([0-9]{3})(?: .*)?$/.exec(lines[0]);
    if (match === null) throw new Error(`bad status line ${JSON.stringify(lines[0])}`);
    const status = Number(match[1]);
    const headers = new Map();
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      const name = line.slice(0, colon).toLowerCase();
      const value = line.slice(colon + 1).trim();
      headers.set(name, [...(headers.get(name) ?? []), value]);
    }
    const bodyStart = headEnd + 4;
    if (status >= 100 && status < 200) {
      offset = bodyStart;
      continue;
    }
    const rest = buffer.subarray(bodyStart);
    if (headRequest || status === 204 || status === 304) {
      return { status, headers, body: Buffer.alloc(0), chunked: false, length: bodyStart };
    }
    const length = headers.get('content-length');
    if (length !== undefined) {
      const n = Number(length[0]);
      if (rest.length < n) return null;
      return { status, headers, body: rest.subarray(0, n), chunked: false, length: bodyStart + n };
    }
    if ((headers.get('transfer-encoding') ?? []).some((v) => v.toLowerCase().includes('chunked'))) {
      const chunked = parseChunked(rest);
      if (chunked === null) return null;
      return { status, headers, body: chunked.body, chunked: true, length: bodyStart + chunked.end };
    }
    // Neither: the body runs to the end of the connection.
    return ended ? { status, headers, body: rest, chunked: false, length: buffer.length } : null;
  }
}

/** A chunked body at the start of `buffer`: its bytes, and where it ends (after the last chunk's line). */
function parseChunked(buffer) {
  const parts = [];
  let offset = 0;
  for (;;) {
    const lineEnd = buffer.indexOf('\r\n', offset);
    if (lineEnd === -1) return null;
    const size = parseInt(buffer.subarray(offset, lineEnd).toString('latin1'), 16);
    if (size === 0) return { body: Buffer.concat(parts), end: lineEnd + 2 };
    if (buffer.length < lineEnd + 2 + size + 2) return null;
    parts.push(buffer.subarray(lineEnd + 2, lineEnd + 2 + size));
    offset = lineEnd + 2 + size + 2;
  }
}

/**
 * Sends `bytes` on a new connection and reads one response.
 * @returns {Promise<{response: object | null, closed: boolean, rest: Buffer}>} `closed` tells whether the server
 *   closed the connection: with no response at all, or (when `waitForClose`) within `closeWaitMs` after the response;
 *   `rest` is what came after the response by then (a case's `nothing_after` requires it empty).
 */
export function exchange({ host = '127.0.0.1', port }, bytes, options = {}) {
  const { headRequest = false, waitForClose = false, closeWaitMs = 3000, timeoutMs = 10_000 } = options;
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host, port });
    let received = Buffer.alloc(0);
    let response = null;
    let done = false;
    const finish = (result) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      const rest = result.response === null ? Buffer.alloc(0) : received.subarray(result.response.length);
      resolve({ ...result, rest });
    };
    const timer = setTimeout(() => {
      if (response !== null) finish({ response, closed: false });
      else {
        done = true;
        socket.destroy();
        reject(new Error(`no response within ${timeoutMs} ms`));
      }
    }, timeoutMs);

    const tryParse = (ended) => {
      if (response !== null) return;
      try {
        response = parseResponse(received, { headRequest, ended });
      } catch (error) {
        done = true;
        clearTimeout(timer);
        socket.destroy();
        reject(error);
        return;
      }
      if (response !== null && !waitForClose) finish({ response, closed: false });
      if (response !== null && waitForClose) {
        clearTimeout(timer);
        setTimeout(() => finish({ response, closed: false }), closeWaitMs);
      }
    };
    socket.on('data', (chunk) => {
      received = Buffer.concat([received, chunk]);
      tryParse(false);
    });
    const onGone = () => {
      tryParse(true);
      finish({ response, closed: true });
    };
    socket.on('end', onGone);
    socket.on('close', onGone);
    // A server may answer (413, 400) and close before it has read everything; the response may still be there.
    socket.on('error', () => {});
    socket.write(bytes);
  });
}

/**
 * Runs one case.
 * @param {(requires: object | undefined) => ({host?: string, port: number} | null)} targetFor the server to use
 *   for a case's `requires`, or `null` when none can be provided (the case is then skipped, never passed).
 * @param {{requireContentLength?: boolean}} [options] also require a Content-Length and no chunking on responses
 *   the case itself does not check so closely (the contract wants them on every response).
 * @returns {Promise<{skipped: boolean, problems: string[]}>}
 */
export async function runCase(testCase, targetFor, options = {}) {
  const target = targetFor(testCase.requires);
  if (target === null) return { skipped: true, problems: [] };
  const expect = testCase.expect;
  const method = testCase.request?.method ?? testCase.raw;
  const headRequest = typeof method === 'string' ? method.startsWith('HEAD') : false;
  const { response, closed, rest } = await exchange(target, requestBytes(testCase), {
    headRequest,
    waitForClose: expect.closes === true,
  });
  const problems = [];
  const header = (name) => response?.headers.get(name)?.[0];

  if (testCase.match === 'tolerated') {
    const outcome = response === null ? 'closed' : response.status;
    if (!expect.any_of.includes(outcome)) problems.push(`got ${outcome}, expected one of ${expect.any_of.join(', ')}`);
    return { skipped: false, problems };
  }
  if (response === null) {
    return { skipped: false, problems: ['the server closed the connection without a response'] };
  }

  if (expect.status !== undefined && response.status !== expect.status) {
    problems.push(`status ${response.status}, expected ${expect.status}`);
  }
  if (expect.status_class !== undefined && Math.floor(response.status / 100) !== expect.status_class) {
    problems.push(`status ${response.status}, expected ${expect.status_class}xx`);
  }
  if (testCase.match === 'exact' || options.requireContentLength) {
    if (response.chunked || header('transfer-encoding') !== undefined) problems.push('response is chunked');
    if (header('content-length') === undefined) problems.push('no Content-Length');
  }
  if (testCase.match === 'exact') {
    if (expect.content_type !== undefined && header('content-type') !== expect.content_type) {
      problems.push(`Content-Type ${JSON.stringify(header('content-type'))}, expected ${expect.content_type}`);
    }
    const body = response.body.toString('utf8');
    if (expect.no_body) {
      if (response.body.length !== 0) problems.push(`a body on a response that must have none`);
    } else {
      if (header('content-length') !== undefined && Number(header('content-length')) !== response.body.length) {
        problems.push(`Content-Length ${header('content-length')} but ${response.body.length} body bytes`);
      }
      if (expect.body !== undefined && body !== expect.body) {
        problems.push(`body ${JSON.stringify(body)}, expected ${JSON.stringify(expect.body)}`);
      }
      if (expect.body_pattern !== undefined && !new RegExp(expect.body_pattern, 'u').test(body)) {
        problems.push(`body ${JSON.stringify(body)} does not match ${expect.body_pattern}`);
      }
    }
  }
  for (const [name, wanted] of Object.entries(expect.headers ?? {})) {
    const got = header(name.toLowerCase());
    if (wanted === null) {
      if (got !== undefined) problems.push(`header ${name} present (${got}), must be absent`);
    } else if (typeof wanted === 'string') {
      if (got !== wanted) problems.push(`header ${name} ${JSON.stringify(got)}, expected ${JSON.stringify(wanted)}`);
    } else if (got === undefined || !new RegExp(wanted.pattern, 'u').test(got)) {
      problems.push(`header ${name} ${JSON.stringify(got)} does not match ${wanted.pattern}`);
    }
  }
  if (expect.closes && !closed) problems.push('the connection stayed open');
  // As the Rust runner: bytes after the response, before the close, are a second answer the case forbids.
  if (expect.nothing_after && rest.length > 0) {
    problems.push(
      `expected nothing after the response (it ends the connection), got ${JSON.stringify(rest.toString('latin1'))}`,
    );
  }

  if (testCase.roundtrip && problems.length === 0 && response.status === 201) {
    const location = header('location');
    const get = Buffer.from(`GET ${location} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`, 'latin1');
    const { response: again } = await exchange(target, get);
    if (again === null) problems.push(`roundtrip: no response to GET ${location}`);
    else if (again.status !== 200) problems.push(`roundtrip: GET ${location} gave ${again.status}`);
    else if (!again.body.equals(response.body)) {
      problems.push(`roundtrip: GET ${location} gave ${JSON.stringify(again.body.toString())}`);
    }
  }
  return { skipped: false, problems };
}
