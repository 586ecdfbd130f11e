"""Waiting for a condition by polling it, never by sleeping a guessed time; waiting for a wake-up, and telling
one from a timeout."""

import time

POLL_SECONDS = 0.02
# How long a test waits for a subscriber to wake, and the most a wake-up may take to count as one: a wake-up
# that never comes then fails the test instead of only slowing it down.
WAKE_SECONDS = 10
PROMPT_SECONDS = WAKE_SECONDS / 4


def until(condition, seconds=10, message="the condition"):
    """Poll ``condition`` until it is true, or fail after ``seconds``."""
    deadline = time.monotonic() + seconds
    while not (result := condition()):
        if time.monotonic() > deadline:
            raise AssertionError(f"{message} did not happen within {seconds} s")
        time.sleep(POLL_SECONDS)
    return result


async def woken(subscription, seconds=WAKE_SECONDS):
    """What a live subscription (historyhub.live) hears in one wait of ``seconds``; asserts it heard something and
    woke well before the wait's end (in under a quarter of it), rather than when the wait ran out."""
    started = time.monotonic()
    heard = await subscription.wait(seconds)
    elapsed = time.monotonic() - started
    assert elapsed < seconds / 4, f"woke only after {elapsed:.2f} s of a {seconds} s wait: the wake-up never came"
    assert heard, "woke with nothing heard"
    return heard
