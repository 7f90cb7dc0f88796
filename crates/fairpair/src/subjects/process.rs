//! Subject processes: start one, wait until it answers, pin it, and stop it with everything it forked.
//!
//! Every server runs in its own process group, so stopping it signals the group: Node `cluster` workers go with their
//! primary and nothing is left behind to steal CPU from the next run. Stopping checks that the group is really empty.
//!
//! The same code starts and stops a subject on a server host (`--server-host`): the [`Host`] in [`StartOptions`]
//! does the spawning, the signalling and the reading of `/proc` there, over ssh.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::Path;
use std::process::Child;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::thread;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow, bail};
use nix::sys::signal::Signal;

use crate::machine::command::{self, pinned, shell_words};
use crate::machine::host::{self, Host};
use crate::plan::names::BuiltinSubject;

/// Process groups of the subjects running now, and their hosts, so an interrupted harness can stop them (see
/// [`stop_all`]).
static LIVE: Mutex<Vec<(Host, i32)>> = Mutex::new(Vec::new());

/// Set once the harness is interrupted (see [`stop_all`]).
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Whether the harness was interrupted: its handler is stopping the servers and ends the process (status 130). The
/// load tool got the signal too and stops at once, so a run may finish meanwhile; nothing after it may end the
/// process as if the whole run had (`execute` waits for the handler instead).
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

/// Kills every subject still running: called when the harness itself is interrupted (Ctrl-C, SIGTERM), since the
/// servers sit in process groups of their own and would not get the terminal's signal. A server host that does not
/// answer is given up on after the remote commands' time limit.
pub fn stop_all() {
    INTERRUPTED.store(true, Ordering::SeqCst);
    let groups: Vec<(Host, i32)> = std::mem::take(&mut *LIVE.lock().unwrap_or_else(|e| e.into_inner()));
    for (host, pgid) in &groups {
        let _ = host.signal_group(*pgid, Signal::SIGTERM);
    }
    let deadline = Instant::now() + Duration::from_secs(3);
    let alive = |(host, pgid): &(Host, i32)| host.group_members(*pgid).is_ok_and(|m| !m.is_empty());
    while Instant::now() < deadline && groups.iter().any(alive) {
        thread::sleep(Duration::from_millis(20));
    }
    for (host, pgid) in &groups {
        let _ = host.signal_group(*pgid, Signal::SIGKILL);
    }
}

/// How to start a subject.
#[derive(Clone, Debug)]
pub struct SubjectSpec {
    pub name: String,
    pub origin: Origin,
    /// `--workers` given to a built-in server.
    pub workers: Option<u32>,
    /// Only measured on GET scenarios (the ceiling answers every request the same way).
    pub get_only: bool,
    /// Path probed for the first 200.
    pub ready_path: String,
    /// Several processes with a store each (Node `cluster`): a user created through one connection may be invisible
    /// through the next, so the contract's read-back ("round trip") checks cannot hold and are tolerated.
    pub per_worker_store: bool,
}

/// Where a subject comes from: one of ours, a user's command, or a service already running. (The report's
/// `schema::SubjectKind` records the same three as data.)
#[derive(Clone, Debug)]
pub enum Origin {
    /// One of ours (which one: `subject`): the program (and any fixed leading arguments); host, port, workers and
    /// capacity are added as flags, and the address is read from the start-up line.
    Builtin { subject: BuiltinSubject, program: Vec<String>, accepts_max_users: bool, implements_contract: bool },
    /// A user's command run by `sh -c`, with `{port}` replaced by a free port the harness picked.
    Custom { template: String },
    /// A service that is already running (`--subject NAME=http://HOST:PORT`: in a container, under a supervisor).
    /// The harness neither starts nor stops it, so it cannot see its processes: server CPU, memory and start-up
    /// are not measured, and the report says so instead of guessing.
    External { url: String, addr: SocketAddr },
}

impl SubjectSpec {
    /// The command as recorded in results: `{port}` and `{max_users}` stand for the values of each run.
    pub fn command_template(&self) -> String {
        self.command_template_on(&Host::Local)
    }

    /// [`SubjectSpec::command_template`] of a subject started on `host`, bound to the address it binds there.
    pub fn command_template_on(&self, host: &Host) -> String {
        match &self.origin {
            Origin::Builtin { .. } => shell_words(&self.argv_on(&host.bind_address(), "{port}", Some("{max_users}"))),
            Origin::Custom { template } => template.clone(),
            Origin::External { url, .. } => url.clone(),
        }
    }

