from django.apps import AppConfig


class ProjectsConfig(AppConfig):
    name = "historyhub.projects"
    label = "projects"
    verbose_name = "Projects"

    def ready(self):
        # A person deactivated is signed out everywhere, whatever saved them.
        from historyhub.projects import deactivation  # noqa: F401
