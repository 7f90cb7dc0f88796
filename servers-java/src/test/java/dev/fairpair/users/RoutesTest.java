// The routes on a real started server (Tomcat on a free port): statuses, exact bodies, headers, keep-alive, and a
// body timeout, as a client sees them. contract/cases.json, through fairpair verify, has every case; these are the
// ones a Java change is most likely to break.
package dev.fairpair.users;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;

@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class RoutesTest {
    @TestConfiguration
    static class Settings {
        @Bean
        Config config() {
            return new Config(false, "127.0.0.1", 0, 0, 1_000_000, false, 10_000, 500, 1_000);
        }
    }

    @Value("${local.server.port}")
    int port;

    /** Sends raw bytes and reads until the server closes or goes quiet for a moment. */
    private String exchange(String request) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(1500);
            socket.getOutputStream().write(request.getBytes(StandardCharsets.UTF_8));
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            InputStream in = socket.getInputStream();
            byte[] buffer = new byte[8192];
            try {
                for (int n; (n = in.read(buffer)) != -1;) {
                    out.write(buffer, 0, n);
                }
                out.write("<closed>".getBytes(StandardCharsets.UTF_8));
            } catch (java.net.SocketTimeoutException quiet) {
                // Kept open.
            }
            return out.toString(StandardCharsets.UTF_8);
        }
    }

    private static void contains(String response, String... parts) {
        for (String part : parts) {
            assertTrue(response.contains(part), () -> "missing " + part + " in:\n" + response);
        }
    }

    @Test
    void getRoutes() throws IOException {
        contains(exchange("GET /users/500 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"), "HTTP/1.1 200",
                "Content-Type: application/json\r\n", "Content-Length: 58\r\n",
                "{\"id\":500,\"name\":\"User 500\",\"email\":\"user500@example.com\"}");
        contains(exchange("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"),
                "Content-Type: text/plain; charset=utf-8\r\n", "Hello, World!");
        for (String target : new String[] {"/users/0500", "/users/1;x", "/users/%31", "/users/1/", "/nope", "/users/"}) {
            contains(exchange("GET " + target + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"), "HTTP/1.1 404",
                    "{\"error\":\"not found\"}");
        }
        String head = exchange("HEAD /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        contains(head, "HTTP/1.1 200", "Content-Length: 15\r\n");
        assertTrue(head.endsWith("\r\n\r\n<closed>"), head);
    }

    @Test
    void methodNotAllowedWithAllow() throws IOException {
        contains(exchange("DELETE /users/abc HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"), "HTTP/1.1 405",
                "Allow: GET, HEAD\r\n", "{\"error\":\"method not allowed\"}");
        contains(exchange("OPTIONS /users HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"), "HTTP/1.1 405",
                "Allow: POST\r\n");
        contains(exchange("TRACE / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"), "HTTP/1.1 405",
                "Allow: GET, HEAD\r\n");
    }

    @Test
    void postKeepsTheConnectionAndRefusalsCloseIt() throws IOException {
        String body = "{\"name\":\"A\",\"email\":\"a@b\"}";
        String created = exchange("POST /users HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: "
                + body.length() + "\r\n\r\n" + body + "GET /health HTTP/1.1\r\nHost: x\r\n\r\n");
        contains(created, "HTTP/1.1 201", "Location: /users/10001", "{\"status\":\"ok\"}");
        assertTrue(!created.endsWith("<closed>"), created);
        String wrongType = exchange("POST /users HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\n");
        contains(wrongType, "HTTP/1.1 415", "Connection: close", "{\"error\":\"content-type must be application/json\"}",
                "<closed>");
    }

    @Test
    void aBodyThatStopsComingGets408() throws IOException {
        contains(exchange("POST /users HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 10\r\n\r\n{"),
                "HTTP/1.1 408", "{\"error\":\"request timeout\"}", "<closed>");
    }

    @Test
    void tooManyFieldsAndHttp09() throws IOException {
        contains(exchange("GET / HTTP/1.1\r\nHost: x\r\n" + "A: b\r\n".repeat(100) + "\r\n"), "HTTP/1.1 431");
        contains(exchange("GET /health\r\n\r\n"), "HTTP/1.1 400", "<closed>");
    }
}
