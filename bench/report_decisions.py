"""Writes docs/benchmarks-decisions.md from bench/decisions.sh's results."""

import json
import os
import platform
import re
from pathlib import Path

results = Path(os.environ["RESULTS"])
out = Path(os.environ["OUT"])


def load(name):
    path = results / f"{name}.json"
    return json.loads(path.read_text()) if path.exists() else {}


def cpu():
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


# Label values hold the APIs' path templates, braces included.
SAMPLE = re.compile(r'^(counterparty_request_duration_seconds(?:_sum|_count|))\{(.*)\}\s+(\S+)$')


def hops(name):
    """{(counterparty, operation): {"sum": s, "count": n, "p99": q}} from a scrape."""
    found = {}
    for line in (results / name).read_text().splitlines():
        m = SAMPLE.match(line)
        if not m:
            continue
        series, labels, value = m.groups()
        pairs = dict(re.findall(r'(\w+)="([^"]*)"', labels))
        key = (pairs.get("counterparty"), pairs.get("operation"))
        entry = found.setdefault(key, {"sum": 0.0, "count": 0.0, "p50": None, "p99": None})
        if series.endswith("_sum"):
            entry["sum"] = float(value)
        elif series.endswith("_count"):
            entry["count"] = float(value)
        elif pairs.get("quantile") in ("0.5", "0.99"):
            entry["p50" if pairs["quantile"] == "0.5" else "p99"] = float(value)
    return found


bare = load("bare")
decide = load("decide")
score = load("score")
before, after = hops("metrics-before.txt"), hops("metrics-after.txt")
decisions = decide.get("decisions", 0)
per_s = decide.get("decisions_per_s", 0.0)
bare_rps = bare.get("throughput_rps", 0.0)
# What lendhub itself answers per decision: create, connect, callback, submit.
hub_requests = 4

lines = [
    "# Decisions through open-banking account information (issues #46, #48)",
    "",
    f"Produced by `{os.environ['COMMAND']}` on {cpu()}, {os.cpu_count()} CPUs, SQLite "
    f"(the default backend), the test environment with its embedded model servers "
    f"(the model bank, register, identity provider and bureau run in the server's process, "
    f"over HTTP on loopback); {os.environ['WORKERS']} applicants at once, spread over "
    f"{os.environ['PARTNERS']} partners, {os.environ['DURATION']} s measured after 2 s of warm-up.",
    "",
    "Each decision is the white-label path end to end: `POST /applications`; "
    "`POST /applications/{id}/bank_connections` (lendhub asks the bank for an account-access "
    "consent); the applicant at the model bank's consent page and approving; "
    "`GET /open-banking/callback` (lendhub exchanges the code and reads the account, its "
    "balances and a year of transactions); `POST /applications/{id}/submit` naming the "
    "connection (register, bureau, the engine, one durable commit).",
    "",
    "## Throughput",
    "",
    f"- decisions: **{per_s:,.1f}/s** ({decisions:,} in {decide.get('duration_s', 0):.1f} s, "
    f"{decide.get('errors', 0)} errors; outcomes {json.dumps(decide.get('outcomes', {}))})",
    f"- the bare axum server in the same run (`GET`, {os.environ.get('BENCH_CONNECTIONS', '64')} "
    f"connections): {bare_rps:,.0f}/s (p99 {bare.get('p99_ms', 0):.2f} ms)",
]
if bare_rps:
    lines += [
        f"- ratio: one decision costs what {bare_rps / per_s:,.0f} bare requests do"
        if per_s else "- ratio: no decisions",
        f"- lendhub's own requests per decision ({hub_requests}) at {per_s * hub_requests:,.0f}/s: "
        f"{per_s * hub_requests / bare_rps:.4f} of the bare server's rate",
    ]
if decide.get("first_error"):
    lines += ["", f"First error: `{decide['first_error']}`"]
if score:
    ns = score["ns_per_decision"]
    lines += [
        "",
        "## The credit model's cost (issue #48)",
        "",
        f"`lendhub-bench score` in the same run: the decision engine alone, in the process "
        f"(the facts' features, {score['model']}'s score and contributions, the outcome, reasons "
        f"and offer), over {score['iterations']:,} applications spread across the model's bins "
        f"(outcomes {json.dumps(score['outcomes'])}): **{ns / 1000:.2f} µs a decision** "
        f"(the issue's bound: 50 µs), {ns / 1e9 * per_s * 100:.3f} % of the decision path's time "
        f"at its measured rate." if per_s else f"**{ns / 1000:.2f} µs a decision**.",
    ]
lines += [
    "",
    "## Each step, as the applicant and partner see it",
    "",
    "| step | mean | p50 | p99 |",
    "|---|---|---|---|",
]
for step, s in decide.get("steps", {}).items():
    lines.append(f"| {step} | {s['mean_ms']:.2f} ms | {s['p50_ms']:.2f} ms | {s['p99_ms']:.2f} ms |")
lines += [
    "",
    "## Each adapter hop",
    "",
    "From the server's `counterparty_request_duration_seconds` (time to the answer's headers), "
    "the difference over the measured window: how many of each hop a decision made and what "
    "one cost on average. p50 and p99 are the server's summary over its life (warm-up and "
    "start-up hops included).",
    "",
    "| counterparty | operation | per decision | mean | p50 | p99 |",
    "|---|---|---|---|---|---|",
]
rows = []
for key, a in after.items():
    b = before.get(key, {"sum": 0.0, "count": 0.0})
    n = a["count"] - b["count"]
    if n <= 0:
        continue
    mean_ms = (a["sum"] - b["sum"]) / n * 1000
    rows.append((key, n, mean_ms, a))
rows.sort(key=lambda r: (r[0][0] or "", r[0][1] or ""))
total = 0.0
for (counterparty, operation), n, mean_ms, a in rows:
    per = n / decisions if decisions else 0
    total += per * mean_ms
    q = lambda v: f"{v * 1000:.2f} ms" if v is not None else "—"
    lines.append(
        f"| {counterparty} | `{operation}` | {per:.2f} | {mean_ms:.2f} ms | {q(a['p50'])} | {q(a['p99'])} |"
    )
lines += [
    "",
    f"Counterparty time per decision, summed: {total:.2f} ms (the hops a decision waits on in "
    "turn; the client's token is kept until it expires and the register's profiles for a "
    "minute, so those hops are rare).",
    "",
]
out.write_text("\n".join(lines))