    /// Whether the harness starts the subject itself, and so can read its processes' CPU time and memory.
    pub fn started_by_harness(&self) -> bool {
        !matches!(self.origin, Origin::External { .. })
    }

    pub fn implements_contract(&self) -> bool {
        match &self.origin {
            Origin::Builtin { implements_contract, .. } => *implements_contract,
            Origin::Custom { .. } | Origin::External { .. } => true,
        }
    }

    pub fn accepts_max_users(&self) -> bool {
        matches!(self.origin, Origin::Builtin { accepts_max_users: true, .. })
    }

    /// The command, its server bound to `bind`: loopback, or on a server host the address the loader reaches.
    fn argv_on(&self, bind: &str, port: &str, max_users: Option<&str>) -> Vec<String> {
        match &self.origin {
            Origin::Builtin { program, accepts_max_users, .. } => {
                let mut v = program.clone();
                v.extend(["--host", bind, "--port", port].map(String::from));
                if let Some(w) = self.workers {
                    v.extend(["--workers".to_string(), w.to_string()]);
                }
                if let (true, Some(m)) = (accepts_max_users, max_users) {
                    v.extend(["--max-users".to_string(), m.to_string()]);
                }
                v
            }
            Origin::Custom { template } => {
                // A simple command is exec'd by the shell, so the subject's processes are the server's alone and
                // the shell's own memory is not added to it; anything with shell syntax keeps the shell.
                let command = template.replace("{port}", port);
                let simple = !command.contains(['&', ';', '|', '<', '>', '(', ')', '$', '`', '\n']);
                let command = if simple { format!("exec {command}") } else { command };
                vec!["sh".into(), "-c".into(), command]
            }
            Origin::External { url, .. } => vec![url.clone()],
        }
    }
}

/// Per-start settings.
#[derive(Clone, Debug)]
pub struct StartOptions<'a> {
    pub max_users: Option<u64>,
    /// A short head time limit (`--header-timeout-ms`), for the contract cases that wait for it to pass; built-in
    /// servers only.
    pub header_timeout_ms: Option<u64>,
    pub cpus: Option<&'a [usize]>,
    /// How long to wait for the start-up line and the first 200.
    pub timeout: Duration,
    /// Where to start it: this machine, or a server host (`--server-host`).
    pub host: &'a Host,
    /// A file that gets every line the server writes, stdout and stderr, besides the start-up line's detection: a
    /// profiled run reads its runtime's log there (Node's `--trace-gc` writes to stdout, Go's `gctrace` to stderr).
    pub keep_output: Option<&'a Path>,
}

/// This machine, for start options that do not come from a plan.
pub static LOCAL: Host = Host::Local;

/// A started, ready subject. Dropping it stops it (so an error path cannot leave a server running).
pub struct Running {
    /// The server itself, or on a server host the local `ssh` process that started it (it lives as long as it).
    child: Option<Child>,
    /// Where it runs; `pid` is a process of that host.
    pub host: Host,
    pub name: String,
    pub pid: i32,
    pub addr: SocketAddr,
    /// Spawn to the first 200 on the ready path.
    pub startup: Duration,
    pub command: String,
    stderr_tail: Arc<Mutex<VecDeque<String>>>,
}

