"""A webhook receiver for your own machine: keeps every delivery it is sent.

Each POST is answered 200 and kept in FOLDER as N.json (the raw body, byte
for byte, which is what a signature covers) beside N.sig (its
Service-Signature header), numbered in the order they arrived. It checks
nothing itself: verifying is your code's job (see the guide's Webhooks
chapter), and this lets you run that code on real deliveries.

A GET answers 200 and keeps nothing: wait for it before registering the
endpoint, so the first delivery finds the receiver listening.

Usage: python3 scripts/webhook_inbox.py PORT FOLDER
"""

import http.server
import itertools
import os
import sys


def main():
    port, folder = int(sys.argv[1]), sys.argv[2]
    os.makedirs(folder, exist_ok=True)
    numbers = itertools.count(1)

    class Inbox(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            n = next(numbers)
            with open(os.path.join(folder, f"{n}.sig"), "w") as sig:
                sig.write(self.headers.get("Service-Signature", ""))
            # Written last and renamed into place: a reader never sees half a body.
            tmp = os.path.join(folder, f".{n}.json")
            with open(tmp, "wb") as out:
                out.write(body)
            os.replace(tmp, os.path.join(folder, f"{n}.json"))
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args):
            pass

    http.server.ThreadingHTTPServer(("127.0.0.1", port), Inbox).serve_forever()


if __name__ == "__main__":
    main()
