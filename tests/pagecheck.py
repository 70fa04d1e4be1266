"""Accessibility and layout checks of the pages the browser tests walk
(issue #51 item 6), and their screenshots.

`Audit(browser).check(page, name)` takes the page as the walk has it (its
HTML as served, so a form's answer is checked without posting it again) and
opens it in a second context at 320, 375 and 1280 px, with JavaScript on so
axe-core (npm, `AXE_JS`) can run and the page's own scripts show what they
add. At each width it records how far the page scrolls sideways (nothing may,
but a data table inside its own frame); at 375 and 1280 px it records axe's
serious and critical violations and, when `SCREENSHOTS` names a directory,
saves `{name}-{width}.png` there. The walk's JSON carries `audit`, the
records, which the Rust harness checks for every script."""
import os

AXE_JS = os.environ.get("AXE_JS", "")
SCREENSHOTS = os.environ.get("SCREENSHOTS", "")
WIDTHS = (320, 375, 1280)
AXED = (375, 1280)
SERIOUS = ("serious", "critical")


class Audit:
    def __init__(self, browser):
        if not os.path.isfile(AXE_JS):
            raise SystemExit(f"axe-core is missing at AXE_JS={AXE_JS!r} (scripts/test.sh installs it)")
        self.browser = browser
        self.records = []

    def check(self, page, name):
        html = page.content()
        url = page.url.split("#")[0]
        context = self.browser.new_context(
            storage_state=page.context.storage_state(),
            bypass_csp=True,
            java_script_enabled=True,
        )
        try:
            viewer = context.new_page()
            # The walk's page, served again as it was: nothing is re-posted.
            viewer.route(lambda u: u.split("#")[0] == url, lambda route: route.fulfill(
                status=200, content_type="text/html; charset=utf-8", body=html))
            record = {"name": name, "url": url, "overflow": {}, "violations": []}
            for width in WIDTHS:
                viewer.set_viewport_size({"width": width, "height": 900})
                viewer.goto(url)
                viewer.wait_for_load_state("load")
                record["overflow"][str(width)] = viewer.evaluate(
                    "document.documentElement.scrollWidth - document.documentElement.clientWidth")
                if width not in AXED:
                    continue
                viewer.add_script_tag(path=AXE_JS)
                result = viewer.evaluate("axe.run(document, {resultTypes: ['violations']})")
                for v in result["violations"]:
                    if v["impact"] in SERIOUS:
                        record["violations"].append({
                            "width": width,
                            "id": v["id"],
                            "impact": v["impact"],
                            "help": v["help"],
                            "nodes": [n["target"] for n in v["nodes"]][:5],
                        })
                if SCREENSHOTS:
                    os.makedirs(SCREENSHOTS, exist_ok=True)
                    viewer.screenshot(path=os.path.join(SCREENSHOTS, f"{name}-{width}.png"), full_page=True)
            self.records.append(record)
        finally:
            context.close()
