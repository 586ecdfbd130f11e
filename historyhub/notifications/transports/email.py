"""Email to the people who may decide the action (docs/notifications.md, "Email").

Who they are is the decider rule's answer (``approvals.deciders``), asked of every approver and admin of the
project, so a policy's groups narrow it exactly as they narrow the dashboard's buttons. An action nobody may
decide any more (``client_action.undecidable``) goes to the project's admins instead, who can change that. Each
person's own preference (``NotificationSettings``) says whether they get it now, in their hourly digest
(``digests``), or not.
The mail links to the action on the dashboard and never carries a link that decides by itself.
"""

import re

from django.contrib.auth import get_user_model
from django.core.mail import EmailMultiAlternatives, get_connection
from django.db.models import Q
from django.template.loader import render_to_string

from historyhub.approvals.deciders import Decider
from historyhub.history.action_events import Event
from historyhub.history.models import ClientAction
from historyhub.lib import previews, session_keys
from historyhub.notifications import digests
from historyhub.notifications.models import TEST_EVENT, EmailPreference
from historyhub.notifications.transports import Outcome
from historyhub.projects import access
from historyhub.projects.models import Role

ARGUMENTS_PREVIEW_CHARACTERS = 4000
# A subject that reads on one line of a mail client; what is cut ends in an ellipsis.
SUBJECT_CHARACTERS = 200
# Anything that ends or breaks a header line (control characters, line and paragraph separators) and any run of
# white space: one space each in a header.
BREAKS_A_LINE = re.compile("[\\s\x00-\x1f\x7f-\x9f\u2028\u2029]+")
SUBJECTS = {
    "client_action.opened": "waits for a decision",
    "client_action.voted": "has a new vote",
    "client_action.escalated": "was escalated",
    "client_action.decided": "was decided",
    "client_action.expired": "expired unanswered",
    "client_action.completed": "completed",
    "client_action.undecidable": "can no longer be decided by anyone",
    "client_action.execution_refused": "was refused execution with other arguments than the approved ones",
}


def recipients(action, project_id, preference, event):
    """The active people with an email address (one a header can carry) who may decide ``action`` (the project's
    admins, for an action nobody may decide any more) and chose ``preference``."""
    if event == Event.UNDECIDABLE:
        people = access.people_granted(project_id, Role.ADMIN).exclude(email="").order_by("username")
        return [person for person in _preferring(people, preference) if mailable(person.email)]
    people = (
        get_user_model()
        .objects.filter(
            is_active=True,
            memberships__project_id=project_id,
            memberships__role__in=[Role.APPROVER, Role.ADMIN],
        )
        .exclude(email="")
        .order_by("username")
    )
    people = _preferring(people, preference)
    return [
        person
        for person in people
        if mailable(person.email) and Decider.person(person).reason_not_to_decide(action) is None
    ]


def _preferring(people, preference):
    if preference == EmailPreference.EVERY_EVENT:
        # Nobody chose yet: every event, the default.
        return people.filter(Q(notification_settings__isnull=True) | Q(notification_settings__email=preference))
    return people.filter(notification_settings__email=preference)


def message_for(payload):
    data = payload["data"]
    action = data["clientAction"]
    arguments = previews.arguments(action["arguments"], ARGUMENTS_PREVIEW_CHARACTERS)
    context = {"event": payload["type"], "data": data, "action": action, "arguments": arguments}
    subject = f"[HistoryHub] {data['agent']}: {action['name']} {SUBJECTS[payload['type']]}"
    return (
        header_text(subject, SUBJECT_CHARACTERS),
        render_to_string("notifications/email.txt", context),
        render_to_string("notifications/email.html", context),
    )


def header_text(text, limit):
    """``text`` on one line, at most ``limit`` characters: a header that no stored value (an action or agent
    name from before names were checked, an item's name) can make Django refuse."""
    text = BREAKS_A_LINE.sub(" ", str(text)).strip()
    return text if len(text) <= limit else text[: limit - 1] + "…"


def mailable(address):
    """An address a header can carry (one written before addresses were checked may break the line)."""
    return bool(address) and BREAKS_A_LINE.search(address) is None


def send(delivery, channel):
    payload = delivery.payload
    data = payload["data"]
    if payload["type"] == Event.ALERT_RAISED:
        return send_alert(payload)
    if payload["type"] == TEST_EVENT:
        return send_test(payload)
    key = session_keys.session_key(data["projectId"], data["sessionId"])
    action = ClientAction.objects.filter(session_id=key, call_id=data["callId"]).first()
    if action is None:
        # The session was deleted since: nobody is left to decide, which is not a failure.
        return Outcome(True, excerpt="The action no longer exists; nobody was mailed.")
    event = payload["type"]
    digests.gather(recipients(action, data["projectId"], EmailPreference.HOURLY_DIGEST, event), delivery)
    people = recipients(action, data["projectId"], EmailPreference.EVERY_EVENT, event)
    if not people:
        return Outcome(True, excerpt="Nobody it goes to wants mail for every event.")
    subject, text, html = message_for(payload)
    with get_connection() as smtp:
        for person in people:
            mail = EmailMultiAlternatives(subject, text, to=[person.email], connection=smtp)
            mail.attach_alternative(html, "text/html")
            mail.send()
    return Outcome(True, excerpt=f"Mailed {len(people)} people.")


def send_test(payload):
    """A test event goes to the person who sent it, who then sees the mail arrive, or learns on the channels page
    why it did not."""
    data = payload["data"]
    person = get_user_model().objects.filter(username=data["sentBy"], is_active=True).first()
    if person is None or not mailable(person.email):
        return Outcome(False, excerpt=f"{data['sentBy']} has no email address to send the test to."[:500])
    subject = header_text(f"[HistoryHub] Test of the channel {data['channelName']}", SUBJECT_CHARACTERS)
    text = (
        f"{data['sentBy']} sent this test event to the channel {data['channelName']}: its mail arrives.\n\n"
        f"Channels: {data['url']}\n"
    )
    with get_connection() as smtp:
        EmailMultiAlternatives(subject, text, to=[person.email], connection=smtp).send()
    return Outcome(True, excerpt=f"Mailed {person.email}.")


def send_alert(payload):
    """An Insights alert goes to the project's admins who want mail for every event (it is about the project,
    not an action anyone decides)."""
    data = payload["data"]
    people = access.people_granted(data["projectId"], Role.ADMIN).exclude(email="").order_by("username")
    people = [person for person in _preferring(people, EmailPreference.EVERY_EVENT) if mailable(person.email)]
    if not people:
        return Outcome(True, excerpt="No admin wants mail for every event.")
    alert = data["alert"]
    about = f" ({alert['action']})" if alert["action"] else ""
    subject = header_text(f"[HistoryHub] Alert: {alert['description']}{about}", SUBJECT_CHARACTERS)
    text = (
        f"{alert['description']}{about}: the threshold {alert['threshold']:g} was crossed, "
        f"at {data['value']:.4g}, {data['firedAt']}.\n\nInsights: {data['url']}\n"
    )
    with get_connection() as smtp:
        for person in people:
            EmailMultiAlternatives(subject, text, to=[person.email], connection=smtp).send()
    return Outcome(True, excerpt=f"Mailed {len(people)} people.")
