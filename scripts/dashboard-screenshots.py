"""Fills a fresh lendhub with a partner's test-environment activity (loans
funded, a payment link and schedule, a month closed, requests counted) and
takes the dashboard's screenshots in docs/screenshots with headless Chromium.
Run by scripts/dashboard-screenshots.sh, which starts the server; BIN, DATA,
HUB and OUT come from it."""
import json
import os
import subprocess
import sys
import time

import requests
from playwright.sync_api import sync_playwright

BIN, DATA, HUB, OUT = (os.environ[k] for k in ("BIN", "DATA", "HUB", "OUT"))
env = dict(os.environ, LENDHUB_DATA_DIR=DATA)

def cli(*args, stdin=None):
    r = subprocess.run([BIN, *args], env=env, capture_output=True, text=True, input=stdin)
    if r.returncode != 0:
        sys.exit(r.stderr)
    return r.stdout

partner = json.loads(cli("partner", "clients", "create", "--name", "Acme Payroll Ltd", "--scopes",
    "applications.read applications.write decisions.read accounts.read accounts.manage payments.read payments.write events.read webhooks.manage billing.read",
    "--tier", "scale"))["client_id"]
key = json.loads(cli("partner", "api-keys", "create", "--client-id", partner, "--environment", "test"))["key"]
cli("partner", "api-keys", "create", "--client-id", partner, "--environment", "test", "--scopes", "applications.read events.read")
email, pw = "ada@acme-payroll.example", "correct-horse-battery-staple"
cli("sso", "users", "create", "--email", email, "--given-name", "Ada", "--family-name", "Lovelace",
    "--company-number", "01234567", "--company-name", "Acme Payroll Ltd", "--company-role", "director", "--email-verified", stdin=pw + "\n")
cli("partner", "staff", "add", partner, "--email", email, "--role", "owner")
print("partner", partner, file=sys.stderr)

open(os.path.join(DATA, "ready"), "w").close()
# The script starts the server once the set-up above is done; wait for it.
for _ in range(100):
    try:
        requests.get(HUB + "/partner/v1/.well-known/openid-configuration", timeout=1)
        break
    except Exception:
        time.sleep(0.2)

s = requests.Session()
s.headers["Authorization"] = "Bearer " + key
T = HUB + "/sandbox/v1"
def post(path, body, idem=None):
    h = {"Idempotency-Key": idem} if idem else {}
    r = s.post(T + path, json=body, headers=h)
    if r.status_code >= 300:
        sys.exit(f"{path}: {r.status_code} {r.text}")
    return r.json()

hook = post("/webhook_endpoints", {"url": "https://hooks.acme-payroll.example/lendhub", "enabled_events": ["*"], "description": "Production receiver"})
accounts = []
for n, (company, amount, term) in enumerate([("00000401", 2_500_000, 24), ("00000401", 1_200_000, 12), ("00000401", 4_000_000, 36)]):
    time.sleep(0.25)
    a = post("/applications", {"business": {"company_number": company}, "amount_pence": amount, "term_months": term,
        "applicant": {"email": f"founder{n}@widgets.example"}, "reference": f"ACME-{1001+n}", "partner_ref": f"merchant:{n}"})
    post(f"/applications/{a['id']}/submit", {"consents": {"credit_search": True, "open_banking": True, "terms": True}, "bank": "test_bank_strong"})
    post(f"/applications/{a['id']}/accept", {"signed_by": "Ada Lovelace", "accept_terms": True})
    accounts.append(a["id"])
for n in range(4):
    time.sleep(0.25)
    post("/applications", {"business": {"company_number": "00000401"}, "amount_pence": 500_000 + n * 100_000, "term_months": 12,
        "applicant": {"email": f"lead{n}@bakery.example"}, "reference": f"LEAD-{n}"})
post("/test_helpers/clock/advance", {"seconds": 600})
acc_ids = []
for app_id in accounts:
    for _ in range(100):
        r = s.get(T + f"/applications/{app_id}").json()
        if r.get("account_id"):
            acc_ids.append(r["account_id"]); break
        time.sleep(0.1)
print("accounts", acc_ids, file=sys.stderr)
a0 = s.get(T + f"/accounts/{acc_ids[0]}").json()
post("/payments/links", {"account_id": acc_ids[0], "amount_pence": 46_589, "reference": "INV-0001", "description": "December repayment"}, "link-0001")
post("/payments/schedules", {"account_id": acc_ids[0], "amount_pence": a0["monthly_repayment_pence"], "cadence": "monthly",
    "start_date": a0["schedule"][0]["due_date"], "count": 24}, "schedule-0001")
for _ in range(20):
    s.get(T + "/applications"); s.get(T + "/applications/app_missing")
# Month end: the statement is drafted.
now = s.get(T + "/test_helpers/clock").json()["now"]
y, m = int(now[:4]), int(now[5:7])
y, m = (y + 1, 1) if m == 12 else (y, m + 1)
post("/test_helpers/clock/advance", {"to": f"{y}-{m:02d}-02T09:00:00Z"})
for _ in range(100):
    r = s.get(T + "/statements").json()
    if r.get("data"):
        break
    print(r, file=sys.stderr)
    time.sleep(0.2)

with sync_playwright() as p:
    b = p.chromium.launch(executable_path=os.environ.get("CHROMIUM", "/usr/bin/chromium"), args=["--no-sandbox"])
    ctx = b.new_context(java_script_enabled=False, viewport={"width": 1200, "height": 900})
    page = ctx.new_page()
    page.goto(HUB + "/dashboard")
    page.fill("#email", email); page.fill("#password", pw); page.click("#sign-in")
    page.wait_for_load_state()
    if page.locator("#approve").count():
        page.click("#approve")
    page.wait_for_selector("#environment")
    def shot(path, name, full=True):
        page.goto(HUB + path); page.wait_for_load_state()
        page.screenshot(path=f"{OUT}/{name}.png", full_page=full)
    shot("/dashboard?env=test", "dashboard-home")
    shot("/dashboard/credentials?env=test", "dashboard-credentials")
    shot("/dashboard/statements?env=test", "dashboard-statements")
    shot(f"/dashboard/accounts/{acc_ids[0]}?env=test", "dashboard-account")
    shot("/dashboard/staff?env=test", "dashboard-staff")
    shot("/dashboard/applications?env=test", "dashboard-applications")
    shot("/dashboard/webhooks?env=test", "dashboard-webhooks")
    b.close()
print("done", file=sys.stderr)
