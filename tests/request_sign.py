"""Signs a lendhub request as docs/guide/src/request-signing.md describes, with the
`cryptography` package's Ed25519 (an implementation independent of ours).

MODE=keygen prints {"private_pem", "public_pem"}.
MODE=sign (PRIVATE_PEM, T, METHOD, PATH, IDEMPOTENCY_KEY, BODY, KID) prints
{"header", "canonical"}: the Service-Request-Signature value and the signed text.
"""
import base64
import hashlib
import json
import os

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

env = os.environ
if env["MODE"] == "keygen":
    key = Ed25519PrivateKey.generate()
    print(json.dumps({
        "private_pem": key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                         serialization.NoEncryption()).decode(),
        "public_pem": key.public_key().public_bytes(serialization.Encoding.PEM,
                                                    serialization.PublicFormat.SubjectPublicKeyInfo).decode(),
    }))
else:
    key = serialization.load_pem_private_key(env["PRIVATE_PEM"].encode(), password=None)
    body = env["BODY"].encode()
    canonical = "\n".join([
        "lendhub-request-v1", env["T"], env["METHOD"].upper(), env["PATH"], env["IDEMPOTENCY_KEY"],
        hashlib.sha256(body).hexdigest(),
    ])
    signature = base64.urlsafe_b64encode(key.sign(canonical.encode())).rstrip(b"=").decode()
    print(json.dumps({"header": f"t={env['T']},kid={env['KID']},ed25519={signature}", "canonical": canonical}))