/// Starts `spec` and waits until it answers 200 on its ready path.
pub fn start(spec: &SubjectSpec, opts: &StartOptions) -> Result<Running> {
    if let Origin::External { url, addr } = &spec.origin {
        return attach(spec, url, *addr, opts.timeout);
    }
    let host = opts.host;
    let (argv, fixed_port) = command_for(spec, opts)?;
    let command = shell_words(&argv);
    let mut spawned = Instant::now();
    let deadline = spawned + opts.timeout;
    let mut child = host.spawn_server(&argv).with_context(|| format!("{}: cannot run `{command}`", spec.name))?;
    let kept = match opts.keep_output {
        Some(path) => Some(Arc::new(Mutex::new(
            std::fs::File::create(path).with_context(|| format!("cannot create {}", path.display()))?,
        ))),
        None => None,
    };
    let stderr_tail = drain_stderr(&mut child, kept.clone());
    let lines = watch_stdout(&mut child, kept);
    let mut running = Running {
        child: Some(child),
        host: host.clone(),
        name: spec.name.clone(),
        pid: 0,
        addr: SocketAddr::from(([127, 0, 0, 1], fixed_port.unwrap_or(0))),
        startup: Duration::ZERO,
        command,
        stderr_tail,
    };
    if host.is_local() {
        running.pid = running.child.as_ref().expect("running child").id() as i32;
    } else {
        // The remote shell's first line names the server's pid. It arrives a little after the server was
        // spawned there (half a round trip), which is as close to that moment as this side of the network gets.
        let line = running.wait_for_line(&lines, opts, "fairpair-pid …")?;
        running.pid = host::parse_pid_line(&line).ok_or_else(|| anyhow!("{}: bad pid line {line:?}", spec.name))?;
        spawned = Instant::now();
    }
    LIVE.lock().unwrap_or_else(|e| e.into_inner()).push((host.clone(), running.pid));
    if fixed_port.is_none() {
        let line = running.wait_for_line(&lines, opts, "listening on http://…")?;
        running.addr =
            parse_listening(&line).ok_or_else(|| anyhow!("{}: cannot read the address in {line:?}", spec.name))?;
    }
    wait_until_ready(&mut running, spec, deadline, opts.timeout)?;
    running.startup = spawned.elapsed();
    Ok(running)
}

/// Waits until the started server answers 200 on its ready path, or the deadline passes, or it exits.
fn wait_until_ready(running: &mut Running, spec: &SubjectSpec, deadline: Instant, timeout: Duration) -> Result<()> {
    loop {
        running.check_alive()?;
        if status_of(running.addr, &spec.ready_path) == Some(200) {
            break;
        }
        if Instant::now() > deadline {
            bail!(
                "{}: no 200 on GET {} within {:?} (a custom subject needs a path that answers 200: --ready-path)",
                spec.name,
                spec.ready_path,
                timeout
            );
        }
        thread::sleep(Duration::from_millis(5));
    }
    Ok(())
}

/// The command that starts `spec` as `opts` say (pinned, on their host), and the port a custom command was given.
fn command_for(spec: &SubjectSpec, opts: &StartOptions) -> Result<(Vec<String>, Option<u16>)> {
    let host = opts.host;
    let max_users = opts.max_users.map(|m| m.to_string());
    let bind = host.bind_address();
    let (argv, fixed_port) = match &spec.origin {
        Origin::Builtin { program, .. } => {
            // On a server host the program is looked for there: a missing one fails the start, with the shell's
            // message from the server host's stderr.
            if host.is_local() && !Path::new(&program[0]).exists() && !command::installed(&program[0]) {
                return Err(crate::usage(format!("{}: program not found: {}", spec.name, program[0])));
            }
            (spec.argv_on(&bind, "0", max_users.as_deref()), None)
        }
        Origin::Custom { .. } if !host.is_local() => {
            return Err(crate::usage(format!(
                "{}: a command of your own (--subject NAME=COMMAND) runs on this machine only; on a server host, start \
                 it there yourself and give --subject {}=http://HOST:PORT",
                spec.name, spec.name
            )));
        }
        Origin::Custom { .. } => {
            let port = free_port()?;
            (spec.argv_on(&bind, &port.to_string(), max_users.as_deref()), Some(port))
        }
        Origin::External { .. } => unreachable!("attached above"),
    };
    let argv = match (opts.header_timeout_ms, &spec.origin) {
        (Some(ms), Origin::Builtin { accepts_max_users: true, .. }) => {
            argv.into_iter().chain(["--header-timeout-ms".to_string(), ms.to_string()]).collect()
        }
        _ => argv,
    };
    Ok((pinned(argv, opts.cpus), fixed_port))
}

/// Where a server's output is kept, when it is (`StartOptions::keep_output`): one file, a line at a time.
type Kept = Option<Arc<Mutex<std::fs::File>>>;

/// Appends a line to the kept output; a failed write loses that line of a log, never the run.
fn keep(kept: &Kept, line: &str) {
    if let Some(file) = kept {
        let _ = writeln!(file.lock().unwrap_or_else(|e| e.into_inner()), "{line}");
    }
}

/// Drains stderr on a thread, keeping its last lines: a server that logs must never block on a full pipe, and the
/// last lines explain a failed start.
fn drain_stderr(child: &mut Child, kept: Kept) -> Arc<Mutex<VecDeque<String>>> {
    let stderr_tail = Arc::new(Mutex::new(VecDeque::new()));
    let tail = Arc::clone(&stderr_tail);
    let stderr = child.stderr.take().expect("piped stderr");
    thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            keep(&kept, &line);
            let mut t = tail.lock().unwrap_or_else(|e| e.into_inner());
            if t.len() == 5 {
                t.pop_front();
            }
            t.push_back(line);
        }
    });
    stderr_tail
}

