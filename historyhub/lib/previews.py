"""Short previews of what agents sent, for places with little room: the sessions list's last message, a batch
decision's confirmation, a Slack message, an email.

One rule for all of them: what fits is shown whole, what does not is cut and ends in an ellipsis, so a reader
sees that more follows. The dashboard's cards show large arguments another way, with their size and a link to
all of them (``historyhub.dashboard.json_preview``).
"""

import json

from historyhub.lib.jsonvalues import JSON

ELLIPSIS = "…"
# The sessions list's preview of a message, as ``Session.last_message`` holds it.
MESSAGE_CHARS = 300


def shortened(text: str, limit: int) -> str:
    """``text`` in at most ``limit`` characters: whole when it fits, else its beginning and an ellipsis."""
    if len(text) <= limit:
        return text
    return text[: limit - len(ELLIPSIS)] + ELLIPSIS


def message(text: str, first_part_type: str) -> str:
    """What the sessions list shows of a message: its text, or the kind of its first part (``[image]``)."""
    return shortened(text or f"[{first_part_type}]", MESSAGE_CHARS)


def arguments(value: JSON, limit: int) -> str:
    """An action's arguments as indented JSON, as a notification shows them, in at most ``limit`` characters."""
    return shortened(json.dumps(value, indent=2, ensure_ascii=False), limit)
