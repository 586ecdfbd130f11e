from django.apps import AppConfig


class ProjectsConfig(AppConfig):
    name = "historyhub.projects"
    label = "projects"
    verbose_name = "Projects"
