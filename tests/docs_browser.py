"""Headless Chromium (Debian's package, driven by Playwright, JavaScript on)
on the API reference: each document rendered by Redoc from the binary.

Environment: BASE, the hub's base URL. For each of sandbox, partner and
public, prints the page's first heading, the operation ids Redoc rendered,
every response that came from another origin (there should be none: the
page's CSP blocks Redoc's own logo on cdn.redoc.ly), the foreign URLs the
browser refused, and uncaught page errors; also a guide's heading, read
without JavaScript. One JSON object; exits 3 when Playwright is missing."""
import json
import os
import sys
from urllib.parse import urlparse

try:
    from playwright.sync_api import sync_playwright
except ImportError as e:
    print(e, file=sys.stderr)
    sys.exit(3)

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")


def main():
    base = os.environ["BASE"]
    origin = urlparse(base).netloc
    out = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        for key in ["sandbox", "partner", "public"]:
            context = browser.new_context()
            page = context.new_page()
            answered, refused, errors = [], [], []
            elsewhere = lambda url: urlparse(url).netloc not in (origin, "") and not url.startswith(("data:", "blob:"))
            page.on("response", lambda r: answered.append(r.url) if elsewhere(r.url) else None)
            page.on("requestfailed", lambda r: refused.append(r.url) if elsewhere(r.url) else None)
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(f"{base}/docs/reference/{key}")
            page.wait_for_selector("[id^='operation/']", state="attached", timeout=30000)
            ids = page.eval_on_selector_all(
                "[id^='operation/']", "els => els.map(e => e.id.slice('operation/'.length))")
            out[key] = {
                "title": page.locator("h1").first.inner_text(),
                "operations": sorted(set(ids)),
                "foreign_responses": answered,
                "refused": refused,
                "errors": errors,
            }
            context.close()
        context = browser.new_context(java_script_enabled=False)
        page = context.new_page()
        page.goto(f"{base}/docs/guide/sandbox-api.html")
        out["guide"] = {"heading": page.locator("#guide h1").inner_text(),
                        "code_blocks": page.locator("#guide pre").count()}
        # A chapter with screenshots: each image loads under the page's policy.
        page.goto(f"{base}/docs/guide/dashboard.html")
        out["guide_images"] = page.eval_on_selector_all(
            "#guide img", "els => els.map(e => ({src: e.getAttribute('src'), loaded: e.complete && e.naturalWidth > 0}))")
        page.click("a[rel=next]")
        out["guide_next"] = page.locator("#guide h1").inner_text()
        context.close()
        browser.close()
    print(json.dumps(out))


if __name__ == "__main__":
    main()
