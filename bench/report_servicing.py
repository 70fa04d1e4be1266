"""Writes docs/benchmarks-servicing.md from bench/servicing.sh's results."""

import json
import os
import platform
import subprocess
from pathlib import Path

results = Path(os.environ["RESULTS"])
out = Path(os.environ["OUT"])
sizes = os.environ["SIZES"].split()


def load(name):
    path = results / f"{name}.json"
    return json.loads(path.read_text()) if path.exists() else {}


def rps(r):
    v = r.get("throughput_rps")
    return f"{v:,.0f}/s (p99 {r.get('p99_ms', 0):.2f} ms, {r.get('errors', 0)} errors)" if v else "—"


def cpu():
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


lines = [
    "# Servicing benchmarks (issue #16)",
    "",
    f"Produced by `{os.environ['COMMAND']}` on {cpu()}, {os.cpu_count()} CPUs, SQLite "
    f"(the default backend); {os.environ['CONNECTIONS']} connections, "
    f"{os.environ['DURATION']} s measured after 1 s of warm-up, closed loop.",
    "",
    "## An account's ledger at size",
    "",
    "`GET /partner/v1/accounts/{id}/transactions?limit=20`: one account holds every entry "
    "(the worst case for a per-account page); the deep page starts from the middle entry. "
    "Target: each within 20 % of its 10 k figure.",
    "",
    "| entries | first page | deep page |",
    "|---|---|---|",
]
first = {}
deep = {}
for size in sizes:
    f = load(f"ledger-{size}.first-page")
    d = load(f"ledger-{size}.deep-page")
    first[size], deep[size] = f.get("throughput_rps"), d.get("throughput_rps")
    lines.append(f"| {int(size):,} | {rps(f)} | {rps(d)} |")
if len(sizes) > 1 and first.get(sizes[0]) and first.get(sizes[-1]):
    lines += [
        "",
        f"At {int(sizes[-1]):,} entries the first page runs at "
        f"{first[sizes[-1]] / first[sizes[0]]:.2f} of its {int(sizes[0]):,} figure and the deep page at "
        f"{(deep[sizes[-1]] or 0) / (deep[sizes[0]] or 1):.2f}.",
    ]
links = load("links")
base = load("baseline")
lines += [
    "",
    "## Payment links",
    "",
    "`POST /partner/v1/payments/links` with a fresh Idempotency-Key each: a durable write "
    "(the payment, its `payment.created` event and the idempotency record in one commit; "
    "every 201 after its commit is on disk). A platform-tier partner, so no sub-limit applies. "
    "Target: 2,000/s.",
    "",
    f"- links: {rps(links)}",
    f"- `GET /livez` in the same run: {rps(base)}",
    "",
    f"The links are made on the account the first ledger size seeded ({int(sizes[0]):,} "
    "collections, each held and posted: twice as many transfers). A link is refused above "
    "the payoff, and the payoff is derived from every transfer of the loan (issue #47: the "
    "double-entry ledger is the only record), so this measures that derivation at a size no "
    "real loan reaches (60 instalments make a few hundred transfers); it was 90/s when the "
    "single-entry ledger's 10,000 rows were replayed instead. Reading the loan's running "
    "totals and only the transfers since its last accrual would make it flat with size.",
]
s = load("scheduler")
lines += [
    "",
    "## The scheduler",
    "",
    f"{s.get('schedules', 0):,} schedules under mandates, each with its first instalment due today, "
    "seeded while the server is stopped; the clock runs from the server's start to every "
    "instalment initiated at the payer's bank (`processing`). Each mandate is a VRP consent the "
    "embedded model bank holds (written into its books by `lendhub-bench seed-servicing`), and each "
    "instalment a `POST /domestic-vrps` to it over HTTP: lendhub signs the request (PS256), the bank "
    "verifies it and signs its answer, lendhub verifies that, then reads the payment (another signed "
    "answer). Target: 10 s, set when instalments were initiated in-process; the bank now shares the "
    "two CPUs.",
    "",
    f"- start-up (to `/livez` answering): {s.get('start_up_seconds', 0):.2f} s",
    f"- every instalment initiated: "
    + (f"{s['seconds_from_start']:.2f} s from the start" if s.get("seconds_from_start") else
       f"not within 120 s ({s.get('initiated', 0):,} of {s.get('schedules', 0):,})"),
]
if s.get("cpu_seconds") and s.get("schedules"):
    per = s["cpu_seconds"] / s["schedules"] * 1000
    lines.append(
        f"- CPU to then, lendhub and its embedded model bank together: {s['cpu_seconds']:.1f} s "
        f"({per:.2f} ms per instalment; three RSA-2048 signatures, two of them the bank's, take about "
        "1.1 ms each on this CPU: `openssl speed rsa2048`)"
    )
out.write_text("\n".join(lines) + "\n")
