"""Whether a client action looks destructive, and why (docs/dashboard.md, "Batch decisions").

A guess from words, to call an action out before a person approves it among
others: its name or its arguments hold a word that deletes, removes, drops,
destroys, purges, wipes, erases or truncates something, or moves money (refund,
transfer, pay), in any case and inside snake_case and camelCase names
(``hardDelete``, ``DROP TABLE``, ``issue_refund``); or an argument flag such as
``hard``, ``force`` or ``permanent`` is true. It reads the stored JSON text
(keys and values alike) without parsing it, and ignores hidden characters, so
``del\\u200bete`` is a delete too.
"""

import re

from historyhub.lib import hidden_characters

# Each word with the forms it takes ("pay": "paid", "payment"…), so "payload" or "dropdown" is none of them.
WORDS = [
    *["delete", "deletes", "deleted", "deleting", "deletion"],
    *["remove", "removes", "removed", "removing", "removal"],
    *["drop", "drops", "dropped", "dropping"],
    *["destroy", "destroys", "destroyed", "destroying", "destruction"],
    *["purge", "purges", "purged", "purging"],
    *["wipe", "wipes", "wiped", "wiping"],
    *["erase", "erases", "erased", "erasing", "erasure"],
    *["truncate", "truncates", "truncated", "truncating", "truncation"],
    *["refund", "refunds", "refunded", "refunding"],
    *["transfer", "transfers", "transferred", "transferring"],
    *["pay", "pays", "paid", "paying", "payment", "payments", "payout", "payouts"],
]
# What every one of the words starts with, to tell quickly that a text holds none of them.
STEMS = ["delet", "remov", "drop", "destr", "purg", "wip", "eras", "truncat", "refund", "transfer", "pay", "paid"]
FLAGS = ["hard", "force", "forced", "permanent", "permanently", "purge", "cascade", "recursive", "irreversible"]


# The words of a text: "deleteAccount" is delete and Account, "HardDelete" Hard and Delete, "hard_delete"
# hard and delete, "DROP TABLE" DROP and TABLE; "payload" is one word, not pay.
WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")
FLAG = re.compile(rf'(?i)"(?:is_?)?({"|".join(FLAGS)})"\s*:\s*true\b')


def reasons(name, arguments_json):
    """Why an action looks destructive: the words and true flags found, once each, in order (none: it does not)."""
    text = f"{name} {arguments_json}"
    if hidden_characters.contains(text):
        text = hidden_characters.HIDDEN.sub("", text)
    found = []
    # Splitting a megabyte into words takes a while; most arguments hold none of the stems at all.
    lowered = text.lower()
    if any(stem in lowered for stem in STEMS):
        words = {word.lower() for word in set(WORD.findall(text))}
        found = [word for word in WORDS if word in words]
    if "true" in lowered and any(flag in lowered for flag in FLAGS):
        flags = dict.fromkeys(match.group(1).lower() for match in FLAG.finditer(text))
        found += [f"{flag}: true" for flag in flags]
    return found
