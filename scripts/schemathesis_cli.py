"""schemathesis's command line, with one work-around.

CPython 3.11 before 3.11.8 can raise "SystemError: AST constructor recursion
depth mismatch" from `ast.parse` (CPython gh-106905). Hypothesis parses a
module's source to describe a lambda in its reports, and schemathesis's
largest modules trigger the bug; the run then ends in a runtime error that
says nothing about the API. A description that fails this way falls back to
Hypothesis's own "<unknown>" form instead.
"""

import sys

from hypothesis.internal import lambda_sources

_describe = lambda_sources._lambda_description


def _described(f, *args, **kwargs):
    try:
        return _describe(f, *args, **kwargs)
    except SystemError:
        return "lambda: <unknown>"


lambda_sources._lambda_description = _described

from schemathesis.cli import schemathesis  # noqa: E402

if __name__ == "__main__":
    sys.exit(schemathesis())
