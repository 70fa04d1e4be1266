"""Writes docs/benchmarks.md from the JSON lines bench/run.sh collected.

Called by bench/run.sh, which passes everything through the environment.
"""

import datetime
import json
import os
import subprocess
from pathlib import Path

ENV = os.environ
RESULTS = Path(ENV["RESULTS"])
OUT = Path(ENV["OUT"])
OPEN_RATE = float(ENV["OPEN_RATE"])

# Issue #13's targets: ratios to the bare server measured in the same run,
# and durable writes read against the disk's fsync rate.
LIVEZ_RATIO = 0.85
READ_RATIO = 0.50
TOKEN_RATIO = 0.40
PARTNER_TOKEN_RATIO = 0.30
INTROSPECT_RATIO = 0.45
QUOTE_RATIO = 0.55
CREATE_RATIO = 0.12
CREATE_PER_FSYNC = 1.25
SSO_GRANT_RPS = 5_000
# Issue #14's: the REST tier's events page, and signed webhook deliveries.
REST_LIST_RATIO = 0.40
# Issue #15: durable REST creates on SQLite, and reads against the bare server.
REST_CREATE_RPS = 3_000
REST_GET_RATIO = 0.40
DELIVERIES_PER_S = 5_000
OPEN_P99_MS = 25.0
IDLE_RSS_BYTES = 40_000_000  # 40 MB, decimal; stricter than 40 MiB


def load(name):
    path = RESULTS / f"{name}.json"
    try:
        return json.loads(path.read_text().strip() or "{}")
    except (OSError, json.JSONDecodeError):
        return {}


def first_line(path, key):
    try:
        for line in Path(path).read_text().splitlines():
            if line.startswith(key):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown"


