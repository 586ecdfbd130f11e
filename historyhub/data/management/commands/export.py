"""``manage.py export --project P [--output FILE]``: the project's sessions as JSON Lines, as GET /api/v1/export
gives them, for operators moving a project between installations (docs/data.md)."""

import sys

from django.core.management.base import BaseCommand, CommandError

from historyhub.data import audit, export
from historyhub.projects.models import Project

OPERATOR = "operator (manage.py)"


class Command(BaseCommand):
    help = "Write a project's sessions as JSON Lines (one session a line) to a file or standard output."

    def add_arguments(self, parser):
        parser.add_argument("--project", required=True, help="The project's id.")
        parser.add_argument("--output", help="The file to write; standard output without it.")

    def handle(self, *args, project, output=None, **options):
        if not Project.objects.filter(pk=project).exists():
            raise CommandError(f"There is no project {project!r}.")
        audit.record(project, OPERATOR, audit.Action.EXPORT, **({"output": output} if output else {}))
        target = open(output, "w", encoding="utf-8") if output else sys.stdout  # noqa: SIM115 (closed below)
        try:
            for piece in export.lines(export.selected(project)):
                target.write(piece)
        finally:
            if output:
                target.close()
