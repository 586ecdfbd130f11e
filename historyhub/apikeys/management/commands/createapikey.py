from django.core.management.base import BaseCommand

from historyhub.apikeys.models import ApiKey, Scope


class Command(BaseCommand):
    help = "Create an API key and print it. The key is shown only this once."

    def add_arguments(self, parser):
        parser.add_argument("name")
        parser.add_argument("--scope", choices=Scope.values, default=Scope.WRITE)

    def handle(self, *args, name, scope, **options):
        _, key = ApiKey.issue(name, scope)
        self.stdout.write(key)
