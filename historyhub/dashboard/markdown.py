"""Agent text written in Markdown (CommonMark): a client action's description and a message, as safe HTML, and a
message as one line of plain text (docs/dashboard.md, "Descriptions" and "Reading").

Two layers, so a gap in one is caught by the other: markdown-it-py renders with raw HTML off (any HTML the agent
writes shows as text) and refuses javascript:/data: links itself; nh3 then keeps only the tags Markdown makes,
links only to http, https and mailto, and no relative ones (an agent must not point a person at a dashboard URL
that acts when opened). Images are not shown: a picture of a button is not a button.

Messages also get GitHub's tables and strikethrough, which models write, keep their line breaks, and have their
headings moved two levels down, under the page's own. A fenced code block keeps its language as
``class="language-x"``, and a message's block in a language Pygments knows by that name is highlighted on the
server (``highlighted``): spans whose only attribute is a ``hl-`` token class, which nh3 checks like the rest.
"""

import re

import nh3
from django.utils.safestring import mark_safe
from markdown_it import MarkdownIt
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound

TAGS = {
    "p", "br", "hr", "em", "strong", "code", "pre", "blockquote", "ul", "ol", "li", "a",
    "h1", "h2", "h3", "h4", "h5", "h6", "table", "thead", "tbody", "tr", "th", "td", "s", "span",
}  # fmt: skip
ATTRIBUTES = {"a": {"href", "title"}, "ol": {"start"}, "code": {"class"}, "span": {"class"}}
URL_SCHEMES = {"http", "https", "mailto"}
# The one class kept: a fenced block's language, as markdown-it writes it.
LANGUAGE_CLASS = re.compile(r"language-[\w+#.-]{1,40}")
# A highlighted token's class, as Pygments writes it with our prefix (static/css/historyhub.css colours them).
TOKEN_CLASS = re.compile(r"hl-[a-z0-9]{1,4}")
# Past this a block is shown plainly: highlighting costs time and page weight in proportion to the code.
HIGHLIGHT_LIMIT = 20_000
_formatter = HtmlFormatter(nowrap=True, classprefix="hl-")
# A message's headings sit under the page's h1 and the timeline's sections.
HEADING_SHIFT = 2


def _language_only(tag, attribute, value):
    if attribute == "class":
        if tag == "code":
            return value if LANGUAGE_CLASS.fullmatch(value) else None
        return value if tag == "span" and TOKEN_CLASS.fullmatch(value) else None
    return value


def highlighted(code, language, attributes):
    """A fenced block's code as Pygments' token spans, for a language it knows by name; "" (markdown-it escapes
    the code itself) for any other, without guessing, and for a block too long to be worth it."""
    if not language or len(code) > HIGHLIGHT_LIMIT:
        return ""
    try:
        lexer = get_lexer_by_name(language)
    except ClassNotFound:
        return ""
    return highlight(code, lexer, _formatter)


def _shift_headings(state):
    for token in state.tokens:
        if token.type in ("heading_open", "heading_close"):
            token.tag = f"h{min(6, int(token.tag[1]) + HEADING_SHIFT)}"


_description_parser = MarkdownIt("commonmark", {"html": False}).disable("image")
_message_parser = (
    MarkdownIt("commonmark", {"html": False, "breaks": True, "highlight": highlighted})
    .enable(["table", "strikethrough"])
    .disable("image")
)
_message_parser.core.ruler.push("shift_headings", _shift_headings)
_cleaner = nh3.Cleaner(
    tags=TAGS,
    attributes=ATTRIBUTES,
    attribute_filter=_language_only,
    url_schemes=URL_SCHEMES,
    url_relative="deny",
    link_rel="noopener noreferrer nofollow",
    clean_content_tags={"script", "style"},
)


def render(text):
    """A description as sanitised HTML, safe to put in a page."""
    return mark_safe(_cleaner.clean(_description_parser.render(text or "")))  # noqa: S308 - sanitised by nh3


def render_message(text):
    """A message's text as sanitised HTML, safe to put in a page."""
    return mark_safe(_cleaner.clean(_message_parser.render(text or "")))  # noqa: S308 - sanitised by nh3


# What a one-line preview reads of each kind of token: text, inline code, code blocks; a line break is a space.
TEXT_TOKENS = {"text", "code_inline", "fence", "code_block"}
BREAKS = {"softbreak", "hardbreak"}


def plain_text(text):
    """A message as one line of plain text: its words, a link's text, code without its fences; no Markdown marks."""
    words = []
    for token in _message_parser.parse(text or ""):
        for part in token.children if token.type == "inline" else [token]:
            if part.type in TEXT_TOKENS:
                words.append(part.content)
            elif part.type in BREAKS:
                words.append(" ")
        words.append(" ")
    return " ".join("".join(words).split())
