"""Time as the API shows it: parsing its timestamps, and the server time around a block."""

from datetime import datetime

from django.utils import timezone


def parse_time(text):
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


class ServerClock:
    """The server time around a block, to the millisecond the API shows."""

    def __enter__(self):
        now = timezone.now()
        self.before = now.replace(microsecond=now.microsecond // 1000 * 1000)
        return self

    def __exit__(self, *exc_info):
        self.after = timezone.now()

    def saw(self, moment):
        return self.before <= moment <= self.after
