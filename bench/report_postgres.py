"""Writes the PostgreSQL section of docs/benchmarks.md from bench/postgres.sh's results.

The section sits between the BEGIN/END markers below; bench/report.py keeps it
when it rewrites the rest of the file.
"""

import datetime
import json
import os
import re
import subprocess
from pathlib import Path

ENV = os.environ
RESULTS = Path(ENV["RESULTS"])
OUT = Path(ENV["OUT"])
BEGIN = "<!-- postgres: begin (bench/postgres.sh) -->"
END = "<!-- postgres: end -->"
# Issue #13: durable creation on PostgreSQL, one instance, and more with two.
CREATE_RPS = 3_000


def load(name):
    try:
        return json.loads((RESULTS / f"{name}.json").read_text().strip() or "{}")
    except (OSError, json.JSONDecodeError):
        return {}


def git(*args):
    try:
        return subprocess.run(["git", *args], capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def row(label, run, bare):
    if not run:
        return f"| {label} | failed | — | — | — | — |"
    errors = run["errors"] + run.get("unsent", 0)
    ratio = f"{run['throughput_rps'] / bare:.3f}" if bare else "—"
    return (
        f"| {label} | {run['throughput_rps']:,.0f} | {run['p50_ms']:.2f} ms | "
        f"{run['p99_ms']:.2f} ms | {ratio} | {errors:,} |"
    )


def main():
    pgbench = (RESULTS / "pgbench.txt").read_text()
    tps = re.search(r"tps = ([\d.]+)", pgbench)
    tps = f"{float(tps.group(1)):,.0f}" if tps else "unknown"
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    out = [BEGIN, "## PostgreSQL: one instance and two instances on one database\n"]
    out.append(f"- Command: `{ENV['COMMAND']}` (from the repository root)")
    out.append(f"- Date: {now}; commit {git('rev-parse', '--short', 'HEAD')}")
    out.append(
        f"- PostgreSQL {ENV['PG_VERSION']} on the same 2 CPUs, a throwaway cluster on loopback TCP "
        "with durable defaults (`fsync = on`, `synchronous_commit = on`), `shared_buffers = 256MB`."
    )
    out.append(
        f"- Each run: {ENV['WARMUP']} s warm-up, {ENV['DURATION']} s measured, {ENV['CONNECTIONS']} "
        "connections; with two instances the connections alternate between them (as a "
        "round-robin load balancer would). Open loop at "
        f"{float(ENV['OPEN_RATE']):,.0f} req/s. One sandbox client, so every event lands in one "
        "owner's sequence (the hardest case for the per-owner event lock)."
    )
    out.append(f"- Reference: `pgbench` TPC-B (scale 10, 16 clients, 2 threads) on this cluster: **{tps} TPS**.")
    bare = load("bare").get("throughput_rps") or 0.0
    fsyncs = load("fsync").get("fsyncs_per_s") or 0.0
    out.append(
        f"- Bare server (`lendhub-bare`, as in the SQLite section) measured first in this run: "
        f"**{bare:,.0f} req/s**; disk where the cluster keeps its data: **{fsyncs:,.0f} fsyncs/s**."
    )
    out.append("")
    out.append("| scenario | rps | p50 | p99 | ratio to bare | errors |")
    out.append("|---|---:|---:|---:|---:|---:|")
    for n in (1, 2):
        label = "1 instance" if n == 1 else "2 instances"
        out.append(row(f"{label}: create-application (durable)", load(f"create-{n}"), bare))
        out.append(row(f"{label}: create-application, open loop", load(f"create-open-{n}"), bare))
        out.append(row(f"{label}: get-application", load(f"get-{n}"), bare))
        out.append(row(f"{label}: token", load(f"token-{n}"), bare))
    out.append("")
    one = load("create-1").get("throughput_rps", 0)
    two = load("create-2").get("throughput_rps", 0)
    out.append(
        f"Target (issue #13): durable application creation on PostgreSQL ≥ {CREATE_RPS:,}/s with one "
        f"instance — {'met' if one >= CREATE_RPS else 'not met'} ({one:,.0f}/s) — and more with two — "
        f"{'met' if two > one else 'not met'} ({two:,.0f}/s)."
    )
    out.append("")
    out.append(
        "On one machine, a second instance adds no CPU: both instances, PostgreSQL and the load "
        "generator share the same two cores, so two instances measure the cost of coordination "
        "through the database (more connections, batches from two processes contending for the "
        "same owner's event head), not the gain from a second machine."
    )
    out.append("")
    out.append("Raw results, one JSON line per run:\n")
    out.append("```json")
    out.append(json.dumps({"reference": "bare", **load("bare")}, sort_keys=True))
    out.append(json.dumps({"probe": "fsync", **load("fsync")}, sort_keys=True))
    for n in (1, 2):
        for name in ("create", "create-open", "get", "token"):
            out.append(json.dumps(load(f"{name}-{n}"), sort_keys=True))
    out.append("```")
    out.append(END)
    section = "\n".join(out)

    text = OUT.read_text() if OUT.exists() else "# Benchmarks\n"
    if BEGIN in text and END in text:
        head, rest = text.split(BEGIN, 1)
        tail = rest.split(END, 1)[1]
        text = head + section + tail
    else:
        text = text.rstrip("\n") + "\n\n" + section + "\n"
    OUT.write_text(text)


if __name__ == "__main__":
    main()
