"""Whether a client action looks destructive, and why (docs/dashboard.md, "What looks destructive").

A guess from words, to call an action out before a person approves it among others. An action looks
destructive when its name or its arguments

- hold a word that deletes, removes, drops, destroys, purges, wipes, erases, truncates or shreds something, in
  any case and inside snake_case and camelCase names (``hardDelete``, ``DROP TABLE``);
- hold a shell command that destroys what it touches (``rm -rf build/ && make release``, ``git push --force``,
  ``git reset --hard``, ``git clean -fd``, ``git branch -D``, ``mkfs``, ``dd … of=``);
- move money for good: a payout, a withdrawal, a disbursement, a wire transfer;
- or set a flag such as ``hard``, ``force``, ``permanent`` or ``irreversible`` to true.

A refund, a payment or a transfer is not called out for its word alone: support and billing agents ask for them
all day, and a callout on every one teaches a person to read past it. One that says it is irreversible is.

It reads the stored JSON text (keys and values alike) without parsing it, and ignores hidden characters, so
``del\\u200bete`` is a delete too.
"""

import re

from historyhub.lib import hidden_characters

# Each word with the forms it takes ("drop": "dropped"…), so "dropdown" or "payout" is matched whole or not at all.
WORDS = [
    *["delete", "deletes", "deleted", "deleting", "deletion"],
    *["remove", "removes", "removed", "removing", "removal"],
    *["drop", "drops", "dropped", "dropping"],
    *["destroy", "destroys", "destroyed", "destroying", "destruction"],
    *["purge", "purges", "purged", "purging"],
    *["wipe", "wipes", "wiped", "wiping"],
    *["erase", "erases", "erased", "erasing", "erasure"],
    *["truncate", "truncates", "truncated", "truncating", "truncation"],
    *["shred", "shreds", "shredded", "shredding"],
    # Money that leaves for good.
    *["payout", "payouts"],
    *["withdraw", "withdraws", "withdrew", "withdrawn", "withdrawing", "withdrawal", "withdrawals"],
    *["disburse", "disburses", "disbursed", "disbursing", "disbursement", "disbursements"],
]
# What every one of the words starts with, to tell quickly that a text holds none of them.
STEMS = ["delet", "remov", "drop", "destr", "purg", "wip", "eras", "truncat", "shred", "payout", "withdr", "disburs"]
FLAGS = ["hard", "force", "forced", "permanent", "permanently", "purge", "cascade", "recursive", "irreversible"]

# The words of a text: "deleteAccount" is delete and Account, "HardDelete" Hard and Delete, "hard_delete"
# hard and delete, "DROP TABLE" DROP and TABLE; "dropdown" is one word, not drop.
WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")
FLAG = re.compile(rf'(?i)"(?:is_?)?({"|".join(FLAGS)})"\s*:\s*true\b')
WIRE_TRANSFER = re.compile(r"(?i)wire[\s_-]?transfer")

# Up to the end of a command: the arguments of one command, not the next one's.
REST = r'[^"`;&|\\]*?'
# Each shell command that destroys what it touches: the reason the callout gives, the command's word, and what
# follows it (``rm`` also as an argv list: ["rm", "-rf", "build/"]).
COMMANDS = [
    ("rm", "rm", r'(?:\s+\S|"\s*,\s*")'),
    ("git push --force", "git", rf"\s+push\s{REST}(?:--force(?:-with-lease)?\b|-f\b|\s\+\S)"),
    ("git reset --hard", "git", rf"\s+reset\s{REST}--hard\b"),
    ("git clean", "git", rf"\s+clean\s{REST}-[a-zA-Z]*f"),
    ("git branch -D", "git", rf"\s+branch\s{REST}-D\b"),
    ("mkfs", "mkfs", r"\b"),
    ("dd", "dd", rf"\s{REST}\bof="),
]


def command_rule(word: str, after: str) -> re.Pattern[str]:
    """The pattern of a command: its word first (a literal the engine finds quickly in a megabyte), a word of its
    own ("rm", not "form" or "x.rm"; an escaped line break before it is a break), then what follows it."""
    return re.compile(rf"{word}(?:(?<![\w.-]{word})|(?<=\\n{word})){after}")


COMMAND_RULES = [(reason, word, command_rule(word, after)) for reason, word, after in COMMANDS]
# What comes before a command (spaces aside): a string's start, ; & | ( or a backtick, an escaped line break, or
# sudo, xargs or exec. So "rm" in a sentence is no command.
COMMAND_AFTER = ('"', "`", ";", "&", "|", "(", "\\n", "sudo", "xargs", "exec")
# How far back a command's start is looked for.
COMMAND_LOOKBACK = 16


def reasons(name: str, arguments_json: str) -> list[str]:
    """Why an action looks destructive: the words, commands and true flags found, once each, in that order (none:
    it does not)."""
    text = f"{name} {arguments_json}"
    if hidden_characters.contains(text):
        text = hidden_characters.HIDDEN.sub("", text)
    found: list[str] = []
    # Splitting a megabyte into words takes a while; most arguments hold none of the stems at all.
    lowered = text.lower()
    if any(stem in lowered for stem in STEMS):
        words = {word.lower() for word in set(WORD.findall(text))}
        found = [word for word in WORDS if word in words]
    if "transfer" in lowered and WIRE_TRANSFER.search(text):
        found.append("wire transfer")
    found += commands(text, lowered)
    if "true" in lowered and any(flag in lowered for flag in FLAGS):
        flags = dict.fromkeys(match.group(1).lower() for match in FLAG.finditer(text))
        found += [f"{flag}: true" for flag in flags]
    return found


def commands(text: str, lowered: str) -> list[str]:
    """The destructive shell commands ``text`` holds, in the order of ``COMMANDS``."""
    return [
        reason
        for reason, word, rule in COMMAND_RULES
        if word in lowered and any(starts_a_command(text, match.start()) for match in rule.finditer(text))
    ]


def starts_a_command(text: str, start: int) -> bool:
    """Whether the command word at ``start`` is where a command can start."""
    before = text[max(start - COMMAND_LOOKBACK, 0) : start].rstrip()
    return before.endswith(COMMAND_AFTER) or (not before and start <= COMMAND_LOOKBACK)
