"""Headless Chromium (Debian's package, driven by Playwright) through the
hosted application journey: from the partner's handoff link (or, for a
returning applicant, the application's page) through sign-in at lendhub's
identity provider, the company and role, the bank, the consents, to the
decision; an approved offer is accepted and signed. The partner's
`redirect_uri` (https://partner.example/…) is answered by Playwright itself,
which records where the journey sent the browser.

Environment: START_URL, EMAIL, PASSWORD, and for a first visit DOB and
ACCOUNT (the model bank's test account to share: strong, low, thin or
closed); SIGN=yes accepts an approved offer. The bank step goes to the
model bank's consent page and back through lendhub's open-banking
callback. With MODEL_BANK (its base URL) and MODEL_BANK_CLIENT
("id:secret") the bank is first made unavailable (its admin endpoint) and
the page's message recorded; with DECLINE_FIRST=yes the payer first
declines at the bank and the message lendhub shows is recorded. A signed
offer's page is recorded with the signed copy it offers: the PDF's
content type, SHA-256 and text (read by pypdf). Every page of lendhub's on
the way (and the documents the consents link to) is checked for
accessibility and layout at a phone's width and a wide screen's
(`pagecheck.py`), named `journey-…`. Prints one JSON object;
exits 3 when Playwright or pypdf is missing."""
import base64
import hashlib
import io
import json
import os
import sys
import urllib.parse
import urllib.request

try:
    from playwright.sync_api import sync_playwright
    from pypdf import PdfReader
except ImportError as e:
    print(e, file=sys.stderr)
    sys.exit(3)

from pagecheck import Audit

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
PARTNER = "https://partner.example/"



def main():
    out = {"pages": []}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        # JavaScript off: every page of the journey must work without it.
        context = browser.new_context(java_script_enabled=False)
        page = context.new_page()
        landed = []

        def partner(route):
            landed.append(route.request.url)
            route.fulfill(status=200, content_type="text/html", body="<h1>Back at the partner</h1>")

        page.route(PARTNER + "**", partner)
        trail = []
        page.on("response", lambda r: trail.append(f"{r.status} {r.request.method} {r.url}"))
        audit = Audit(browser)
        try:
            walk(page, out, landed, audit)
            out["audit"] = audit.records
        except Exception:
            print("\n".join(trail), file=sys.stderr)
            print(page.url, page.locator("main").inner_text(), file=sys.stderr)
            raise
        browser.close()
    print(json.dumps(out))


