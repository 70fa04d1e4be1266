"""Signs in to the partner dashboard through lendhub's identity provider
(as a browser would, following redirects) and times each screen: N
requests one after another (closed loop), reporting p50, p99 and the
slowest in milliseconds as one JSON object.

Environment: HUB (the hub's base URL), EMAIL, PASSWORD, N (default 300),
ENV (live or test, default live)."""
import json
import os
import re
import statistics
import sys
import time

import requests

PAGES = [
    "/dashboard",
    "/dashboard/applications",
    "/dashboard/accounts",
    "/dashboard/payments",
    "/dashboard/webhooks",
    "/dashboard/credentials",
    "/dashboard/statements",
    "/dashboard/staff",
    "/dashboard/audit",
]


def hidden(html, name):
    m = re.search(r'name="%s" value="([^"]*)"' % re.escape(name), html)
    if not m:
        sys.exit("no %s on %s" % (name, html[:500]))
    return m.group(1)


def sign_in(s, hub, email, password):
    form = s.get(hub + "/dashboard")
    if 'name="ticket"' not in form.text:
        sys.exit("not at the identity provider's sign-in: %s" % form.url)
    sso = form.url.split("/sign-in")[0]
    answer = s.post(sso + "/sign-in", data={
        "ticket": hidden(form.text, "ticket"),
        "csrf_token": hidden(form.text, "csrf_token"),
        "email": email,
        "password": password,
    })
    if "/consent" in answer.url:
        answer = s.post(sso + "/consent", data={
            "ticket": hidden(answer.text, "ticket"),
            "csrf_token": hidden(answer.text, "csrf_token"),
            "decision": "approve",
        })
    if answer.status_code != 200 or 'id="environment"' not in answer.text:
        sys.exit("sign-in did not reach the dashboard: %s %s" % (answer.status_code, answer.url))


def main():
    hub, n, env = os.environ["HUB"], int(os.environ.get("N", "300")), os.environ.get("ENV", "live")
    s = requests.Session()
    sign_in(s, hub, os.environ["EMAIL"], os.environ["PASSWORD"])
    out = {}
    for page in PAGES:
        url = "%s%s?env=%s" % (hub, page, env)
        for _ in range(10):  # warm-up
            s.get(url)
        times = []
        for _ in range(n):
            started = time.perf_counter()
            r = s.get(url, allow_redirects=False)
            times.append((time.perf_counter() - started) * 1000)
            if r.status_code != 200:
                sys.exit("%s answered %s" % (page, r.status_code))
        times.sort()
        out[page] = {
            "n": n,
            "p50_ms": round(statistics.median(times), 2),
            "p99_ms": round(times[min(len(times) - 1, int(len(times) * 0.99))], 2),
            "max_ms": round(times[-1], 2),
            "bytes": len(r.content),
        }
    print(json.dumps(out))


if __name__ == "__main__":
    main()
