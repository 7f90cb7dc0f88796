//! Where the subjects run: this machine, or a server host reached over OpenSSH (`fairpair run --server-host`).
//!
//! On one machine the harness starts a server with `fork`/`exec`, reads its `/proc` files and signals its process
//! group. On two hosts it does the same things on the server host through the system `ssh` client, and nothing else
//! is installed there: one master connection per run (`ssh -M -S CONTROL`, multiplexed, so each remote command costs
//! a round trip and not a handshake), and every remote command is a POSIX shell line run under a hard time limit (the
//! local `ssh` process is killed when it runs out, so a stopped or unreachable host is an error, never a hang).
//!
//! The same operations exist for both kinds of host ([`Host::read`], [`Host::run`], [`Host::signal_group`],
//! [`Host::spawn_server`]), and what the harness reads about a host is one method over either: a process tree's CPU
//! time ([`Host::tree_ticks`]) and memory ([`Host::tree_memory`]), the machine's ticks ([`Host::machine_ticks`]), a
//! socket's backlog ([`Host::listen_backlog`]). The `/proc` formats are parsed in `procstat.rs`, which reads nothing.

use std::collections::BTreeSet;
use std::fs;
use std::net::{IpAddr, SocketAddr, TcpStream};
use std::os::unix::fs::DirBuilderExt;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU32, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow, bail};
use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;

use crate::machine::command::{last_line, output_within, shell_words, status_within};
use crate::machine::procstat::{self, MachineTicks, ProcStat};
use crate::schema::{Memory, NetworkBytes};

/// Seconds `ssh` may take to open the TCP connection and finish the handshake (`ConnectTimeout`).
pub const CONNECT_TIMEOUT_S: u64 = 5;
/// The hard limit on opening the master connection: the handshake, authentication and `ssh`'s own start.
pub const CONNECT_LIMIT: Duration = Duration::from_secs(CONNECT_TIMEOUT_S + 5);
/// The hard limit on one remote command (reading a `/proc` file, sending a signal). The commands are tiny: one that
/// takes this long means the host or the path to it is gone.
pub const COMMAND_LIMIT: Duration = Duration::from_secs(10);

/// Where subjects are started and sampled.
#[derive(Clone, Debug, Default)]
pub enum Host {
    /// This machine: `fork`/`exec`, `/proc` read directly.
    #[default]
    Local,
    /// A server host reached over OpenSSH.
    Ssh(SshHost),
}

/// A server host: where to reach it, where the project is on it, and the master connection's control socket.
#[derive(Clone, Debug)]
pub struct SshHost {
    /// `[USER@]HOST`, as given to `ssh` (so a `Host` block of the user's ssh configuration applies).
    pub destination: String,
    /// `--server-dir`: the project's checkout on the server host, where the servers are built.
    pub dir: String,
    /// `--ssh-config FILE`, passed as `ssh -F FILE` (the two-host test uses its own keys and known-hosts file).
    pub config: Option<PathBuf>,
    /// The control socket of the master connection (`ssh -S`), in a directory of its own that only this user may
    /// enter, under the temporary directory.
    control: PathBuf,
    /// The two ends of the connection as the server host sees them, known once connected.
    pub ends: Option<Ends>,
}

/// The addresses of a connection, from `$SSH_CONNECTION` on the server host (`client port server port`): the
/// server's address is the one the loader reaches it on, so it is where the subjects listen.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ends {
    pub loader: IpAddr,
    pub server: IpAddr,
    pub ssh_port: u16,
}

impl Host {
    pub fn is_local(&self) -> bool {
        matches!(self, Host::Local)
    }

    /// How the host is named in messages: "this machine" or the ssh destination.
    pub fn label(&self) -> String {
        match self {
            Host::Local => "this machine".into(),
            Host::Ssh(h) => format!("server host {}", h.destination),
        }
    }

    /// The address the subjects bind: loopback here; on a server host the address the loader reaches it on.
    pub fn bind_address(&self) -> String {
        match self {
            Host::Local => "127.0.0.1".into(),
            Host::Ssh(h) => h.ends.map_or_else(|| "0.0.0.0".into(), |e| e.server.to_string()),
        }
    }

