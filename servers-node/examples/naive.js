// The naive Node server: the users API the way the article wrote it, kept on purpose.
//
// It is the "before" of the teaching tour (docs/tour.md): `node:http`, a `Map`, `JSON.stringify`, routing by
// `req.method` and `req.url.startsWith`, and nothing else. It serves the same 10,000 seed users and routes as the
// reference server (../server.js), and it is not hardened: `fairpair verify --every-case` lists the contract rules it
// breaks, and crates/fairpair/tests/naive.rs pins that list.
//
// Run with `node servers-node/examples/naive.js --port 3000`, then `curl localhost:3000/users/500`.
// Flags: --host (default 127.0.0.1), --port (default 3000, 0 = any free port).

import http from 'node:http';
import process from 'node:process';

const users = new Map();
for (let id = 1; id <= 10000; id++) {
  users.set(id, { id, name: `User ${id}`, email: `user${id}@example.com` });
}
let nextId = 10001;

function send(res, status, value) {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(value));
}

const server = http.createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/') {
    res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' });
    res.end('Hello, World!');
  } else if (req.method === 'GET' && req.url === '/health') {
    send(res, 200, { status: 'ok' });
  } else if (req.method === 'GET' && req.url.startsWith('/users/')) {
    const user = users.get(Number(req.url.slice('/users/'.length)));
    if (user) send(res, 200, user);
    else send(res, 404, { error: 'not found' });
  } else if (req.method === 'POST' && req.url === '/users') {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      let input;
      try {
        input = JSON.parse(body);
      } catch {
        return send(res, 400, { error: 'invalid json' });
      }
      if (typeof input.name !== 'string' || input.name === '') return send(res, 400, { error: 'name required' });
      if (typeof input.email !== 'string' || !input.email.includes('@')) {
        return send(res, 400, { error: 'invalid email' });
      }
      const user = { id: nextId++, name: input.name, email: input.email };
      users.set(user.id, user);
      res.setHeader('Location', `/users/${user.id}`);
      send(res, 201, user);
    });
  } else {
    send(res, 404, { error: 'not found' });
  }
});

// Two flags, read by hand: `--host H` and `--port P`, as on the reference servers.
const flag = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i > 0 && i + 1 < process.argv.length ? process.argv[i + 1] : fallback;
};
server.listen(Number(flag('--port', '3000')), flag('--host', '127.0.0.1'), () => {
  const { address, port } = server.address();
  // The start-up line of the reference servers, so that fairpair can start this server as a subject.
  console.log(`listening on http://${address}:${port} (10000 users, 1 worker)`);
});
