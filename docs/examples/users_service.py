#!/usr/bin/env python3
"""A small users service in Python, the worked example of the README's "Compare your own service".

It implements the API of contract/CONTRACT.md with the standard library only (http.server, one thread per
connection): GET /users/:id, POST /users, GET /health and GET /, HEAD, the 404s and the 405s. It does not try the
transport hardening of the `full` level (431s, trailers, odd transfer codings): a real service implements the API.

Run with:
    python3 docs/examples/users_service.py --port 8000
    fairpair verify --level api http://127.0.0.1:8000

Each response goes out in ONE write (head and body together). With --split-writes it writes the head and then the
body, the common mistake that makes every response wait ~40 ms on loopback (Nagle's algorithm on the server holds
the body until the client's delayed ACK of the head); `fairpair run` recognises that signature and says so.
"""

import argparse
import json
import re
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MAX_BODY = 65_536
SEED_USERS = 10_000
CANONICAL_ID = re.compile(r"^[1-9][0-9]*$")
REASONS = {200: "OK", 201: "Created", 400: "Bad Request", 404: "Not Found", 405: "Method Not Allowed",
           413: "Payload Too Large", 415: "Unsupported Media Type", 500: "Internal Server Error",
           507: "Insufficient Storage"}


class Store:
    """Users by id. The seed is computed rather than stored: user N of the seed is a pure function of N."""

    def __init__(self, max_users):
        self.max_users = max_users
        self.created = {}
        self.lock = threading.Lock()

    def get(self, user_id):
        if user_id <= SEED_USERS:
            return {"id": user_id, "name": f"User {user_id}", "email": f"user{user_id}@example.com"}
        with self.lock:
            return self.created.get(user_id)

    def create(self, name, email):
        with self.lock:
            if SEED_USERS + len(self.created) >= self.max_users:
                return None
            user = {"id": SEED_USERS + len(self.created) + 1, "name": name, "email": email}
            self.created[user["id"]] = user
            return user


def to_json(value):
    # Compact, keys in insertion order, non-ASCII as raw UTF-8: what JSON.stringify writes.
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def reject_constant(name):
    # JSON.parse refuses NaN and Infinity, which Python's json accepts by default.
    raise ValueError(name)


def well_formed(text):
    # A lone surrogate escape ("\ud800") parses in Python but is not well-formed Unicode (contract rule 4).
    try:
        text.encode("utf-8")
        return True
    except UnicodeEncodeError:
        return False


