"""Waiting for a condition by polling it, never by sleeping a guessed time."""

import time

POLL_SECONDS = 0.02


def until(condition, seconds=10, message="the condition"):
    """Poll ``condition`` until it is true, or fail after ``seconds``; its true value."""
    deadline = time.monotonic() + seconds
    while not (result := condition()):
        if time.monotonic() > deadline:
            raise AssertionError(f"{message} did not happen within {seconds} s")
        time.sleep(POLL_SECONDS)
    return result
