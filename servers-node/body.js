// Reading a request body within the contract's limits, which `node:http` does not enforce by itself: it streams
// any body, of any size, for as long as the client cares to send it.

/** The largest body POST /users accepts (contract, POST /users rule 2). */
export const BODY_LIMIT = 65_536;

/**
 * How much of an oversized body is read and thrown away before the 413 goes out. If the server answered and closed
 * while the client was still sending, the client's kernel would see a reset and usually drop the 413 unread.
 */
export const DRAIN_LIMIT = 1_048_576;

/**
 * Reads the body of `req`. The promise never rejects; it resolves with one of:
 * - `{outcome: 'complete', body}`: the whole body arrived and is within the limit;
 * - `{outcome: 'too-large'}`: over the limit, declared or counted. The rest is read and thrown away until it ends,
 *   until `drainLimit` bytes past the limit, or until `timeoutMs`, whichever comes first: once a body is known to be
 *   too large, the answer is 413 whatever the client does next (and the connection is closed after it);
 * - `{outcome: 'timed-out'}`: the body was not complete `timeoutMs` after the head (and was not too large);
 * - `{outcome: 'bad-trailer'}`: a chunked body whose trailer holds Content-Length, Transfer-Encoding or Host;
 * - `{outcome: 'aborted'}`: the client went away (reset, or a malformed chunk that made the parser give up).
 * @param {import('node:http').IncomingMessage} req
 * @param {{limit?: number, drainLimit?: number, timeoutMs: number}} options
 */
export function readBody(req, { limit = BODY_LIMIT, drainLimit = DRAIN_LIMIT, timeoutMs }) {
  return new Promise((resolve) => {
    const chunks = [];
    let received = 0;
    // A declared length is known before the first byte: a body announced as too large is never buffered at all.
    // (Node has already rejected a malformed or repeated Content-Length with a 400.)
    const declared = req.headers['content-length'];
    let tooLarge = declared !== undefined && Number(declared) > limit;
    let settled = false;

    const finish = (result) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('close', onClose);
      // Whatever still arrives is discarded; `req` keeps flowing, so it cannot back up into the parser.
      resolve(result);
    };

    const onData = (chunk) => {
      received += chunk.length;
      if (received > limit) {
        tooLarge = true;
        chunks.length = 0;
        if (received > limit + drainLimit) {
          finish({ outcome: 'too-large' });
        }
      } else if (!tooLarge) {
        chunks.push(chunk);
      }
    };
    const onEnd = () => {
      if (tooLarge) {
        finish({ outcome: 'too-large' });
      } else if (hasFramingTrailer(req.rawTrailers)) {
        finish({ outcome: 'bad-trailer' });
      } else {
        finish({ outcome: 'complete', body: Buffer.concat(chunks, received) });
      }
    };
    // 'close' comes after 'end' for a complete request; before it, it means the connection is gone.
    const onClose = () => finish({ outcome: 'aborted' });

    // The contract's second time limit: the body must be complete within `timeoutMs` of the head, which is now
    // (the 'request' event fires when the head has been parsed).
    const timer = setTimeout(() => finish({ outcome: tooLarge ? 'too-large' : 'timed-out' }), timeoutMs);

    req.on('data', onData);
    req.on('end', onEnd);
    req.on('close', onClose);
    // An aborted request emits 'error' (ECONNRESET) as well as 'close'. A stream 'error' nobody listens to would be
    // thrown and take the process down, so a listener stays attached for the life of the request.
    req.on('error', ignore);
  });
}

/** Fields that frame or route a message may not come in a trailer (RFC 9110 section 6.5.1); llhttp lets them pass. */
const FRAMING_FIELDS = new Set(['content-length', 'transfer-encoding', 'host']);

function hasFramingTrailer(rawTrailers) {
  for (let i = 0; i < rawTrailers.length; i += 2) {
    if (FRAMING_FIELDS.has(rawTrailers[i].toLowerCase())) return true;
  }
  return false;
}

function ignore() {}
