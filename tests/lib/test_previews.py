"""Previews (historyhub/history/previews.py): what fits is shown whole, what does not is cut to the limit and
ends in an ellipsis; the sessions list's preview of the last message follows the rule."""

from historyhub.history import item_log, sessions
from historyhub.lib import previews


def test_a_text_that_fits_is_shown_whole():
    assert previews.shortened("refund", 6) == "refund"


def test_a_longer_text_is_cut_to_the_limit_and_ends_in_an_ellipsis():
    assert previews.shortened("refund of 750 USD", 7) == "refund…"


def test_arguments_are_indented_json_cut_the_same_way():
    assert previews.arguments({"amount": 750}, 100) == '{\n  "amount": 750\n}'
    assert previews.arguments({"note": "x" * 50}, 20) == '{\n  "note": "xxxxxx…'


def test_the_last_message_preview_is_cut_with_an_ellipsis(session_id):
    item_log.append(session_id, [{"role": "user", "content": "a" * 1000}])

    preview = sessions.get(session_id).last_message

    assert len(preview) == previews.MESSAGE_CHARS and preview == "a" * (previews.MESSAGE_CHARS - 1) + "…"


def test_a_message_without_text_previews_as_the_kind_of_its_first_part(session_id):
    image = {"type": "input_image", "image_url": "https://example.com/a.png"}
    item_log.append(session_id, [{"role": "user", "content": [image]}])

    assert sessions.get(session_id).last_message == "[image]"


def test_after_a_pop_the_preview_is_the_earlier_message_cut_the_same_way(session_id):
    item_log.append(session_id, [{"role": "user", "content": "b" * 400}, {"role": "assistant", "content": "ok"}])

    item_log.pop(session_id)

    assert sessions.get(session_id).last_message == "b" * (previews.MESSAGE_CHARS - 1) + "…"
