"""A small, real OpenID Connect issuer on loopback for the single sign-on tests.

It serves what an IdP serves (discovery, its signing keys, the authorization, token, userinfo and end-session
endpoints) over HTTP on 127.0.0.1, signs ID tokens with an RSA key made for the run, and checks what an IdP
checks: the client's id and secret, the redirect URI, that each code is used once, and PKCE (S256 only; a code
asked for without a challenge is refused at the token endpoint). Tests choose who signs in (``claims``) and can
make it misbehave (``id_token_changes``, ``sign_with_other_key``) to see the relying party refuse.
"""

import base64
import hashlib
import json
import secrets
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlencode, urlsplit

import jwt
from cryptography.hazmat.primitives.asymmetric import rsa

CLIENT_ID = "historyhub-tests"
CLIENT_SECRET = "client-secret-for-tests-long-enough-for-hs256"


def new_key():
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


class Issuer:
    def __init__(self, *, end_session=True):
        self.key = new_key()
        self.other_key = new_key()
        self.kid = "key-1"
        self.end_session = end_session
        self.claims = {"sub": "subject-1", "email": "ada@example.com", "email_verified": True}
        self.id_token_changes = {}
        self.sign_with_other_key = False
        self.sign_with_client_secret = False
        self.codes = {}
        self.access_tokens = {}
        self.authorize_requests = []
        self.token_requests = []
        self.end_session_requests = []
        # Seconds the end-session endpoint takes to answer: a test holds a sign-out's redirects in flight.
        self.end_session_delay = 0.0
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self.handler())
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()

    def discovery(self):
        document = {
            "issuer": self.url,
            "authorization_endpoint": f"{self.url}/authorize",
            "token_endpoint": f"{self.url}/token",
            "userinfo_endpoint": f"{self.url}/userinfo",
            "jwks_uri": f"{self.url}/jwks",
            "response_types_supported": ["code"],
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": ["RS256"],
            "code_challenge_methods_supported": ["S256"],
        }
        if self.end_session:
            document["end_session_endpoint"] = f"{self.url}/logout"
        return document

    def jwks(self):
        key = jwt.algorithms.RSAAlgorithm.to_jwk(self.key.public_key(), as_dict=True)
        return {"keys": [key | {"kid": self.kid, "use": "sig", "alg": "RS256"}]}

    def id_token(self, nonce):
        now = int(time.time())
        claims = {"iss": self.url, "aud": CLIENT_ID, "iat": now, "exp": now + 300, "nonce": nonce}
        claims |= self.claims
        claims |= self.id_token_changes
        claims = {name: value for name, value in claims.items() if value is not None}
        if self.sign_with_client_secret:
            return jwt.encode(claims, CLIENT_SECRET, algorithm="HS256", headers={"kid": self.kid})
        key = self.other_key if self.sign_with_other_key else self.key
        return jwt.encode(claims, key, algorithm="RS256", headers={"kid": self.kid})

    # The endpoints ---------------------------------------------------------------------------------

    def authorize(self, query):
        """Signs ``claims`` in at once (no login form) and sends the browser back with a code."""
        self.authorize_requests.append(query)
        if query.get("client_id") != CLIENT_ID or query.get("response_type") != "code":
            return 400, {"error": "invalid_request"}, None
        code = secrets.token_urlsafe(16)
        self.codes[code] = query
        location = f"{query['redirect_uri']}?{urlencode({'code': code, 'state': query.get('state', '')})}"
        return 302, None, location

    def token(self, form, authorization):
        self.token_requests.append(form)
        client_id, client_secret = form.get("client_id"), form.get("client_secret")
        if authorization and authorization.startswith("Basic "):
            client_id, _, client_secret = base64.b64decode(authorization[6:]).decode().partition(":")
        if (client_id, client_secret) != (CLIENT_ID, CLIENT_SECRET):
            return 401, {"error": "invalid_client"}, None
        asked = self.codes.pop(form.get("code"), None)
        if asked is None or form.get("grant_type") != "authorization_code":
            return 400, {"error": "invalid_grant"}, None
        if form.get("redirect_uri") != asked["redirect_uri"]:
            return 400, {"error": "invalid_grant", "error_description": "redirect_uri"}, None
        verifier = form.get("code_verifier", "")
        challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
        if asked.get("code_challenge_method") != "S256" or not verifier or challenge != asked.get("code_challenge"):
            return 400, {"error": "invalid_grant", "error_description": "PKCE verification failed"}, None
        access_token = secrets.token_urlsafe(16)
        self.access_tokens[access_token] = dict(self.claims)
        answer = {"access_token": access_token, "token_type": "Bearer", "expires_in": 300}
        return 200, answer | {"id_token": self.id_token(asked.get("nonce"))}, None

    def userinfo(self, authorization):
        claims = self.access_tokens.get((authorization or "").removeprefix("Bearer "))
        if claims is None:
            return 401, {"error": "invalid_token"}, None
        return 200, claims, None

    def logout(self, query):
        self.end_session_requests.append(query)
        time.sleep(self.end_session_delay)
        return 302, None, query.get("post_logout_redirect_uri") or f"{self.url}/signed-out"

    def handler(self):
        issuer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                url = urlsplit(self.path)
                query = {name: values[0] for name, values in parse_qs(url.query).items()}
                routes = {
                    "/.well-known/openid-configuration": lambda: (200, issuer.discovery(), None),
                    "/jwks": lambda: (200, issuer.jwks(), None),
                    "/authorize": lambda: issuer.authorize(query),
                    "/userinfo": lambda: issuer.userinfo(self.headers.get("Authorization")),
                    "/logout": lambda: issuer.logout(query),
                }
                self.answer(*routes.get(url.path, lambda: (404, {"error": "not_found"}, None))())

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode()
                form = {name: values[0] for name, values in parse_qs(body).items()}
                if urlsplit(self.path).path == "/token":
                    self.answer(*issuer.token(form, self.headers.get("Authorization")))
                else:
                    self.answer(404, {"error": "not_found"}, None)

            def answer(self, status, document, location):
                self.send_response(status)
                if location:
                    self.send_header("Location", location)
                body = json.dumps(document).encode() if document is not None else b""
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        return Handler