/// Drains stdout on a thread, passing on the lines the start waits for: the remote pid line and the first
/// start-up line (every line goes to the kept output too, when there is one).
fn watch_stdout(child: &mut Child, kept: Kept) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    let stdout = child.stdout.take().expect("piped stdout");
    thread::spawn(move || {
        let mut sent = false;
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            keep(&kept, &line);
            if line.starts_with("fairpair-pid ") || (!sent && line.starts_with("listening on http://")) {
                sent |= line.starts_with("listening on http://");
                let _ = tx.send(line);
            }
        }
    });
    rx
}

/// A running service the harness did not start: checked to answer 200 on its ready path, never stopped, and no
/// start-up time. It has no process of ours: `pid` is the owner of its listening socket when that is on this machine
/// (so its CPU is its own, not the machine's other processes'), else 0. Neither is ever signalled: `terminate`
/// returns at once without a child.
fn attach(spec: &SubjectSpec, url: &str, addr: SocketAddr, timeout: Duration) -> Result<Running> {
    let deadline = Instant::now() + timeout;
    loop {
        let status = status_of(addr, &spec.ready_path);
        if status == Some(200) {
            break;
        }
        if Instant::now() > deadline {
            // What it answered, since fairpair never starts a URL subject: a 404 on the default `/` is the usual
            // cause, and "did not start" would send the reader looking for a crash.
            let got = status.map_or("gave no answer".to_string(), |s| format!("answered {s}"));
            bail!(
                "{}: {url} {got} on GET {} for {timeout:?}, never 200: fairpair does not start a URL subject, it \
                 waits for a 200 on --ready-path (give one the service answers 200 on)",
                spec.name,
                spec.ready_path
            );
        }
        thread::sleep(Duration::from_millis(50));
    }
    Ok(Running {
        child: None,
        host: Host::Local,
        name: spec.name.clone(),
        pid: if addr.ip().is_loopback() { Host::Local.listen_owner(addr.port()).unwrap_or(0) } else { 0 },
        addr,
        startup: Duration::ZERO,
        command: url.to_string(),
        stderr_tail: Arc::new(Mutex::new(VecDeque::new())),
    })
}

/// Reads `HOST:PORT` from `listening on http://HOST:PORT (…)`, with the contract's one parser.
pub fn parse_listening(line: &str) -> Option<SocketAddr> {
    contract::StartupLine::parse(line).map(|startup| startup.addr)
}

/// A port that was free a moment ago (for custom commands that cannot be told to use port 0).
fn free_port() -> Result<u16> {
    let l = TcpListener::bind("127.0.0.1:0").context("cannot find a free port")?;
    Ok(l.local_addr()?.port())
}

/// The status of `GET path` on a fresh connection, or `None` when there is no answer (yet).
pub fn status_of(addr: SocketAddr, path: &str) -> Option<u16> {
    let mut s = TcpStream::connect_timeout(&addr, Duration::from_millis(200)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(2))).ok()?;
    let request =
        contract::Request { headers: vec![("Connection".into(), "close".into())], ..contract::Request::get(path) };
    s.write_all(&request.to_bytes()).ok()?;
    let mut head = [0u8; 12];
    s.read_exact(&mut head).ok()?;
    std::str::from_utf8(&head[9..12]).ok()?.parse().ok()
}

impl Running {
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// The next line `watch_stdout` passes on, while the process lives and until `deadline`.
    fn wait_for_line(&mut self, lines: &mpsc::Receiver<String>, opts: &StartOptions, what: &str) -> Result<String> {
        let deadline = Instant::now() + opts.timeout;
        loop {
            self.check_alive()?;
            match lines.recv_timeout(Duration::from_millis(20)) {
                Ok(line) => return Ok(line),
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    // Stdout closed: usually the process is exiting; give it a moment so the error says why.
                    for _ in 0..100 {
                        self.check_alive()?;
                        thread::sleep(Duration::from_millis(10));
                    }
                    bail!("{}: closed its stdout without printing `{what}`", self.name);
                }
                Err(mpsc::RecvTimeoutError::Timeout) if Instant::now() > deadline => {
                    bail!("{}: no `{what}` line within {:?}", self.name, opts.timeout)
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
            }
        }
    }

