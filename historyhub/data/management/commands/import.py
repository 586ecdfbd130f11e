"""``manage.py import --project P FILE``: recreate the sessions of an export in a project, in one transaction,
as POST /api/v1/import does (docs/data.md). ``-`` reads standard input."""

import sys

from django.core.management.base import BaseCommand, CommandError

from historyhub.data import audit, importing
from historyhub.data.management.commands.export import OPERATOR
from historyhub.history.errors import DomainError
from historyhub.projects.models import Project


class Command(BaseCommand):
    help = "Import the JSON Lines of an export into a project; nothing is imported if any line is refused."

    def add_arguments(self, parser):
        parser.add_argument("--project", required=True, help="The project's id.")
        parser.add_argument("file", help="The export's file, or - for standard input.")

    def handle(self, *args, project, file, **options):
        if not Project.objects.filter(pk=project).exists():
            raise CommandError(f"There is no project {project!r}.")
        source = sys.stdin if file == "-" else open(file, encoding="utf-8")  # noqa: SIM115 (closed below)
        try:
            imported = importing.import_lines(
                project,
                source,
                on_done=lambda count: audit.record(project, OPERATOR, audit.Action.IMPORT, sessionsImported=count),
            )
        except DomainError as error:
            raise CommandError(error.message) from None
        finally:
            if source is not sys.stdin:
                source.close()
        self.stdout.write(f"Imported {imported} sessions into {project}.")
