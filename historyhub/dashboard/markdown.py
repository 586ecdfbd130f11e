"""A client action's description, written by an agent in Markdown (CommonMark), as safe HTML (docs/dashboard.md,
"Descriptions").

Two layers, so a gap in one is caught by the other: markdown-it-py renders with raw HTML off (any HTML the agent
writes shows as text) and refuses javascript:/data: links itself; nh3 then keeps only the tags Markdown makes,
links only to http, https and mailto, and no relative ones (an agent must not point a person at a dashboard URL
that acts when opened). Images are not shown: a picture of a button is not a button.
"""

import nh3
from django.utils.safestring import mark_safe
from markdown_it import MarkdownIt

TAGS = {
    "p", "br", "hr", "em", "strong", "code", "pre", "blockquote", "ul", "ol", "li", "a",
    "h1", "h2", "h3", "h4", "h5", "h6",
}  # fmt: skip
ATTRIBUTES = {"a": {"href", "title"}, "ol": {"start"}}
URL_SCHEMES = {"http", "https", "mailto"}

_parser = MarkdownIt("commonmark", {"html": False}).disable("image")
_cleaner = nh3.Cleaner(
    tags=TAGS,
    attributes=ATTRIBUTES,
    url_schemes=URL_SCHEMES,
    url_relative="deny",
    link_rel="noopener noreferrer nofollow",
    clean_content_tags={"script", "style"},
)


def render(text):
    """``text`` as sanitised HTML, safe to put in a page."""
    return mark_safe(_cleaner.clean(_parser.render(text or "")))  # noqa: S308 - sanitised by nh3 just above
