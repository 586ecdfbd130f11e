"""The account an IdP's person signs in to (docs/sso.md, "Accounts").

Linked before (issuer and subject): that account. Else an account whose email is the token's, when the IdP says
it verified that email (``email_verified`` true): linked to it. Else a new account, its username derived from the
claims and made unique. An unverified email never reaches an existing account: whoever controls the IdP entry
could otherwise claim anyone's address and so their account.
"""

import re

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.core.exceptions import SuspiciousOperation
from django.db import IntegrityError, transaction

from historyhub.sso.models import Identity

USERNAME_LENGTH = 150


def person(claims: dict) -> User:
    issuer, subject = claims["iss"], str(claims["sub"])
    identity = Identity.objects.filter(issuer=issuer, subject=subject).select_related("user").first()
    if identity is not None:
        return identity.user
    email = verified_email(claims)
    with transaction.atomic():
        user = existing(email) if email else None
        if user is None:
            user = created(claims, email)
        try:
            with transaction.atomic():
                Identity.objects.create(user=user, issuer=issuer, subject=subject)
        except IntegrityError:
            # The same subject's other sign-in linked it a moment ago: that link stands.
            return Identity.objects.get(issuer=issuer, subject=subject).user
    return user


def verified_email(claims: dict) -> str:
    email = claims.get("email")
    if claims.get("email_verified") is True and isinstance(email, str) and "@" in email:
        return email.strip()
    return ""


def existing(email: str) -> User | None:
    matches = list(get_user_model().objects.filter(email__iexact=email)[:2])
    if len(matches) > 1:
        # Two accounts share the address: choosing one would be a guess.
        raise SuspiciousOperation("Several accounts have this email; an operator must link one (docs/sso.md).")
    return matches[0] if matches else None


def created(claims: dict, email: str) -> User:
    User = get_user_model()
    base = username_base(claims)
    for attempt in range(1, 1000):
        suffix = "" if attempt == 1 else f"-{attempt}"
        username = base[: USERNAME_LENGTH - len(suffix)] + suffix
        try:
            with transaction.atomic():
                user = User.objects.create_user(
                    username,
                    email=email,
                    first_name=str(claims.get("given_name") or "")[:150],
                    last_name=str(claims.get("family_name") or "")[:150],
                )
        except IntegrityError:
            continue
        # No password: this account signs in through the IdP (an operator may give it one).
        return user
    raise SuspiciousOperation(f"No free username like {base!r}.")


def username_base(claims: dict) -> str:
    """``preferred_username``, else the email's local part, else the subject; in Django's username alphabet."""
    email = claims.get("email")
    email = email if isinstance(email, str) else ""
    for candidate in (claims.get("preferred_username"), email.partition("@")[0], str(claims["sub"])):
        if isinstance(candidate, str):
            cleaned = re.sub(r"[^\w.@+-]", "", candidate)[:USERNAME_LENGTH]
            if cleaned:
                return cleaned
    return "sso-user"
