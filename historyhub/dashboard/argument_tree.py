"""An action's arguments as a tree a person can fold (docs/dashboard.md, "The approvals inbox").

Every object and array is a ``<details>`` of its own, open ``OPEN_LEVELS`` deep, so it folds without
script; every other value is written as JSON writes it (a string in quotes, its escapes kept), with its
hidden characters as markers (``hidden_characters.marked``): the tree shows the same value the JSON does.
"""

import json

from django.utils.html import format_html, format_html_join

from historyhub.lib import hidden_characters

OPEN_LEVELS = 2


def render(arguments):
    """An arguments object as a tree of nested lists, safe HTML built by format_html."""
    if not arguments:
        return format_html('<p class="argument-tree muted">{}</p>', "No arguments ({})")
    return format_html('<ul class="argument-tree">{}</ul>', _children(arguments, 0))


def _children(value, level):
    pairs = value.items() if isinstance(value, dict) else enumerate(value)
    return format_html_join("", "{}", ((_node(name, child, level),) for name, child in pairs))


def _node(name, value, level):
    label = _label(name)
    if isinstance(value, dict | list) and value:
        count = len(value)
        shape = f"{{{count} key{'s' if count != 1 else ''}}}" if isinstance(value, dict) else f"[{count}]"
        return format_html(
            '<li><details{}><summary>{}<span class="shape">{}</span></summary><ul>{}</ul></details></li>',
            " open" if level < OPEN_LEVELS else "",
            label,
            shape,
            _children(value, level + 1),
        )
    literal = json.dumps(value, ensure_ascii=False)
    return format_html(
        '<li>{}<span class="value {}">{}</span></li>', label, _kind(value), hidden_characters.marked(literal)
    )


def _label(name):
    if isinstance(name, int):
        return format_html('<span class="key index">{}</span>: ', name)
    return format_html('<span class="key">{}</span>: ', hidden_characters.marked(name))


def _kind(value):
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool) or value is None:
        return "literal"
    if isinstance(value, int | float):
        return "number"
    return "empty"
