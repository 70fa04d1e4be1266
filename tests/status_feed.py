"""The status page's Atom feed read by feedparser, the feed reader most
Python tools embed. Environment: URL, the feed. Prints {version, bozo,
title, entries: [{id, title, link, summary}]}; exits 3 when feedparser is
missing."""
import json
import os
import sys
import urllib.request

try:
    import feedparser
except ImportError as e:
    print(e, file=sys.stderr)
    sys.exit(3)


def main():
    with urllib.request.urlopen(os.environ["URL"]) as r:
        content_type = r.headers.get("Content-Type")
        body = r.read()
    feed = feedparser.parse(body)
    print(json.dumps({
        "content_type": content_type,
        "version": feed.version,
        "bozo": bool(feed.bozo),
        "title": feed.feed.get("title"),
        "entries": [
            {"id": e.get("id"), "title": e.get("title"), "link": e.get("link"), "summary": e.get("summary")}
            for e in feed.entries
        ],
    }))


if __name__ == "__main__":
    main()
