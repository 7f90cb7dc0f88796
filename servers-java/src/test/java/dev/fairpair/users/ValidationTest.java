// POST /users rules 1 and 3 to 6, in the contract's order (the Go server's validation_test.go).
package dev.fairpair.users;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

class ValidationTest {
    private static ApiError refusal(String body) {
        return refusal(body.getBytes(StandardCharsets.UTF_8));
    }

    private static ApiError refusal(byte[] body) {
        return assertThrows(ApiError.ApiException.class, () -> Validation.parseNewUser(body)).error;
    }

    @Test
    void acceptsAUserAsSent() {
        Validation.NewUser u = Validation.parseNewUser(
                "{\"name\":\" Zoë \\ud83d\\ude00\",\"email\":\"a@b\",\"x\":\"\\ud800\"}".getBytes(StandardCharsets.UTF_8));
        assertEquals(" Zoë 😀", u.name());
        assertEquals("a@b", u.email());
    }

    @Test
    void rulesInOrder() {
        assertEquals(ApiError.INVALID_JSON, refusal(new byte[] {'{', '"', 'a', '"', ':', '"', (byte) 0xC0, (byte) 0x80, '"', '}'}));
        assertEquals(ApiError.INVALID_JSON, refusal(new byte[] {'{', '"', 'a', '"', ':', '"', (byte) 0xED, (byte) 0xA0, (byte) 0x80, '"', '}'}));
        assertEquals(ApiError.INVALID_JSON, refusal("[]"));
        assertEquals(ApiError.INVALID_JSON, refusal("{\"name\":\"\",\"email\":\"\\udfff\"}"));
        assertEquals(ApiError.INVALID_JSON, refusal("{\"name\":\"\\ud800\",\"email\":\"a@b\"}"));
        assertEquals(ApiError.NAME_REQUIRED, refusal("{\"email\":\"a@b\"}"));
        assertEquals(ApiError.NAME_REQUIRED, refusal("{\"name\":\"\",\"email\":\"a@b\"}"));
        assertEquals(ApiError.NAME_REQUIRED, refusal("{\"name\":1e400,\"email\":\"a@b\"}"));
        assertEquals(ApiError.NAME_TOO_LONG, refusal("{\"name\":\"" + "x".repeat(201) + "\",\"email\":\"a@b\"}"));
        Validation.parseNewUser(("{\"name\":\"" + "😀".repeat(200) + "\",\"email\":\"a@b\"}").getBytes(StandardCharsets.UTF_8));
        assertEquals(ApiError.INVALID_EMAIL, refusal("{\"name\":\"A\"}"));
        assertEquals(ApiError.INVALID_EMAIL, refusal("{\"name\":\"A\",\"email\":\"ab\"}"));
        assertEquals(ApiError.INVALID_EMAIL, refusal("{\"name\":\"A\",\"email\":\"@" + "x".repeat(254) + "\"}"));
    }

    @Test
    void mediaType() {
        assertTrue(Validation.isJsonMediaType("application/json"));
        assertTrue(Validation.isJsonMediaType(" Application/JSON ;charset=utf-8"));
        assertTrue(Validation.isJsonMediaType("application/json;charset=\"x"));
        assertTrue(Validation.isJsonMediaType("\tapplication/json\t"));
        assertFalse(Validation.isJsonMediaType(null));
        assertFalse(Validation.isJsonMediaType("text/plain"));
        assertFalse(Validation.isJsonMediaType("application/jſon"));
        assertFalse(Validation.isJsonMediaType("application/json+x"));
        assertFalse(Validation.isJsonMediaType("\u00a0application/json"));
    }
}
