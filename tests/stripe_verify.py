"""Verify a lendhub webhook signature with Stripe's library (an independent
implementation of the same t=…,v1=… HMAC-SHA256 scheme). Exit 0 valid, 1 invalid,
3 when the stripe package is missing."""
import os
import sys

try:
    import stripe
except ImportError:
    sys.exit(3)

try:
    stripe.WebhookSignature.verify_header(os.environ["PAYLOAD"], os.environ["SIGNATURE"], os.environ["SECRET"], tolerance=300)
except stripe.SignatureVerificationError as e:
    print(e, file=sys.stderr)
    sys.exit(1)
