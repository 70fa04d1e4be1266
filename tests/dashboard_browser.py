"""Headless Chromium (Debian's package, driven by Playwright, JavaScript
off) on the partner dashboard: sign in at lendhub's identity provider,
switch to the test environment, open an application, sign out.

Environment: BASE (the hub), EMAIL, PASSWORD, APPLICATION (a test-environment
application id). Prints one JSON object {signed_in_env, who, switched_env,
listed, application_status, signed_out, after_sign_out}; exits 3 when
Playwright is missing."""
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
    base = os.environ["BASE"]
    application = os.environ["APPLICATION"]
    out = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        context = browser.new_context(java_script_enabled=False)
        page = context.new_page()
        page.goto(f"{base}/dashboard")
        page.wait_for_selector("#email")
        page.fill("#email", os.environ["EMAIL"])
        page.fill("#password", os.environ["PASSWORD"])
        page.click("#sign-in")
        page.wait_for_load_state()
        if page.locator("#approve").count():
            page.click("#approve")
        page.wait_for_selector("#environment")
        out["signed_in_env"] = page.locator("#environment").get_attribute("data-env")
        out["who"] = page.locator("#who").inner_text()
        page.click("#switch-environment")
        page.wait_for_selector("#environment")
        out["switched_env"] = page.locator("#environment").get_attribute("data-env")
        page.click("text=Applications")
        page.wait_for_selector("#applications, #no-applications")
        out["listed"] = [r.get_attribute("data-id") for r in page.locator("#applications tr[data-id]").all()]
        page.click(f"a:text('{application}')")
        page.wait_for_selector("#application")
        out["application_status"] = page.locator("#application").get_attribute("data-status")
        out["application_env"] = page.locator("#environment").get_attribute("data-env")
        page.click("text=Sign out")
        # The identity provider asks to confirm signing out there too.
        page.wait_for_selector("#sign-out")
        page.click("#sign-out")
        page.wait_for_selector("h1")
        out["signed_out"] = page.locator("h1").inner_text()
        # Back from the provider on a page that offers signing in again.
        out["signed_out_url"] = page.url
        out["sign_in_again"] = page.locator("#sign-in").get_attribute("href")
        page.goto(f"{base}/dashboard")
        page.wait_for_load_state()
        out["after_sign_out"] = page.url
        context.close()
        browser.close()
    print(json.dumps(out))


if __name__ == "__main__":
    main()
