from django.core.management.base import BaseCommand, CommandError

from historyhub.apikeys.models import ApiKey, Scope, parse_scopes
from historyhub.lib.session_keys import DEFAULT_PROJECT
from historyhub.projects.models import Project


class Command(BaseCommand):
    help = "Create an API key of a project and print it. The key is shown only this once."

    def add_arguments(self, parser):
        parser.add_argument("name")
        parser.add_argument(
            "--scope",
            default=Scope.WRITE,
            help=f"Comma-separated scopes of {', '.join(Scope.values)} (default: write). "
            "Agents need write; a client application or bot that decides client actions needs decide.",
        )
        parser.add_argument(
            "--project",
            default=DEFAULT_PROJECT,
            help=f"The project the key acts in (default: {DEFAULT_PROJECT}); createproject makes one.",
        )

    def handle(self, *args, name, scope, project, **options):
        try:
            scopes = parse_scopes(scope)
        except ValueError as error:
            raise CommandError(str(error)) from None
        if not Project.objects.filter(pk=project).exists():
            raise CommandError(f"There is no project {project!r}: create it with manage.py createproject {project}.")
        _, key = ApiKey.issue(name, scopes, project=project)
        self.stdout.write(key)
