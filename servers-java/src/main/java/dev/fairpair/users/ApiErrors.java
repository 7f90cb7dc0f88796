// The error shape of every answer a handler gives up on: {"error":"…"} with its status, through send(). Errors
// thrown on purpose are ApiExceptions; anything else is the contract's 500, and the process stays up.
package dev.fairpair.users;

import java.io.IOException;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.web.HttpRequestMethodNotSupportedException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/** Writes ApiErrors, and 500 for an unexpected failure. */
@RestControllerAdvice
public class ApiErrors {
    @ExceptionHandler(ApiError.ApiException.class)
    public void apiError(ApiError.ApiException e, HttpServletRequest request, HttpServletResponse response)
            throws IOException {
        if (e.allow != null) {
            response.setHeader("Allow", e.allow);
        }
        UsersController.send(request, response, e.error.status, UsersController.JSON,
                Json.object("error", e.error.message));
    }

    /**
     * A method Spring has no enum value for (QUERY, FOO, get) never reaches the controller's mapping: it gets what
     * any other method gets on its path, 405 with Allow or 404 (the contract allows 400 or 405 for the non-standard
     * ones).
     */
    @ExceptionHandler(HttpRequestMethodNotSupportedException.class)
    public void unknownMethod(HttpServletRequest request, HttpServletResponse response) throws IOException {
        UsersController.otherMethod(request, response);
    }

    @ExceptionHandler(Exception.class)
    public void unexpected(Exception e, HttpServletRequest request, HttpServletResponse response) throws IOException {
        e.printStackTrace();
        if (!response.isCommitted()) {
            response.reset();
            UsersController.send(request, response, 500, UsersController.JSON,
                    Json.object("error", ApiError.INTERNAL.message));
        }
    }
}
