"""``manage.py export --project P [--output FILE]``: the project's sessions as JSON Lines, as GET /api/v1/export
gives them, for operators moving a project between installations (docs/data.md). A progress line on standard
error while it runs, and the counts at the end."""

from django.core.management.base import BaseCommand, CommandError

from historyhub.data import export
from historyhub.data.progress import EVERY_SESSIONS, ProgressLine
from historyhub.data.schemas import ExportQuery
from historyhub.data.tallies import Tally
from historyhub.projects.models import Project

OPERATOR = "operator (manage.py)"


class Command(BaseCommand):
    help = "Write a project's sessions as JSON Lines (one session a line) to a file or standard output."

    def add_arguments(self, parser):
        parser.add_argument("--project", required=True, help="The project's id.")
        parser.add_argument("--output", help="The file to write; standard output without it.")
        add_progress_argument(parser)

    def handle(self, *args, project, output=None, progress_every=EVERY_SESSIONS, **options):
        if not Project.objects.filter(pk=project).exists():
            raise CommandError(f"There is no project {project!r}.")
        tally = Tally()
        progress = ProgressLine(self.stderr, "Exporting:", progress_every)
        pieces = export.audited(project, OPERATOR, ExportQuery(), tally, **({"output": output} if output else {}))
        target = open(output, "w", encoding="utf-8") if output else None  # noqa: SIM115 (closed below)
        try:
            for piece in pieces:
                if target is None:
                    self.stdout.write(piece, ending="")
                else:
                    target.write(piece)
                progress.update(tally)
        finally:
            progress.end()
            if target is not None:
                target.close()
        # On standard error: standard output may be the export itself.
        progress.say(f"Exported {tally.said()} of {project}{f' to {output}' if output else ''}.\n")


def add_progress_argument(parser):
    parser.add_argument(
        "--progress-every",
        type=int,
        default=EVERY_SESSIONS,
        metavar="N",
        help=f"Without a terminal, a progress line every N sessions (default {EVERY_SESSIONS}).",
    )
