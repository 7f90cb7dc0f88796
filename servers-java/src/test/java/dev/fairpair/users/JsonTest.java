// The JSON scanner against JSON.parse's grammar and the writer against JSON.stringify's escapes, on the tables of
// contract/json-bodies.json, which the other twins' tests read too (its header says how to read it).
package dev.fairpair.users;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

class JsonTest {
    /** The shared tables, from the Maven project's directory, where the tests run. */
    private static final JsonNode BODIES = JsonMapper.shared().readTree(Path.of("../contract/json-bodies.json"));

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** The cases of one table. */
    private static List<JsonNode> cases(String table) {
        List<JsonNode> out = new ArrayList<>();
        BODIES.get(table).get("cases").forEach(out::add);
        assertFalse(out.isEmpty(), "contract/json-bodies.json: no cases in " + table);
        return out;
    }

    /** A body as the file writes it: a string, or parts joined (strings, and {"repeat": text, "times": n}). */
    private static String body(JsonNode spec) {
        if (spec.isString()) {
            return spec.stringValue();
        }
        StringBuilder out = new StringBuilder();
        for (JsonNode part : spec) {
            String text = part.isString() ? part.stringValue() : part.get("repeat").stringValue();
            out.append(part.isString() ? text : text.repeat(part.get("times").intValue()));
        }
        return out.toString();
    }

    @Test
    void acceptsWhatJsonParseAccepts() {
        for (JsonNode c : cases("objects")) {
            String name = c.get("case").stringValue();
            assertNotNull(Json.scanObject(utf8(body(c.get("body")))), () -> "should be accepted: " + name);
        }
    }

    @Test
    void refusesWhatJsonParseRefusesOrIsNoObject() {
        for (JsonNode c : cases("refused")) {
            String name = c.get("case").stringValue();
            assertNull(Json.scanObject(utf8(body(c.get("body")))), () -> "should be refused: " + name);
        }
    }

    /** A member as the file names it: the raw text of a string, or its kind's name. */
    private static String expected(JsonNode m) {
        String kind = m.get("kind").stringValue();
        return kind.equals("string") ? m.get("raw").stringValue() : kind.toUpperCase();
    }

    /** A member as the scanner found it, in the same words. */
    private static String member(byte[] body, Json.Member m) {
        return m.kind() == Json.Member.Kind.STRING
                ? new String(body, m.start(), m.end() - m.start(), StandardCharsets.UTF_8)
                : m.kind().name();
    }

    @Test
    void theLastDuplicateWinsEscapedKeysIncluded() {
        for (JsonNode c : cases("last_wins")) {
            byte[] body = utf8(body(c.get("body")));
            Json.Fields f = Json.scanObject(body);
            String name = c.get("case").stringValue();
            assertNotNull(f, name);
            assertEquals(expected(c.get("name")), member(body, f.name()), name + ": name");
            assertEquals(expected(c.get("email")), member(body, f.email()), name + ": email");
        }
    }

    @Test
    void decodesEscapesAndRefusesLoneSurrogates() {
        for (JsonNode c : cases("strings")) {
            byte[] raw = utf8(c.get("raw").stringValue());
            JsonNode decoded = c.get("decoded");
            assertEquals(decoded.isNull() ? null : decoded.stringValue(), Json.decodeString(raw, 0, raw.length),
                    c.get("case").stringValue());
        }
    }

    @Test
    void writesAsJsonStringifyDoes() {
        for (JsonNode c : cases("escaped")) {
            StringBuilder out = new StringBuilder();
            Json.appendString(out, c.get("text").stringValue());
            assertEquals(c.get("written").stringValue(), out.toString(), c.get("case").stringValue());
        }
        assertEquals("{\"id\":500,\"name\":\"User 500\",\"email\":\"user500@example.com\"}",
                new String(Json.user(new Store.User(500, "User 500", "user500@example.com")), StandardCharsets.UTF_8));
    }
}
