from django.core.management.base import BaseCommand, CommandError

from historyhub.apikeys.models import ApiKey, Scope, parse_scopes


class Command(BaseCommand):
    help = "Create an API key and print it. The key is shown only this once."

    def add_arguments(self, parser):
        parser.add_argument("name")
        parser.add_argument(
            "--scope",
            default=Scope.WRITE,
            help=f"Comma-separated scopes of {', '.join(Scope.values)} (default: write). "
            "Agents need write; a client application or bot that decides client actions needs decide.",
        )

    def handle(self, *args, name, scope, **options):
        try:
            scopes = parse_scopes(scope)
        except ValueError as error:
            raise CommandError(str(error)) from None
        _, key = ApiKey.issue(name, scopes)
        self.stdout.write(key)
