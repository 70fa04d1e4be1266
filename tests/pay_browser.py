"""Headless Chromium (Debian's package, driven by Playwright, JavaScript
off) on the hosted pay page: for each payment link, choose the model bank,
and on its consent page approve paying from the given test account (or,
for "decline", decline); back on lendhub, report the page's status and
failure reason, the bank page's address, and where the page's Continue link
leads. The partner's redirect (https://partner.example/…) is answered by
Playwright itself.

Environment: LINKS, a JSON object {account: pay page url}; BANK, the bank's
id on the pay page. Prints one JSON object {account: {status, reason,
amount, bank_url, landed}, audit} (each of lendhub's pages checked for
accessibility and layout, `pagecheck.py`, named `pay-…`); exits 3 when
Playwright is missing."""
import json
import os
import sys

try:
    from playwright.sync_api import sync_playwright
except ImportError as e:
    print(e, file=sys.stderr)
    sys.exit(3)

from pagecheck import Audit

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
PARTNER = "https://partner.example/"


def answering(landed):
    """The partner's page: records where the browser was sent."""

    def partner(route):
        landed.append(route.request.url)
        route.fulfill(status=200, content_type="text/html", body="<h1>Back at the partner</h1>")

    return partner


def main():
    links = json.loads(os.environ["LINKS"])
    bank = os.environ.get("BANK", "model_bank")
    out = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        audit = Audit(browser)
        for account, url in links.items():
            context = browser.new_context(java_script_enabled=False)
            page = context.new_page()
            landed = []
            page.route(PARTNER + "**", answering(landed))
            page.goto(url)
            result = {"amount": page.locator("#amount").inner_text() if page.locator("#amount").count() else None}
            if page.locator("#pay").count():
                audit.check(page, "pay-choose-bank")
                page.check("#bank-" + bank)
                page.click("#pay")
                page.wait_for_selector("#bank-approve")
                result["bank_url"] = page.url.split("?")[0]
                if account == "decline":
                    page.click("#bank-decline")
                else:
                    page.check("#account-" + account)
                    page.click("#bank-approve")
                page.wait_for_selector("#status")
            heading = page.locator("#status")
            result["status"] = heading.get_attribute("data-status")
            audit.check(page, f"pay-{result['status']}")
            result["reason"] = heading.get_attribute("data-reason")
            if page.locator("#continue").count():
                page.click("#continue")
                page.wait_for_url(PARTNER + "**")
            result["landed"] = landed
            out[account] = result
            context.close()
        out["audit"] = audit.records
        browser.close()
    print(json.dumps(out))


if __name__ == "__main__":
    main()
