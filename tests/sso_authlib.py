"""A real OpenID Connect relying party against the identity provider:
authlib builds the authorization request (code, PKCE S256, nonce), this
script plays the person's browser over plain HTTP (the sign-in and consent
forms, cookies kept, redirects not followed), then authlib exchanges the
code, the ID token is verified twice (authlib's OpenID Connect claims
validation, and PyJWT against the JWKS: ES256, issuer, audience, nonce),
UserInfo is read, the refresh token is rotated, and reusing the old one is
refused and revokes the family. Prints one JSON object; exits 3 when a
library is missing."""
import json
import os
import re
import secrets
import sys
from urllib.parse import parse_qs, urljoin, urlparse

try:
    import jwt as pyjwt
    import requests
    from authlib.integrations.requests_client import OAuth2Session
    from authlib.jose import JsonWebKey
    from authlib.jose import jwt as authlib_jwt
    from authlib.oidc.core import CodeIDToken
except ImportError as e:
    print(e, file=sys.stderr)
    sys.exit(3)

sso = os.environ["SSO"]
issuer = os.environ["ISSUER"]
client_id = os.environ["CLIENT_ID"]
client_secret = os.environ["CLIENT_SECRET"]
redirect_uri = os.environ["REDIRECT_URI"]
email = os.environ["EMAIL"]
password = os.environ["PASSWORD"]


def local(url):
    """Endpoints are advertised under the issuer; reach them at the listener."""
    return url.replace(issuer, sso, 1)


def hidden(html, name):
    match = re.search(r'name="%s" value="([^"]*)"' % re.escape(name), html)
    if not match:
        raise SystemExit(f"no hidden field {name} in:\n{html}")
    return match.group(1)


def go(browser, response):
    """Follow one redirect by hand, as a browser would."""
    assert response.status_code in (302, 303), (response.status_code, response.text)
    return browser.get(urljoin(sso, response.headers["Location"]), allow_redirects=False)


config = requests.get(f"{sso}/.well-known/openid-configuration").json()
assert config["issuer"] == issuer, config
jwks_url = local(config["jwks_uri"])
token_url = local(config["token_endpoint"])
userinfo_url = local(config["userinfo_endpoint"])

nonce = secrets.token_urlsafe(16)
verifier = secrets.token_urlsafe(48)
client = OAuth2Session(
    client_id,
    client_secret,
    scope="openid profile email business",
    redirect_uri=redirect_uri,
    code_challenge_method="S256",
    token_endpoint_auth_method="client_secret_basic",
)
auth_url, state = client.create_authorization_url(
    local(config["authorization_endpoint"]), code_verifier=verifier, nonce=nonce
)

# The person's browser: sign in, then allow.
browser = requests.Session()
sign_in = go(browser, browser.get(auth_url, allow_redirects=False))
assert sign_in.status_code == 200, sign_in.text
signed_in = browser.post(
    f"{sso}/sign-in",
    data={
        "ticket": hidden(sign_in.text, "ticket"),
        "csrf_token": hidden(sign_in.text, "csrf_token"),
        "email": email,
        "password": password,
    },
    allow_redirects=False,
)
consent = go(browser, signed_in)
assert consent.status_code == 200, consent.text
allowed = browser.post(
    f"{sso}/consent",
    data={
        "ticket": hidden(consent.text, "ticket"),
        "csrf_token": hidden(consent.text, "csrf_token"),
        "decision": "approve",
    },
    allow_redirects=False,
)
callback = allowed.headers["Location"]
assert callback.startswith(redirect_uri), callback
query = parse_qs(urlparse(callback).query)
assert query["state"] == [state], (query, state)
assert query["iss"] == [issuer], query

token = client.fetch_token(token_url, authorization_response=callback, code_verifier=verifier)
id_token = token["id_token"]

# authlib's OpenID Connect validation: iss, aud, exp, iat, nonce, at_hash.
key_set = JsonWebKey.import_key_set(requests.get(jwks_url).json())
claims = authlib_jwt.decode(
    id_token,
    key_set,
    claims_cls=CodeIDToken,
    claims_options={"iss": {"essential": True, "value": issuer}},
    claims_params={"nonce": nonce, "client_id": client_id, "access_token": token["access_token"]},
)
claims.validate()

# PyJWT, independently: ES256 only, against the published JWKS.
signing_key = pyjwt.PyJWKClient(jwks_url).get_signing_key_from_jwt(id_token)
pyjwt_claims = pyjwt.decode(
    id_token, signing_key.key, algorithms=["ES256"], audience=client_id, issuer=issuer
)
assert pyjwt_claims["nonce"] == nonce

# A relying party that sent another nonce must refuse this token.
try:
    authlib_jwt.decode(
        id_token, key_set, claims_cls=CodeIDToken,
        claims_params={"nonce": "something else", "client_id": client_id},
    ).validate()
    wrong_nonce_rejected = False
except Exception:
    wrong_nonce_rejected = True

userinfo = client.get(userinfo_url).json()

old_refresh = token["refresh_token"]
new = client.refresh_token(token_url, refresh_token=old_refresh)
refreshed = new["refresh_token"] != old_refresh and "access_token" in new


def token_error(refresh_token):
    r = requests.post(
        token_url,
        auth=(client_id, client_secret),
        data={"grant_type": "refresh_token", "refresh_token": refresh_token},
    )
    return r.json().get("error") if r.status_code != 200 else None


# authlib raises on the error response; record what the provider said.
try:
    client.refresh_token(token_url, refresh_token=old_refresh)
    reuse_error = None
except Exception as e:  # authlib.integrations.base_client.errors.OAuthError
    reuse_error = getattr(e, "error", str(e))

print(json.dumps({
    "nonce": nonce,
    "id_token_header": pyjwt.get_unverified_header(id_token),
    "token": {k: v for k, v in token.items() if k in ("token_type", "expires_in", "scope")},
    "authlib_claims": dict(claims),
    "pyjwt_claims": pyjwt_claims,
    "wrong_nonce_rejected": wrong_nonce_rejected,
    "userinfo": userinfo,
    "refreshed": refreshed,
    "reuse_error": reuse_error,
    "newest_refresh_after_reuse": token_error(new["refresh_token"]),
    "userinfo_after_reuse": requests.get(
        userinfo_url, headers={"Authorization": f"Bearer {new['access_token']}"}
    ).status_code,
}))
