"""The admin site prints times as the dashboard does without script, "2026-12-01 18:23 UTC", not the
locale's "Dec. 1, 2026, 6:23 p.m." (historyhub/formats; docs/dashboard.md, "Times")."""

import time_machine
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from historyhub.history import sessions
from tests.support.html import parse


def test_the_admins_session_list_shows_times_in_the_dashboards_format(db):
    with time_machine.travel("2026-12-01T18:23:00Z", tick=False):
        sessions.ensure(agent="supportAgent", session_id="s-1")
    operator = Client()
    operator.force_login(User.objects.create_superuser("root", password="root-password-1"))

    page = parse(operator.get(reverse("admin:history_session_changelist"), secure=True))

    cells = [cell.text() for cell in page.all("#result_list td")]
    assert "2026-12-01 18:23 UTC" in cells
    assert not any("p.m." in cell or "Dec." in cell for cell in cells)
