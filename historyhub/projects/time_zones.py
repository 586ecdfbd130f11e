"""A person's time zone (docs/dashboard.md, "Times"): the one they chose on their profile, else none, and the
dashboard shows times in the browser's own."""

from functools import cache
from zoneinfo import available_timezones

from django.db import transaction

from historyhub.lib.errors import InvalidInput
from historyhub.projects.models import PersonSettings

# The regions of the IANA database; its other names (US/Eastern, Etc/GMT+3, Zulu …) are aliases or traps.
REGIONS = ("Africa", "America", "Antarctica", "Arctic", "Asia", "Atlantic", "Australia", "Europe", "Indian", "Pacific")


@cache
def choices() -> tuple[str, ...]:
    """The zones a person may choose, sorted: UTC and every Region/City this server's zone database knows."""
    known = available_timezones()
    regional = sorted(zone for zone in known if zone.split("/", 1)[0] in REGIONS and "/" in zone)
    return ("UTC", *regional) if "UTC" in known else tuple(regional)


def chosen(user) -> str:
    """The zone ``user`` chose, or "" (the browser's)."""
    if not user.is_authenticated:
        return ""
    zone = PersonSettings.objects.filter(user=user).values_list("time_zone", flat=True).first() or ""
    # A zone the server no longer knows (its database was updated) reads as none.
    return zone if zone in choices() else ""


def choose(user, zone: str) -> None:
    """Make ``zone`` (one of ``choices()``, or "" for the browser's) the zone ``user``'s times show in."""
    if zone and zone not in choices():
        raise InvalidInput(f"{zone!r} is not a time zone this server knows; choose one from the list.")
    with transaction.atomic():
        PersonSettings.objects.update_or_create(user=user, defaults={"time_zone": zone})