    fn check_alive(&mut self) -> Result<()> {
        let child = self.child.as_mut().expect("running child");
        if let Some(status) = child.try_wait()? {
            thread::sleep(Duration::from_millis(50)); // Let the stderr thread catch the last lines.
            let tail: Vec<String> =
                self.stderr_tail.lock().unwrap_or_else(|e| e.into_inner()).iter().cloned().collect();
            bail!("{}: `{}` exited ({status}) before it was ready: {}", self.name, self.command, tail.join(" / "));
        }
        Ok(())
    }

    /// Stops the subject: SIGTERM to its process group, up to 5 s to exit, then SIGKILL. Fails if any process of
    /// the group is still alive afterwards.
    pub fn stop(mut self) -> Result<()> {
        self.terminate()
    }

    fn terminate(&mut self) -> Result<()> {
        let Some(mut child) = self.child.take() else {
            return Ok(());
        };
        let result = self.terminate_child(&mut child);
        LIVE.lock().unwrap_or_else(|e| e.into_inner()).retain(|(_, g)| *g != self.pid);
        result
    }

    /// SIGTERM, then SIGKILL, to the group on its host, until the group is empty. On a server host `child` is the
    /// local `ssh` process, which exits with the server; every remote step has its time limit, so a host that stops
    /// answering makes this fail, not hang.
    fn terminate_child(&self, child: &mut Child) -> Result<()> {
        let host = &self.host;
        // A remote start that failed before its pid line has no group to signal: only the local ssh to end.
        if self.pid == 0 {
            let _ = child.kill();
            return command::wait_within(child, host::COMMAND_LIMIT).map(drop);
        }
        host.signal_group(self.pid, Signal::SIGTERM)?;
        let deadline = Instant::now() + Duration::from_secs(5);
        let mut exited = false;
        while Instant::now() < deadline {
            if !exited {
                exited = child.try_wait()?.is_some();
            }
            if exited && host.group_members(self.pid)?.is_empty() {
                return Ok(());
            }
            thread::sleep(Duration::from_millis(10));
        }
        host.signal_group(self.pid, Signal::SIGKILL)?;
        command::wait_within(child, host::COMMAND_LIMIT)?;
        for _ in 0..100 {
            if host.group_members(self.pid)?.is_empty() {
                return Ok(());
            }
            thread::sleep(Duration::from_millis(10));
        }
        bail!("{}: processes {:?} of its group survived SIGKILL", self.name, host.group_members(self.pid)?)
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.terminate();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_startup_line() {
        assert_eq!(
            parse_listening("listening on http://127.0.0.1:4321 (10000 users, 1 worker)"),
            Some("127.0.0.1:4321".parse().unwrap())
        );
        assert_eq!(
            parse_listening("listening on http://localhost:80/ (10000 users, 2 workers)"),
            Some("127.0.0.1:80".parse().unwrap())
        );
        assert_eq!(parse_listening("ready"), None);
    }

    #[test]
    fn builtin_commands_get_the_harness_flags() {
        let spec = SubjectSpec {
            name: "rust".into(),
            origin: Origin::Builtin {
                subject: BuiltinSubject::Rust,
                program: vec!["users-server".into()],
                accepts_max_users: true,
                implements_contract: true,
            },
            workers: Some(1),
            get_only: false,
            ready_path: "/health".into(),
            per_worker_store: false,
        };
        assert_eq!(
            spec.command_template(),
            "users-server --host 127.0.0.1 --port '{port}' --workers 1 --max-users '{max_users}'"
        );
        // On a server host the server binds the address the loader reaches it on.
        let mut there = crate::machine::host::SshHost::new("bench@server", "/srv/fairpair", None);
        there.ends = crate::machine::host::parse_ssh_connection("10.213.7.1 40000 10.213.7.2 22");
        assert_eq!(
            spec.command_template_on(&Host::Ssh(there)),
            "users-server --host 10.213.7.2 --port '{port}' --workers 1 --max-users '{max_users}'"
        );
        let custom = SubjectSpec {
            name: "mine".into(),
            origin: Origin::Custom { template: "python3 -m http.server {port}".into() },
            workers: None,
            get_only: false,
            ready_path: "/".into(),
            per_worker_store: false,
        };
        assert_eq!(custom.argv_on("127.0.0.1", "8000", None), ["sh", "-c", "exec python3 -m http.server 8000"]);
    }
}
