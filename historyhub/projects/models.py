"""Projects: the tenants of an installation. Every API key, session, member, group, policy and channel belongs
to one, and nothing crosses the line (docs/projects.md)."""

from django.conf import settings
from django.db import models

from historyhub.projects.keys import DEFAULT_PROJECT


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

    @property
    def is_default(self):
        return self.id == DEFAULT_PROJECT


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
