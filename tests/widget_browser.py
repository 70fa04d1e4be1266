"""Headless Chromium (Debian's package, driven by Playwright) on a partner's
page that embeds the support widget: open it, submit without consent (the
widget shows the server's consent_required), then with consent (the widget
shows the enquiry's reference). Prints one JSON object; exits 3 when
Playwright is missing."""
import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

try:
    from playwright.sync_api import sync_playwright
except ImportError as e:
    print(e, file=sys.stderr)
    sys.exit(3)

HUB = os.environ["HUB_URL"]
PAGE_PORT = int(os.environ["PAGE_PORT"])
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")

PAGE = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Partner site</title></head>
<body><h1>Acme accounting</h1>
<script src="{HUB}/public/v1/support/widget.js" data-form="support-widget" data-dept="support" defer></script>
</body></html>""".encode()


class Page(BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(PAGE)))
        self.end_headers()
        self.wfile.write(PAGE)

    def log_message(self, *args):
        pass


def main():
    server = ThreadingHTTPServer(("127.0.0.1", PAGE_PORT), Page)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    out = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page()
        page.goto(f"http://127.0.0.1:{PAGE_PORT}/")
        widget = page.locator("[data-lendhub-widget]")
        widget.locator("button.lh-open").click()
        widget.locator("#lh-name").fill("Ada Lovelace")
        widget.locator("#lh-email").fill("ada@example.test")
        widget.locator("#lh-message").fill("Can we borrow for a new oven?")
        status = widget.locator(".lh-status")
        widget.locator("button.lh-submit").click()
        page.wait_for_function(
            "() => { const s = document.querySelector('[data-lendhub-widget]').shadowRoot.querySelector('.lh-status');"
            " return s && s.classList.contains('lh-error'); }", timeout=15000)
        out["without_consent"] = {"text": status.inner_text(), "code": status.get_attribute("data-code")}
        widget.locator("#lh-consent").check()
        widget.locator("button.lh-submit").click()
        page.wait_for_function(
            "() => document.querySelector('[data-lendhub-widget]').shadowRoot.querySelector('.lh-status').classList.contains('lh-ok')",
            timeout=15000)
        out["with_consent"] = status.inner_text()
        out["stylesheet_applied"] = page.evaluate(
            "() => getComputedStyle(document.querySelector('[data-lendhub-widget]').shadowRoot"
            ".querySelector('.lh-open')).position")
        browser.close()
    server.shutdown()
    print(json.dumps(out))


main()
