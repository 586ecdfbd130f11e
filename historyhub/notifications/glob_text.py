"""Globs as a person types them in one box, for a channel's agents and actions (the channels page, the admin)."""


def words(text):
    """The globs in ``text``, separated by spaces or commas."""
    return [word for word in text.replace(",", " ").split() if word]
