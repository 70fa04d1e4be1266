"""Headless Chromium (Debian's package, driven by Playwright, JavaScript
off) opens a hosted-journey link and signs in at lendhub's identity
provider: what the sign-in form offered as the e-mail (the application's
`login_hint`), and the page the journey answered with once signed in.

Environment: START_URL, EMAIL, PASSWORD. Prints one JSON object; exits 3
when Playwright is missing."""
import json
import os
import sys

try:
    from playwright.sync_api import sync_playwright
except ImportError as e:
    print(e, file=sys.stderr)
    sys.exit(3)

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")


def main():
    out = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        context = browser.new_context(java_script_enabled=False)
        page = context.new_page()
        statuses = []
        page.on("response", lambda r: statuses.append(r.status)
                if r.request.is_navigation_request() else None)
        page.goto(os.environ["START_URL"])
        page.wait_for_selector("#email")
        out["offered_email"] = page.input_value("#email")
        page.fill("#email", os.environ["EMAIL"])
        page.fill("#password", os.environ["PASSWORD"])
        page.click("#sign-in")
        page.wait_for_load_state()
        if page.locator("#approve").count():
            page.click("#approve")
            page.wait_for_load_state()
        page.wait_for_selector("h1")
        out["status"] = statuses[-1] if statuses else None
        out["title"] = page.locator("h1").first.inner_text()
        out["text"] = page.locator("main").inner_text()
        out["company_form"] = page.locator("#confirm-company").count() == 1
        context.close()
        browser.close()
    print(json.dumps(out))


if __name__ == "__main__":
    main()
