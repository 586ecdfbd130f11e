"""Interleaved rounds and percentiles.

Contenders run one after the other within a round (or a sample), in an order
that rotates from one round to the next, so a burst of noise on this shared
machine, a warm cache or a checkpoint lands on each of them alike. Results
are medians (p50) and p90 of the samples.
"""

import statistics
import time


def rotated(names, index):
    shift = index % len(names)
    return names[shift:] + names[:shift]


def percentile(samples, fraction):
    """The nearest-rank percentile (0 < fraction <= 1) of the samples."""
    ordered = sorted(samples)
    rank = max(1, -(-len(ordered) * fraction // 1))
    return ordered[int(rank) - 1]


def median(samples):
    return statistics.median(samples)


def timed(call):
    started = time.perf_counter()
    call()
    return time.perf_counter() - started


def rounds(contenders, count):
    """Run each contender once a round for ``count`` rounds; returns {name: [seconds, …]}.

    A contender is a function of the round number that returns the seconds it
    measured itself (so set-up outside its timed part stays out). The first
    round runs them in the order given.
    """
    seconds = {name: [] for name in contenders}
    for index in range(count):
        for name in rotated(list(contenders), index):
            seconds[name].append(contenders[name](index))
    return seconds


# Fewer samples than this make a p90 little more than the slowest one.
FEW_SAMPLES = 10


def samples(calls, count, warmup=3, budget=None):
    """Time each call ``count`` times, interleaved; returns {name: [seconds, …]}.

    With a ``budget`` (seconds per call), a slow call stops being sampled once
    its samples add up to the budget, after at least three.
    """
    for call in calls.values():
        for _ in range(warmup):
            call()
    seconds = {name: [] for name in calls}
    for index in range(count):
        for name in rotated(list(calls), index):
            spent = seconds[name]
            if budget is not None and len(spent) >= 3 and sum(spent) >= budget:
                continue
            spent.append(timed(calls[name]))
    return seconds


def p50_p90(seconds):
    """{name: [seconds, …]} → ({name: p50}, {name: p90})."""
    return (
        {name: percentile(times, 0.5) for name, times in seconds.items()},
        {name: percentile(times, 0.9) for name, times in seconds.items()},
    )