    /// Runs a POSIX shell line on the host and returns its stdout; fails on a non-zero exit status (with the last
    /// line of stderr) or when it takes longer than `limit` (then it is killed).
    pub fn run(&self, script: &str, limit: Duration) -> Result<String> {
        let mut cmd = match self {
            Host::Local => {
                let mut c = Command::new("sh");
                c.arg("-c").arg(script);
                c
            }
            Host::Ssh(h) => h.command(script),
        };
        let out = output_within(&mut cmd, limit).with_context(|| format!("{}: `{script}`", self.label()))?;
        if !out.status.success() {
            bail!("{}: `{script}` failed ({}): {}", self.label(), out.status, last_line(&out.stderr));
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }

    /// A whole file (a `/proc` file, mostly), or `None` when it cannot be read: a process that has just exited.
    pub fn read(&self, path: &str) -> Option<String> {
        match self {
            Host::Local => fs::read_to_string(path).ok(),
            Host::Ssh(_) => self.run(&format!("cat {}", shell_words(&[path.to_string()])), COMMAND_LIMIT).ok(),
        }
    }

    /// Every process on the host, from `/proc/*/stat` (processes vanish while they are read: those are skipped).
    /// Remotely all the lines come in one command.
    pub fn processes(&self) -> Result<Vec<ProcStat>> {
        match self {
            Host::Local => {
                let dir = fs::read_dir("/proc").context("cannot read /proc")?;
                let pids = dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok());
                Ok(pids.filter_map(|pid| procstat::parse_stat(&self.read(&format!("/proc/{pid}/stat"))?)).collect())
            }
            Host::Ssh(_) => {
                // Processes vanish while `cat` reads them, so its complaints and its exit status are ignored.
                let text = self.run("cat /proc/[0-9]*/stat 2>/dev/null; true", COMMAND_LIMIT)?;
                Ok(text.lines().filter_map(procstat::parse_stat).collect())
            }
        }
    }

    /// Pids of the live (non-zombie) processes of group `pgid` on the host.
    pub fn group_members(&self, pgid: i32) -> Result<BTreeSet<i32>> {
        Ok(procstat::members_of(&self.processes()?, pgid))
    }

    /// CPU ticks used so far by `root`'s tree on the host (see [`procstat::ticks_of`]).
    pub fn tree_ticks(&self, root: i32) -> Result<u64> {
        Ok(procstat::ticks_of(&procstat::tree_of(&self.processes()?, root), root))
    }

    /// RSS, peak RSS and PSS summed over `root`'s tree on the host, read there.
    pub fn tree_memory(&self, root: i32) -> Result<Memory> {
        let mut m = Memory::default();
        for p in procstat::tree_of(&self.processes()?, root) {
            let status = self.read(&format!("/proc/{}/status", p.pid)).unwrap_or_default();
            m.rss_kib += procstat::kib_field(&status, "VmRSS").unwrap_or(0);
            m.hwm_kib += procstat::kib_field(&status, "VmHWM").unwrap_or(0);
            let rollup = self.read(&format!("/proc/{}/smaps_rollup", p.pid)).unwrap_or_default();
            m.pss_kib += procstat::kib_field(&rollup, "Pss").unwrap_or(0);
            m.processes += 1;
        }
        Ok(m)
    }

    /// The host's CPU ticks so far, from the first line of its `/proc/stat`.
    pub fn machine_ticks(&self) -> Result<MachineTicks> {
        let text = self.read("/proc/stat").ok_or_else(|| anyhow!("{}: cannot read /proc/stat", self.label()))?;
        procstat::parse_machine_ticks(&text).ok_or_else(|| anyhow!("{}: no cpu line in /proc/stat", self.label()))
    }

    /// The CPUs a process may run on there (`Cpus_allowed_list`), the ones pinning chooses from: this process's here,
    /// a fresh shell's on a server host.
    pub fn allowed_cpus(&self) -> Result<Vec<usize>> {
        let status = match self {
            Host::Local => self.read("/proc/self/status").unwrap_or_default(),
            Host::Ssh(_) => self.run("cat /proc/self/status", COMMAND_LIMIT)?,
        };
        let list = status.lines().find_map(|l| l.strip_prefix("Cpus_allowed_list:")).unwrap_or("").trim();
        procstat::parse_cpu_list(list).map_err(|e| anyhow!("{}: {e}", self.label()))
    }

