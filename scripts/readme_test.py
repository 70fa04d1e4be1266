"""Runs README.md as a newcomer would, and fails when it lies.

Every ```sh block is run in order, in one bash session started in the
repository root (so variables carry from block to block), against a fresh
`./target/release/lendhub serve` on the default ports, exactly as written.
When the next fenced block after a ```sh block is ```json, the block's
standard output must match it.

What the test does in place of the reader:
- it starts the server itself (the reader runs `cargo run --release -- serve`
  in another terminal), with the development settings that "Receiving
  webhooks locally" asks for, the REST tier switched on as "The REST tier"
  shows, and a throwaway data directory in
  LENDHUB_DATA_DIR, exported to every block too;
- a line assigning a value that contains `…` (`CLIENT_ID=pk_test_…`) is a
  placeholder the reader fills in from the start-up message; the test fills it
  from the same message.

A block preceded by `<!-- readme-test: skip: WHY -->` is not run (it starts
the server, runs the test suite or the benchmarks).

How output is matched (so the README may stay readable):
- each block holds one or more JSON values; the output must hold as many;
- ids, timestamps, request ids, client ids, secrets and tokens are compared
  by their shape, not their value;
- `"…": "…"` in an object allows members the README does not show; without
  it the members must be exactly those shown;
- an array item that is a string starting with `…` ends what the README
  shows of the array;
- any other string containing `…` matches text with anything in its place.

Usage: python3 scripts/readme_test.py [README.md]   (exit 0 when all match)
"""

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BINARY = "./target/release/lendhub"
SKIP = re.compile(r"<!--\s*readme-test:\s*skip:")
PLACEHOLDER = re.compile(r"^\s*([A-Z_][A-Z0-9_]*)=\S*…")
ELLIPSIS = "…"
MARK = "@@readme-test-block@@"
PORTS = [8080, 8081, 8082, 8083, 9464]

