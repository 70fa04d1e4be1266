"""Runs README.md and the guide as a newcomer would, and fails when they lie.

The documents are README.md, then each chapter of docs/guide/src in the
order SUMMARY.md lists them. Every code block in them is run in order, in
one bash session started in the repository root (so variables carry from
block to block and from chapter to chapter), against a fresh
`./target/release/lendhub serve` on the default ports, exactly as written:
- ```sh: as a bash script;
- ```python: by Python (the test command's virtualenv when TEST_PYTHON
  names it, so `cryptography` is there; python3 otherwise);
- ```js: by Node.js, as an ES module;
- ```ts: by tsx in clients/typescript (the TypeScript client's folder, so
  its imports resolve as they do in the client's own examples);
- ```rust: as the `main.rs` of a crate whose `[dependencies]` are the
  ```toml block just before it (built in target/guide-examples).
When the next fenced block after a run block is ```json, the block's
standard output must match it. Any other block (```text, ```json on its
own, ```toml, diagrams) is shown, not run.

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

A block of a runnable language that cannot run here says why, and is
skipped, with `<!-- readme-test: skip: WHY -->` on the line before it.

Usage: python3 scripts/readme_test.py [FILE.md ...]   (exit 0 when all match;
with no files: README.md and the guide)
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
        elif line.lstrip().startswith("```"):
            indent = len(line) - len(line.lstrip())
            lang, start, body = line.strip()[3:].strip(), i + 1, []
            i += 1
            while i < len(lines) and not lines[i].lstrip().startswith("```"):
                body.append(lines[i][indent:])
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


RUNNABLE = {"sh", "python", "js", "ts", "rust"}
TYPESCRIPT = os.path.join(ROOT, "clients", "typescript")
HEREDOC = "@@readme-test-eof@@"
GUIDE = os.path.join(ROOT, "docs", "guide", "src")


def documents():
    """README.md, then the guide's chapters in SUMMARY.md's order."""
    summary = open(os.path.join(GUIDE, "SUMMARY.md"), encoding="utf-8").read()
    chapters = re.findall(r"\]\(([^)#]+\.md)\)", summary)
    return [os.path.join(ROOT, "README.md")] + [os.path.join(GUIDE, c) for c in chapters]


class Block:
    def __init__(self, where, lang, body, manifest):
        self.where, self.lang, self.body, self.manifest = where, lang, body, manifest


def command_for(block, number, known):
    """The bash that runs one block."""
    if block.lang == "sh":
        kept = []
        for text in block.body.split("\n"):
            placeholder = PLACEHOLDER.match(text)
            if placeholder:
                name = placeholder.group(1)
                if name not in known:
                    sys.exit(f"{block.where}: placeholder {name} has a value the test does not know")
                continue
            kept.append(text)
        return "\n".join(kept)
    if block.lang == "python":
        python = os.environ.get("TEST_PYTHON") or "python3"
        return f"{python} - <<'{HEREDOC}'\n{block.body}\n{HEREDOC}"
    if block.lang == "js":
        return f"node --input-type=module - <<'{HEREDOC}'\n{block.body}\n{HEREDOC}"
    if block.lang == "ts":
        # Beside the TypeScript client, whose files its imports name.
        script = os.path.join(TYPESCRIPT, f".guide-example-{number}.ts")
        with open(script, "w") as f:
            f.write(block.body + "\n")
        return f"(cd {TYPESCRIPT} && npx tsx {os.path.basename(script)}; status=$?; rm -f {os.path.basename(script)}; exit $status)"
    # rust: a crate of its own per block, one target directory for them all.
    if block.manifest is None:
        sys.exit(f"{block.where}: a rust block needs a ```toml block of [dependencies] before it")
    crate = os.path.join(ROOT, "target", "guide-examples", f"example-{number}")
    os.makedirs(os.path.join(crate, "src"), exist_ok=True)
    with open(os.path.join(crate, "Cargo.toml"), "w") as f:
        f.write(f'[package]\nname = "guide-example-{number}"\nversion = "0.0.0"\nedition = "2024"\n'
                f'publish = false\n\n[workspace]\n\n{block.manifest}\n')
    with open(os.path.join(crate, "src", "main.rs"), "w") as f:
        f.write(block.body + "\n")
    target = os.path.join(ROOT, "target", "guide-examples", "target")
    return (f"CARGO_TARGET_DIR={target} cargo run --quiet --manifest-path {crate}/Cargo.toml "
            f"2> >(grep -v '^\\s*\\(Compiling\\|Finished\\|Running\\|Locking\\|Adding\\|Downloaded\\|Downloading\\)' >&2)")


def script_for(runnable, known):
    """One bash script: each block, then a marker line with its number."""
    parts = ["set -e -o pipefail"]
    for number, block in enumerate(runnable):
        parts.append(command_for(block, number, known))
        parts.append(f"printf '\\n{MARK} {number}\\n'")
    return "\n".join(parts) + "\n"


def collect(paths):
    """The blocks to run, in order, and the output each must show."""
    runnable, expected = [], {}
    for path in paths:
        name = os.path.relpath(path, ROOT)
        found = blocks(open(path, encoding="utf-8").read())
        manifest = None
        for i, (lang, body, line, skipped) in enumerate(found):
            if lang == "toml" and "[dependencies]" in body:
                manifest = body
            if lang not in RUNNABLE or skipped:
                continue
            if i + 1 < len(found) and found[i + 1][0] == "json":
                expected[len(runnable)] = (found[i + 1][1], f"{name}:{found[i + 1][2]}")
            runnable.append(Block(f"{name}:{line}", lang, body, manifest if lang == "rust" else None))
        # The test sets LENDHUB_DATA_DIR for the server; a reader never does,
        # so a block that reads it would work here and fail for them.
        for block in runnable:
            if re.search(r"\$\{?LENDHUB_DATA_DIR\b", block.body):
                sys.exit(f"{block.where}: the block reads $LENDHUB_DATA_DIR, which a reader never sets")
        unmarked = [f"{name}:{line}" for lang, _, line, skipped in found
                    if lang in ("console", "bash", "shell", "py", "javascript", "typescript")]
        if unmarked:
            sys.exit(f"{unmarked[0]}: name a code block sh, python, js, ts or rust so that it runs")
    return runnable, expected


def main():
    paths = [os.path.abspath(p) for p in sys.argv[1:]] or documents()
    runnable, expected = collect(paths)

    data = tempfile.mkdtemp(prefix="lendhub-readme-")
    env = dict(os.environ, LENDHUB_DATA_DIR=data, LENDHUB_WEBHOOKS__HTTPS_ONLY="false",
               LENDHUB_WEBHOOKS__ALLOW_PRIVATE_NETWORKS="127.0.0.0/8",
               LENDHUB_REST_TIER__ENABLED="true")
    for name in ("LENDHUB_LOG", "LENDHUB_DATABASE_URL", "LENDHUB_CONFIG"):
        env.pop(name, None)
    server, credentials = start_server(env)
    failures = []
    bash = None
    try:
        env.update(credentials)
        with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
            # Its own process group: receivers a block starts in the
            # background go when the run ends.
            bash = subprocess.Popen(["bash", "-c", script_for(runnable, credentials)], cwd=ROOT,
                                    env=env, text=True, stdin=subprocess.DEVNULL, stdout=out,
                                    stderr=err, start_new_session=True)
            try:
                returncode = bash.wait(timeout=900)
            except subprocess.TimeoutExpired:
                returncode = "killed after 900 s"
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
        for number, block in enumerate(runnable):
            if number not in done:
                failures.append(f"{block.where}: the block failed (exit {returncode}):\n"
                                f"{chr(10).join(current)[-2000:]}\n{stderr[-2000:]}")
                break
            if number not in expected:
                continue
            shown, shown_at = expected[number]
            try:
                want, got = json_values(shown), json_values(outputs[number])
            except json.JSONDecodeError as e:
                failures.append(f"{shown_at}: not JSON ({e}); the block printed:\n{outputs[number][:2000]}")
                continue
            if len(want) != len(got):
                failures.append(f"{shown_at}: the page shows {len(want)} JSON values, "
                                f"the block printed {len(got)}:\n{outputs[number][:2000]}")
                continue
            for w, g in zip(want, got):
                problem = mismatch(w, g)
                if problem:
                    failures.append(f"{shown_at}: {problem}\n  printed: {json.dumps(g)[:1500]}")
                    break
    finally:
        if bash is not None:
            try:
                os.killpg(bash.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
        shutil.rmtree(data, ignore_errors=True)
    checked = len(expected)
    if failures:
        print("\n\n".join(failures))
    print(f"readme-test: {len(runnable)} blocks run in {len(paths)} documents; "
          "each count below is of shown outputs")
    print(f"examples: {max(0, checked - len(failures))} passed, {len(failures)} failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
