"""Headless Chromium (Debian's package, driven by Playwright, JavaScript
off) on the status page: what a person sees.

Environment: URL, the status page. Prints one JSON object {http_status,
indicator, banner, components: {key: status}, stale, incidents: [id],
past: [text], incident_heading (the first open incident's page, also
checked, as `status-incident`), refreshes, asked_refreshes, refresh_link, stopped_refreshes,
audit} (the page checked for accessibility and layout,
`pagecheck.py`, named `status-{indicator}`); exits 3 when Playwright is
missing."""
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
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        context = browser.new_context(java_script_enabled=False)
        page = context.new_page()
        response = page.goto(os.environ["URL"])
        banner = page.locator("#overall")
        components = {}
        for c in page.locator(".component").all():
            key = c.get_attribute("id").removeprefix("component-")
            components[key] = {
                "status": c.get_attribute("data-status"),
                "label": c.locator(".state").inner_text(),
                "bars": c.locator("rect").count(),
            }
        out = {
            "http_status": response.status,
            "indicator": banner.get_attribute("data-indicator"),
            "banner": banner.inner_text(),
            "components": components,
            "stale": page.locator("#stale").count() > 0,
            "incidents": [
                i.get_attribute("id").removeprefix("incident-")
                for i in page.locator("section.incident").all()
            ],
        }
        audit = Audit(browser)
        audit.check(page, f"status-{out['indicator']}")
        # It refreshes itself only when asked, and can be stopped.
        out["refreshes"] = page.locator("meta[http-equiv=refresh]").count()
        page.click("#refresh")
        out["asked_refreshes"] = page.locator("meta[http-equiv=refresh]").get_attribute("content")
        out["refresh_link"] = page.locator("#refresh").inner_text()
        page.click("#refresh")
        out["stopped_refreshes"] = page.locator("meta[http-equiv=refresh]").count()
        # An open incident's own page.
        if out["incidents"]:
            page.click("section.incident h2 a")
            out["incident_heading"] = page.locator("h1").first.inner_text()
            audit.check(page, "status-incident")
        out["audit"] = audit.records
        context.close()
        browser.close()
    print(json.dumps(out))


if __name__ == "__main__":
    main()
