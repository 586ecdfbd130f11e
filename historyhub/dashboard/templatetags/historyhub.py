"""Template filters for agent data and the navigation's inbox count.

Everything here returns plain strings, so the templates' auto-escaping stays in
charge, but ``visible``: it escapes the text itself and returns it with its
hidden characters as markers (``hidden_characters.marked``), and ``moment``,
which builds its element with format_html.
"""

import json
import re
from datetime import UTC
from zoneinfo import ZoneInfo

from django import template
from django.utils.html import format_html

from historyhub.approvals.deciders import Decider
from historyhub.dashboard import folding, markdown, media, snippets, timeline_cards
from historyhub.history import client_actions
from historyhub.lib import hidden_characters, previews

register = template.Library()


@register.filter(name="markdown")
def markdown_filter(text):
    """A description in Markdown as sanitised HTML (dashboard.markdown), its hidden characters shown as ⟨U+…⟩
    markers first, as everywhere else (docs/dashboard.md, "Hidden characters")."""
    return markdown.render(hidden_characters.labelled(text or ""))


@register.filter
def message_markdown(text):
    """A message's text in Markdown as sanitised HTML, its hidden characters as ⟨U+…⟩ markers first."""
    return markdown.render_message(hidden_characters.labelled(text or ""))


@register.filter
def folded(text):
    """Long text's start and the whole of it (dashboard.folding)."""
    return folding.fold(text)


@register.filter
def marked(text, q):
    """Text with each occurrence of the search ``q`` in <mark>, its hidden characters as markers (escaped:
    markup); without ``q``, what ``visible`` makes of it."""
    return snippets.marked(text, q) if q else hidden_characters.marked(text)


@register.filter
def thousands(number):
    """65000 -> "65,000"."""
    return f"{number:,}" if isinstance(number, int) else number


# A browser never runs script from these: web URLs and paths on this site. Everything
# else, javascript: included, is text (media sources: historyhub.dashboard.media).
LINK_URL = re.compile(r"(?i)(https?://|/)")
USAGE_LABELS = {
    "inputTokens": "input",
    "outputTokens": "output",
    "reasoningTokens": "reasoning",
    "cacheReadTokens": "cache read",
    "cacheWriteTokens": "cache write",
}


@register.filter
def pretty_json(value):
    return json.dumps(value, indent=2, ensure_ascii=False)


@register.filter
def visible(value):
    """Text with its invisible and direction-changing characters shown as ⟨U+202E⟩ markers (escaped: markup)."""
    return hidden_characters.marked(value)


@register.filter
def visible_plain(value):
    """The same markers as plain text, for an attribute or a title."""
    return hidden_characters.labelled(value)


@register.filter
def readable(value):
    """Text as it is, unless it holds a JSON object or array (tool outputs often do); any other value as pretty JSON."""
    if not isinstance(value, str):
        return pretty_json(value)
    if value.lstrip().startswith(("{", "[")):
        try:
            return pretty_json(json.loads(value))
        except ValueError:
            pass
    return value


@register.filter
def link_href(value):
    return value if isinstance(value, str) and LINK_URL.match(value) else ""


@register.simple_tag(takes_context=True)
def refusal(context, action):
    """Why the person looking may not decide ``action``, or "": the deciders' one rule, asked to show or hide the
    buttons (the decision itself asks it again)."""
    user = context.get("user")
    if action is None or user is None or not user.is_authenticated:
        return ""
    return Decider.person(user).reason_not_to_decide(action) or ""


@register.filter
def action_view(action):
    """A client action's arguments as bounded previews, and whether its texts hide characters (for the admin)."""
    return timeline_cards.action_view(action) if action is not None else {}


@register.simple_tag(takes_context=True)
def media_source(context, url, session_id, entry_pk):
    """How a session page shows a media part: loaded, or waiting for a click (historyhub.dashboard.media)."""
    return media.source(url, context["request"], session_id, entry_pk)


@register.filter
def duration(milliseconds):
    """1234 -> "1.2 s"; anything that is not a number -> ""."""
    if not isinstance(milliseconds, (int, float)) or isinstance(milliseconds, bool):
        return ""
    if milliseconds < 1000:
        return f"{milliseconds:.0f} ms"
    seconds = milliseconds / 1000
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, seconds = divmod(round(seconds), 60)
    return f"{minutes} min {seconds} s" if seconds else f"{minutes} min"


@register.filter
def usage_rows(usage):
    """A usage object as (label, count) pairs in a fixed order."""
    if not isinstance(usage, dict):
        return []
    return [(label, usage[field]) for field, label in USAGE_LABELS.items() if field in usage]


@register.filter
def words(value):
    """snake_case and camelCase names as words: "request_human_approval" -> "request human approval"."""
    if not isinstance(value, str):
        return value
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", value).replace("_", " ")


@register.filter
def plain_text(value):
    """A message as a plain one-line preview: "## Refund ```python" reads "Refund" (dashboard.markdown)."""
    return markdown.plain_text(value) if isinstance(value, str) else value


@register.filter(name="shortened")
def shortened_filter(value, limit):
    """A text in at most ``limit`` characters, cut with an ellipsis: the one rule of previews (history.previews)."""
    return previews.shortened(value, int(limit)) if isinstance(value, str) else value


@register.simple_tag(takes_context=True)
def moment(context, value, prefix="", relative=False):
    """One time format on every page (docs/dashboard.md, "Times"): a <time> whose ``datetime`` is UTC, which
    static/js/local-time.js shows in the viewer's zone ("Dec 1, 18:24"), the full time, the zone's name and the UTC
    time on hover. The viewer's zone is the one they chose on their profile (``time_zone`` in the context, written
    on the element as ``data-zone``), else the browser's. Without script the text reads the chosen zone's time with
    its abbreviation, or UTC, and says which. ``prefix`` ("asked") goes inside the element, before the time.
    ``relative`` where recency matters (the inbox, the sessions list): "5 min ago" within a week."""
    if value is None:
        return "—"
    utc = value.astimezone(UTC)
    zone = str(context.get("time_zone") or "")
    shown = f"{prefix} " if prefix else ""
    if zone:
        local = utc.astimezone(ZoneInfo(zone))
        text = f"{local:%Y-%m-%d %H:%M} {local:%Z}"
        title = f"{local:%Y-%m-%d %H:%M:%S} {zone}, the time zone on your profile ({utc:%Y-%m-%d %H:%M:%S} UTC)"
    else:
        text, title = f"{utc:%Y-%m-%d %H:%M} UTC", f"{utc:%Y-%m-%d %H:%M:%S} UTC"
    return format_html(
        '<time datetime="{}" data-local{}{} title="{}">{}{}</time>',
        utc.strftime("%Y-%m-%dT%H:%M:%SZ"),
        " data-relative" if relative else "",
        format_html(' data-zone="{}"', zone) if zone else "",
        title,
        shown,
        text,
    )


@register.filter
def number(value):
    """Scores like 0.9166666 as 0.92; other values unchanged."""
    if isinstance(value, float):
        return f"{value:.2f}"
    return value


@register.inclusion_tag("dashboard/fragments/inbox_count.html", takes_context=True)
def inbox_count(context, oob=False):
    project = context["project"]
    return {"waiting": client_actions.waiting_count(project.pk), "oob": oob, "project": project}
