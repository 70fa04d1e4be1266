//! The real `lendhub` binary as a child process, for what only a process can
//! show: kill -9, signals, and the CLI working beside a running server.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

use super::Site;

pub struct Process {
    pub child: Child,
    pub base: String,
    pub hub: String,
    pub sso: String,
    pub ops: String,
    pub stdout: Vec<String>,
}

/// Kills the server (SIGKILL) and reaps it, even when a test fails midway.
impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn launch(site: &Site) -> Process {
    launch_with(site, &[])
}

/// `lendhub serve` on `site`, with `extra` environment on top.
pub fn launch_with(site: &Site, extra: &[(&str, &str)]) -> Process {
    launch_logging(site, extra, Stdio::null())
}

/// `launch_with`, its log (stderr) going to `stderr`; `extra` overrides the
/// defaults below, `LENDHUB_LOG` included.
pub fn launch_logging(site: &Site, extra: &[(&str, &str)], stderr: Stdio) -> Process {
    let mut command = Command::new(env!("CARGO_BIN_EXE_lendhub"));
    command.arg("serve");
    start(command, site, extra, stderr, None)
}

/// `lendhub serve` on `site` inside the network namespace `netns`
/// (`scripts/netns.sh`), listening on every address there; the returned
/// URLs use `host`, its address as the root namespace reaches it.
pub fn launch_in_netns(site: &Site, extra: &[(&str, &str)], netns: &str, host: &str) -> Process {
    let mut command = Command::new("ip");
    command
        .args([
            "netns",
            "exec",
            netns,
            env!("CARGO_BIN_EXE_lendhub"),
            "serve",
        ])
        .env("LENDHUB_SANDBOX__ADDR", "0.0.0.0:0")
        .env("LENDHUB_HUB__ADDR", "0.0.0.0:0")
        .env("LENDHUB_OPS__ADDR", "0.0.0.0:0");
    start(command, site, extra, Stdio::null(), Some(host))
}

#[expect(
    clippy::zombie_processes,
    reason = "Process::drop reaps the child on every path"
)]
fn start(
    mut command: Command,
    site: &Site,
    extra: &[(&str, &str)],
    stderr: Stdio,
    host: Option<&str>,
) -> Process {
    let defaults = [
        ("LENDHUB_SANDBOX__ADDR", "127.0.0.1:0"),
        ("LENDHUB_HUB__ADDR", "127.0.0.1:0"),
        ("LENDHUB_OPS__ADDR", "127.0.0.1:0"),
    ];
    for (name, value) in defaults {
        if command.get_envs().all(|(n, _)| n != name) {
            command.env(name, value);
        }
    }
    let mut child = command
        .envs(site.env())
        .env("LENDHUB_SSO__ADDR", "127.0.0.1:0")
        .env("LENDHUB_STATUS__ADDR", "127.0.0.1:0")
        .env("LENDHUB_WEBHOOKS__HTTPS_ONLY", "false")
        .env("LENDHUB_WEBHOOKS__ALLOW_PRIVATE_NETWORKS", "127.0.0.0/8")
        .env("LENDHUB_WEBHOOKS__LEASE_SECONDS", "1")
        .env("LENDHUB_LOG", "warn")
        .envs(extra.iter().copied())
        .stdout(Stdio::piped())
        .stderr(stderr)
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut stdout = Vec::new();
    loop {
        let line = lines
            .next()
            .expect("server exited before listening")
            .unwrap();
        let address = |prefix: &str, line: &str| {
            line.strip_prefix(prefix).map(|rest| {
                let listening = rest.split_whitespace().next().unwrap();
                match host {
                    Some(h) => listening.replace("0.0.0.0", h),
                    None => listening.to_owned(),
                }
            })
        };
        if let Some(ops) = address("ops listening on ", &line) {
            let base = stdout
                .iter()
                .find_map(|l: &String| address("sandbox listening on ", l))
                .unwrap();
            let hub = stdout
                .iter()
                .find_map(|l: &String| address("hub listening on ", l))
                .unwrap();
            let sso = stdout
                .iter()
                .find_map(|l: &String| address("sso listening on ", l))
                .unwrap();
            std::thread::spawn(move || for _ in lines {});
            return Process {
                child,
                base,
                hub,
                sso,
                ops,
                stdout,
            };
        }
        stdout.push(line);
    }
}

pub fn credential(lines: &[String], name: &str) -> String {
    lines
        .iter()
        .find_map(|l| l.trim().strip_prefix(name))
        .unwrap()
        .trim()
        .to_owned()
}

/// Runs a `lendhub` CLI command against `site`; returns its stdout.
pub fn cli(site: &Site, args: &[&str]) -> String {
    cli_with(site, &[], args)
}

/// `cli`, with `extra` environment on top.
pub fn cli_with(site: &Site, extra: &[(&str, &str)], args: &[&str]) -> String {
    cli_input(site, extra, args, "")
}

/// `cli_with`, with `input` on standard input (a pipe, as from a script).
pub fn cli_input(site: &Site, extra: &[(&str, &str)], args: &[&str], input: &str) -> String {
    let mut child = Command::new(env!("CARGO_BIN_EXE_lendhub"))
        .args(args)
        .envs(site.env())
        .envs(extra.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), input.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "lendhub {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// A token for a client, from a running server.
pub async fn client_token(http: &reqwest::Client, base: &str, id: &str, secret: &str) -> String {
    let r = http
        .post(format!("{base}/oauth/token"))
        .basic_auth(id, Some(secret))
        .form(&[("grant_type", "client_credentials")])
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    r.json::<serde_json::Value>().await.unwrap()["access_token"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// The object ids of every event of `kind`, paging through the whole log.
pub async fn all_events(
    http: &reqwest::Client,
    base: &str,
    token: &str,
    kind: &str,
) -> Vec<String> {
    let mut ids = Vec::new();
    let mut cursor = String::new();
    loop {
        let page: serde_json::Value = http
            .get(format!("{base}/v1/events?type={kind}&limit=100{cursor}"))
            .bearer_auth(token)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let data = page["data"].as_array().unwrap();
        for e in data {
            ids.push(e["data"]["object"]["id"].as_str().unwrap().to_owned());
        }
        if page["has_more"] != true {
            return ids;
        }
        cursor = format!(
            "&starting_after={}",
            data.last().unwrap()["id"].as_str().unwrap()
        );
    }
}

/// A CLI command that must fail: its standard error.
pub fn cli_refused(site: &Site, args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_lendhub"))
        .args(args)
        .envs(site.env())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(
        !out.status.success(),
        "lendhub {args:?} succeeded: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// `lendhub simulate <args>` as a child process, killed on drop, with
/// `env`; its URL, read from the first line it prints (`{banner} {url}`).
pub struct Simulator {
    child: Child,
    pub url: String,
}

impl Simulator {
    pub fn launch(args: &[&str], env: (&str, &str), banner: &str) -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_lendhub"))
            .arg("simulate")
            .args(args)
            .env(env.0, env.1)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let url = line
            .trim()
            .strip_prefix(banner)
            .unwrap_or_else(|| panic!("unexpected first line: {line}"))
            .trim()
            .to_owned();
        Self { child, url }
    }
}

impl Drop for Simulator {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
