// Every error the API can answer with, its status and its exact message: the contract's messages live here and
// nowhere else. The Go server's error.go and the Rust server's error.rs do the same job. A handler throws one as an
// ApiException; ApiErrors (the @RestControllerAdvice) writes it.
package dev.fairpair.users;

/** One of the contract's error answers: a status and the message of its {"error": …} body. */
public enum ApiError {
    NOT_FOUND(404, "not found"),
    METHOD_NOT_ALLOWED(405, "method not allowed"),
    UNSUPPORTED_TYPE(415, "content-type must be application/json"),
    PAYLOAD_TOO_LARGE(413, "payload too large"),
    INVALID_JSON(400, "invalid json"),
    NAME_REQUIRED(400, "name required"),
    NAME_TOO_LONG(400, "name too long"),
    INVALID_EMAIL(400, "invalid email"),
    STORE_FULL(507, "store full"),
    REQUEST_TIMEOUT(408, "request timeout"),
    BAD_REQUEST(400, "bad request"),
    INTERNAL(500, "internal error");

    public final int status;
    public final String message;

    ApiError(int status, String message) {
        this.status = status;
        this.message = message;
    }

    /** The answer as an exception, for handlers. */
    public ApiException exception() {
        return new ApiException(this, null);
    }

    /** An error answer thrown by a handler; allow is the Allow header of a 405, else null. */
    public static final class ApiException extends RuntimeException {
        public final ApiError error;
        public final String allow;

        public ApiException(ApiError error, String allow) {
            super(error.message, null, false, false);
            this.error = error;
            this.allow = allow;
        }
    }
}
