"""Writes docs/benchmarks-ledger.md from bench/ledger.sh's results."""

import json
import os
from pathlib import Path

results = Path(os.environ["RESULTS"])
out = Path(os.environ["OUT"])

runs = sorted(
    (json.loads(p.read_text()) for p in results.glob("run-*.json")),
    key=lambda r: r["size"],
)
lines = [
    "# The trial balance at size (issue #47)",
    "",
    f"Measured with `{os.environ['COMMAND']}` on {os.cpu_count()} cores, SQLite. Each size is "
    "a fresh database seeded with that many postings (the lender's capital, then interest and "
    "fees on one loan per thousand postings, two postings a transfer, over the last year). "
    "Each figure is the median of "
    f"{os.environ['RUNS']} runs of `lendhub ledger trial-balance --json`, the whole CLI process "
    "(start, open, read, print) included.",
    "",
    f"| postings | seeded in | ledger accounts | database | now | `--as-of {os.environ['AS_OF']}` |",
    "|---|---|---|---|---|---|",
]
for r in runs:
    size = r["size"]
    seed = json.loads((results / f"seed-{size}.json").read_text())
    trial = json.loads((results / f"trial-{size}.json").read_text())
    accounts = len(trial.get("accounts", []))
    balanced = trial.get("total_debits_pence") == trial.get("total_credits_pence")
    lines.append(
        f"| {size:,} | {seed['seconds']:.0f} s | {accounts:,} (balanced: {balanced}) | "
        f"{r['db_bytes'] / 1e6:,.0f} MB | {r['now_ms']:.0f} ms | {r['as_of_ms']:,.0f} ms |"
    )
lines += [
    "",
    "`now` reads the running totals each transfer updates in its own commit "
    "(`hub_ledger_balances`, one row per ledger account), so it grows with the number of "
    "ledger accounts, not of postings. `--as-of` sums the posted transfers before the day "
    "from the postings themselves, so it grows with the postings before that day; it is the "
    "auditor's question, asked rarely.",
    "",
]
out.write_text("\n".join(lines))
