"""Messages read as Markdown, safely, and long messages and tool outputs folded (docs/dashboard.md, "Reading")."""

import json

import pytest
from django.urls import reverse

from historyhub.dashboard import markdown as markdown_module
from historyhub.dashboard.folding import FOLD_CHARS, FOLD_LINES
from historyhub.history import item_log, sessions
from tests.support.html import parse


def bubble(client, text, role="assistant"):
    """The bubble of a session whose one message is ``text``."""
    sessions.ensure(agent="a", session_id="said")
    item_log.append("said", [{"role": role, "content": text}])
    page = parse(client.get(reverse("dashboard:session", args=["default", "said"])))
    return page.one("article.entry-message .bubble")


def test_markdown_in_a_message_is_rendered(viewer_client, db):
    text = "# Plan\n\n1. **Refund** the *order*\n2. ~~Ship~~ `again`\n\n> noted\n\n"
    text += "| step | who |\n|---|---|\n| one | ada |"
    markdown = bubble(viewer_client, text).one(".markdown")
    # The message's headings sit under the page's h1 and its sections.
    assert markdown.text("h3") == "Plan" and not markdown.all("h1, h2")
    assert [item.text() for item in markdown.all("ol > li")] == ["Refund the order", "Ship again"]
    assert (markdown.text("strong"), markdown.text("em"), markdown.text("s"), markdown.text("li code")) == (
        "Refund",
        "order",
        "Ship",
        "again",
    )
    assert markdown.text("blockquote") == "noted"
    assert [cell.text() for cell in markdown.all("table td")] == ["one", "ada"]


def test_a_fenced_code_block_keeps_its_language_as_a_class_and_nothing_else(viewer_client, db):
    text = '```python\nprint("<b>hi</b>")\n```\n\n```x" onmouseover="alert(1)\nboom\n```'
    blocks = bubble(viewer_client, text).all(".markdown pre > code")
    assert [(block.classes, block.exact_text()) for block in blocks] == [
        (["language-python"], 'print("<b>hi</b>")\n'),
        ([], "boom\n"),
    ]
    assert all(set(block.attributes) <= {"class"} for block in blocks)


def test_a_block_in_a_known_language_is_highlighted_with_token_spans_only(viewer_client, db):
    text = '```python\ndef main():\n    return "<b>"  # done\n```'
    code = bubble(viewer_client, text).one(".markdown pre > code")
    tokens = {span.exact_text(): span.classes for span in code.all("span")}
    assert (tokens["def"], tokens["main"], tokens['"<b>"'], tokens["# done"]) == (
        ["hl-k"],
        ["hl-nf"],
        ["hl-s2"],
        ["hl-c1"],
    )
    assert code.exact_text() == 'def main():\n    return "<b>"  # done\n' and not code.all("b")
    assert all(set(span.attributes) == {"class"} for span in code.all("span"))


def test_an_unknown_language_and_an_agents_own_spans_stay_plain(viewer_client, db):
    text = '```klingon\nqapla\n```\n\n<span class="hl-k">mine</span>'
    markdown = bubble(viewer_client, text).one(".markdown")
    assert not markdown.all("span") and markdown.text("code") == "qapla"
    assert '<span class="hl-k">mine</span>' in markdown.text()


def test_a_block_over_the_limit_is_not_highlighted():
    code = "x = 1\n" * (markdown_module.HIGHLIGHT_LIMIT // 6 + 1)
    assert "<span" not in markdown_module.render_message(f"```python\n{code}```")
    assert "<span" in markdown_module.render_message("```python\nx = 1\n```")


def test_html_script_and_dangerous_links_in_a_message_stay_text(viewer_client, db):
    payload = (
        '<script>window.__pwned=1</script> <img src=x onerror="window.__pwned=1"> '
        "[click](javascript:alert(1)) [inside](/p/default/settings/) [docs](https://example.com/a)"
    )
    markdown = bubble(viewer_client, payload, role="user").one(".markdown")
    assert not markdown.all("script, img, [onerror]")
    assert markdown.text().startswith('<script>window.__pwned=1</script> <img src=x onerror="window.__pwned=1">')
    assert [(link.text(), link.get("href")) for link in markdown.all("a")] == [
        ("inside", None),
        ("docs", "https://example.com/a"),
    ]
    assert "[click](javascript:alert(1))" in markdown.text()


def test_a_hidden_character_in_a_message_shows_as_its_marker(viewer_client, db):
    assert bubble(viewer_client, "pay GB33\u202e 1555").text(".markdown") == "pay GB33⟨U+202E⟩ 1555"


def test_a_short_message_is_not_folded(viewer_client, db):
    text = "\n".join(f"line {n}" for n in range(1, FOLD_LINES + 1))
    shown = bubble(viewer_client, text)
    assert not shown.all("details, .fold") and shown.text(".markdown").endswith(f"line {FOLD_LINES}")


def test_a_long_message_shows_its_start_and_all_of_it_behind_show_all(viewer_client, db):
    words = " ".join(f"word{n}" for n in range(10_000))
    fold = bubble(viewer_client, words).one(".fold")
    start = fold.text(".fold-start")
    assert len(start) <= FOLD_CHARS and words.startswith(start) and "word9999" not in start
    whole = fold.one("details.fold-whole")
    assert whole.get("open") is None
    assert (whole.text(".when-folded"), whole.text(".when-unfolded")) == ("Show all", "Show less")
    assert whole.text("summary .fold-size") == f"{len(words):,} characters, 1 line"
    assert whole.text(".markdown") == words


def test_a_message_of_many_short_lines_folds_after_its_first_lines(viewer_client, db):
    text = "\n".join(f"line {n}" for n in range(1, 101))
    fold = bubble(viewer_client, text).one(".fold")
    assert fold.text(".fold-start").split(" ")[-2:] == ["line", str(FOLD_LINES)]
    assert fold.text(".fold-size") == f"{len(text):,} characters, 100 lines"
    assert fold.one(".fold-whole .markdown").text().endswith("line 100")


def test_the_folded_start_of_a_long_message_is_markdown_too_and_escaped(viewer_client, db):
    text = "**Bold start** <script>x</script>\n\n```python\n" + "\n".join(f"step({n})" for n in range(100)) + "\n```"
    start = bubble(viewer_client, text).one(".fold-start .markdown")
    assert start.text("strong") == "Bold start" and not start.all("script")
    # The fence cut by the fold still reads as code.
    assert start.one("pre > code.language-python").exact_text().startswith("step(0)\nstep(1)")


@pytest.fixture
def long_output(db):
    sessions.ensure(agent="a", session_id="tool")
    output = json.dumps([{"row": n, "value": "<b>x</b>"} for n in range(200)])
    item_log.append(
        "tool",
        [
            {"type": "function_call", "call_id": "c1", "name": "query", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "c1", "output": output},
        ],
    )
    return output


def test_a_long_tool_output_is_folded_too(viewer_client, long_output):
    card = parse(viewer_client.get(reverse("dashboard:session", args=["default", "tool"]))).one("details.action")
    pretty = json.dumps(json.loads(long_output), indent=2)
    fold = card.one(".fold")
    assert fold.one(".fold-start pre.output").exact_text() == "\n".join(pretty.split("\n")[:FOLD_LINES])
    assert fold.one(".fold-whole pre.output").exact_text() == pretty
    assert fold.text(".fold-size") == f"{len(pretty):,} characters, {pretty.count(chr(10)) + 1:,} lines"
    assert not fold.all("b")
