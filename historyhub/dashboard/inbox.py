"""The approvals inbox (docs/dashboard.md, "The approvals inbox"): which waiting actions a person asked to see,
in which order, and what each card tells beyond the action itself, so that it is enough to decide on.

Every query starts from ``approvals.reading.listing``, scoped to one project; the filters narrow the waiting
actions the (status, created_at) and (status, expires_at) indexes find. A page of cards costs the same few
queries whatever its length: the sessions come joined, the votes prefetched, and the conversation before
each action as two subqueries of the one query that reads the page.
"""

import math
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import NamedTuple

from django.db.models import Count, F, OuterRef, Q, Subquery
from django.db.models.functions import Substr

from historyhub.approvals import reading
from historyhub.approvals.policies import governed_by, json_object_starting
from historyhub.dashboard import argument_tree, inbox_states, json_preview, timeline_cards
from historyhub.dashboard.forms import DecisionForm
from historyhub.history.models import TimelineEntry
from historyhub.lib import jsonvalues

AGES = {"1h": timedelta(hours=1), "1d": timedelta(days=1), "1w": timedelta(weeks=1)}
EXPIRING_SOON = timedelta(hours=1)
SORTS = {
    "oldest": ("created_at", "pk"),
    "newest": ("-created_at", "-pk"),
    "expiring": (F("expires_at").asc(nulls_last=True), "created_at", "pk"),
}
# What a card quotes of the conversation before the action: up to EXCERPT_CHARS characters of each message,
# the first SHORT_CHARS of them in view and the rest folded.
EXCERPT_CHARS = 1000
SHORT_CHARS = 200
# The session's metadata a card shows: its first entries, each value cut to a line.
METADATA_SHOWN = 4
METADATA_CHARS = 80


@dataclass(frozen=True)
class Criteria:
    """What the person asked to see; "" (or False) is "any"."""

    agent: str = ""
    tool: str = ""
    policy: str = ""
    age: str = ""  # a key of AGES: asked longer ago than that
    expiring: bool = False  # expires within EXPIRING_SOON
    q: str = ""  # in the tool's name, its arguments, its description or its session's title
    sort: str = "oldest"  # a key of SORTS
    group: str = ""  # "tool": grouped by tool, each group sorted by ``sort``
    state: str = inbox_states.WAITING  # else a value of inbox_states.DECIDED_STATES
    decider: str = ""  # decided by (decided states only)
    since: datetime | None = None  # opened (waiting) or stopped waiting (other states) at or after
    until: datetime | None = None  # … and before

    @property
    def narrowed(self):
        """Whether some actions of the state are left out (sorting and grouping leave none out)."""
        return any(
            (self.agent, self.tool, self.policy, self.age, self.expiring, self.q, self.decider, self.since, self.until)
        )

    @property
    def decided(self):
        """Whether it lists actions that wait no more: cards to read, none to decide."""
        return self.state != inbox_states.WAITING


def matching(project, criteria, now):
    """The actions of ``project`` in the state ``criteria`` asks for (waiting by default) that meet it, oldest
    first."""
    if criteria.decided:
        actions = inbox_states.stopped(
            reading.listing(project, agent=criteria.agent or None, now=now),
            criteria.state,
            criteria.decider,
            criteria.since,
            criteria.until,
            now,
        )
    else:
        actions = reading.listing(project, status="waiting", agent=criteria.agent or None, now=now)
        if criteria.since:
            actions = actions.filter(created_at__gte=criteria.since)
        if criteria.until:
            actions = actions.filter(created_at__lt=criteria.until)
    if criteria.tool:
        actions = actions.filter(name=criteria.tool)
    if criteria.policy:
        actions = actions.filter(governed_by(criteria.policy))
    if criteria.age in AGES:
        actions = actions.filter(created_at__lte=now - AGES[criteria.age])
    if criteria.expiring:
        actions = actions.filter(expires_at__lte=now + EXPIRING_SOON)
    if criteria.q:
        q = criteria.q
        actions = actions.filter(
            Q(name__icontains=q)
            | Q(description__icontains=q)
            | Q(arguments_json__icontains=q)
            | Q(session__name__icontains=q)
        )
    return actions


def ordered(actions, criteria):
    order = SORTS.get(criteria.sort, SORTS["oldest"])
    return actions.order_by(*(("name", *order) if criteria.group == "tool" else order))


def said_before(role):
    """The start of the last ``role`` message with text before the action took its place in the session.

    A message entry's data is ``{"role": …, "content": …}``, in that order (``Projection.add_message``).
    The session's (session, epoch, seq) index reads its entries backwards from the end of the epoch.
    """
    opening = json_object_starting("role", role)
    before = (
        TimelineEntry.objects.filter(
            session=OuterRef("session"), epoch=OuterRef("epoch"), type="message", order__lt=OuterRef("order")
        )
        .exclude(text="")
        # The opening of the data, not data LIKE 'opening%': PostgreSQL reads a slice of a large value for it, and
        # a client action's card holds the action's arguments and description, a megabyte each at the caps.
        .annotate(opening=Substr("data", 1, len(opening)))
        .filter(opening=opening)
    )
    return Subquery(before.order_by("-seq").values(excerpt=Substr("text", 1, EXCERPT_CHARS + 1))[:1])


def with_conversation(actions):
    return actions.annotate(user_said=said_before("user"), agent_said=said_before("assistant"))


def with_text_starts(actions):
    """The actions without their arguments and description, but with as much of each as a card shows
    (docs/dashboard.md, "Large arguments and descriptions"): fifty cards read a few kilobytes each, whatever
    agents sent."""
    return actions.defer("arguments_json", "description").annotate(
        arguments_start=Substr("arguments_json", 1, json_preview.CARD_PREVIEW_CHARS + 1),
        description_start=Substr("description", 1, json_preview.DESCRIPTION_CHARS + 1),
    )


