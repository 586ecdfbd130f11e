"""The dialects agents write items in, one module each (docs/dialects.md).

A dialect module owns the item types it recognises (``owns``) and says, for
each of its items, how it is projected onto the timeline (``project``), how it
reads in chat form (``to_chat``), whether it is a user or assistant message
(``as_message``, which the wire entries read), which calls it makes or
answers (``call_ids``, so a batch reads the actions it touches in one query),
and whether it opens a client action (``opens_client_action``, its call the
first of ``call_ids``: an import tells those from the ones opened through the API).
Content part readers register themselves in ``content``.

Adding a dialect is adding a module here and naming it in ``DIALECTS``.
"""

from types import ModuleType

from historyhub.history.dialects import agents_js, base, chat, mcp, orcha, responses

# The first dialect that owns an item's type takes it: the specific before the general.
DIALECTS = (orcha, mcp, agents_js, responses, chat)
_BY_TYPE: dict[str, ModuleType | None] = {}


def of(item):
    """The dialect module that owns the item."""
    key = item["type"] if base.is_typed(item) else ""
    dialect = _BY_TYPE.get(key)
    if dialect is None:
        dialect = next((module for module in DIALECTS if module.owns(key)), None)
        if len(_BY_TYPE) < 1000:  # agents may invent types without end
            _BY_TYPE[key] = dialect
    return dialect


def as_message(item):
    """(role, MessageContent) when the item is a user or assistant message of any dialect, else None."""
    dialect = of(item)
    return dialect.as_message(item) if dialect is not None else None


def message_role(item):
    message = as_message(item)
    return message[0] if message is not None else None


def call_ids(item):
    dialect = of(item)
    return dialect.call_ids(item) if dialect is not None else []


def opened_call_id(item):
    """The call of the client action projecting the item opens, or None (docs/dialects.md)."""
    dialect = of(item)
    if dialect is None or not dialect.opens_client_action(item):
        return None
    return dialect.call_ids(item)[0]
