// Every error the API can answer with, its status and its exact message: the contract's messages live here and
// nowhere else. The Rust server's error.rs (ApiError) and the Node server's error.js (ApiError) do the same job.

package main

// apiError is one of the contract's error answers: a status and the message of its {"error": …} body.
type apiError struct {
	status  int
	message string
}

// The error answers of the API, each with its status; the contract's messages live here and nowhere else.
var (
	errNotFound         = apiError{404, "not found"}
	errMethodNotAllowed = apiError{405, "method not allowed"}
	errUnsupportedType  = apiError{415, "content-type must be application/json"}
	errPayloadTooLarge  = apiError{413, "payload too large"}
	errInvalidJSON      = apiError{400, "invalid json"}
	errNameRequired     = apiError{400, "name required"}
	errNameTooLong      = apiError{400, "name too long"}
	errInvalidEmail     = apiError{400, "invalid email"}
	errStoreFull        = apiError{507, "store full"}
	errRequestTimeout   = apiError{408, "request timeout"}
	errBadRequest       = apiError{400, "bad request"}
	errInternal         = apiError{500, "internal error"}
)
