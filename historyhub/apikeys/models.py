"""API keys: random, shown once, stored as a SHA-256 hash, with their scopes (docs/api.md, "Keys and scopes")."""

import hashlib
import secrets

from django.conf import settings
from django.db import models
from django.utils import timezone

from historyhub.lib import bulk
from historyhub.lib.session_keys import DEFAULT_PROJECT

KEY_PREFIX = "hh_"


def hash_key(key):
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


class Scope(models.TextChoices):
    READ = "read", "read (GET only)"
    WRITE = "write", "write (everything agents do, except deciding)"
    DECIDE = "decide", "decide (read, and decide client actions)"
    ADMIN = "admin", "admin (all of that, and manage the project)"


# What each scope lets a key do, itself included: every key reads, and an admin key does everything.
GRANTS = {
    Scope.READ: {Scope.READ},
    Scope.WRITE: {Scope.READ, Scope.WRITE},
    Scope.DECIDE: {Scope.READ, Scope.DECIDE},
    Scope.ADMIN: set(Scope),
}


def parse_scopes(text):
    """Scopes from a comma-separated list ("write,decide"), in Scope order; ValueError names an unknown one."""
    names = {part.strip() for part in text.split(",") if part.strip()}
    unknown = names - set(Scope.values)
    if unknown:
        raise ValueError(f"Unknown scope {sorted(unknown)[0]!r}; scopes are {', '.join(Scope.values)}.")
    if not names:
        raise ValueError(f"Name at least one scope of {', '.join(Scope.values)}.")
    return [scope for scope in Scope if scope in names]


class ApiKeyQuerySet(models.QuerySet):
    def active(self):
        return self.filter(revoked_at__isnull=True)


class ApiKey(models.Model):
    # Every call a key makes acts inside this project (docs/projects.md).
    project = models.ForeignKey("projects.Project", on_delete=models.CASCADE, related_name="api_keys")
    name = models.CharField(max_length=200)
    scopes = models.CharField(
        max_length=64, default=Scope.WRITE, help_text="Comma-separated: read, write, decide, admin."
    )
    prefix = models.CharField(
        max_length=16, editable=False, help_text="The key's first characters, to tell keys apart."
    )
    key_hash = models.CharField(max_length=64, unique=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True, editable=False)
    revoked_at = models.DateTimeField(null=True, blank=True)
    # A key a person made (the settings page, the admin) decides as them; one made with createapikey counts as
    # itself (docs/api.md, "A decider is a person or a key").
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        editable=False,
        help_text="The person who made it on the project's settings page; empty for an operator's key.",
    )

    objects = ApiKeyQuerySet.as_manager()

    class Meta:
        verbose_name = "API key"

    def __str__(self):
        return f"{self.name} ({self.prefix}…)"

    @classmethod
    def issue(cls, name, scopes=(Scope.WRITE,), project=DEFAULT_PROJECT, created_by=None):
        """Create a key of ``project`` (a Project or its id), made by the person ``created_by`` or by an operator
        (None); returns (api_key, the key in clear, never stored)."""
        if isinstance(scopes, str):
            scopes = parse_scopes(scopes)
        key = KEY_PREFIX + secrets.token_urlsafe(32)
        api_key = cls.objects.create(
            project_id=getattr(project, "pk", project),
            name=name,
            scopes=",".join(scopes),
            prefix=key[:10],
            key_hash=hash_key(key),
            created_by=created_by,
        )
        return api_key, key

    @classmethod
    def authenticate(cls, key):
        """The active key whose hash this is, or None: read afresh every time, so a revoked key stops at once.

        Every API call asks: one prepared statement (the hash is unique), no query compiled.
        """
        api_key = bulk.get(cls, "key_hash", hash_key(key))
        if api_key is not None and api_key.is_revoked:
            return None
        if api_key is not None:
            now = timezone.now()
            # One write a minute at most: reads stay reads under load.
            if api_key.last_used_at is None or (now - api_key.last_used_at).total_seconds() > 60:
                cls.objects.filter(pk=api_key.pk).update(last_used_at=now)
                api_key.last_used_at = now
        return api_key

    @property
    def scope_list(self):
        return parse_scopes(self.scopes)

    def allows(self, scope):
        """Whether one of the key's scopes grants ``scope``."""
        return any(scope in GRANTS[own] for own in self.scope_list)

    @property
    def is_revoked(self):
        return self.revoked_at is not None

    def revoke(self):
        self.revoked_at = timezone.now()
        self.save(update_fields=["revoked_at"])
