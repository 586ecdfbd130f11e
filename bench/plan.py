"""What a run measures and at what size: the full set, or ``--quick`` for CI and development."""

from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class Sizes:
    name: str  # full or quick: each keeps its own cached data set
    ingest_items: int  # spread over HTTP_CLIENTS sessions, the same items for every contender
    batch: int
    rounds: int
    big_items: int  # the long session that reads, history pages and streaming use
    dashboard_base: int  # sessions seeded through the domain …
    dashboard_copies: int  # … and copied this many times in all (the base set counts as one)
    waiting_actions: int
    samples: int  # per latency measure, interleaved
    dashboard_samples: int
    budget: float  # seconds of samples at most for one slow page (history, dashboard)
    stream_repeats: int

    def as_json(self):
        return asdict(self)

    @property
    def data_set(self):
        """The sizes the seeded data set depends on."""
        return (self.name, self.big_items, self.dashboard_base, self.dashboard_copies, self.waiting_actions)


FULL = Sizes(
    name="full",
    ingest_items=20_000,
    batch=100,
    rounds=3,
    big_items=250_000,
    dashboard_base=1_000,
    dashboard_copies=100,
    waiting_actions=1_000,
    samples=200,
    dashboard_samples=40,
    budget=6.0,
    stream_repeats=3,
)
QUICK = Sizes(
    name="quick",
    ingest_items=800,
    batch=100,
    rounds=1,
    big_items=1_000,
    dashboard_base=40,
    dashboard_copies=3,
    waiting_actions=10,
    samples=10,
    dashboard_samples=5,
    budget=2.0,
    stream_repeats=1,
)

HTTP_CLIENTS = 8
PAGE_SIZE = 50
READ_LIMIT = 50

# name: (backends it runs on in a full run, whether it needs the production server)
MEASURES = {
    "ingest": (("postgresql", "sqlite"), True),
    "turn": (("postgresql",), True),
    "reads": (("postgresql", "sqlite"), True),
    "history": (("postgresql",), True),
    "dashboard": (("postgresql",), False),
    "streaming": (("postgresql",), True),
}


@dataclass
class Job:
    """What a measuring process is told, as JSON: the measures to run in it, or "seed"."""

    measures: list
    backend: str
    sizes: dict
    sdk_location: str
    # The production server the HTTP measures talk to; None on a backend whose run serves nothing.
    server_url: str | None = None
    server_pid: int | None = None

    @property
    def size(self):
        return Sizes(**self.sizes)
