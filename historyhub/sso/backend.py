"""Signing in with the IdP: mozilla-django-oidc's authorization-code flow, with the checks it leaves out.

The library keeps ``state``, ``nonce`` and the PKCE verifier in the session, exchanges the code and checks the
nonce; here the endpoints come from discovery, and the ID token is verified whole: signature with the IdP's
published key (an asymmetric algorithm it advertises), issuer, audience (and ``azp`` when there are several),
expiry and issue time, nonce. Then the person is found or made (``accounts``) and their roles set (``roles``).
"""

import logging

import jwt
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.core.exceptions import SuspiciousOperation
from mozilla_django_oidc.auth import OIDCAuthenticationBackend

from historyhub.sso import accounts, discovery, roles

logger = logging.getLogger(__name__)

# Seconds of clock difference tolerated between the IdP and this server.
LEEWAY_SECONDS = 60


class OidcBackend(OIDCAuthenticationBackend):
    def __init__(self, *args, **kwargs):
        # Django makes a backend for every request of a person signed in with it: nothing is read from the IdP
        # here, only when someone signs in (``authenticate``).
        self.UserModel = get_user_model()
        self.OIDC_RP_CLIENT_ID = settings.OIDC_CLIENT_ID
        self.OIDC_RP_CLIENT_SECRET = settings.OIDC_CLIENT_SECRET

    def get_user(self, user_id):
        # Django's rule, which the library's override drops: a deactivated person's sessions end at once.
        return ModelBackend.get_user(self, user_id)

    def authenticate(self, request, **kwargs):
        # Only the callback view passes a nonce; a password login (which has none) is not this backend's.
        if request is None or "nonce" not in kwargs or not settings.SSO_ENABLED:
            return None
        try:
            provider = discovery.provider()
        except discovery.DiscoveryFailed as error:
            logger.warning("Single sign-on failed: the IdP's discovery: %s", error)
            return None
        self.OIDC_OP_TOKEN_ENDPOINT = provider.token_endpoint
        self.OIDC_OP_USER_ENDPOINT = provider.userinfo_endpoint
        try:
            return super().authenticate(request, **kwargs)
        except (SuspiciousOperation, discovery.DiscoveryFailed, OSError) as error:
            # OSError: requests' errors (the token endpoint refused the code or verifier, or is away).
            logger.warning("Single sign-on failed: %s", error)
            return None

    def verify_token(self, token, **kwargs):
        provider = discovery.provider()
        if not isinstance(token, str) or not token:
            raise SuspiciousOperation("The IdP sent no ID token.")
        try:
            header = jwt.get_unverified_header(token)
        except jwt.InvalidTokenError as error:
            raise SuspiciousOperation(f"The ID token is not a JWT: {error}") from None
        algorithm = header.get("alg")
        if algorithm not in provider.signing_algorithms:
            raise SuspiciousOperation(f"The ID token is signed with {algorithm!r}, which is not accepted.")
        key = jwt.PyJWK(discovery.signing_key(header.get("kid"), algorithm), algorithm)
        try:
            claims = jwt.decode(
                token,
                key,
                algorithms=[algorithm],
                audience=settings.OIDC_CLIENT_ID,
                issuer=provider.issuer,
                leeway=LEEWAY_SECONDS,
                options={"require": ["iss", "sub", "aud", "exp", "iat"]},
            )
        except jwt.InvalidTokenError as error:
            raise SuspiciousOperation(f"The ID token was refused: {error}") from None
        audiences = claims["aud"] if isinstance(claims["aud"], list) else [claims["aud"]]
        if len(audiences) > 1 and claims.get("azp") != settings.OIDC_CLIENT_ID:
            raise SuspiciousOperation("The ID token is for several clients and was not issued to this one (azp).")
        if kwargs.get("nonce") is None or claims.get("nonce") != kwargs["nonce"]:
            raise SuspiciousOperation("The ID token's nonce is not the one this sign-in sent.")
        return claims

    def get_userinfo(self, access_token, id_token, payload):
        """The ID token's claims, with the userinfo endpoint's added when the IdP has one (some IdPs put email or
        groups only there); userinfo about another subject is refused (OpenID Connect Core, 5.3.2)."""
        claims = dict(payload)
        if self.OIDC_OP_USER_ENDPOINT and access_token:
            userinfo = super().get_userinfo(access_token, id_token, payload)
            if userinfo.get("sub") != payload["sub"]:
                raise SuspiciousOperation("The userinfo endpoint answered about another subject.")
            claims.update({name: value for name, value in userinfo.items() if name not in ("iss", "aud")})
        return claims

    def verify_claims(self, claims):
        return bool(claims.get("sub"))

    def get_or_create_user(self, access_token, id_token, payload):
        claims = self.get_userinfo(access_token, id_token, payload)
        if not self.verify_claims(claims):
            raise SuspiciousOperation("The ID token names no subject.")
        user = accounts.person(claims)
        if user is not None and user.is_active:
            roles.apply(user, claims)
        return user
