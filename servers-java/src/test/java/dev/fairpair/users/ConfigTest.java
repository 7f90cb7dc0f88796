// Flags and environment variables: the contract's names, ranges and messages (the Go server's config_test.go).
package dev.fairpair.users;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

class ConfigTest {
    private static Config parse(Map<String, String> env, String... args) throws Config.Error {
        return Config.parse(List.of(args), env::get);
    }

    private static String error(Map<String, String> env, String... args) {
        return assertThrows(Config.Error.class, () -> parse(env, args)).getMessage();
    }

    @Test
    void defaults() throws Config.Error {
        Config c = parse(Map.of());
        assertEquals("127.0.0.1", c.host());
        assertEquals(3000, c.port());
        assertEquals(0, c.workers());
        assertEquals(1_000_000, c.maxUsers());
        assertEquals(10_000, c.headerTimeoutMs());
        assertEquals(10_000, c.bodyTimeoutMs());
        assertEquals(10_000, c.shutdownTimeoutMs());
    }

    @Test
    void flagsWinOverTheEnvironmentAndBothFormsWork() throws Config.Error {
        Config c = parse(Map.of("PORT", "1", "WORKERS", "3", "MAX_USERS", ""), "--port=0", "--max-users", "10000",
                "--log", "--host", "::1", "--header-timeout-ms", "500");
        assertEquals(0, c.port());
        assertEquals(3, c.workers());
        assertEquals(10_000, c.maxUsers());
        assertEquals("::1", c.host());
        assertEquals(500, c.headerTimeoutMs());
        assertTrue(c.log());
    }

    @Test
    void badValuesNameWhereTheyCameFrom() {
        assertEquals("--port: 'abc' is not a number", error(Map.of(), "--port", "abc"));
        assertEquals("PORT: 'abc' is not a number", error(Map.of("PORT", "abc")));
        assertEquals("--port: 65536 is out of range (0..65535)", error(Map.of(), "--port", "65536"));
        assertEquals("--workers: 0 is out of range (1..1024)", error(Map.of(), "--workers", "0"));
        assertEquals("--workers: '+5' is not a number", error(Map.of(), "--workers", "+5"));
        assertEquals("--max-users: 9999 is out of range (10000..16777216)", error(Map.of(), "--max-users", "9999"));
        assertEquals("--max-users: 99999999999999999999 is out of range (10000..16777216)",
                error(Map.of(), "--max-users", "99999999999999999999"));
        assertEquals("--host: 'localhost' is not an IP address", error(Map.of(), "--host", "localhost"));
        assertEquals("HOST: '1.2.3' is not an IP address", error(Map.of("HOST", "1.2.3")));
    }

    @Test
    void badFlags() {
        assertEquals("unknown flag '--nope' (try --help)", error(Map.of(), "--nope"));
        assertEquals("unexpected argument 'x' (try --help)", error(Map.of(), "x"));
        assertEquals("--port given more than once", error(Map.of(), "--port", "1", "--port=2"));
        assertEquals("--port needs a value", error(Map.of(), "--port"));
        assertEquals("--log takes no value", error(Map.of(), "--log=1"));
    }

    @Test
    void helpNamesEveryFlagAndRange() throws Config.Error {
        assertTrue(parse(Map.of(), "--help").help());
        for (String part : List.of("--host", "--port", "--workers", "--max-users", "--log", "0..65535", "1..1024",
                "10000..16777216", "--header-timeout-ms", "--body-timeout-ms", "--shutdown-timeout-ms")) {
            assertTrue(Config.USAGE.contains(part), part);
        }
    }
}
