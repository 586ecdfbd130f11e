"""What an export or an import went through, counted as it goes: the progress lines of ``manage.py export`` and
``import`` and of the dashboard's data page, and the counts at the end (docs/data.md, "Progress")."""

from dataclasses import dataclass


@dataclass
class Tally:
    sessions: int = 0
    items: int = 0
    client_actions: int = 0
    # Of an import's client actions: those kept resolved as their record, and those that wait for this project.
    resolved: int = 0
    waiting: int = 0
    runs: int = 0
    votes: int = 0
    # What an import does not carry over, by the import rules (docs/data.md, "An import never decides").
    votes_not_kept: int = 0
    lines: int = 0

    def said(self) -> str:
        """ "2 sessions, 40 items, 3 client actions" """
        counts = [
            counted(self.sessions, "session"),
            counted(self.items, "item"),
            counted(self.client_actions, "client action"),
        ]
        return ", ".join(counts)

    def not_kept(self) -> list[str]:
        """What the import rules left out, each with why; empty when nothing was."""
        if not self.votes_not_kept:
            return []
        return [
            f"{counted(self.votes_not_kept, 'vote')} on actions still waiting not kept: a vote needs a decider of this "
            "installation, and those actions wait for this project's deciders."
        ]


def counted(number: int, noun: str) -> str:
    """1, "item" -> "1 item"; 2000 -> "2,000 items"."""
    return f"{number:,} {noun}{'' if number == 1 else 's'}"
