"""Projects: the tenants of an installation. Every API key, session, member, group, policy and channel belongs
to one, and nothing crosses the line (docs/projects.md)."""

from django.conf import settings
from django.db import models

from historyhub.encryption import EncryptedTextField


class Role(models.TextChoices):
    VIEWER = "viewer", "viewer (reads)"
    APPROVER = "approver", "approver (reads and decides)"
    ADMIN = "admin", "admin (also manages the project)"


# What each role may do, itself included: an admin decides and reads too.
ROLE_GRANTS = {
    Role.VIEWER: {Role.VIEWER},
    Role.APPROVER: {Role.VIEWER, Role.APPROVER},
    Role.ADMIN: {Role.VIEWER, Role.APPROVER, Role.ADMIN},
}


class Project(models.Model):
    id = models.CharField(primary_key=True, max_length=200, help_text="Follows the session id rules.")
    name = models.CharField(max_length=200)
    retention_days = models.PositiveIntegerField(
        null=True, blank=True, help_text="Sessions not updated for this many days are deleted; empty keeps them."
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]

    def __str__(self):
        return self.name or self.id


class Membership(models.Model):
    """A person's role in a project."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(max_length=16, choices=Role.choices, default=Role.VIEWER)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["project", "user"], name="membership_unique_person")]
        # The user's projects are looked up by user; the constraint's index serves the project's members.
        indexes = [models.Index(fields=["user"], name="membership_by_user")]

    def __str__(self):
        return f"{self.user} in {self.project_id}: {self.role}"

    def grants(self, role):
        return role in ROLE_GRANTS[Role(self.role)]


class Group(models.Model):
    """People of one project named together, for approval policies (the approvers of finance, say)."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="groups")
    name = models.CharField(max_length=200)
    members = models.ManyToManyField(settings.AUTH_USER_MODEL, related_name="project_groups", blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["project", "name"], name="group_unique_name")]
        ordering = ["name"]

    def __str__(self):
        return f"{self.name} ({self.project_id})"


class Invitation(models.Model):
    """An invitation to a project by email (historyhub.projects.invitations): single-use, expiring, revocable.

    The link's token is kept only as its SHA-256 (``token_hash``); until the worker has mailed it, the link waits
    in ``mail_token``, encrypted at rest, and is emptied once sent (historyhub.projects.invitation_mail)."""

    id = models.CharField(primary_key=True, max_length=26, help_text="A ULID, the API's invitationId.")
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="invitations")
    email = models.EmailField(max_length=254)
    role = models.CharField(max_length=16, choices=Role.choices, default=Role.VIEWER)
    token_hash = models.CharField(max_length=64, unique=True)
    invited_by = models.CharField(max_length=200, help_text="A person's username or “api key: <name>”.")
    created_at = models.DateTimeField()
    expires_at = models.DateTimeField()
    accepted_at = models.DateTimeField(null=True, blank=True)
    accepted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    revoked_at = models.DateTimeField(null=True, blank=True)
    mail_token = EncryptedTextField(blank=True, default="", help_text="The link's token until it is mailed.")
    mailed_at = models.DateTimeField(null=True, blank=True)
    mail_attempts = models.PositiveIntegerField(default=0)
    next_mail_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["project", "expires_at"], name="invitation_by_project"),
            models.Index(fields=["next_mail_at"], name="invitation_mail_due"),
        ]

    def __str__(self):
        return f"{self.email} to {self.project_id} as {self.role}"


class PendingEmail(models.Model):
    """A person's new email address, waiting for its confirmation link to be opened
    (historyhub.projects.email_change)."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, primary_key=True, on_delete=models.CASCADE, related_name="pending_email"
    )
    email = models.EmailField(max_length=254)
    requested_at = models.DateTimeField()

    def __str__(self):
        return f"{self.user} → {self.email}"


class PersonSettings(models.Model):
    """What a person chooses for themselves, in no project: the time zone the dashboard shows times in
    (docs/dashboard.md, "Times"). No row, or an empty zone: the browser's own."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, primary_key=True, on_delete=models.CASCADE, related_name="person_settings"
    )
    time_zone = models.CharField(
        max_length=64, blank=True, default="", help_text="An IANA time zone (Europe/Berlin); empty: the browser's."
    )

    def __str__(self):
        return f"{self.user}: {self.time_zone or 'browser time zone'}"