# Values that differ on every run, replaced by their kind before comparing.
VOLATILE = [
    (re.compile(r"\b(pk_test|sk_test|pk_live|sk_live|whsec|rpsk|rp|usr|enq|req|cor|whe|evt|key|pay|app|ver|dec)_[A-Za-z0-9_-]{16,}"), r"\1_…"),
    (re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z"), "<time>"),
    # Calendar dates too (quotes start today): the README is run on any day.
    (re.compile(r"\b\d{4}-\d\d-\d\d\b"), "<date>"),
    (re.compile(r"\b[0-9A-HJKMNP-TV-Z]{26}\b"), "<id>"),
]
# Members whose value is random or measured: only the JSON type is compared.
OPAQUE_MEMBERS = {"access_token", "refresh_token", "id_token", "secret", "client_secret",
                  "kid", "current", "duration_ms", "created_at_ms", "sub"}


def blocks(text):
    """(language, body, first line number, skipped) for each fenced block."""
    lines = text.split("\n")
    out, i, skip = [], 0, False
    while i < len(lines):
        line = lines[i]
        if SKIP.search(line):
            skip = True
        elif line.startswith("```"):
            lang, start, body = line[3:].strip(), i + 1, []
            i += 1
            while i < len(lines) and not lines[i].startswith("```"):
                body.append(lines[i])
                i += 1
            out.append((lang, "\n".join(body), start + 1, skip))
            skip = False
        elif line.strip():
            skip = False  # the marker applies to the very next block only
        i += 1
    return out


def normalise(s):
    for pattern, kind in VOLATILE:
        s = pattern.sub(kind, s)
    return s


def string_matches(expected, actual):
    expected, actual = normalise(expected), normalise(actual)
    if ELLIPSIS not in expected:
        return expected == actual
    parts = expected.split(ELLIPSIS)
    if not actual.startswith(parts[0]) or not actual.endswith(parts[-1]):
        return False
    at = len(parts[0])
    for part in parts[1:-1]:
        found = actual.find(part, at)
        if found < 0:
            return False
        at = found + len(part)
    return at <= len(actual) - len(parts[-1])


def mismatch(expected, actual, path="$"):
    """None when `actual` matches `expected`, else where and how it differs."""
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return f"{path}: expected an object, got {json.dumps(actual)[:80]}"
        elided = expected.get(ELLIPSIS) == ELLIPSIS
        for key, value in expected.items():
            if key == ELLIPSIS:
                continue
            if key not in actual:
                return f"{path}.{key}: missing"
            if key in OPAQUE_MEMBERS:
                if type(actual[key]) is not type(value):
                    return f"{path}.{key}: expected a {type(value).__name__}"
                continue
            found = mismatch(value, actual[key], f"{path}.{key}")
            if found:
                return found
        extra = sorted(set(actual) - set(expected))
        if extra and not elided:
            return f"{path}: members the README does not show: {', '.join(extra)}"
        return None
    if isinstance(expected, list):
        if not isinstance(actual, list):
            return f"{path}: expected an array"
        for i, item in enumerate(expected):
            if isinstance(item, str) and item.strip().startswith(ELLIPSIS):
                return None
            if i >= len(actual):
                return f"{path}: {len(actual)} items, the README shows more"
            found = mismatch(item, actual[i], f"{path}[{i}]")
            if found:
                return found
        if len(actual) != len(expected):
            return f"{path}: {len(actual)} items, the README shows {len(expected)}"
        return None
    if isinstance(expected, str):
        if isinstance(actual, str) and string_matches(expected, actual):
            return None
        return f"{path}: expected {json.dumps(expected)[:120]}, got {json.dumps(actual)[:200]}"
    if expected != actual or type(expected) is not type(actual):
        return f"{path}: expected {json.dumps(expected)}, got {json.dumps(actual)[:200]}"
    return None


def json_values(text):
    decoder, values, at = json.JSONDecoder(), [], 0
    while True:
        while at < len(text) and text[at].isspace():
            at += 1
        if at == len(text):
            return values
        value, at = decoder.raw_decode(text, at)
        values.append(value)


def start_server(env):
    for port in PORTS:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                sys.exit(f"readme-test: port {port} is in use; the README's server needs the default ports")
    server = subprocess.Popen([BINARY, "serve"], cwd=ROOT, env=env, text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    credentials = {}
    for line in server.stdout:
        words = line.split()
        if len(words) == 2 and words[0] in ("client_id", "client_secret"):
            credentials["CLIENT_ID" if words[0] == "client_id" else "CLIENT_SECRET"] = words[1]
        if line.startswith("ops listening on"):
            return server, credentials
    sys.exit("readme-test: the server exited before listening")


def script_for(runnable, known):
    """One bash script: each block, then a marker line with its number."""
    parts = ["set -e -o pipefail"]
    for number, (body, line) in enumerate(runnable):
        kept = []
        for text in body.split("\n"):
            placeholder = PLACEHOLDER.match(text)
            if placeholder:
                name = placeholder.group(1)
                if name not in known:
                    sys.exit(f"README.md:{line}: placeholder {name} has a value the test does not know")
                continue
            kept.append(text)
        parts.append("\n".join(kept))
        parts.append(f"printf '\\n{MARK} {number}\\n'")
    return "\n".join(parts) + "\n"


def main():
    readme = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "README.md")
    found = blocks(open(readme, encoding="utf-8").read())
    runnable, expected = [], {}
    for i, (lang, body, line, skipped) in enumerate(found):
        if lang != "sh" or skipped:
            continue
        if i + 1 < len(found) and found[i + 1][0] == "json":
            expected[len(runnable)] = (found[i + 1][1], found[i + 1][2])
        runnable.append((body, line))

    # The test sets LENDHUB_DATA_DIR for the server; a reader never does, so a
    # block that reads it would work here and fail for them.
    for body, line in runnable:
        if re.search(r"\$\{?LENDHUB_DATA_DIR\b", body):
            sys.exit(f"{readme}:{line}: the block reads $LENDHUB_DATA_DIR, which a reader never sets")

    data = tempfile.mkdtemp(prefix="lendhub-readme-")
    env = dict(os.environ, LENDHUB_DATA_DIR=data, LENDHUB_WEBHOOKS__HTTPS_ONLY="false",
               LENDHUB_WEBHOOKS__ALLOW_PRIVATE_NETWORKS="127.0.0.0/8",
               LENDHUB_REST_TIER__ENABLED="true")
    for name in ("LENDHUB_LOG", "LENDHUB_DATABASE_URL", "LENDHUB_CONFIG"):
        env.pop(name, None)
    server, credentials = start_server(env)
    failures = []
    try:
        env.update(credentials)
        with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
            bash = subprocess.Popen(["bash", "-c", script_for(runnable, credentials)], cwd=ROOT,
                                    env=env, text=True, stdin=subprocess.DEVNULL, stdout=out, stderr=err)
            try:
                returncode = bash.wait(timeout=300)
            except subprocess.TimeoutExpired:
                bash.kill()
                returncode = "killed after 300 s"
            out.seek(0)
            err.seek(0)
            stdout, stderr = out.read(), err.read()
        outputs, current, done = {}, [], set()
        for text in stdout.split("\n"):
            if text.startswith(MARK):
                number = int(text.split()[1])
                outputs[number] = "\n".join(current)
                done.add(number)
                current = []
            else:
                current.append(text)
        for number, (body, line) in enumerate(runnable):
            if number not in done:
                failures.append(f"README.md:{line}: the block failed (exit {returncode}):\n"
                                f"{chr(10).join(current)[-2000:]}\n{stderr[-2000:]}")
                break
            if number not in expected:
                continue
            shown, shown_line = expected[number]
            try:
                want, got = json_values(shown), json_values(outputs[number])
            except json.JSONDecodeError as e:
                failures.append(f"README.md:{shown_line}: not JSON ({e}); the block printed:\n{outputs[number][:2000]}")
                continue
            if len(want) != len(got):
                failures.append(f"README.md:{shown_line}: the README shows {len(want)} JSON values, "
                                f"the block printed {len(got)}:\n{outputs[number][:2000]}")
                continue
            for w, g in zip(want, got):
                problem = mismatch(w, g)
                if problem:
                    failures.append(f"README.md:{shown_line}: {problem}\n  printed: {json.dumps(g)[:1500]}")
                    break
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
        shutil.rmtree(data, ignore_errors=True)
    checked = len(expected)
    if failures:
        print("\n\n".join(failures))
    print(f"readme-test: {len(runnable)} blocks run; each count below is of shown outputs")
    print(f"readme: {max(0, checked - len(failures))} passed, {len(failures)} failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