    /// The accept backlog the socket listening on `port` really got: `ss` shows it as the Send-Q of a listening
    /// socket. The kernel silently caps what a server asks for at `net.core.somaxconn`, so this is the figure that
    /// decides whether a burst of connections is queued or refused. The smallest, if several sockets share the port
    /// (`SO_REUSEPORT`); `None` when `ss` is missing or shows none.
    pub fn listen_backlog(&self, port: u16) -> Option<u32> {
        let out = self.run(&format!("ss -Hltn 'sport = :{port}'"), COMMAND_LIMIT).ok()?;
        procstat::parse_listen_backlog(&out, port)
    }

    /// The pid of the process owning the socket listening on `port` (`ss -p`), when `ss` shows it.
    pub fn listen_owner(&self, port: u16) -> Option<i32> {
        let out = self.run(&format!("ss -Hltnp 'sport = :{port}'"), COMMAND_LIMIT).ok()?;
        procstat::parse_listen_owner(&out, port)
    }

    /// Those of `paths` that are not files on the host, found in one command.
    pub fn missing_files(&self, paths: &[String]) -> Result<Vec<String>> {
        let script = format!(r#"for f in {}; do [ -f "$f" ] || echo "$f"; done"#, shell_words(paths));
        Ok(self.run(&script, COMMAND_LIMIT)?.lines().map(String::from).collect())
    }

    /// Sends `signal` to process group `pgid`. A group that is already gone is no error.
    pub fn signal_group(&self, pgid: i32, signal: Signal) -> Result<()> {
        match self {
            Host::Local => {
                let _ = killpg(Pid::from_raw(pgid), signal);
                Ok(())
            }
            Host::Ssh(_) => {
                let name = signal.as_str().trim_start_matches("SIG");
                self.run(&format!("kill -s {name} -- -{pgid} 2>/dev/null; true"), COMMAND_LIMIT).map(drop)
            }
        }
    }

    /// Starts a server in a process group of its own, stdout and stderr piped to this process.
    ///
    /// Locally the child is the server itself and its pid is the group's id. On a server host the child is the
    /// local `ssh` process; the remote shell starts the server as the leader of a new session (`setsid`) from the
    /// project's directory, and first prints `fairpair-pid PID` on stdout: that pid is the group to sample and to
    /// signal (see [`parse_pid_line`]).
    pub fn spawn_server(&self, argv: &[String]) -> std::io::Result<Child> {
        let mut cmd = match self {
            Host::Local => {
                let mut c = Command::new(&argv[0]);
                // Its own process group, so the whole tree can be signalled at once.
                c.args(&argv[1..]).process_group(0);
                c
            }
            Host::Ssh(h) => h.command(&remote_server_script(&h.dir, argv)),
        };
        cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn()
    }

    /// The round-trip time to the host, from `samples` TCP connections to its ssh port (the SYN and the SYN-ACK are
    /// one round trip, answered by the kernel, so no program's speed is in it). Milliseconds; empty locally.
    pub fn round_trips(&self, samples: usize) -> Vec<f64> {
        let Host::Ssh(SshHost { ends: Some(e), .. }) = self else {
            return Vec::new();
        };
        let addr = SocketAddr::new(e.server, e.ssh_port);
        (0..samples)
            .filter_map(|_| {
                let t = Instant::now();
                let s = TcpStream::connect_timeout(&addr, Duration::from_secs(1)).ok()?;
                let rtt = t.elapsed().as_secs_f64() * 1000.0;
                drop(s);
                thread::sleep(Duration::from_millis(20));
                Some(rtt)
            })
            .collect()
    }
}

/// The local interface packets to `addr` leave by, from `ip route get ADDR` (`… dev veth0 src …`).
pub fn route_interface(addr: IpAddr) -> Option<String> {
    let out = Command::new("ip").args(["route", "get", &addr.to_string()]).output().ok()?;
    parse_route_dev(&String::from_utf8_lossy(&out.stdout))
}

pub fn parse_route_dev(text: &str) -> Option<String> {
    let words: Vec<&str> = text.split_whitespace().collect();
    words.windows(2).find(|w| w[0] == "dev").map(|w| w[1].to_string())
}

/// The byte counters of a local interface now (`/sys/class/net/IF/statistics`).
pub fn interface_bytes(interface: &str) -> Option<NetworkBytes> {
    let read = |name: &str| -> Option<u64> {
        fs::read_to_string(format!("/sys/class/net/{interface}/statistics/{name}")).ok()?.trim().parse().ok()
    };
    Some(NetworkBytes { rx_bytes: read("rx_bytes")?, tx_bytes: read("tx_bytes")? })
}

/// The bytes between two readings of the same counters.
pub fn bytes_since(before: NetworkBytes, after: NetworkBytes) -> NetworkBytes {
    NetworkBytes {
        rx_bytes: after.rx_bytes.saturating_sub(before.rx_bytes),
        tx_bytes: after.tx_bytes.saturating_sub(before.tx_bytes),
    }
}

/// The shell line that starts a server on the server host: from the project's directory, as the leader of a new
/// session (so of its own process group), after printing the pid that group gets. `setsid -w` waits for the server,
/// so the ssh session, and the local `ssh` process, last as long as the server does.
pub fn remote_server_script(dir: &str, argv: &[String]) -> String {
    let inner = r#"echo "fairpair-pid $$" && exec "$@""#;
    format!(
        "cd {} && exec setsid -w sh -c {} sh {}",
        shell_words(&[dir.to_string()]),
        shell_words(&[inner.into()]),
        shell_words(argv)
    )
}

/// Reads the pid from the first line a remote server start prints (`fairpair-pid 4242`).
pub fn parse_pid_line(line: &str) -> Option<i32> {
    line.strip_prefix("fairpair-pid ")?.trim().parse().ok().filter(|&p| p > 1)
}

/// Names the control sockets of this process: one per connection opened.
static CONNECTIONS: AtomicU32 = AtomicU32::new(0);

impl SshHost {
    pub fn new(destination: &str, dir: &str, config: Option<PathBuf>) -> SshHost {
        let n = CONNECTIONS.fetch_add(1, Ordering::Relaxed);
        // Short: a Unix socket path has room for about 100 bytes, and ssh appends a random suffix while creating it.
        let private = std::env::temp_dir().join(format!("fairpair-ssh-{}-{n}", std::process::id()));
        let control = private.join("master");
        SshHost { destination: destination.into(), dir: dir.into(), config, control, ends: None }
    }

