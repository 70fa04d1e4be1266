"""Headless Chromium (Debian's package, driven by Playwright, JavaScript
off) on the lender's operations console: an operator signs in at lendhub's
identity provider by the console's door, reads the reconciliation items on
a phone-sized screen, and signs out.

Environment: BASE (the hub), EMAIL, PASSWORD. Prints one JSON object
{operator, summary, items: [{end_to_end_id, mismatch, ledger, resolution,
open}], page_width, signed_out, after_sign_out, audit} (the console and
its signed-out page checked for accessibility and layout, `pagecheck.py`);
exits 3 when Playwright is missing."""
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


def main():
    base = os.environ["BASE"]
    out = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        context = browser.new_context(
            java_script_enabled=False, viewport={"width": 375, "height": 740}
        )
        page = context.new_page()
        page.goto(f"{base}/dashboard/operations")
        page.wait_for_selector("#email")
        page.fill("#email", os.environ["EMAIL"])
        page.fill("#password", os.environ["PASSWORD"])
        page.click("#sign-in")
        page.wait_for_load_state()
        if page.locator("#approve").count():
            page.click("#approve")
        page.wait_for_selector("#summary")
        audit = Audit(browser)
        audit.check(page, "operations-reconciliation")
        out["operator"] = page.locator("#operator").inner_text()
        out["summary"] = page.locator("#summary").inner_text()
        out["items"] = [
            {
                "end_to_end_id": row.locator("td").nth(3).inner_text(),
                "mismatch": row.locator("td").nth(4).inner_text(),
                "ledger": row.locator("td").nth(6).inner_text(),
                "resolution": row.locator("td").nth(7).inner_text(),
                "open": "open" in (row.get_attribute("class") or ""),
            }
            for row in page.locator("#items tbody tr").all()
        ]
        # The page itself fits a phone; only the tables scroll sideways,
        # each inside its own box.
        boxes = [page.locator(s).bounding_box() for s in ("header", "main")]
        boxes += [t.bounding_box() for t in page.locator("div.table").all()]
        out["page_width"] = max(b["x"] + b["width"] for b in boxes)
        page.click("#console-sign-out")
        # The identity provider asks to confirm signing out there too.
        page.wait_for_selector("#sign-out")
        page.click("#sign-out")
        page.wait_for_selector("h1")
        out["signed_out"] = page.locator("h1").inner_text()
        audit.check(page, "operations-signed-out")
        out["audit"] = audit.records
        # Back from the provider on a page that offers signing in again.
        out["signed_out_url"] = page.url
        out["sign_in_again"] = page.locator("#sign-in").get_attribute("href")
        page.goto(f"{base}/dashboard/operations")
        page.wait_for_load_state()
        out["after_sign_out"] = page.url
        context.close()
        browser.close()
    print(json.dumps(out))


if __name__ == "__main__":
    main()
