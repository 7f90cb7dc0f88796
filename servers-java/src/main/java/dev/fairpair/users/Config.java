// Command-line flags and environment variables, exactly as the contract's table has them, parsed the way the Go
// server's config.go and the Node server's config.js parse them. A flag wins over its variable; anything unknown,
// repeated, malformed or out of range is a Config.Error, which UsersServer turns into one line on stderr and exit
// status 2.
//
// Why not Spring's own binding (@ConfigurationProperties, --server.port=…)? It takes `--name=value` only, accepts
// any property name without complaint, relaxes names (MAX_USERS, max-users and maxUsers are one key) and reports a
// bad value as a multi-line failure analysis with exit status 1. The contract wants every twin's flags, messages
// and status 2, so the arguments are parsed here, before SpringApplication.run, and handed to Spring as one bean.
package dev.fairpair.users;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/** The parsed command line. */
public record Config(boolean help, String host, int port, int workers, int maxUsers, boolean log,
        long headerTimeoutMs, long bodyTimeoutMs, long shutdownTimeoutMs) {

    /** A bad flag or value; its message is the one line printed after "error: ". */
    public static final class Error extends Exception {
        public Error(String message) {
            super(message);
        }
    }

    /** The contract's two time limits and the shutdown deadline, 10 s each; tests lower them. */
    public static final long TEN_SECONDS_MS = 10_000;

    /** What --help prints. */
    public static final String USAGE = """
            usage: users-server-java [--host ADDR] [--port N] [--workers N] [--max-users N] [--log]
              --host ADDR      address to bind (env HOST, default 127.0.0.1)
              --port N         port to bind, 0..65535, 0 for any free port (env PORT, default 3000)
              --workers N      the processors the JVM sees, 1..1024 (env WORKERS, default: available processors);
                               start the JVM with -XX:ActiveProcessorCount=N to run on N
              --max-users N    store capacity, seed included (env MAX_USERS, %d..%d, default 1000000)
              --log            one line per request on stderr, e.g. 2026-11-30T19:00:00.123Z GET /users/500 200 0.123ms
            For tests only (env HEADER_TIMEOUT_MS, BODY_TIMEOUT_MS, SHUTDOWN_TIMEOUT_MS; default 10000 each):
              --header-timeout-ms N    time for a complete request head, and for an idle keep-alive connection
              --body-timeout-ms N      time for a complete request body after its head
              --shutdown-timeout-ms N  how long SIGTERM/SIGINT waits for requests in progress"""
            .formatted(Store.SEED_USERS, Store.MAX_CAPACITY);

    /** The flags with a value, in the order the contract's table has them, with their variables; --log has none. */
    private static final Map<String, String> VARIABLES = new LinkedHashMap<>();

    static {
        VARIABLES.put("host", "HOST");
        VARIABLES.put("port", "PORT");
        VARIABLES.put("workers", "WORKERS");
        VARIABLES.put("max-users", "MAX_USERS");
        VARIABLES.put("header-timeout-ms", "HEADER_TIMEOUT_MS");
        VARIABLES.put("body-timeout-ms", "BODY_TIMEOUT_MS");
        VARIABLES.put("shutdown-timeout-ms", "SHUTDOWN_TIMEOUT_MS");
    }

    /**
     * Reads the arguments and the environment (getenv is System::getenv, or a map in tests). workers is 0 when
     * neither --workers nor WORKERS is given.
     */
    public static Config parse(List<String> args, Function<String, String> getenv) throws Error {
        boolean help = false;
        boolean log = false;
        Map<String, String> flags = new HashMap<>();
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            if (arg.equals("--help") || arg.equals("-h")) {
                help = true;
                continue;
            }
            if (arg.equals("--log")) {
                log = true;
                continue;
            }
            if (!arg.startsWith("--")) {
                throw new Error("unexpected argument '" + arg + "' (try --help)");
            }
            String rest = arg.substring(2);
            int equals = rest.indexOf('=');
            String name = equals == -1 ? rest : rest.substring(0, equals);
            if (name.equals("log")) {
                throw new Error("--log takes no value");
            }
            if (!VARIABLES.containsKey(name)) {
                throw new Error("unknown flag '--" + name + "' (try --help)");
            }
            if (flags.containsKey(name)) {
                throw new Error("--" + name + " given more than once");
            }
            String value;
            if (equals != -1) {
                value = rest.substring(equals + 1);
            } else if (i + 1 < args.size()) {
                value = args.get(++i);
            } else {
                throw new Error("--" + name + " needs a value");
            }
            flags.put(name, value);
        }

        Map<String, Object> values = new HashMap<>();
        for (var entry : VARIABLES.entrySet()) {
            String name = entry.getKey();
            String variable = entry.getValue();
            String given = flags.get(name);
            if (given != null) {
                values.put(name, value(name, given, "--" + name));
            } else {
                String fromEnv = getenv.apply(variable);
                // An empty variable counts as unset, as in the other servers.
                if (fromEnv != null && !fromEnv.isEmpty()) {
                    values.put(name, value(name, fromEnv, variable));
                }
            }
        }
        return new Config(help, (String) values.getOrDefault("host", "127.0.0.1"),
                (int) (long) (Long) values.getOrDefault("port", 3000L),
                (int) (long) (Long) values.getOrDefault("workers", 0L),
                (int) (long) (Long) values.getOrDefault("max-users", 1_000_000L), log,
                (Long) values.getOrDefault("header-timeout-ms", TEN_SECONDS_MS),
                (Long) values.getOrDefault("body-timeout-ms", TEN_SECONDS_MS),
                (Long) values.getOrDefault("shutdown-timeout-ms", TEN_SECONDS_MS));
    }

    private static Object value(String name, String text, String what) throws Error {
        return switch (name) {
            case "host" -> host(text, what);
            case "port" -> integer(text, what, 0, 65_535);
            case "workers" -> integer(text, what, 1, 1024);
            case "max-users" -> integer(text, what, Store.SEED_USERS, Store.MAX_CAPACITY);
            case "shutdown-timeout-ms" -> integer(text, what, 0, 3_600_000);
            default -> integer(text, what, 1, 3_600_000);
        };
    }

    /** A plain decimal integer in [min, max]: no sign, no exponent, no hex, no blanks. */
    static long integer(String text, String what, long min, long max) throws Error {
        if (text.isEmpty() || !text.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw new Error(what + ": '" + text + "' is not a number");
        }
        long value;
        try {
            value = Long.parseLong(text);
        } catch (NumberFormatException tooLong) {
            value = Long.MAX_VALUE;
        }
        if (value < min || value > max) {
            throw new Error(what + ": " + text + " is out of range (" + min + ".." + max + ")");
        }
        return value;
    }

    /**
     * An IP address, v4 or v6, as the Go and Node servers take it. InetAddress.getByName would also resolve a host
     * name, so the text must look like an address first (digits and dots, or a colon for v6).
     */
    static String host(String text, String what) throws Error {
        boolean v4 = text.matches("(\\d{1,3})(\\.\\d{1,3}){3}")
                && java.util.Arrays.stream(text.split("\\.")).allMatch(p -> Integer.parseInt(p) <= 255
                        && (p.length() == 1 || p.charAt(0) != '0'));
        boolean v6 = text.contains(":") && text.matches("[0-9A-Fa-f:.]+");
        if (v4 || v6) {
            try {
                InetAddress.getByName(text);
                return text;
            } catch (UnknownHostException bad) {
                // Falls through to the error below.
            }
        }
        throw new Error(what + ": '" + text + "' is not an IP address");
    }
}
