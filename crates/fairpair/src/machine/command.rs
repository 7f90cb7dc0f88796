//! Running a program and writing its command line: the helpers every module that starts a process shares (`host`,
//! `subject`, `tools`, `env`), kept below all of them so that none needs another for these.

use std::io::Read;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

use crate::machine::procstat::format_cpu_list;

/// Whether `program` is on `PATH` (an executable file of that name in one of its directories).
pub fn installed(program: &str) -> bool {
    which::which(program).is_ok()
}

/// Prefixes `taskset -c LIST` when pinning; the tool then starts on those CPUs and so do all its threads.
pub fn pinned(argv: Vec<String>, cpus: Option<&[usize]>) -> Vec<String> {
    match cpus {
        Some(cpus) => {
            let mut v = vec!["taskset".to_string(), "-c".to_string(), format_cpu_list(cpus)];
            v.extend(argv);
            v
        }
        None => argv,
    }
}

/// Joins argv into a line a reader can paste into a shell.
///
/// shlex does the quoting. It also quotes `=`, `,` and `%`, which no shell needs quoted inside an argument, so words
/// made only of safe characters are left as they are: `taskset -c 0,2` and `-H Content-Type=application/json` stay
/// readable in the results, as they always were.
pub fn shell_words(argv: &[String]) -> String {
    argv.iter()
        .map(|a| {
            if !a.is_empty() && a.chars().all(|c| c.is_ascii_alphanumeric() || "-_./:=,@%+".contains(c)) {
                a.clone()
            } else {
                // shlex refuses only a NUL byte, which no argument of a process can hold; show it escaped then.
                shlex::try_quote(a).map_or_else(|_| format!("{a:?}"), |q| q.into_owned())
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The first non-empty line a command prints on stdout or stderr, whatever its exit status (`wrk -v` exits 1).
pub fn first_line_of(argv: &[&str]) -> Option<String> {
    let out = Command::new(argv[0]).args(&argv[1..]).output().ok()?;
    let text = format!("{}\n{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    text.lines().map(str::trim).find(|l| !l.is_empty()).map(str::to_string)
}

/// What a command printed, once it exited.
pub struct Output {
    pub status: ExitStatus,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
}

/// Runs `cmd` with stdout and stderr captured, killing it when it has not exited within `limit`.
pub fn output_within(cmd: &mut Command, limit: Duration) -> Result<Output> {
    let mut child = cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn()?;
    // Both pipes are drained on threads, so a command that prints a lot cannot block on a full pipe.
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        thread::spawn(move || {
            let mut buf = Vec::new();
            if let Some(mut p) = pipe {
                let _ = p.read_to_end(&mut buf);
            }
            buf
        })
    };
    let out = drain(child.stdout.take().map(|p| Box::new(p) as Box<dyn Read + Send>));
    let err = drain(child.stderr.take().map(|p| Box::new(p) as Box<dyn Read + Send>));
    let status = wait_within(&mut child, limit)?;
    Ok(Output { status, stdout: out.join().unwrap_or_default(), stderr: err.join().unwrap_or_default() })
}

/// Runs `cmd` (its stdio as the caller set it) and waits for it, at most `limit`.
pub fn status_within(cmd: &mut Command, limit: Duration) -> Result<ExitStatus> {
    let mut child = cmd.spawn().context("cannot run ssh (is openssh-client installed?)")?;
    wait_within(&mut child, limit)
}

/// Waits for `child`, at most `limit`; then kills it and says so.
pub fn wait_within(child: &mut Child, limit: Duration) -> Result<ExitStatus> {
    let deadline = Instant::now() + limit;
    let mut pause = Duration::from_millis(1);
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(status);
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            bail!("no answer within {} s (killed)", limit.as_secs_f64());
        }
        thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(20));
    }
}

/// The last non-empty line of a command's output, for an error message of one line.
pub fn last_line(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    text.lines().map(str::trim).rfind(|l| !l.is_empty()).unwrap_or("no message").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_words_paste_back_into_a_shell() {
        let argv: Vec<String> = ["printf", "%s\\n", "mine=python3 mine.py {port}", "it's", "", "a\"b$c`d"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let out = std::process::Command::new("sh").arg("-c").arg(shell_words(&argv)).output().unwrap();
        let words: Vec<&str> = std::str::from_utf8(&out.stdout).unwrap().split('\n').collect();
        assert_eq!(words[..4], argv[2..], "{}", shell_words(&argv));
    }

    #[test]
    fn shell_words_quote_what_needs_it() {
        let argv: Vec<String> =
            ["wrk", "-c", "50", "http://127.0.0.1:1/users/500", "a b", "it's"].iter().map(|s| s.to_string()).collect();
        assert_eq!(shell_words(&argv), r#"wrk -c 50 http://127.0.0.1:1/users/500 'a b' "it's""#);
        let words: Vec<String> = ["taskset", "-c", "0,2", "-H", "Content-Type=application/json", "-d", r#"{"a":1}"#]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(shell_words(&words), r#"taskset -c 0,2 -H Content-Type=application/json -d '{"a":1}'"#);
    }

    #[test]
    fn pinning_prefixes_taskset() {
        let v = pinned(vec!["wrk".into()], Some(&[1, 2, 3]));
        assert_eq!(v, ["taskset", "-c", "1-3", "wrk"]);
        assert_eq!(pinned(vec!["wrk".into()], None), ["wrk"]);
    }
}
