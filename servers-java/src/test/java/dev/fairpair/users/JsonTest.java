// The JSON scanner against JSON.parse's grammar and the writer against JSON.stringify's escapes: the cases of the Go
// server's json_test.go and the Rust server's json.rs tests.
package dev.fairpair.users;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

class JsonTest {
    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static final String[] ACCEPTED = {
        "{}",
        " \t\r\n{ \"a\" : 1 , \"b\" :\n[ ] }\r\n",
        "{\"a\":true,\"b\":false,\"c\":null}",
        "{\"a\":1e400,\"b\":-1e400,\"c\":-0,\"d\":1.5e-400,\"e\":12345678901234567890123}",
        "{\"a\":0,\"b\":-0.5,\"c\":1E+2,\"d\":1e-2,\"e\":10.25}",
        "{\"a\":\"\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\uD83D\\uDE00\"}",
        "{\"\\ud800\":\"\\udc00x\"}",
        "{\"a\":\"é😀\u007f\u2028\"}",
        "{\"a\":{},\"b\":[],\"c\":[{}],\"d\":{\"e\":[]}}",
        "{\"x\":" + "[".repeat(30_000) + "]".repeat(30_000) + "}",
        "{\"x\":" + "{\"a\":".repeat(10_000) + "1" + "}".repeat(10_000) + "}",
    };

    private static final String[] REFUSED = {
        "", " \n", "[]", "\"x\"", "1", "null", "{", "{\"a\":1,}", "{\"a\":[1,]}", "{\"a\" 1}", "{\"a\":}", "{}{}",
        "{} x", "{'a':1}", "{a:1}", "{/*c*/}", "{\"a\":NaN}", "{\"a\":Infinity}", "{\"a\":01}", "{\"a\":+1}",
        "{\"a\":.5}", "{\"a\":1.}", "{\"a\":1e}", "{\"a\":0x10}", "{\"a\":-}", "{\"a\":tru}", "{\"a\":True}",
        "{\"a\":\"\t\"}", "{\"a\":\"\n\"}", "{\"a\":\"\0\"}", "{\"a\":\"\\x41\"}", "{\"a\":\"\\u41\"}",
        "{\"a\":\"\\u00g0\"}", "{\"a\":\"x}", "{\"a\":\"\\", "\ufeff{}", "{\u00a0}", "{\f}", "{\u000b}", "{}\u2028",
        "{}\0", "{\"x\":" + "[".repeat(20_000) + "}", "{\"a\":[}", "{\"a\":{1:2}}",
    };

    @Test
    void acceptsWhatJsonParseAccepts() {
        for (String text : ACCEPTED) {
            assertNotNull(Json.scanObject(utf8(text)), () -> "should be accepted: " + text.substring(0, Math.min(60, text.length())));
        }
    }

    @Test
    void refusesWhatJsonParseRefusesOrIsNoObject() {
        for (String text : REFUSED) {
            assertNull(Json.scanObject(utf8(text)), () -> "should be refused: " + text.substring(0, Math.min(60, text.length())));
        }
    }

    private static String member(byte[] body, Json.Member m) {
        return m.kind() == Json.Member.Kind.STRING ? Json.decodeString(body, m.start(), m.end()) : m.kind().name();
    }

    @Test
    void theLastDuplicateWinsEscapedKeysIncluded() {
        byte[] body = utf8("{\"name\":\"\\ud800\",\"name\":{\"a\":[1]},\"email\":5,\"na\\u006de\":\"Ok\",\"email\":\"a@b\"}");
        Json.Fields f = Json.scanObject(body);
        assertEquals("Ok", member(body, f.name()));
        assertEquals("a@b", member(body, f.email()));
        byte[] later = utf8("{\"name\":\"A\",\"name\":1e400}");
        assertEquals("OTHER", member(later, Json.scanObject(later).name()));
        byte[] nested = utf8("{\"x\":{\"name\":\"nested\",\"email\":\"n@n\"}}");
        assertEquals("ABSENT", member(nested, Json.scanObject(nested).name()));
        byte[] cased = utf8("{\"NAME\":\"A\",\"Email\":\"a@b\"}");
        assertEquals("ABSENT", member(cased, Json.scanObject(cased).email()));
    }

    private static String decode(String raw) {
        byte[] b = utf8(raw);
        return Json.decodeString(b, 0, b.length);
    }

    @Test
    void decodesEscapesAndRefusesLoneSurrogates() {
        assertEquals("abc", decode("abc"));
        assertEquals("\"\\/\b\f\n\r\t", decode("\\\"\\\\\\/\\b\\f\\n\\r\\t"));
        assertEquals("Aéé", decode("\\u0041\\u00E9\\u00e9"));
        assertEquals("😀", decode("\\ud83d\\ude00"));
        assertEquals("a\nb😀c", decode("a\\nb😀c"));
        for (String lone : new String[] {"\\ud800", "\\ud800x", "\\ud800\\n", "a\\udc00b", "\\udc00\\ud800",
            "\\ud800\\u0041"}) {
            assertNull(decode(lone), lone);
        }
    }

    @Test
    void writesAsJsonStringifyDoes() {
        StringBuilder out = new StringBuilder();
        Json.appendString(out, "\"\\\b\f\n\r\t\u0001\u001f\u007f<>&é\u2028");
        assertEquals("\"\\\"\\\\\\b\\f\\n\\r\\t\\u0001\\u001f\u007f<>&é\u2028\"", out.toString());
        assertEquals("{\"id\":500,\"name\":\"User 500\",\"email\":\"user500@example.com\"}",
                new String(Json.user(new Store.User(500, "User 500", "user500@example.com")), StandardCharsets.UTF_8));
    }
}