def validate(body):
    """The POST /users rules 3 to 6, in the contract's order: (name, email) or the error message."""
    try:
        value = json.loads(body.decode("utf-8"), parse_constant=reject_constant)
    except (ValueError, RecursionError):
        return None, "invalid json"
    if not isinstance(value, dict):
        return None, "invalid json"
    name, email = value.get("name"), value.get("email")
    if any(isinstance(v, str) and not well_formed(v) for v in (name, email)):
        return None, "invalid json"
    if not isinstance(name, str) or name == "":
        return None, "name required"
    if len(name) > 200:
        return None, "name too long"
    if not isinstance(email, str) or len(email) > 254 or "@" not in email:
        return None, "invalid email"
    return (name, email), None


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # The default wbufsize of 0 makes every write a send() of its own, which is what --split-writes demonstrates.

    def log_message(self, *args):
        pass  # No per-request logging: it would distort the measurement.

    def respond(self, status, body=b"", content_type="application/json", extra=(), close=False):
        head = [f"HTTP/1.1 {status} {REASONS[status]}", f"Content-Length: {len(body)}"]
        head.append(f"Content-Type: {content_type}")
        head.extend(extra)
        if close:
            head.append("Connection: close")
            self.close_connection = True
        head_bytes = ("\r\n".join(head) + "\r\n\r\n").encode("latin-1")
        payload = b"" if self.command == "HEAD" else body
        if self.server.split_writes:
            self.wfile.write(head_bytes)
            self.wfile.write(payload)
        else:
            self.wfile.write(head_bytes + payload)

    def error(self, status, message, **kw):
        self.respond(status, to_json({"error": message}), **kw)

    def route(self):
        # The path is matched on the raw target (http.server would turn a leading "//" into "/"), query string
        # dropped, no percent-decoding; an absolute-form target is reduced to its path first.
        target = self.raw_requestline.split()[1].decode("latin-1")
        target = re.sub(r"^[a-zA-Z][a-zA-Z0-9+.-]*://[^/?]*", "", target) or "/"
        path = target.split("?", 1)[0]
        if path == "/":
            return "hello", None
        if path == "/health":
            return "health", None
        if path == "/users":
            return "users", None
        parts = path.split("/")
        if len(parts) == 3 and parts[1] == "users" and parts[2] != "":
            return "user", parts[2]
        return None, None

    def handle_any(self):
        route, user_id = self.route()
        length = self.headers.get("Content-Length", "0").strip()
        if not length.isdigit() or len(self.headers.get_all("Content-Length", [])) > 1:
            return self.error(400, "bad request", close=True)
        has_body = int(length) > 0 or "Transfer-Encoding" in self.headers
        if route is None:
            return self.error(404, "not found", close=has_body)
        if route == "users":
            if self.command != "POST":
                return self.error(405, "method not allowed", extra=["Allow: POST"], close=has_body)
            return self.create_user()
        if self.command not in ("GET", "HEAD"):
            return self.error(405, "method not allowed", extra=["Allow: GET, HEAD"], close=has_body)
        if route == "hello":
            return self.respond(200, b"Hello, World!", "text/plain; charset=utf-8", close=has_body)
        if route == "health":
            return self.respond(200, to_json({"status": "ok"}), close=has_body)
        # Any id of more than 8 digits is past the largest store (16,777,216), so it is never converted.
        found = CANONICAL_ID.match(user_id) and len(user_id) <= 8
        user = self.server.store.get(int(user_id)) if found else None
        if user is None:
            return self.error(404, "not found", close=has_body)
        self.respond(200, to_json(user), close=has_body)

    def create_user(self):
        media_type = self.headers.get("Content-Type", "").split(";", 1)[0].strip(" \t").lower()
        if media_type != "application/json":
            return self.error(415, "content-type must be application/json", close=True)
        try:
            body = self.read_body()
        except ValueError:
            return self.error(400, "bad request", close=True)
        if body is None:
            return self.error(413, "payload too large", close=True)
        fields, message = validate(body)
        if message:
            return self.error(400, message)
        user = self.server.store.create(*fields)
        if user is None:
            return self.error(507, "store full")
        self.respond(201, to_json(user), extra=[f"Location: /users/{user['id']}"])

    def read_body(self):
        """The request body, or None when it is over the limit (what is left of it is not read)."""
        if self.headers.get("Transfer-Encoding", "").strip().lower() == "chunked":
            body = b""
            while True:
                size = int(self.rfile.readline().split(b";", 1)[0].strip(), 16)  # ValueError when malformed.
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass  # Trailer fields, ignored.
                    return body
                if len(body) + size > MAX_BODY:
                    return None
                body += self.rfile.read(size)
                self.rfile.readline()
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_BODY:
            return None
        return self.rfile.read(length)

    do_GET = do_HEAD = do_POST = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = do_TRACE = handle_any


class Server(ThreadingHTTPServer):
    """The standard threaded server, quiet about clients that go away.

    A load tool ends its run by resetting the connections it still has open, and a client may close while its answer
    is being written: for a server both are the client's business, not an error. socketserver prints a traceback for
    any exception of a connection (`handle_error`); this prints none for those two, and keeps it for every other.
    """

    def handle_error(self, request, client_address):
        if isinstance(sys.exc_info()[1], (ConnectionResetError, BrokenPipeError)):
            return
        super().handle_error(request, client_address)


def main():
    parser = argparse.ArgumentParser(description="A users service implementing the fairpair API (worked example).")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000, help="0 to 65535 (0: any free port)")
    parser.add_argument("--max-users", type=int, default=1_000_000, help="10000 to 16777216")
    parser.add_argument("--split-writes", action="store_true",
                        help="write each response's head and body separately (the Nagle/delayed-ACK mistake)")
    args = parser.parse_args()
    # JSON.parse takes any nesting a 64 KiB body can hold (32,768 levels); Python's parser recurses once per level,
    # so each connection's thread gets a deep enough stack and the interpreter a high enough recursion limit.
    threading.stack_size(256 * 1024 * 1024)
    sys.setrecursionlimit(100_000)
    server = Server((args.host, args.port), Handler)
    server.daemon_threads = True
    server.store = Store(args.max_users)
    server.split_writes = args.split_writes
    host, port = server.server_address[:2]
    # The start-up line fairpair waits for; flushed at once, since stdout is a pipe there.
    print(f"listening on http://{host}:{port} ({SEED_USERS} users, 1 worker)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    sys.exit(main())