def command_output(*args):
    try:
        return subprocess.run(args, capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def fmt_rps(run):
    return f"{run['throughput_rps']:,.0f}" if run else "failed"


def fmt_ms(run, key):
    return f"{run[key]:.2f} ms" if run else "—"


def clean(run):
    """No errors of any kind (HTTP, I/O, timeouts, unsent open-loop slots)."""
    return run and run["errors"] == 0 and run.get("unsent", 0) == 0


def verdict(run, passed):
    if not run:
        return "no (run failed)"
    if not clean(run):
        return f"no ({run['errors'] + run.get('unsent', 0):,} errors)"
    return "yes" if passed else "no"


# How far the reference may move between the start and the end of a run
# before its ratios are flagged as unreliable.
DRIFT_LIMIT = 0.10


def main():
    runs = {
        name: load(name)
        for name in [
            "bare",
            "baseline",
            "token",
            "get-application",
            "create-application",
            "list-events",
            "create-application-open",
            "partner-token",
            "introspect",
            "mcp-tools-list",
            "rest-list-events",
            "rest-create-application",
            "rest-create-application-open",
            "rest-get-application",
            "quote-onetime",
            "public-mcp-get-quote",
            "create-enquiry",
            "sso-code-exchange",
            "sso-refresh",
            "sso-userinfo",
        ]
    }
    seed = load("seed")
    fsync = load("fsync")
    fsyncs = fsync.get("fsyncs_per_s") or 0.0
    base = runs["bare"].get("throughput_rps") or 0.0
    base_end = load("bare-end").get("throughput_rps") or 0.0
    # How far the reference moved between the first and the last thing the
    # run measured: a machine shared with others can move it a lot.
    drift = abs(base_end - base) / base if base and base_end else None
    # Each scenario's reference: the bare server measured just before it
    # (run.sh), or the first measurement for a run made without one.
    for name, run in runs.items():
        if run and name != "bare":
            run["_bare"] = load(f"bare-before-{name}").get("throughput_rps") or base
    paired = all(load(f"bare-before-{n}") for n in runs if n != "bare" and runs[n])

    def bare_of(run):
        return run.get("_bare", base) if run else 0.0

    def ratio(run):
        if not run or not bare_of(run):
            return "—"
        return f"{run['throughput_rps'] / bare_of(run):.2f}"

    def rps_at_least(run, target):
        return bool(run) and run["throughput_rps"] >= target

    def ratio_at_least(run, r):
        return bool(run) and bare_of(run) > 0 and run["throughput_rps"] >= r * bare_of(run)

    def read_ok(run):
        return ratio_at_least(run, READ_RATIO)

    def per_fsync(run):
        return run["throughput_rps"] / fsyncs if run and fsyncs else 0.0

    create = runs["create-application"]
    open_run = runs["create-application-open"]
    rows = [
        ("bare axum server (GET, fixed JSON, no middleware)", runs["bare"], "reference", None),
        ("GET /livez (every shared layer, no handler work)", runs["baseline"],
         f"≥ {LIVEZ_RATIO:.2f}", ratio_at_least(runs["baseline"], LIVEZ_RATIO)),
        ("token (POST /oauth/token)", runs["token"], f"≥ {TOKEN_RATIO:.2f}",
         ratio_at_least(runs["token"], TOKEN_RATIO)),
        ("get-application", runs["get-application"], f"≥ {READ_RATIO:.2f}",
         read_ok(runs["get-application"])),
        ("list-events (limit=20)", runs["list-events"], f"≥ {READ_RATIO:.2f}",
         read_ok(runs["list-events"])),
        ("create-application (closed loop, durable)", create,
         f"≥ {CREATE_RATIO:.2f} and ≥ {CREATE_PER_FSYNC:.2f} × fsync/s",
         ratio_at_least(create, CREATE_RATIO) and per_fsync(create) >= CREATE_PER_FSYNC),
        (f"create-application (open loop, {OPEN_RATE:,.0f} req/s)", open_run,
         f"p99 ≤ {OPEN_P99_MS:.0f} ms", bool(open_run) and open_run["p99_ms"] <= OPEN_P99_MS),
        ("partner token (POST /partner/v1/oauth/token, EdDSA JWT)", runs["partner-token"],
         f"≥ {PARTNER_TOKEN_RATIO:.2f}", ratio_at_least(runs["partner-token"], PARTNER_TOKEN_RATIO)),
        ("introspection (POST /partner/v1/oauth/introspect)", runs["introspect"],
         f"≥ {INTROSPECT_RATIO:.2f}", ratio_at_least(runs["introspect"], INTROSPECT_RATIO)),
        ("MCP tools/list (POST /partner/v1/mcp)", runs["mcp-tools-list"], f"≥ {READ_RATIO:.2f}",
         read_ok(runs["mcp-tools-list"])),
        ("REST tier: GET /partner/v1/events (limit=20, API key)", runs["rest-list-events"],
         f"≥ {REST_LIST_RATIO:.2f}", ratio_at_least(runs["rest-list-events"], REST_LIST_RATIO)),
        ("REST tier: POST /partner/v1/applications (closed loop, durable, unique keys)",
         runs["rest-create-application"], f"≥ {REST_CREATE_RPS:,} req/s",
         rps_at_least(runs["rest-create-application"], REST_CREATE_RPS)),
        (f"REST tier: POST /partner/v1/applications (open loop, {OPEN_RATE:,.0f} req/s)",
         runs["rest-create-application-open"], f"p99 ≤ {OPEN_P99_MS:.0f} ms",
         bool(runs["rest-create-application-open"])
         and runs["rest-create-application-open"]["p99_ms"] <= OPEN_P99_MS),
        ("REST tier: GET /partner/v1/applications/{id} (API key)", runs["rest-get-application"],
         f"≥ {REST_GET_RATIO:.2f}", ratio_at_least(runs["rest-get-application"], REST_GET_RATIO)),
        ("public quote (GET /public/v1/quote/onetime)", runs["quote-onetime"],
         f"≥ {QUOTE_RATIO:.2f}", ratio_at_least(runs["quote-onetime"], QUOTE_RATIO)),
        ("public MCP tools/call GetQuote (POST /public/v1/mcp)", runs["public-mcp-get-quote"],
         "recorded", None),
        ("enquiry, durable (POST /public/v1/enquiries)", runs["create-enquiry"], "recorded", None),
        ("SSO code exchange (POST /token, authorization_code + PKCE)", runs["sso-code-exchange"],
         f"≥ {SSO_GRANT_RPS:,} req/s", rps_at_least(runs["sso-code-exchange"], SSO_GRANT_RPS)),
        ("SSO refresh (POST /token, refresh_token rotation)", runs["sso-refresh"],
         f"≥ {SSO_GRANT_RPS:,} req/s", rps_at_least(runs["sso-refresh"], SSO_GRANT_RPS)),
        ("SSO userinfo (GET /userinfo)", runs["sso-userinfo"], f"≥ {READ_RATIO:.2f}",
         read_ok(runs["sso-userinfo"])),
    ]

    rss_kb = int(ENV["IDLE_RSS_KB"])
    rss_ok = rss_kb * 1024 <= IDLE_RSS_BYTES
    threads = ENV.get("BENCH_THREADS") or "one per CPU"
    mem_kb = first_line("/proc/meminfo", "MemTotal").split()[0]
    mem = f"{int(mem_kb) / 1024 / 1024:.1f} GiB" if mem_kb.isdigit() else "unknown"

    out = []
    out.append("# Benchmarks\n")
    out.append(
        "Generated by `bench/run.sh` (embedded SQLite, the default) and `bench/postgres.sh` "
        "(the PostgreSQL section at the end); do not edit by hand — re-run the scripts.\n"
    )
    out.append("## Run\n")
    out.append(f"- Command: `{ENV['COMMAND']}` (from the repository root)")
    out.append(f"- Date: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M UTC}")
    out.append(f"- Commit: {command_output('git', 'rev-parse', '--short', 'HEAD')}")
    out.append(f"- Toolchain: {command_output('rustc', '--version')}")
    out.append(
        f"- Machine: {len(os.sched_getaffinity(0))} CPUs (nproc), "
        f"{first_line('/proc/cpuinfo', 'model name')}, {mem} RAM, "
        f"Linux {os.uname().release}"
    )
    out.append(
        "- Server: `target/release/lendhub serve`, fresh data directory, "
        "sandbox on 127.0.0.1:18081, default configuration otherwise"
    )
    out.append(
        "- Reference: `target/release/lendhub-bare` (`bench/src/bin/lendhub-bare.rs`), a bare axum "
        "server with lendhub's runtime settings and allocator answering every GET with a fixed "
        "small JSON body and no middleware, measured by the same load generator first in the "
        + (
            f"same run and again for {ENV.get('PAIR_DURATION', '3')} s just before each scenario; "
            "each scenario's ratio is to the measurement just before it (shown beside it)"
            if paired
            else "same run; every ratio below is to it"
        )
    )
    out.append(
        f"- Disk: **{fsyncs:,.0f} fsyncs/s** in the data directory's file system (4 KiB write + "
        "`fdatasync` in a loop for 3 s, `target/release/lendhub-fsync`), measured in the same run"
        if fsyncs else "- Disk: the fsync probe failed"
    )
    if drift is not None:
        steadiness = (
            "steady enough for the ratios to be read"
            if drift <= DRIFT_LIMIT
            else (
                f"more than {DRIFT_LIMIT:.0%}: the machine's speed moved during the run, which "
                "is why each ratio is to the bare server measured just before its scenario"
            )
            if paired
            else f"**more than {DRIFT_LIMIT:.0%}: the machine was not steady, so this run's ratios "
            "are not to be relied on; run it again**"
        )
        out.append(
            f"- Steadiness: the bare server measured again alone at the end did "
            f"{base_end:,.0f} req/s against {base:,.0f} at the start ({drift:.0%} apart): {steadiness}"
        )
    out.append("")
    out.append("## Load generator\n")
    out.append(
        "`lendhub-bench` (this repository, `bench/src/`): tokio + hyper 1, HTTP/1.1 "
        "keep-alive, one connection per worker, running on the same machine as the "
        f"server (the two share the {len(os.sched_getaffinity(0))} CPUs; generator runtime "
        f"threads: {threads})."
    )
    out.append("")
    out.append(
        f"- Closed loop: {ENV['CONNECTIONS']} connections, each sends its next request as "
        "soon as the previous response is read. Throughput is what the server sustains "
        "at that concurrency."
    )
    out.append(
        f"- Open loop: a fixed arrival rate ({OPEN_RATE:,.0f} req/s) over "
        f"{ENV['CONNECTIONS']} connections; latency is measured from each request's "
        "scheduled send time, so queueing behind a slow response is counted "
        "(no coordinated omission)."
    )
    out.append(
        f"- Each run: {ENV['WARMUP']} s unmeasured warm-up, then {ENV['DURATION']} s measured. "
        "rps counts only responses with the expected status (200; 201 for "
        "create-application and create-enquiry); latency percentiles are over those responses."
    )
    out.append(
        "- Fixtures: one client with `sandbox:read sandbox:write`, a fresh token per "
        "authenticated run, one application for get-application, and "
        f"{seed.get('requests', 0)} more applications created beforehand so event pages are full."
    )
    out.append(
        "- create-application sends a unique `Idempotency-Key` per request and a random "
        "8-digit company number and amount (5,000–250,000,000 pence)."
    )
    out.append("")
    out.append("## Results\n")
    out.append(
        "| scenario | connections | rps | p50 | p99 | bare just before (rps) | ratio to bare "
        "| target | met? |"
    )
    out.append("|---|---:|---:|---:|---:|---:|---:|---|---|")
    for label, run, target, passed in rows:
        met = "—" if passed is None else verdict(run, passed)
        conns = run.get("connections", ENV["CONNECTIONS"]) if run else ENV["CONNECTIONS"]
        reference = f"{bare_of(run):,.0f}" if run else "—"
        out.append(
            f"| {label} | {conns} | {fmt_rps(run)} | {fmt_ms(run, 'p50_ms')} | "
            f"{fmt_ms(run, 'p99_ms')} | {reference} | {ratio(run)} | {target} | {met} |"
        )
    out.append("")
    if fsyncs and create:
        out.append(
            f"Durable writes against the disk: create-application committed "
            f"**{per_fsync(create):.2f}** applications per fsync the disk can do "
            f"({fmt_rps(create)}/s against {fsyncs:,.0f} fsyncs/s); enquiries "
            f"{per_fsync(runs['create-enquiry']):.2f}. Above 1 means group commit shares each "
            "flush among requests; every 2xx still comes after its commit is durable."
        )
        out.append("")
    deliveries = load("deliveries")
    if deliveries:
        rate = deliveries.get("deliveries_per_second", 0.0)
        clean_run = deliveries.get("lost") == 0 and deliveries.get("duplicates") == 0 \
            and deliveries.get("bad_signatures") == 0
        met = "met" if rate >= DELIVERIES_PER_S and clean_run else "not met"
        out.append(
            f"Webhook deliveries (issue #14): a backlog of **{deliveries.get('expected', 0):,}** "
            f"events, each queued to one endpoint, drained by the outbox worker to a local receiver "
            f"(`lendhub-bench receive`) that checks every `Service-Signature` and counts each event "
            f"id: **{rate:,.0f} deliveries/s** from the first to the last "
            f"({deliveries.get('seconds', 0):.2f} s), {deliveries.get('lost', '?')} lost, "
            f"{deliveries.get('duplicates', '?')} duplicated, {deliveries.get('bad_signatures', '?')} "
            f"failing the signature check; target ≥ {DELIVERIES_PER_S:,}/s with none lost or "
            f"duplicated — {met}."
        )
        out.append("")
    else:
        out.append("Webhook deliveries: the delivery run failed; see the script's output.")
        out.append("")
    out.append(
        f"Idle RSS after start-up and ~2 s idle (VmRSS): **{rss_kb / 1024:.1f} MiB** "
        f"({rss_kb:,} kB); target ≤ 40 MB — {'met' if rss_ok else 'not met'}."
    )
    out.append("")
    out.append(f"Shutdown: the server {ENV['SHUTDOWN']}.")
    out.append("")

    errors = [(label, run) for label, run, _, _ in rows if run and not clean(run)]
    failed = [label for label, run, _, _ in rows if not run]
    if errors or failed:
        out.append("### Errors\n")
        for label, run in errors:
            detail = ", ".join(f"{k}: {v:,}" for k, v in run["errors_by_status"].items())
            if run.get("unsent"):
                detail += f"{', ' if detail else ''}unsent: {run['unsent']:,}"
            out.append(f"- {label}: {detail}")
        for label in failed:
            out.append(f"- {label}: the load generator failed; see the script's output")
        out.append("")

    out.append("## Reading these numbers\n")
    out.append(
        "This machine is a 2-vCPU virtual machine on shared hardware, and the load generator runs on the same two "
        "CPUs as the server. Absolute throughput of one commit has varied by ±15 % between runs, so read each "
        "figure against the bare server of the same run: the ratio is what a change moves. `GET /livez` does no "
        "handler work, so its ratio is the cost of the shared layers alone (request id, access log, metrics, "
        "error renderer, timeout, panic catcher). Every number above comes from the single run described here."
    )
    out.append("")
    out.append("## Targets (issue #13)\n")
    out.append(
        f"- Against the bare server in the same run: `GET /livez` ≥ {LIVEZ_RATIO:.2f}; authenticated reads "
        f"(get-application, list-events, MCP `tools/list`, userinfo) ≥ {READ_RATIO:.2f}; sandbox token "
        f"≥ {TOKEN_RATIO:.2f}; partner token (EdDSA) ≥ {PARTNER_TOKEN_RATIO:.2f}; introspection "
        f"≥ {INTROSPECT_RATIO:.2f}; public quote ≥ {QUOTE_RATIO:.2f}."
    )
    out.append(
        f"- Durable application creation ≥ {CREATE_RATIO:.2f} of the bare server and "
        f"≥ {CREATE_PER_FSYNC:.2f}× the disk's fsync rate; p99 ≤ {OPEN_P99_MS:.0f} ms at "
        f"{OPEN_RATE:,.0f} req/s open loop."
    )
    out.append(f"- Identity provider code exchange and refresh ≥ {SSO_GRANT_RPS:,}/s.")
    out.append("- Idle RSS ≤ 40 MB.")
    out.append(
        "- The partner ring runs on the hub listener with a platform-tier partner (the seed's tiers "
        "would measure the rate limiter). The public ring's per-address window (60 per 60 s) is raised "
        "(`LENDHUB_PUBLIC__RATE_LIMIT_REQUESTS`), since every request comes from 127.0.0.1; it is still "
        "counted on every request; no SMTP server is configured, so each enquiry's notification waits in "
        "the outbox. The identity provider's scenarios run after one scripted sign-in and consent: each "
        "exchange's code comes from an unmeasured `GET /authorize` on that session, and each connection "
        "rotates its own refresh-token chain."
    )
    out.append("")
    # Written by hand from profiles (`bench/layer-costs.md` says how they
    # were taken); kept beside the figures they explain.
    costs = Path(__file__).with_name("layer-costs.md")
    if costs.exists():
        out.append(costs.read_text().rstrip())
        out.append("")
    out.append("## Growth and memory\n")
    out.append(
        "The same reads and token issuance at 10 k, 1 M and 10 M rows (SQLite) and 10 k and 1 M "
        "(PostgreSQL): [benchmarks-growth.md](benchmarks-growth.md), from `bench/growth.sh`. RSS "
        "under ten minutes of mixed load: [benchmarks-soak.md](benchmarks-soak.md), from "
        "`bench/soak.sh`. Servicing (an account's ledger at 10 k and 1 M entries, payment "
        "links, the scheduler): [benchmarks-servicing.md](benchmarks-servicing.md), from "
        "`bench/servicing.sh`. Earlier runs against the same harness: "
        "[benchmarks-history.md](benchmarks-history.md). The partner dashboard's screens with a "
        "million events in the database: [benchmarks-dashboard.md](benchmarks-dashboard.md), from "
        "`bench/dashboard.sh`. White-label decisions through open-banking account information, "
        "with the cost of each adapter hop: [benchmarks-decisions.md](benchmarks-decisions.md), "
        "from `bench/decisions.sh`."
    )
    out.append("")
    out.append("## Raw results\n")
    out.append("One JSON line per run, as printed by `lendhub-bench`:\n")
    out.append("```json")
    for name, run in runs.items():
        out.append(json.dumps(run, sort_keys=True) if run else f'{{"scenario": "{name}", "failed": true}}')
    out.append(json.dumps({"probe": "fsync", **fsync}, sort_keys=True))
    out.append("```")
    # The PostgreSQL section comes from bench/postgres.sh: keep it.
    previous = OUT.read_text() if OUT.exists() else ""
    begin, end = "<!-- postgres: begin", "<!-- postgres: end -->"
    if begin in previous and end in previous:
        kept = begin + previous.split(begin, 1)[1].split(end, 1)[0] + end
        out.extend(["", kept])
    OUT.write_text("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
