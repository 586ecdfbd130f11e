"""Pretty JSON for a page, bounded: indented from the stored text as json.dumps would indent it
(historyhub/dashboard/json_preview.py)."""

import json

import pytest

from historyhub.dashboard import json_preview
from historyhub.lib import jsonvalues

VALUES = [
    {},
    [],
    "text",
    12.5,
    None,
    {"a": [], "b": {}, "c": [1, 2.5, {"d": None, "e": True, "f": False}]},
    {"quotes": 'say "hi", {not: [json]}', "escapes": "back\\slash\nnew line\ttab \u0007 bell", "é": "ünïcode 東京"},
    [[[]], [{}], [[1]]],
]


@pytest.mark.parametrize("value", VALUES)
def test_it_indents_as_json_dumps_indents(value):
    preview = json_preview.of_value(value)
    assert preview.complete and preview.text == json.dumps(value, indent=2, ensure_ascii=False)
    assert json.loads(preview.editable) == value


def test_a_large_value_is_cut_at_the_bound_and_knows_its_whole_size():
    value = {"rows": [{"n": number, "note": "é" * 40} for number in range(5_000)]}
    preview = json_preview.of_value(value, limit=1_000)
    whole = json.dumps(value, indent=2, ensure_ascii=False)
    assert not preview.complete and preview.editable is None
    assert len(preview.text) == 1_000 and whole.startswith(preview.text)
    assert preview.size == len(jsonvalues.dumps(value).encode("utf-8"))


def test_one_huge_string_is_cut_too():
    preview = json_preview.of_value({"blob": "x" * 100_000}, limit=50)
    assert preview.text == '{\n  "blob": "' + "x" * (50 - 13) and not preview.complete


def test_a_lone_surrogate_stays_an_escape_a_page_can_carry():
    preview = json_preview.of_value({"odd": "\ud800"})
    assert preview.text == '{\n  "odd": "\\ud800"\n}' and preview.text.encode("utf-8")
    assert json.loads(preview.editable) == {"odd": "\ud800"}


def test_it_knows_whether_the_whole_value_hides_characters_beyond_the_preview():
    preview = json_preview.of_value({"pad": "x" * 500, "iban": "\u202e55 5555"}, limit=100)
    assert preview.hidden_characters and "\u202e" not in preview.text
    assert not json_preview.of_value({"pad": "x" * 500}, limit=100).hidden_characters


@pytest.mark.parametrize("value", [*VALUES, {"blob": "x" * 5_000}, {"rows": [{"say": 'a "quote" \\ é'}] * 300}])
@pytest.mark.parametrize("limit", [1, 40, 1_000, 10_000])
def test_the_start_of_the_text_previews_as_the_whole_does(value, limit):
    stored = jsonvalues.dumps(value)
    whole = json_preview.of_stored(stored, limit)
    assert json_preview.of_start(stored[: limit + 1], whole.size, whole.hidden_characters, limit) == whole
