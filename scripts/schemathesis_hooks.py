"""What schemathesis's `positive_data_acceptance` may see refused that no
JSON Schema can state, and nothing else (docs/reliability.md, "Schema
fuzzing"). A refusal of schema-valid data is dropped here only when every
problem the server names is one of these; any other refusal fails the run,
so a rule the documents could state but do not (an enum, a `const`, a
length, a pattern, a bound) cannot hide.

Loaded for that check alone (`SCHEMATHESIS_HOOKS=schemathesis_hooks`).
"""

import json
import re

import schemathesis

# Reasons a problem may carry whatever the field: a number written with a
# fraction or an exponent is not an integer to lendhub (`5000.0`, `5e3`),
# while JSON Schema counts it as one.
NOT_AN_INTEGER = {"integer_pence", "integer"}

# (field, reason) pairs that depend on something outside the request.
OUTSIDE = {
    # Instants relative to now.
    ("to", "backwards"),
    ("start_date", "in_the_past"),
    ("expires_at", "in_the_past"),
    ("person.date_of_birth", "too_young"),
    # Ids that must name an object of the caller's.
    ("introduction_id", "unknown_sub_account"),
    ("account_id", "not_found"),
    ("application_id", "not_found"),
    # A webhook URL whose host must be a public address.
    ("url", "private_network"),
    ("url", "invalid_url"),
    ("webhook_url", "private_network"),
    ("webhook_url", "invalid_url"),
    # A checksum no pattern states: the account number against its sort
    # code's modulus rules (Vocalink's tables).
    ("payout_account.account_number", "modulus_check_failed"),
}

# Public quotes: the amount and term are bounded by the operator's pricing
# file (`GET /config/pricing`), not by the document.
CONFIGURED = {("amount", "min_value"), ("amount", "max_value"),
              ("term", "min_value"), ("term", "max_value")}

# Free-form values are described two levels deep (`JsonValue`); the
# strict parser refuses control characters at any depth.
CONTROL = re.compile(r"`([^`]*)` holds a control character or a bidirectional override")


def depth(path):
    """How many members and indices deep a problem's path is."""
    return len([p for p in re.split(r"[.\[]", path) if p != ""])


def explained(problem, operation_path):
    field, reason = problem.get("field", ""), problem.get("reason", "")
    if reason in NOT_AN_INTEGER or (field, reason) in OUTSIDE:
        return True
    if operation_path.startswith("/quote") and (field, reason) in CONFIGURED:
        return True
    # A test event's `data` is shaped by its type.
    if operation_path.endswith("/test_helpers/events") and field.startswith("data."):
        return True
    return reason == "control_character" and depth(field) > 2


@schemathesis.hook
def filter_failure(ctx, failure, case, response):
    """Keeps the failure unless the server's answer names only refusals
    JSON Schema cannot state."""
    if getattr(failure, "code", "") != "ST202":
        return True
    path = case.operation.path
    try:
        body = json.loads(response.text)
    except ValueError:
        return True
    error = body.get("error") or {}
    # A refund must carry a signature that verifies; an environment holds
    # at most 16 webhook endpoints, however many earlier cases made.
    if error.get("code") in ("signature_invalid", "webhook_endpoint_limit"):
        return False
    message = error.get("message", "") if isinstance(error.get("message"), str) else ""
    deep = CONTROL.search(message)
    if deep and depth(deep.group(1)) > 2:
        return False
    detail = error.get("detail")
    if isinstance(detail, list) and detail:
        return not all(isinstance(p, dict) and explained(p, path) for p in detail)
    return True
