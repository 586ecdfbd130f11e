"""Percentiles of durations in seconds, grouped: ``percentile_cont`` on PostgreSQL, the same interpolation computed
exactly in Python on SQLite, which has no percentile function (docs/insights.md, "Percentiles")."""

from collections import defaultdict
from dataclasses import dataclass

from django.db import connection
from django.db.models import DurationField, ExpressionWrapper, F, FloatField, Func, QuerySet


@dataclass(frozen=True)
class Durations:
    count: int
    p50: float | None
    p90: float | None
    max: float | None


NONE = Durations(0, None, None, None)
# julianday's float arithmetic is off by microseconds: every duration is told to the millisecond.
DIGITS = 3


def measured(count: int, p50: float | None, p90: float | None, longest: float | None) -> Durations:
    return Durations(count, *(None if value is None else round(value, DIGITS) for value in (p50, p90, longest)))


class EpochSeconds(Func):
    """A duration in seconds as a float, on PostgreSQL: ``date_part``, a double, not ``EXTRACT``, which answers a
    numeric since PostgreSQL 14; computing, sorting and comparing numerics made a range's percentiles a third
    slower (docs/insights.md, "Performance")."""

    template = "date_part('epoch', %(expressions)s)"
    output_field = FloatField()


class JulianSeconds(Func):
    """``end - start`` in seconds as a float, on SQLite (julianday counts days): the two expressions are end and
    start, joined into julianday(end) - julianday(start)."""

    template = "((julianday(%(expressions)s)) * 86400.0)"
    arg_joiner = ") - julianday("
    output_field = FloatField()


def seconds_between(start: str, end: str) -> Func:
    if connection.vendor == "postgresql":
        return EpochSeconds(ExpressionWrapper(F(end) - F(start), output_field=DurationField()))
    return JulianSeconds(F(end), F(start))


def interpolated(ordered: list[float], fraction: float) -> float:
    """``percentile_cont``: linear interpolation between the two values around rank fraction * (n - 1)."""
    rank = fraction * (len(ordered) - 1)
    low = int(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def of_values(values: list[float]) -> Durations:
    if not values:
        return NONE
    ordered = sorted(values)
    return measured(len(ordered), interpolated(ordered, 0.5), interpolated(ordered, 0.9), ordered[-1])


Measured = dict[tuple[str, ...], dict[tuple, Durations]]


def grouping_sets(rows: QuerySet, seconds: str, *sets: tuple[str, ...]) -> Measured:
    """Count, p50, p90 and max of the ``seconds`` column of ``rows`` (a values() queryset) per value of each
    grouping set in one pass over the rows: on PostgreSQL one ``GROUP BY GROUPING SETS`` query around the rows'
    own query, elsewhere the rows read once and every set's durations collected from them. Answers, per set, the
    durations per key (``()`` for the set of no fields)."""
    found: Measured = {fields: {} for fields in sets}
    if connection.vendor == "postgresql":
        sql, params = rows.query.sql_with_params()
        names = sorted({name for fields in sets for name in fields})
        # GROUPING(a, b, ...) is a bit mask of the fields a row is not grouped by: it tells which set a row is of.
        mask = f"GROUPING({', '.join(names)})" if names else "0"
        listed = ", ".join(f"({', '.join(fields)})" for fields in sets)
        query = (
            f"SELECT {', '.join([*names, mask])}, COUNT(*), "  # noqa: S608 (names are the caller's field names)
            f"percentile_cont(0.5) WITHIN GROUP (ORDER BY {seconds}), "
            f"percentile_cont(0.9) WITHIN GROUP (ORDER BY {seconds}), MAX({seconds}) "
            f"FROM ({sql}) AS measured GROUP BY GROUPING SETS ({listed})"
        )
        bits = {fields: _mask(names, fields) for fields in sets}
        with connection.cursor() as cursor:
            cursor.execute(query, params)
            for *values, grouping, count, p50, p90, longest in cursor.fetchall():
                by_name = dict(zip(names, values, strict=True))
                for fields, bit in bits.items():
                    if bit == grouping:
                        found[fields][tuple(by_name[name] for name in fields)] = measured(count, p50, p90, longest)
        return found
    collected: dict[tuple[str, ...], dict[tuple, list[float]]] = {fields: defaultdict(list) for fields in sets}
    for row in rows.order_by().iterator():
        for fields in sets:
            collected[fields][tuple(row[name] for name in fields)].append(row[seconds])
    return {fields: {key: of_values(values) for key, values in by_key.items()} for fields, by_key in collected.items()}


def _mask(names: list[str], fields: tuple[str, ...]) -> int:
    """GROUPING()'s value for a row of the set ``fields``: bit i (from the right) set for each name not in it."""
    return sum(1 << (len(names) - 1 - index) for index, name in enumerate(names) if name not in fields)
