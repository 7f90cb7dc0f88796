// Every error the API can answer with, its status and its exact message: the contract's messages live here and
// nowhere else. The Rust server's error.rs (`ApiError`) and the Go server's error.go (`apiError`) do the same job.

/** An error answer of the API: its status, and the message of its `{"error": …}` body. */
export const ApiError = Object.freeze({
  NOT_FOUND: { status: 404, message: 'not found' },
  METHOD_NOT_ALLOWED: { status: 405, message: 'method not allowed' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: 'content-type must be application/json' },
  PAYLOAD_TOO_LARGE: { status: 413, message: 'payload too large' },
  INVALID_JSON: { status: 400, message: 'invalid json' },
  NAME_REQUIRED: { status: 400, message: 'name required' },
  NAME_TOO_LONG: { status: 400, message: 'name too long' },
  INVALID_EMAIL: { status: 400, message: 'invalid email' },
  STORE_FULL: { status: 507, message: 'store full' },
  REQUEST_TIMEOUT: { status: 408, message: 'request timeout' },
  UNSUPPORTED_TRANSFER_ENCODING: { status: 501, message: 'unsupported transfer encoding' },
  INTERNAL: { status: 500, message: 'internal error' },
});
