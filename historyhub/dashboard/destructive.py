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

from historyhub.dashboard import hidden_characters

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
FLAGS = ["hard", "force", "forced", "permanent", "permanently", "purge", "cascade", "recursive", "irreversible"]


def alternatives(forms):
    return "|".join(sorted(forms, key=len, reverse=True))


# A word starts where no letter (or, capitalised, no capital) comes before it and ends where no lower-case
# letter follows: "deleteAccount", "hard_delete", "HardDelete" and "DELETE" hold one; "payload" none.
WORD = re.compile(
    rf"(?<![A-Za-z])({alternatives(WORDS)})(?![a-z])"
    rf"|(?<![A-Z])({alternatives(word.capitalize() for word in WORDS)})(?![a-z])"
    rf"|(?<![A-Za-z])({alternatives(word.upper() for word in WORDS)})(?![A-Za-z])"
)
FLAG = re.compile(rf'(?i)"(?:is_?)?({alternatives(FLAGS)})"\s*:\s*true\b')


def reasons(name, arguments_json):
    """Why an action looks destructive: the words and true flags found, once each, in order (none: it does not)."""
    name = hidden_characters.HIDDEN.sub("", name)
    arguments = hidden_characters.HIDDEN.sub("", arguments_json)
    found = [match.group().lower() for match in WORD.finditer(f"{name} {arguments}")]
    found += [f"{match.group(1).lower()}: true" for match in FLAG.finditer(arguments)]
    return list(dict.fromkeys(found))
