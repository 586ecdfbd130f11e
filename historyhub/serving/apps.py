from django.apps import AppConfig


class ServingConfig(AppConfig):
    name = "historyhub.serving"
    label = "serving"
    verbose_name = "Serving"

    def ready(self) -> None:
        from historyhub.live import holds
        from historyhub.serving.models import Hold

        # Live counts the waits and streams open across the installation (its caps) without importing serving,
        # which sits above it: the table that keeps them is serving's, handed down here.
        holds.kept_in(Hold)
