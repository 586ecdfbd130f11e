"""``manage.py import --project P FILE``: recreate the sessions of an export in a project, in one transaction,
as POST /api/v1/import does (docs/data.md). ``-`` reads standard input. A progress line on standard error while
it runs, and the counts at the end."""

import sys

from django.core.management.base import BaseCommand, CommandError

from historyhub.data import importing
from historyhub.data.management.commands.export import OPERATOR, add_progress_argument
from historyhub.data.progress import EVERY_SESSIONS, ProgressLine
from historyhub.data.tallies import Tally
from historyhub.lib.errors import DomainError
from historyhub.projects.models import Project


class Command(BaseCommand):
    help = "Import the JSON Lines of an export into a project; nothing is imported if any line is refused."

    def add_arguments(self, parser):
        parser.add_argument("--project", required=True, help="The project's id.")
        parser.add_argument("file", help="The export's file, or - for standard input.")
        add_progress_argument(parser)

    def handle(self, *args, project, file, progress_every=EVERY_SESSIONS, **options):
        if not Project.objects.filter(pk=project).exists():
            raise CommandError(f"There is no project {project!r}.")
        tally = Tally()
        progress = ProgressLine(self.stderr, "Importing:", progress_every)
        source = sys.stdin if file == "-" else open(file, encoding="utf-8")  # noqa: SIM115 (closed below)
        try:
            for _ in importing.importing(project, source, actor=OPERATOR, tally=tally):
                progress.update(tally)
        except DomainError as error:
            raise CommandError(importing.refused(error.message)) from None
        except UnicodeDecodeError:
            raise CommandError(importing.refused("The file is not UTF-8 text.")) from None
        finally:
            progress.end()
            if source is not sys.stdin:
                source.close()
        self.stdout.write(f"Imported {tally.said()} into {project}.")
        for left_out in tally.not_kept():
            self.stdout.write(left_out)