def bank_admin(method, path, body=None):
    """The model bank's admin endpoint, with the client's credentials."""
    credentials = base64.b64encode(os.environ["MODEL_BANK_CLIENT"].encode()).decode()
    request = urllib.request.Request(
        os.environ["MODEL_BANK"] + path,
        method=method,
        data=None if body is None else json.dumps(body).encode(),
        headers={"Authorization": "Basic " + credentials, "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request) as answer:
        assert answer.status == 204, answer.status


def walk(page, out, landed, audit):
    def title():
        out["pages"].append(page.locator("h1").first.inner_text())

    def document(href, name):
        """A document a page links to, read in a tab of its own."""
        tab = page.context.new_page()
        tab.goto(urllib.parse.urljoin(page.url, href))
        audit.check(tab, name)
        tab.close()

    page.goto(os.environ["START_URL"])
    title()
    audit.check(page, "journey-start")
    if page.locator("#continue").count():
        # "Sign in to continue": a returning applicant.
        page.locator("#continue").click()
    page.wait_for_selector("#email")
    audit.check(page, "journey-sign-in")
    page.fill("#email", os.environ["EMAIL"])
    page.fill("#password", os.environ["PASSWORD"])
    page.click("#sign-in")
    page.wait_for_load_state()
    if page.locator("#approve").count():
        title()
        page.click("#approve")
    page.wait_for_selector("h1")
    title()
    if page.locator("#confirm-company").count():
        audit.check(page, "journey-company")
        out["applicant"] = page.locator("#applicant").inner_text()
        # Confirming without a role shows the page's own error.
        # The date of birth in three boxes, as GOV.UK asks for one.
        year, month, day = os.environ["DOB"].split("-")
        page.fill("#dob-day", str(int(day)))
        page.fill("#dob-month", str(int(month)))
        page.fill("#dob-year", year)
        page.click("#confirm-company")
        out["company_error"] = page.locator(".error-summary").inner_text()
        audit.check(page, "journey-company-error")
        page.check("#role-director")
        page.click("#confirm-company")
        title()
        audit.check(page, "journey-bank")
        bank = os.environ.get("BANK", "model_bank")
        if os.environ.get("MODEL_BANK"):
            bank_admin("PUT", "/_model/outage", {"status": 503})
            page.check("#bank-" + bank)
            page.click("#connect-bank")
            out["bank_down"] = page.locator(".error-summary").inner_text()
            bank_admin("DELETE", "/_model/outage")
        if os.environ.get("DECLINE_FIRST") == "yes":
            page.check("#bank-" + bank)
            page.click("#connect-bank")
            page.wait_for_selector("#bank-decline")
            page.click("#bank-decline")
            page.wait_for_selector("#connect-bank")
            out["bank_declined"] = page.locator(".error-summary").inner_text()
        page.check("#bank-" + bank)
        page.click("#connect-bank")
        # The bank's own consent page, then back to lendhub.
        page.wait_for_selector("#bank-approve")
        title()
        out["bank_url"] = page.url.split("?")[0]
        page.check("#account-" + os.environ["ACCOUNT"])
        page.click("#bank-approve")
        page.wait_for_selector("#submit-application")
        title()
        audit.check(page, "journey-consents")
        out["consent_links"] = [
            page.locator("#terms-link").get_attribute("href"),
            page.locator("#privacy-link").get_attribute("href"),
        ]
        document(out["consent_links"][0], "journey-terms")
        document(out["consent_links"][1], "journey-privacy")
        page.check("#credit_search")
        page.check("#open_banking")
        page.check("#terms")
        page.click("#submit-application")
    page.wait_for_selector("#outcome")
    title()
    out["outcome"] = page.locator("#outcome").get_attribute("data-outcome")
    audit.check(page, f"journey-{out['outcome']}")
    # The partner's brand at the top, the lender's legal footer beneath.
    if page.locator("#brand-name").count():
        out["brand_name"] = page.locator("#brand-name").inner_text()
    if page.locator("#brand-logo").count():
        src = page.locator("#brand-logo").get_attribute("src")
        logo = page.request.get(urllib.parse.urljoin(page.url, src))
        out["brand_logo"] = {"status": logo.status, "content_type": logo.headers.get("content-type")}
    out["footer"] = page.locator("#legal-footer").inner_text()
    if page.locator("#reasons").count():
        out["reasons"] = page.locator("#reasons li").all_inner_texts()
    out["next"] = page.locator("#next-steps p").all_inner_texts()
    out["elsewhere"] = [
        a.get_attribute("href") for a in page.locator("#elsewhere a").all()
    ]
    if page.locator("#offer-open").count():
        out["open_until"] = page.locator("#offer-open").inner_text()
    if out["outcome"] == "approved":
        out["offer"] = {
            row.get_attribute("id"): row.inner_text()
            for row in page.locator("#offer td").all()
        }
        out["agreement"] = page.locator("#agreement").inner_text()
        document(page.locator("#agreement-link").get_attribute("href"), "journey-agreement")
        if os.environ.get("SIGN") == "yes":
            page.fill("#signed_by", "Ada Lovelace")
            page.check("#accept_terms")
            page.click("#accept-offer")
            # Signed: the applicant's copy, then on to the partner.
            page.wait_for_selector("#agreement-pdf")
            audit.check(page, "journey-signed")
            out["signed_outcome"] = page.locator("#outcome").get_attribute("data-outcome")
            href = page.locator("#agreement-pdf").get_attribute("href")
            copy = page.request.get(urllib.parse.urljoin(page.url, href))
            body = copy.body()
            reader = PdfReader(io.BytesIO(body))
            out["pdf"] = {
                "status": copy.status,
                "content_type": copy.headers.get("content-type"),
                "sha256": hashlib.sha256(body).hexdigest(),
                "pages": len(reader.pages),
                "text": "\n".join(p.extract_text() for p in reader.pages),
            }
            document(page.locator("#agreement-pdf").get_attribute("href").replace(".pdf", ""),
                     "journey-signed-agreement")
            page.click("#finish")
    else:
        page.click("#finish")
    if os.environ.get("SIGN") == "yes" or out["outcome"] != "approved":
        page.wait_for_url(PARTNER + "**")
    out["landed"] = landed
    out["final_url"] = page.url


if __name__ == "__main__":
    main()
