"""The table: one row a measure, HistoryHub beside the alternative, and their ratio."""

from dataclasses import asdict, dataclass, field


@dataclass
class Row:
    measure: str
    hub: str
    alternative: str = ""
    ratio: str = ""
    # A target of the issue this row is judged by, and whether this run met it.
    target: str = ""
    met: bool | None = None
    notes: list = field(default_factory=list)

    def as_json(self):
        return asdict(self)


def throughput(items_per_second):
    return f"{items_per_second:,.0f} items/s"


def milliseconds(seconds):
    value = seconds * 1000
    return f"{value:,.1f} ms" if value >= 10 else f"{value:.2f} ms"


def spread(p50, p90):
    return f"{milliseconds(p50)} (p90 {milliseconds(p90)})"


def megabytes(count):
    return f"{count / 2**20:,.1f} MB"


def ratio(hub, alternative):
    """HistoryHub's number over the alternative's: above 1× is more throughput, or more latency."""
    if not alternative:
        return ""
    value = hub / alternative
    return f"{value:.2f}×" if value < 10 else f"{value:,.0f}×"


def table(rows):
    """A markdown table whose columns line up in a terminal too."""
    header = ("measure", "HistoryHub", "alternative", "ratio")
    cells = [header, *[(row.measure, row.hub, row.alternative, row.ratio) for row in rows]]
    widths = [max(len(line[column]) for line in cells) for column in range(len(header))]

    def line(values):
        return "| " + " | ".join(value.ljust(width) for value, width in zip(values, widths, strict=True)) + " |"

    separator = "|" + "|".join("-" * (width + 2) for width in widths) + "|"
    return "\n".join([line(header), separator, *[line(values) for values in cells[1:]]])


def document(title, header_lines, rows, method_notes):
    """The whole report: title, machine, the table, its notes and the targets."""
    parts = [f"### {title}", "", *[f"- {line}" for line in header_lines], "", table(rows)]
    notes = [note for row in rows for note in row.notes]
    if notes or method_notes:
        parts += ["", "Notes:", "", *[f"- {note}" for note in [*method_notes, *notes]]]
    targets = [row for row in rows if row.target]
    if targets:
        parts += ["", "Targets:", ""]
        parts += [f"- {'met' if row.met else 'MISSED'}: {row.measure}: {row.target}" for row in targets]
    return "\n".join(parts) + "\n"
