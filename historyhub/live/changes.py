"""What a committed write announces, and what a subscriber wants to hear of (docs/live-updates.md).

A ``Change`` names the session a write changed, the client actions of it that
changed (resolved, restored by a pop, deleted), and whether what waits for a
person changed (the inbox). An ``Interest`` says which changes a subscriber
hears: a waiter hears its own action's, a timeline page its session's and the
inbox's, the sessions page every change.
"""

import json
from dataclasses import dataclass

from historyhub.lib import session_keys

# PostgreSQL's NOTIFY payload holds at most 8000 bytes; a change naming more than fits says "every action".
MAX_PAYLOAD = 7900


@dataclass(frozen=True)
class Change:
    session: str  # the session's key: its project is part of it (historyhub.lib.session_keys)
    actions: frozenset = frozenset()
    all_actions: bool = False
    inbox: bool = False

    @property
    def project(self):
        return session_keys.project_of(self.session)

    def touches_action(self, session, call_id):
        return session == self.session and (self.all_actions or call_id in self.actions)

    def encode(self):
        data = {"s": self.session, "i": int(self.inbox)}
        if self.all_actions:
            data["a"] = 1
        elif self.actions:
            data["c"] = sorted(self.actions)
        text = json.dumps(data, separators=(",", ":"))
        if len(text.encode()) > MAX_PAYLOAD:
            # Waking every waiter of the session costs a read each; missing one would cost a whole wait.
            text = json.dumps({"s": self.session, "i": int(self.inbox), "a": 1}, separators=(",", ":"))
        return text

    @classmethod
    def decode(cls, text):
        """The change ``encode`` wrote; ValueError for anything else."""
        try:
            data = json.loads(text)
            if not isinstance(data["s"], str):
                raise TypeError("the session is not a string")
            return cls(
                session=data["s"],
                actions=frozenset(str(call_id) for call_id in data.get("c", ())),
                all_actions=bool(data.get("a")),
                inbox=bool(data.get("i")),
            )
        except (TypeError, KeyError, AttributeError) as error:
            raise ValueError(f"not a change: {text[:100]!r}") from error


@dataclass(frozen=True)
class Interest:
    """What one subscriber hears: any combination of the parts below. Sessions are named by their keys and
    projects by their ids: nothing a subscriber hears crosses a project's line."""

    session: str | None = None  # every change of this session
    action: tuple | None = None  # (session, call id): the changes of this client action only
    inbox: str | None = None  # every change of what waits for a person in this project
    project: str | None = None  # every change of this project

    def hears(self, change):
        return (
            self.project == change.project
            or self.session == change.session
            or (self.inbox == change.project and change.inbox)
            or (self.action is not None and change.touches_action(*self.action))
        )
