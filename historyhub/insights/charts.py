"""Tables and the SVG charts drawn from them on the server (docs/insights.md, "The page").

A ``Table`` is what a chart shows, as rows a screen reader reads and a CSV downloads; ``draw`` turns the columns
it charts into bar geometry in a fixed viewBox that the template scales to any width. Colours come from CSS
classes, so the light and dark themes colour them."""

from dataclasses import dataclass, field

WIDTH = 640
HEIGHT = 200
# Room for the value axis' labels on the left and the category labels below.
LEFT = 48
BOTTOM = 24
TOP = 8
ROW_HEIGHT = 22
LABEL_WIDTH = 170


@dataclass
class Table:
    key: str
    title: str
    headers: list[str]
    rows: list[list[object]]
    charted: list[int]  # the columns drawn, as indices into headers
    kind: str = "columns"  # "columns" over time, "bars" per category
    links: list[str] = field(default_factory=list)  # per row: where its bar leads, "" for nowhere
    description: str = ""


@dataclass(frozen=True)
class Bar:
    x: float
    y: float
    width: float
    height: float
    series: int
    label: str
    value: object
    href: str


@dataclass(frozen=True)
class Tick:
    y: float
    label: str


@dataclass(frozen=True)
class Label:
    x: float
    y: float
    text: str
    anchor: str = "start"


@dataclass
class Chart:
    width: int
    height: int
    bars: list[Bar]
    ticks: list[Tick]
    labels: list[Label]
    legend: list[str]
    empty: bool

    @property
    def linked(self) -> bool:
        """Whether a bar leads somewhere: such a chart is a group of links, not one image (which may hold none)."""
        return any(bar.href for bar in self.bars)


def _number(value: object) -> float:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0.0


def _short(value: float) -> str:
    if value >= 1_000_000:
        return f"{value / 1_000_000:.1f}M"
    if value >= 1000:
        return f"{value / 1000:.1f}k"
    return f"{value:g}" if value == int(value) else f"{value:.2f}"


def draw(table: Table) -> Chart:
    return _bars(table) if table.kind == "bars" else _columns(table)


def _columns(table: Table) -> Chart:
    """Grouped vertical bars, one group per row (a bucket of time), labelled every few groups."""
    values = [[_number(row[index]) for index in table.charted] for row in table.rows]
    top = max((value for group in values for value in group), default=0.0)
    plot_width, plot_height = WIDTH - LEFT, HEIGHT - BOTTOM - TOP
    slot = plot_width / max(1, len(values))
    bar_width = max(1.0, slot * 0.8 / len(table.charted))
    bars, labels = [], []
    every = max(1, len(values) // 6)
    for group, (row, numbers) in enumerate(zip(table.rows, values, strict=True)):
        for series, value in enumerate(numbers):
            height = plot_height * value / top if top else 0.0
            x = LEFT + group * slot + slot * 0.1 + series * bar_width
            link = table.links[group] if table.links else ""
            bars.append(
                Bar(
                    x,
                    TOP + plot_height - height,
                    bar_width,
                    height,
                    series,
                    str(row[0]),
                    row[table.charted[series]],
                    link,
                )
            )
        if group % every == 0:
            labels.append(Label(LEFT + group * slot, HEIGHT - 6, str(row[0])[5:16].replace("T", " ")))
    ticks = [Tick(TOP + plot_height * (1 - part / 4), _short(top * part / 4)) for part in range(5)] if top else []
    legend = [table.headers[index] for index in table.charted]
    return Chart(WIDTH, HEIGHT, bars, ticks, labels, legend, empty=not top)


def _bars(table: Table) -> Chart:
    """Horizontal bars, one row per category, its name on the left: readable on a phone, however long."""
    index = table.charted[0]
    values = [_number(row[index]) for row in table.rows]
    top = max(values, default=0.0)
    height = TOP + ROW_HEIGHT * max(1, len(values))
    plot_width = WIDTH - LABEL_WIDTH - 60
    bars, labels = [], []
    for place, (row, value) in enumerate(zip(table.rows, values, strict=True)):
        y = TOP + place * ROW_HEIGHT
        width = plot_width * value / top if top else 0.0
        link = table.links[place] if table.links else ""
        bars.append(Bar(LABEL_WIDTH, y + 3, width, ROW_HEIGHT - 6, 0, str(row[0]), row[index], link))
        labels.append(Label(LABEL_WIDTH - 6, y + ROW_HEIGHT / 2 + 4, str(row[0])[:28], "end"))
        labels.append(Label(LABEL_WIDTH + width + 6, y + ROW_HEIGHT / 2 + 4, _short(value)))
    return Chart(WIDTH, height, bars, [], labels, [table.headers[index]], empty=not top)
