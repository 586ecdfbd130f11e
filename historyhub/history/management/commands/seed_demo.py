from django.contrib.auth.models import User
from django.core.management.base import BaseCommand
from django.db import transaction

from historyhub.apikeys.models import ApiKey
from historyhub.history.demo_data import write_demo
from historyhub.projects.keys import DEFAULT_PROJECT
from historyhub.projects.models import Membership, Role

DEMO_USERNAME = "demo"
DEMO_PASSWORD = "demo-password"
DEMO_KEY_NAME = "demo key (seed_demo)"


class Command(BaseCommand):
    help = "Load demo sessions, a demo login (an approver) and a fresh demo API key. Safe to run twice."

    def add_arguments(self, parser):
        parser.add_argument("--quiet-credentials", action="store_true", help="Do not print the login and key.")

    def handle(self, *args, quiet_credentials=False, **options):
        write_demo()
        with transaction.atomic():
            # A superuser, so the demo login can explore the admin too.
            user, created = User.objects.get_or_create(
                username=DEMO_USERNAME, defaults={"is_staff": True, "is_superuser": True}
            )
            if created:
                user.set_password(DEMO_PASSWORD)
                user.save()
            # A superuser is an admin of every project; the membership puts the demo project on its list too.
            Membership.objects.update_or_create(user=user, project_id=DEFAULT_PROJECT, defaults={"role": Role.ADMIN})
            # The key is shown only when made, so each run replaces the last demo key.
            ApiKey.objects.filter(name=DEMO_KEY_NAME).delete()
            _, key = ApiKey.issue(DEMO_KEY_NAME, "write")
        if not quiet_credentials:
            self.stdout.write(
                "\nHistoryHub demo is ready.\n"
                f"  Dashboard login: {DEMO_USERNAME} / {DEMO_PASSWORD}  (an approver and an admin)\n"
                f"  Demo API key:    {key}\n"
                "  Open http://127.0.0.1:8000/\n"
            )
