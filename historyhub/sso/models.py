"""Which account an IdP's subject signs in to (docs/sso.md, "Accounts").

A person is matched by the ID token's issuer and subject once linked; the first time, by verified email or a new
account. The subject, not the email, is what the IdP promises never to give to someone else.
"""

from django.conf import settings
from django.db import models


class Identity(models.Model):
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="sso_identities")
    issuer = models.CharField(max_length=500)
    subject = models.CharField(max_length=255)
    linked_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name_plural = "identities"
        constraints = [models.UniqueConstraint(fields=["issuer", "subject"], name="sso_identity_unique_subject")]

    def __str__(self) -> str:
        return f"{self.subject} at {self.issuer}"
