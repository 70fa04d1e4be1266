"""Headless Chromium (Debian's package, driven by Playwright, JavaScript
off) on the issue's dashboard journey: sign in, switch to test, re-enable a
disabled endpoint, find a failed delivery and retry it, roll an API key
(its successor shown once), and download a statement as CSV and as an
invoice; then every other screen, each checked for accessibility and
layout at a phone's width and a wide screen's (`pagecheck.py`), and the
Copy button beside the rolled key, with JavaScript on.

Environment: BASE (the hub), EMAIL, PASSWORD, ENDPOINT (a disabled
test-environment endpoint), DELIVERY (its failed delivery's id), KEY (a
test API key's id), STATEMENT (a test statement's id); READER_EMAIL (a
read-only member, same password) and OTHER_APPLICATION (another partner's
test application), ACCOUNT (a funded test account). Prints one JSON object; exits 3 when Playwright is
missing."""
import json
import os
import sys
import tempfile

try:
    from playwright.sync_api import sync_playwright
except ImportError as e:
    print(e, file=sys.stderr)
    sys.exit(3)

from pagecheck import Audit

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")


def download(page, selector):
    """Clicks a download link; the file's suggested name and its text."""
    with page.expect_download() as info:
        page.click(selector)
    d = info.value
    path = os.path.join(tempfile.mkdtemp(), d.suggested_filename)
    d.save_as(path)
    with open(path, encoding="utf-8") as f:
        return d.suggested_filename, f.read()


def sign_in(page, base, email, password):
    page.goto(f"{base}/dashboard")
    page.wait_for_selector("#email")
    page.fill("#email", email)
    page.fill("#password", password)
    page.click("#sign-in")
    page.wait_for_load_state()
    if page.locator("#approve").count():
        page.click("#approve")
    page.wait_for_selector("#environment")


def read_only(browser, base, env, out):
    """What a read-only member sees and may do, in a browser of their own."""
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    sign_in(page, base, env["READER_EMAIL"], env["PASSWORD"])
    endpoint = env["ENDPOINT"]
    buttons = 0
    for path in ["/dashboard/webhooks", f"/dashboard/webhooks/{endpoint}/deliveries",
                 "/dashboard/credentials", "/dashboard/staff"]:
        response = page.goto(f"{base}{path}?env=test")
        out.setdefault("reader_statuses", {})[path] = response.status
        buttons += page.locator("main form button").count()
    out["reader_buttons"] = buttons
    # The form a developer would post, posted anyway with the reader's own
    # session and CSRF token: refused.
    page.goto(f"{base}/dashboard/webhooks?env=test")
    csrf = page.locator("header input[name=csrf_token]").get_attribute("value")
    refused = page.request.post(f"{base}/dashboard/webhooks/{endpoint}/roll-secret",
                                form={"csrf_token": csrf, "env": "test", "form_id": "f" * 20},
                                max_redirects=0)
    out["reader_post"] = refused.status
    other = page.goto(f"{base}/dashboard/applications/{env['OTHER_APPLICATION']}?env=test")
    out["other_partners_application"] = other.status
    context.close()


def copy_button(browser, page, base, out):
    """The shown-once page with JavaScript on: its Copy button puts the
    secret on the clipboard and says so."""
    html, url = page.content(), page.url
    context = browser.new_context(java_script_enabled=True)
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=base)
    viewer = context.new_page()
    viewer.route(lambda u: u == url, lambda route: route.fulfill(
        status=200, content_type="text/html; charset=utf-8", body=html))
    viewer.goto(url)
    out["copy_hidden_without_script"] = page.locator("#copy").is_hidden()
    viewer.click("#copy")
    viewer.wait_for_selector("#shown-once-copied:has-text('Copied')")
    out["copied_status"] = viewer.locator("#shown-once-copied").inner_text()
    out["copied"] = viewer.evaluate("navigator.clipboard.readText()")
    context.close()


