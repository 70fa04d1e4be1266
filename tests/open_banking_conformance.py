"""Checks what lendhub and the model bank exchanged against the UK Open
Banking Read/Write API's official OpenAPI documents (vendored under
crates/models/spec/): each request body against the operation's request
schema, each response body against the schema of the status answered, and
the header parameters the operation requires. A request whose body is a
JWT (the Event Notification API) is recorded as its claims and checked
against the document's OBEventNotification1.

Environment: EXCHANGES (a JSON file: the model bank's `/_model/exchanges`)
and SPECS (paths of OpenAPI documents, separated by ':'). Prints one JSON
object {"checked": n, "operations": [...], "problems": [...]}."""
import json
import os
import sys

try:
    from openapi_schema_validator import OAS30Validator
    from jsonschema import FormatChecker
except ImportError as e:
    print(e, file=sys.stderr)
    sys.exit(3)


def deref(node, root, seen=()):
    """The schema with every local $ref inlined (a cycle stops at the
    repeated reference, left permissive)."""
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/"):
            if ref in seen:
                return {}
            target = root
            for part in ref[2:].split("/"):
                target = target[part]
            return deref(target, root, seen + (ref,))
        return {k: deref(v, root, seen) for k, v in node.items()}
    if isinstance(node, list):
        return [deref(v, root, seen) for v in node]
    return node


def json_schema(content):
    for media, body in (content or {}).items():
        if "json" in media:
            return body.get("schema")
    return None


def main():
    exchanges = json.load(open(os.environ["EXCHANGES"]))
    operations = {}
    for path in os.environ["SPECS"].split(":"):
        spec = json.load(open(path))
        for template, item in spec["paths"].items():
            for method, op in item.items():
                if method in ("get", "post", "put", "delete", "patch"):
                    operations[f"{method.upper()} {template}"] = (spec, op)
    problems = []
    seen = []
    for x in exchanges:
        name = x["operation"]
        if name not in operations:
            problems.append(f"{name}: no such operation in the standard")
            continue
        seen.append(name)
        spec, op = operations[name]
        op = deref(op, spec)
        for p in op.get("parameters", []):
            if p.get("in") == "header" and p.get("required"):
                if p["name"].lower() not in x["headers"]:
                    problems.append(f"{name}: required header {p['name']} missing")
        checks = []
        if x.get("request") is not None:
            content = op.get("requestBody", {}).get("content") or {}
            if "application/jwt" in content:
                # A signed token: its claims are the notification.
                schema = deref(spec["components"]["schemas"]["OBEventNotification1"], spec)
            else:
                schema = json_schema(content)
            checks.append(("request", schema, x["request"]))
        answer = op.get("responses", {}).get(str(x["status"]))
        if answer is None:
            problems.append(f"{name}: status {x['status']} is not an answer the standard gives")
        elif x.get("response") is not None:
            checks.append((f"response {x['status']}", json_schema(answer.get("content")), x["response"]))
        for what, schema, body in checks:
            if schema is None:
                problems.append(f"{name}: the standard has no JSON {what} body")
                continue
            validator = OAS30Validator(schema, format_checker=FormatChecker())
            for error in validator.iter_errors(body):
                where = "/".join(str(p) for p in error.absolute_path)
                problems.append(f"{name} {what} at /{where}: {error.message[:300]}")
    print(json.dumps({"checked": len(seen), "operations": sorted(set(seen)), "problems": problems}))


if __name__ == "__main__":
    main()
