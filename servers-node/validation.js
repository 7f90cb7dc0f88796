// Turning request input into a new user, or into the exact error the contract names.
//
// "Parse, don't validate": `parseNewUser` takes the raw body bytes and returns either a new user's two strings or
// the one error (an `ApiError`) the first broken rule gives, in the contract's order (POST /users, rules 3 to 6). The
// content type (rule 1) and the size (rule 2) are checked before the body is complete, in routes.js and body.js;
// the store being full (rule 7) is the store's business.

import { ApiError } from './error.js';

// `fatal: true` makes invalid UTF-8 (overlong forms, encoded surrogates, truncated sequences) throw instead of
// turning into U+FFFD. `ignoreBOM: true` keeps a leading byte order mark in the text instead of silently dropping
// it, so that `JSON.parse` then rejects it: the contract says a body with a BOM is invalid JSON. One decoder is
// enough: `decode()` without `{stream: true}` starts afresh on every call.
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export const MAX_NAME_CODE_POINTS = 200;
export const MAX_EMAIL_CODE_POINTS = 254;

/**
 * Parses a POST /users body.
 * @param {Buffer} body the complete request body (at most 64 KiB).
 * @returns {{ok: true, name: string, email: string} | {ok: false, error: {status: number, message: string}}}
 */
export function parseNewUser(body) {
  // Rule 3: valid UTF-8 holding one JSON value, and that value an object (not an array, not null).
  let value;
  try {
    value = JSON.parse(utf8.decode(body));
  } catch {
    return { ok: false, error: ApiError.INVALID_JSON };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, error: ApiError.INVALID_JSON };
  }

  // Only the object's own keys count: `{"__proto__":{"name":"X"}}` must not lend the object a name. With duplicate
  // keys `JSON.parse` keeps the last value, which is what the contract asks for.
  const name = Object.hasOwn(value, 'name') ? value.name : undefined;
  const email = Object.hasOwn(value, 'email') ? value.email : undefined;

  // Rule 4, for both fields before rule 5: a string holding an unpaired surrogate (from an escape such as
  // "\ud800") cannot be sent back as UTF-8, and a Rust `String` cannot even hold it.
  if (typeof name === 'string' && !name.isWellFormed()) {
    return { ok: false, error: ApiError.INVALID_JSON };
  }
  if (typeof email === 'string' && !email.isWellFormed()) {
    return { ok: false, error: ApiError.INVALID_JSON };
  }

  // Rule 5.
  if (typeof name !== 'string' || name.length === 0) {
    return { ok: false, error: ApiError.NAME_REQUIRED };
  }
  if (codePointsExceed(name, MAX_NAME_CODE_POINTS)) {
    return { ok: false, error: ApiError.NAME_TOO_LONG };
  }

  // Rule 6.
  if (typeof email !== 'string' || codePointsExceed(email, MAX_EMAIL_CODE_POINTS) || !email.includes('@')) {
    return { ok: false, error: ApiError.INVALID_EMAIL };
  }

  return { ok: true, name, email };
}

/**
 * Whether `text` has more than `max` code points. `text.length` counts UTF-16 code units, so an emoji counts twice
 * there; the contract counts code points, as Rust's `chars().count()` does. A string never has more code points
 * than code units, so short strings need no counting at all.
 */
export function codePointsExceed(text, max) {
  if (text.length <= max) {
    return false;
  }
  let count = 0;
  for (const _ of text) {
    count += 1;
    if (count > max) {
      return true;
    }
  }
  return false;
}

/**
 * Rule 1: whether a `Content-Type` value names `application/json`. Only the media type counts (the part before
 * `;`), with spaces and tabs around it ignored and compared case-insensitively. `String.prototype.trim()` is not
 * used because it also strips other Unicode spaces (U+00A0 among them), which HTTP does not treat as whitespace.
 * @param {string | undefined} value
 */
export function isJsonMediaType(value) {
  if (value === undefined) {
    return false;
  }
  const semicolon = value.indexOf(';');
  const mediaType = trimSpacesAndTabs(semicolon === -1 ? value : value.slice(0, semicolon));
  return mediaType.toLowerCase() === 'application/json';
}

/** `text` without the spaces and tabs around it: HTTP's optional whitespace (OWS), and nothing else. */
export function trimSpacesAndTabs(text) {
  let start = 0;
  let end = text.length;
  while (start < end && isSpaceOrTab(text.charCodeAt(start))) start += 1;
  while (end > start && isSpaceOrTab(text.charCodeAt(end - 1))) end -= 1;
  return text.slice(start, end);
}

function isSpaceOrTab(code) {
  return code === 0x20 || code === 0x09;
}