def every_screen(page, base, env, audit, out):
    """The screens the journey did not pass through, each checked."""
    def visit(path, name):
        response = page.goto(f"{base}{path}")
        out.setdefault("screens", {})[name] = response.status
        audit.check(page, name)

    visit("/dashboard/applications?env=test", "dashboard-applications")
    page.click("#applications tbody tr a, #applications tr a")
    page.wait_for_selector("#application")
    audit.check(page, "dashboard-application")
    visit(f"/dashboard/accounts?env=test", "dashboard-accounts")
    visit(f"/dashboard/accounts/{env['ACCOUNT']}?env=test", "dashboard-account")
    visit("/dashboard/payments?env=test", "dashboard-payments")
    visit("/dashboard/staff?env=test", "dashboard-staff")
    visit("/dashboard/audit?env=test", "dashboard-audit")
    visit("/dashboard/branding?env=test", "dashboard-branding")
    visit("/dashboard/partners?env=test", "dashboard-partners")
    visit("/dashboard/applications/app_01J00000000000000000000000?env=test", "dashboard-not-found")
    visit("/dashboard/signed-out", "dashboard-signed-out")


def main():
    env = os.environ
    base, endpoint, delivery = env["BASE"], env["ENDPOINT"], env["DELIVERY"]
    key, statement = env["KEY"], env["STATEMENT"]
    out = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        context = browser.new_context(java_script_enabled=False, accept_downloads=True)
        page = context.new_page()
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(f"{base}/dashboard")
        page.wait_for_selector("#email")
        page.fill("#email", env["EMAIL"])
        page.fill("#password", env["PASSWORD"])
        page.click("#sign-in")
        page.wait_for_load_state()
        if page.locator("#approve").count():
            page.click("#approve")
        page.wait_for_selector("#environment")
        page.click("#switch-environment")
        page.wait_for_selector("#environment[data-env=test]")
        audit = Audit(browser)
        audit.check(page, "dashboard-home")

        # Re-enable the endpoint the delivery worker disabled.
        page.click("nav >> text=Webhooks")
        row = f"#endpoints tr[data-id='{endpoint}']"
        page.wait_for_selector(row)
        audit.check(page, "dashboard-webhooks")
        out["endpoint_before"] = page.get_attribute(row, "data-status")
        page.click(f"{row} button.enable")
        page.wait_for_selector(row)
        out["endpoint_after"] = page.get_attribute(row, "data-status")

        # Its failed delivery, retried.
        page.click(f"{row} >> text={endpoint}")
        failed = f"#deliveries tr[data-id='{delivery}']"
        page.wait_for_selector(failed)
        audit.check(page, "dashboard-deliveries")
        out["delivery_before"] = page.get_attribute(failed, "data-state")
        out["delivery_answer"] = page.locator(f"{failed} td.response").inner_text()
        page.click(f"{failed} button.retry")
        page.wait_for_selector(failed)
        out["delivery_after"] = page.get_attribute(failed, "data-state")

        # Roll the API key, keeping the old one for a day.
        page.click("nav >> text=Credentials")
        key_row = f"#keys tr[data-id='{key}']"
        page.wait_for_selector(key_row)
        audit.check(page, "dashboard-credentials")
        page.select_option(f"{key_row} select[name=overlap_hours]", "24")
        page.click(f"{key_row} button.roll")
        page.wait_for_selector("#shown-once")
        audit.check(page, "dashboard-shown-once")
        copy_button(browser, page, base, out)
        out["rolled_key"] = page.locator("#shown-once").inner_text()
        out["rolled_note"] = page.locator("#note").inner_text()
        page.click("text=Back to credentials")
        page.wait_for_selector(key_row)
        out["old_key_state"] = page.get_attribute(key_row, "data-state")

        # The month's statement, downloaded both ways.
        page.click("nav >> text=Statements")
        statement_row = f"#statements tr[data-id='{statement}']"
        page.wait_for_selector(statement_row)
        audit.check(page, "dashboard-statements")
        out["csv_name"], out["csv"] = download(page, f"{statement_row} a.csv")
        out["invoice_name"], out["invoice"] = download(page, f"{statement_row} a.invoice")
        every_screen(page, base, env, audit, out)
        out["page_errors"] = errors
        out["audit"] = audit.records
        context.close()
        read_only(browser, base, env, out)
        browser.close()
    print(json.dumps(out))


if __name__ == "__main__":
    main()
