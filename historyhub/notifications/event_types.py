"""The events a channel can ask for (docs/notifications.md); importable before the models are."""

from django.db import models


class Event(models.TextChoices):
    OPENED = "client_action.opened"
    VOTED = "client_action.voted"
    ESCALATED = "client_action.escalated"
    DECIDED = "client_action.decided"
    EXPIRED = "client_action.expired"
    COMPLETED = "client_action.completed"
    UNDECIDABLE = "client_action.undecidable"
    EXECUTION_REFUSED = "client_action.execution_refused"
