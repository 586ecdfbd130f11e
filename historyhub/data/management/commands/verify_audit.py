"""Recompute every project's audit chain (docs/data.md, "The chain"): exits 1 naming, by its seq, the first row
that was changed, removed or inserted."""

from argparse import ArgumentParser

from django.core.management.base import BaseCommand, CommandError

from historyhub.audit import chain
from historyhub.projects.models import Project


class Command(BaseCommand):
    help = (
        "Recompute each project's audit log hash chain; exits non-zero naming the first row (by seq) that was "
        "changed, removed or inserted."
    )

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("--project", metavar="P", help="Only this project (its id).")

    def handle(self, *args: str, project: str | None = None, **options: object) -> None:
        projects = Project.objects.order_by("pk").values_list("pk", flat=True)
        if project is not None:
            projects = projects.filter(pk=project)
            if not projects.exists():
                raise CommandError(f"There is no project {project!r}.")
        broken = []
        for each in projects:
            verdict = chain.verify(each)
            line = f"{each}: {verdict}"
            if verdict.intact:
                self.stdout.write(line)
            else:
                self.stderr.write(line)
                broken.append(line)
        if broken:
            raise CommandError(f"The audit log was changed: {'; '.join(broken)}.")
