// fairpair's Java server: the users API on Spring Boot 4.0 (Spring MVC on its embedded Tomcat 11), with a map behind
// a lock for a store and a hand-written JSON scanner and writer that agree with JSON.parse and JSON.stringify.
//
// Build it with scripts/build-java (it writes target/java/users-server-java.jar), then
// `java -jar target/java/users-server-java.jar` and try `curl http://127.0.0.1:3000/users/500`. Flags and
// environment variables (the contract's table; --help lists them): --host / HOST (127.0.0.1), --port / PORT (3000;
// 0 = any free port), --workers / WORKERS (the processors the JVM sees; default: all available), --max-users /
// MAX_USERS (1,000,000; 10,000..16,777,216), --log (per-request lines on stderr). Test-only: --header-timeout-ms,
// --body-timeout-ms, --shutdown-timeout-ms.
//
// The API (contract/CONTRACT.md has every rule):
//   GET  /users/{id}  200 the user, 404 {"error":"not found"}
//   POST /users       201 the new user with Location; 400, 408, 413, 415 or 507 with {"error":"…"}
//   GET  /health      200 {"status":"ok"}
//   GET  /            200 Hello, World! (text/plain)
//   HEAD on each GET route; another method on a known path is 405 with Allow.
//
// Code tour, the same jobs as the other servers' files: this file (flags to Spring, the address and backlog Spring
// binds with, start-up line, signals) → Config (flags) → Transport (Tomcat's settings, the filter in front, the
// graceful close) → Connections (the per-connection deadlines) → UsersController (routing and handlers) → ApiErrors
// and ApiError (every error answer) → RequestLog (the --log line) → Body (reading a body within limits) → Validation
// (POST /users rules) → Json → Store.
//
// SIGTERM or SIGINT: stop accepting, finish the requests in progress (10 s at most), exit 0. SIGHUP, SIGUSR1 and
// SIGUSR2 are ignored (logged with --log).
package dev.fairpair.users;

import java.util.Arrays;
import java.util.Map;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.web.server.context.WebServerInitializedEvent;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

import sun.misc.Signal;

/** The entry point. */
@SpringBootApplication
public class UsersServer {
    /** The listen backlog every fairpair server asks for (the kernel caps it at net.core.somaxconn). */
    public static final int LISTEN_BACKLOG = 1024;

    public static void main(String[] args) {
        Config config;
        try {
            config = Config.parse(Arrays.asList(args), System::getenv);
        } catch (Config.Error bad) {
            System.err.println("error: " + bad.getMessage());
            System.exit(2);
            return;
        }
        if (config.help()) {
            System.out.println(Config.USAGE);
            return;
        }
        int processors = Runtime.getRuntime().availableProcessors();
        // --workers is the processors the JVM sizes itself for (Tomcat's poller, the GC and JIT threads, the common
        // pool): the JVM reads that number once, at start, from -XX:ActiveProcessorCount or the CPUs it may run on,
        // and nothing can change it later, so a --workers the JVM was not started with is refused, with the way.
        if (config.workers() != 0 && config.workers() != processors) {
            System.err.println("error: --workers " + config.workers() + ": this JVM sees " + processors
                    + " processors; start it with java -XX:ActiveProcessorCount=" + config.workers() + " -jar …");
            System.exit(2);
            return;
        }
        // The signals are taken before the server starts: a SIGHUP sent the moment the start-up line appears must
        // already find them ignored, not end the process with the JVM's default action.
        for (String name : new String[] {"HUP", "USR1", "USR2"}) {
            ignore(name, config.log());
        }
        Connections.headerTimeoutMs = config.headerTimeoutMs();
        SpringApplication app = new SpringApplication(UsersServer.class);
        // Spring binds, when the context starts: the address, the port and the listen backlog are its properties, set
        // here as the other servers bind in their entry files (Tomcat's acceptCount is the backlog it asks for).
        app.setDefaultProperties(Map.of("server.address", config.host(), "server.port", config.port(),
                "server.tomcat.accept-count", LISTEN_BACKLOG,
                "spring.lifecycle.timeout-per-shutdown-phase", config.shutdownTimeoutMs() + "ms"));
        app.addInitializers(context -> context.getBeanFactory().registerSingleton("config", config));
        app.addListeners((WebServerInitializedEvent ready) -> printListening(config.host(), ready.getWebServer().getPort(),
                processors));
        // Spring closes the context on SIGTERM and SIGINT through its shutdown hook: the graceful shutdown lets
        // requests in progress finish. A JVM ended by a signal exits 128 + its number (143) whatever its hooks do,
        // so the signals are taken here instead, and the process exits 0 once the context has closed.
        app.setRegisterShutdownHook(false);
        ConfigurableApplicationContext context;
        try {
            context = app.run();
        } catch (RuntimeException failed) {
            System.err.println("error: cannot listen on " + config.host() + ":" + config.port() + ": "
                    + rootMessage(failed));
            System.exit(1);
            return;
        }
        for (String name : new String[] {"TERM", "INT"}) {
            Signal.handle(new Signal(name), received -> new Thread(() -> {
                Transport.closeGracefully(context, config.shutdownTimeoutMs());
                System.exit(0);
            }, "shutdown").start());
        }
    }

    private static void ignore(String name, boolean log) {
        Signal.handle(new Signal(name), received -> {
            if (log) {
                System.err.println("ignored SIG" + name);
            }
        });
    }

    private static String rootMessage(Throwable failed) {
        Throwable cause = failed;
        while (cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause.getMessage();
    }

    /** The start-up line, the same shape on every server. */
    static void printListening(String host, int port, int workers) {
        String shown = host.contains(":") ? "[" + host + "]" : host;
        System.out.println("listening on http://" + shown + ":" + port + " (" + Store.SEED_USERS + " users, " + workers
                + (workers == 1 ? " worker)" : " workers)"));
        System.out.flush();
    }

    @Bean
    Store store(Config config) {
        return new Store(config.maxUsers());
    }
}
