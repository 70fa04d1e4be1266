"""Headless Chromium signs in through the identity provider's real pages:
Debian's `chromium`, driven over WebDriver by Debian's `chromedriver`
(Selenium; no browser or driver is downloaded). The browser fills in the
sign-in form, allows access on the consent page and is redirected to the
client's callback, which this script serves on CALLBACK_PORT to capture the
code. Prints one JSON object; exits 3 when a library or the browser is missing."""
import json
import os
import shutil
import sys
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from urllib.parse import parse_qs, urlparse

try:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import WebDriverWait
except ImportError as e:
    print(e, file=sys.stderr)
    sys.exit(3)

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
if not (os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER)):
    print("needs Debian's chromium and chromium-driver packages", file=sys.stderr)
    sys.exit(3)

captured = {}


class Callback(BaseHTTPRequestHandler):
    def do_GET(self):
        url = urlparse(self.path)
        if url.path == "/callback":
            captured.update({k: v[0] for k, v in parse_qs(url.query).items()})
        body = b"<!DOCTYPE html><title>Back at the client</title><p>done</p>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


server = HTTPServer(("127.0.0.1", int(os.environ["CALLBACK_PORT"])), Callback)
threading.Thread(target=server.serve_forever, daemon=True).start()

options = webdriver.ChromeOptions()
options.binary_location = CHROMIUM
for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"):
    options.add_argument(arg)
driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
try:
    wait = WebDriverWait(driver, 30)
    driver.get(os.environ["AUTHORIZE_URL"])
    wait.until(EC.presence_of_element_located((By.ID, "email")))
    sign_in_title = driver.title
    # The fields are found by their labels' targets, as assistive technology would.
    driver.find_element(By.CSS_SELECTOR, "label[for=email]")
    driver.find_element(By.ID, "email").send_keys(os.environ["EMAIL"])
    driver.find_element(By.ID, "password").send_keys(os.environ["PASSWORD"])
    driver.find_element(By.ID, "sign-in").click()
    wait.until(EC.presence_of_element_located((By.ID, "approve")))
    consent_text = driver.find_element(By.TAG_NAME, "main").text
    driver.find_element(By.ID, "approve").click()
    wait.until(lambda d: urlparse(d.current_url).path == "/callback")
    final_url = driver.current_url
finally:
    driver.quit()
    server.shutdown()

print(json.dumps({
    "sign_in_title": sign_in_title,
    "consent_text": consent_text,
    "final_url": final_url,
    "callback": captured,
}))
