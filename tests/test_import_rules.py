"""No app imports one above its own (docs/architecture.md, "Floors").

The rooms of ``historyhub/`` stand on floors; a module may import its own room and any room on a lower floor.
The edges that still run upward are listed, each with why, in ``UPWARD``: the test fails when a new one
appears, and when a listed one is gone (so the list only shrinks). Imports are read from the code (every
``import`` statement, at module level or inside a function: a lazy import is still a dependency); migrations
are left out, as they are frozen history.
"""

import ast
from pathlib import Path

import historyhub

PACKAGE = Path(historyhub.__file__).parent

# Bottom to top. Project-level modules that import no app (faults, streaming, …) are part of the floor.
FLOORS = [
    {"lib", "faults", "streaming", "redaction", "encryption", "middleware", "postgresql", "formats", "databases"},
    {"audit", "live"},
    {"apikeys"},
    {"projects"},
    {"idempotency", "serving"},
    {"history"},
    {"approvals", "runs"},
    {"notifications"},
    {"data", "insights", "sso"},
    {"upkeep", "demo"},
    {"dashboard"},
    {"api", "urls", "asgi", "settings", "wsgi"},
]
FLOOR = {room: level for level, rooms in enumerate(FLOORS) for room in rooms}

# Upward edges that remain, and why: (importing room, imported room) -> reason. None: every room imports only its
# own floor and the floors below.
UPWARD: dict[tuple[str, str], str] = {}


def room_of(module):
    """The room of a dotted module name inside historyhub, or None outside it."""
    parts = module.split(".")
    if parts[0] != "historyhub" or len(parts) < 2:
        return None
    return parts[1]


def imports():
    """(importing room, imported room, where) for every import between two rooms."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE.parent)
        if "migrations" in relative.parts:
            continue
        source = room_of(".".join(relative.with_suffix("").parts))
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module] if node.module != "historyhub" else [f"historyhub.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                continue
            for name in names:
                target = room_of(name)
                if target and source and target != source:
                    found.append((source, target, f"{relative}:{node.lineno}"))
    return found


def test_every_room_has_a_floor():
    rooms = {path.stem if path.is_file() else path.name for path in PACKAGE.iterdir()}
    rooms = {room for room in rooms if not room.startswith("__")}
    assert rooms - FLOOR.keys() == set()


def test_no_room_imports_one_above_its_own_but_the_listed_edges():
    upward = {}
    for source, target, where in imports():
        if FLOOR[target] > FLOOR[source]:
            upward.setdefault((source, target), []).append(where)
    unlisted = {edge: places for edge, places in upward.items() if edge not in UPWARD}
    assert unlisted == {}, "new upward imports: move the code down, or invert the dependency"
    assert set(UPWARD) - set(upward) == set(), "listed edges that are gone: remove them from UPWARD"


def test_rooms_on_one_floor_do_not_import_each_other_both_ways():
    edges = {(source, target) for source, target, _ in imports() if FLOOR[source] == FLOOR[target]}
    assert {(a, b) for a, b in edges if (b, a) in edges} == set()