    /// `ssh` with the options every invocation shares: batch mode (never a password prompt that would wait
    /// forever), the connect timeout, and the control socket.
    fn base(&self) -> Command {
        let mut c = Command::new("ssh");
        if let Some(f) = &self.config {
            c.arg("-F").arg(f);
        }
        c.arg("-S").arg(&self.control);
        c.args(["-o", "BatchMode=yes", "-o", &format!("ConnectTimeout={CONNECT_TIMEOUT_S}")]);
        c
    }

    /// Asks the master connection to end (`ssh -O exit`), and removes its directory.
    fn exit(&self) {
        let mut exit = self.base();
        exit.args(["-O", "exit"]).arg(&self.destination).stdout(Stdio::null()).stderr(Stdio::null());
        let _ = status_within(&mut exit, COMMAND_LIMIT);
        if let Some(dir) = self.control.parent() {
            let _ = fs::remove_dir_all(dir);
        }
    }

    /// `ssh … DESTINATION -- SCRIPT` through the master connection.
    fn command(&self, script: &str) -> Command {
        let mut c = self.base();
        c.args(["-o", "ControlMaster=no", "-T"]).arg(&self.destination).arg("--").arg(script);
        c
    }

    /// Opens the master connection (within [`CONNECT_LIMIT`]) and reads the connection's two addresses. The
    /// [`Connection`] closes it when dropped.
    pub fn connect(&self) -> Result<Connection> {
        let mut master = self.base();
        // ControlPersist lets the master outlive this `ssh` process (`-f` puts it in the background once
        // authenticated), and bounds how long it stays if this harness dies without closing it. ServerAlive notices
        // a host that stopped answering.
        master.args(["-M", "-f", "-N", "-o", "ControlPersist=120", "-o", "ServerAliveInterval=5"]);
        master.args(["-o", "ServerAliveCountMax=3"]).arg(&self.destination);
        // The socket and the log live in a directory only this user can enter (made here: one left over from another
        // process is refused, not reused).
        let dir = self.control.parent().expect("the control socket is in its own directory");
        fs::DirBuilder::new().mode(0o700).create(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        let opened = self.open_master(&mut master);
        if opened.is_err() {
            let _ = fs::remove_dir_all(dir);
        }
        opened?;
        OPEN.lock().unwrap_or_else(|e| e.into_inner()).push(self.clone());
        let mut conn = Connection { host: SshHost { ends: None, ..self.clone() } };
        let line = Host::Ssh(conn.host.clone()).run("echo $SSH_CONNECTION", COMMAND_LIMIT)?;
        conn.host.ends = Some(parse_ssh_connection(&line).ok_or_else(|| {
            anyhow!("{}: cannot read the connection's addresses from $SSH_CONNECTION ({line:?})", self.destination)
        })?);
        Ok(conn)
    }

    /// Runs the master `ssh` until it has authenticated and gone to the background, within [`CONNECT_LIMIT`].
    fn open_master(&self, master: &mut Command) -> Result<()> {
        // The backgrounded master keeps stdout and stderr open: pipes would never see their end, so stderr goes
        // to a file, read for the reason of a failure.
        let log = self.control.with_extension("log");
        let err = fs::File::create(&log).with_context(|| format!("cannot create {}", log.display()))?;
        master.stdin(Stdio::null()).stdout(Stdio::null()).stderr(err);
        let status = status_within(master, CONNECT_LIMIT);
        let reason = last_line(&fs::read(&log).unwrap_or_default());
        let _ = fs::remove_file(&log);
        let failed = |why: String| anyhow!("cannot reach the server host {} over ssh: {why}", self.destination);
        match status {
            Ok(s) if s.success() => Ok(()),
            Ok(s) => Err(failed(format!("{reason} ({s})"))),
            Err(e) => Err(failed(format!("{e:#}; {reason}"))),
        }
    }
}

/// An open master connection; dropping it closes it (`ssh -O exit`).
pub struct Connection {
    host: SshHost,
}

impl Connection {
    /// The host, with the addresses of the connection.
    pub fn host(&self) -> Host {
        Host::Ssh(self.host.clone())
    }
}

impl Drop for Connection {
    fn drop(&mut self) {
        OPEN.lock().unwrap_or_else(|e| e.into_inner()).retain(|h| h.control != self.host.control);
        self.host.exit();
    }
}

/// The master connections open now, so an interrupted harness can close them (see [`close_all`]).
static OPEN: Mutex<Vec<SshHost>> = Mutex::new(Vec::new());

/// Closes every master connection still open: called when the harness is interrupted, after the remote servers were
/// stopped (`subject::stop_all`), since the exit skips the `Drop` that would close them.
pub fn close_all() {
    for host in std::mem::take(&mut *OPEN.lock().unwrap_or_else(|e| e.into_inner())) {
        host.exit();
    }
}

/// Reads `CLIENT_IP CLIENT_PORT SERVER_IP SERVER_PORT`.
pub fn parse_ssh_connection(line: &str) -> Option<Ends> {
    let f: Vec<&str> = line.split_whitespace().collect();
    match f.as_slice() {
        [loader, _, server, port] => {
            Some(Ends { loader: loader.parse().ok()?, server: server.parse().ok()?, ssh_port: port.parse().ok()? })
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_connection_addresses() {
        let e = parse_ssh_connection("10.77.0.1 51234 10.77.0.2 22\n").unwrap();
        assert_eq!(
            (e.loader.to_string(), e.server.to_string(), e.ssh_port),
            ("10.77.0.1".into(), "10.77.0.2".into(), 22)
        );
        assert!(parse_ssh_connection("").is_none(), "a session without SSH_CONNECTION");
        assert!(parse_ssh_connection("10.0.0.1 1 2").is_none());
    }

    #[test]
    fn reads_the_interface_of_a_route() {
        assert_eq!(parse_route_dev("10.213.7.2 dev fpl42 src 10.213.7.1 uid 0 \n    cache \n"), Some("fpl42".into()));
        assert_eq!(parse_route_dev("local 127.0.0.1 dev lo table local src 127.0.0.1"), Some("lo".into()));
        assert_eq!(parse_route_dev(""), None);
        let lo = interface_bytes("lo").expect("every Linux machine has lo");
        assert_eq!(bytes_since(lo, lo), NetworkBytes::default());
    }

    #[test]
    fn reads_the_pid_line() {
        assert_eq!(parse_pid_line("fairpair-pid 4242"), Some(4242));
        assert_eq!(parse_pid_line("fairpair-pid 1"), None, "never signal init's group");
        assert_eq!(parse_pid_line("listening on http://127.0.0.1:1"), None);
    }

    /// The remote script, run by a local shell, starts the program as the leader of its own group and says its pid.
    #[test]
    fn the_server_script_starts_a_group_leader_and_names_it() {
        let argv: Vec<String> =
            ["sh", "-c", "echo \"pgid $(cut -d' ' -f5 /proc/$$/stat)\"; echo \"it's $PWD\""].map(String::from).to_vec();
        let out = Host::Local.run(&remote_server_script("/tmp", &argv), COMMAND_LIMIT).unwrap();
        let lines: Vec<&str> = out.lines().collect();
        let pid = parse_pid_line(lines[0]).expect("the pid line comes first");
        assert_eq!(lines[1].split_whitespace().last().unwrap().parse::<i32>().unwrap(), pid, "{out}");
        assert_eq!(lines[2], "it's /tmp");
    }

    #[test]
    fn a_command_that_overruns_its_limit_is_killed() {
        let t = Instant::now();
        let e = Host::Local.run("sleep 30", Duration::from_millis(300)).unwrap_err();
        assert!(t.elapsed() < Duration::from_secs(5));
        assert!(format!("{e:#}").contains("no answer within 0.3 s"), "{e:#}");
        let e = Host::Local.run("echo out; echo why >&2; exit 3", COMMAND_LIMIT).unwrap_err();
        assert!(format!("{e:#}").ends_with(": why"), "{e:#}");
        assert_eq!(Host::Local.run("echo out", COMMAND_LIMIT).unwrap(), "out\n");
    }

    #[test]
    fn local_processes_include_us() {
        let me = std::process::id() as i32;
        assert!(Host::Local.processes().unwrap().iter().any(|p| p.pid == me));
        assert!(Host::Local.read("/proc/self/status").unwrap().contains("VmRSS"));
        let tree = procstat::tree_of(&Host::Local.processes().unwrap(), me);
        assert_eq!(tree[0].pid, me);
        assert!(Host::Local.tree_memory(me).unwrap().rss_kib > 0);
        assert!(Host::Local.tree_ticks(me).unwrap() > 0 || tree[0].utime + tree[0].stime == 0);
        let ticks = Host::Local.machine_ticks().unwrap();
        assert!(ticks.total > 0 && ticks.busy <= ticks.total);
        assert!(!Host::Local.allowed_cpus().unwrap().is_empty());
    }

    /// Without `ss` (iproute2) the harness records no backlog: the test is then skipped, visibly.
    #[test]
    fn a_real_listening_socket_has_a_backlog() {
        if !testkit::require("host::tests::a_real_listening_socket_has_a_backlog", testkit::Need::Tool("ss")) {
            return;
        }
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = l.local_addr().unwrap().port();
        // Whatever std asks for, the kernel caps it at somaxconn.
        let somaxconn: u32 = Host::Local.read("/proc/sys/net/core/somaxconn").unwrap().trim().parse().unwrap();
        let got = Host::Local.listen_backlog(port).expect("ss shows our listening socket");
        assert!((1..=somaxconn).contains(&got), "{got} vs somaxconn {somaxconn}");
    }
}