class Choices(NamedTuple):
    agents: list
    tools: list
    policies: list


def choices(project, now):
    """The agents, tools and policies of the actions waiting in ``project``, for the filters to offer."""
    found = (
        reading.listing(project, status="waiting", now=now)
        .order_by()
        .values_list("session__agent", "name", "policy_json")
        .distinct()
    )
    agents, tools, policies = set(), set(), set()
    for agent, tool, policy in found:
        agents.add(agent)
        tools.add(tool)
        if policy:
            policies.add(jsonvalues.loads(policy)["name"])
    return Choices(sorted(agents), sorted(tools), sorted(policies))


class Group(NamedTuple):
    tool: str  # "" when the list is not grouped
    count: int  # type: ignore[assignment]  # the tool's actions on every page (templates read group.count)
    rows: list


def groups(rows, criteria, actions):
    """A page's cards under a heading per tool when ``criteria`` groups them (``actions``, every page of them,
    gives each tool's count), else in one group without a heading."""
    if criteria.group != "tool":
        return [Group("", len(rows), rows)]
    tools = {row["action"].name for row in rows}
    counts = dict(actions.filter(name__in=tools).order_by().values_list("name").annotate(count=Count("pk")))
    found = []
    for row in rows:
        tool = row["action"].name
        if not found or found[-1].tool != tool:
            found.append(Group(tool, counts.get(tool, 0), []))
        found[-1].rows.append(row)
    return found


# Cards --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Excerpt:
    text: str
    cut: bool  # the message goes on beyond ``text``

    @property
    def is_short(self):
        return len(self.text) <= SHORT_CHARS and not self.cut

    @property
    def opening(self):
        return self.text[:SHORT_CHARS].rstrip() + "…"


def excerpt(text):
    if not text:
        return None
    return Excerpt(text[:EXCERPT_CHARS], len(text) > EXCERPT_CHARS)


def key_metadata(session):
    """The session's first METADATA_SHOWN metadata entries as (key, short text), and how many more it has."""
    metadata = session.metadata
    shown = []
    for key, value in list(metadata.items())[:METADATA_SHOWN]:
        text = value if isinstance(value, str) else jsonvalues.dumps(value)
        shown.append((key, text if len(text) <= METADATA_CHARS else text[: METADATA_CHARS - 1] + "…"))
    return shown, max(0, len(metadata) - METADATA_SHOWN)


def countdown(until, now):
    """How long until ``until``: "in 9 min", "in 2 h 5 min", "in 3 d 4 h"; static/js/approvals.js writes the
    same as time passes."""
    seconds = (until - now).total_seconds()
    if seconds <= 0:
        return "expired"
    minutes = math.ceil(seconds / 60)
    if minutes < 60:
        return f"in {minutes} min"
    hours, minutes = divmod(minutes, 60)
    if hours < 24:
        return f"in {hours} h" + (f" {minutes} min" if minutes else "")
    days, hours = divmod(hours, 24)
    return f"in {days} d" + (f" {hours} h" if hours else "")


def answer_ids(action):
    """The ids of a card's answer fields: one page shows the answer forms of many actions."""
    return f"action-{action.pk}-%s"


def arguments_once(action, shown):
    """Where a card keeps its arguments as JSON, once (a page holds fifty cards): the edit box of a person who may
    edit them, else the "As JSON" view. Copy copies that element's text; a view that shows hidden characters as
    markers is not what an agent reads back, so then a hidden copy with escapes is kept for Copy."""
    edit_here = shown["may_edit"] and shown["arguments"].complete and not shown["refused"]
    if edit_here:
        # A textarea's text is what the page was sent, not what the person typed since: the requested arguments.
        return {"edit_here": True, "copy_target": f"#arguments-{action.pk}", "copy_escaped": False}
    escaped = shown["arguments"].hidden_characters
    json_id = f"arguments-json-{action.pk}"
    target = f"#arguments-escaped-{action.pk}" if escaped else f"#{json_id}"
    return {"edit_here": False, "json_id": json_id, "copy_target": target, "copy_escaped": escaped}


def card(action, decider, now):
    """What an approvals card shows of an action ``with_text_starts`` read: who asked and in which conversation,
    the start of its description, its arguments (a tree when they are small enough to show whole), its policy and
    votes, and the decisions it offers."""
    metadata, more_metadata = key_metadata(action.session)
    arguments = json_preview.of_start(
        action.arguments_start, action.arguments_bytes, action.hides_characters, json_preview.CARD_PREVIEW_CHARS
    )
    shown = {
        "action": action,
        "arguments": arguments,
        "description": json_preview.of_text(action.description_start, action.description_bytes),
        "hidden_characters": action.hides_characters,
        "destructive": action.destructive_reasons,
        "refused": decider.reason_not_to_decide(action) or "",
        "user_said": excerpt(getattr(action, "user_said", None)),
        "agent_said": excerpt(getattr(action, "agent_said", None)),
        "metadata": metadata,
        "more_metadata": more_metadata,
        **timeline_cards.choices_view(action),
    }
    if shown["answer_form"] is not None:
        shown["answer_form"] = DecisionForm(response_schema=action.response_schema, auto_id=answer_ids(action))
    shown["timeline_edit_chars"] = json_preview.PREVIEW_CHARS
    # Whole, the start is all of the arguments.
    shown["tree"] = argument_tree.render(jsonvalues.loads(action.arguments_start)) if arguments.complete else None
    shown.update(arguments_once(action, shown))
    if action.expires_at is not None:
        shown["expires_in"] = countdown(action.expires_at, now)
        shown["expires_soon"] = action.expires_at - now <= EXPIRING_SOON
    return shown
