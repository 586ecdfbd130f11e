from django.core.management.base import BaseCommand, CommandError

from historyhub.lib.errors import InvalidInput
from historyhub.projects import administration


class Command(BaseCommand):
    help = "Create a project (its id follows the session id rules). Give it keys with createapikey --project."

    def add_arguments(self, parser):
        parser.add_argument("project_id")
        parser.add_argument("--name", default=None, help="Its name as people see it (default: the id).")

    def handle(self, *args, project_id, name, **options):
        try:
            project = administration.create_project(project_id, name)
        except InvalidInput as error:
            raise CommandError(error.message) from None
        self.stdout.write(f"Created the project {project.id!r}.")
