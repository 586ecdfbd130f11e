from django.apps import AppConfig


class HistoryConfig(AppConfig):
    name = "historyhub.history"
    label = "history"
    verbose_name = "History"

    def ready(self) -> None:
        from historyhub.history.models import ClientAction
        from historyhub.live import expiry

        # Live tells open pages when a client action comes to read expired without importing history, which sits
        # above it: the actions to watch are handed down here.
        expiry.watch_expiries_of(ClientAction)
