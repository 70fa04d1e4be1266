"""Exercise the partner ring with real third-party OAuth and JWT libraries:
authlib fetches client-credentials tokens by client_secret_basic and by
client_secret_post and introspects them; PyJWT verifies each token against the
published JWKS (EdDSA, issuer and audience checked). Prints one JSON object;
exits 3 when a library is missing."""
import json
import os
import sys

try:
    import jwt
    import requests
    from authlib.integrations.requests_client import OAuth2Session
except ImportError as e:
    print(e, file=sys.stderr)
    sys.exit(3)

hub = os.environ["HUB"]
client_id = os.environ["CLIENT_ID"]
client_secret = os.environ["CLIENT_SECRET"]
issuer = os.environ["ISSUER"]
metadata = requests.get(f"{hub}/.well-known/oauth-authorization-server").json()
token_url = metadata["token_endpoint"].replace(issuer, hub)
introspect_url = metadata["introspection_endpoint"].replace(issuer, hub)
jwks_url = metadata["jwks_uri"].replace(issuer, hub)
audience = f"{issuer}/partner/v1"

result = {}
for method in ("client_secret_basic", "client_secret_post"):
    session = OAuth2Session(client_id, client_secret, token_endpoint_auth_method=method, scope="mcp.read")
    token = session.fetch_token(token_url, grant_type="client_credentials")
    key = jwt.PyJWKClient(jwks_url).get_signing_key_from_jwt(token["access_token"])
    claims = jwt.decode(token["access_token"], key.key, algorithms=["EdDSA"], audience=audience, issuer=issuer)
    introspection = session.introspect_token(introspect_url, token=token["access_token"]).json()
    result[method] = {
        "token_type": token["token_type"],
        "expires_in": token["expires_in"],
        "scope": token["scope"],
        "claims": claims,
        "introspection": introspection,
    }
try:
    jwt.decode(token["access_token"], key.key, algorithms=["EdDSA"], audience="https://elsewhere.example", issuer=issuer)
    result["wrong_audience_rejected"] = False
except jwt.InvalidAudienceError:
    result["wrong_audience_rejected"] = True
print(json.dumps(result))
