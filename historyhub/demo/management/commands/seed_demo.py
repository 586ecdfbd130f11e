from django.conf import settings
from django.contrib.auth.models import User
from django.core.management.base import BaseCommand
from django.db import transaction

from historyhub.apikeys.models import ApiKey
from historyhub.demo.decided_week import DEMO_USERNAME, TEAMMATES
from historyhub.demo.demo_data import write_demo
from historyhub.lib.session_keys import DEFAULT_PROJECT
from historyhub.projects.models import Membership, Role

DEMO_PASSWORD = "demo-password"
DEMO_KEY_NAME = "demo key (seed_demo)"
# With DEBUG on (make run), the demo key is kept in the development data directory, so an agent configured
# with it keeps working across runs. Only its hash is in the database; the file is the one copy in clear.
DEMO_KEY_FILE = "demo-api-key"


def kept_demo_key():
    """The demo key kept by an earlier run, while it is still active; None without one (or with DEBUG off)."""
    if not settings.DEBUG:
        return None
    path = settings.DATA_DIR / DEMO_KEY_FILE
    if not path.is_file():
        return None
    key = path.read_text().strip()
    api_key = ApiKey.authenticate(key)
    return key if api_key is not None and api_key.name == DEMO_KEY_NAME else None


def keep_demo_key(key):
    if settings.DEBUG:
        path = settings.DATA_DIR / DEMO_KEY_FILE
        path.write_text(key + "\n")
        path.chmod(0o600)


class Command(BaseCommand):
    help = (
        "Load demo sessions, a demo login (an admin) and a demo API key (kept across runs with DEBUG on, "
        "else made anew). Safe to run twice."
    )

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
            for username in TEAMMATES:
                # The demo's other deciders (its week of decisions names them): members who cannot log in.
                teammate, created = User.objects.get_or_create(username=username)
                if created:
                    teammate.set_unusable_password()
                    teammate.save()
                Membership.objects.get_or_create(
                    user=teammate, project_id=DEFAULT_PROJECT, defaults={"role": Role.APPROVER}
                )
            key = kept_demo_key()
            if key is None:
                # A key is shown only when made: without a kept one, this run replaces the last demo key.
                ApiKey.objects.filter(name=DEMO_KEY_NAME).delete()
                _, key = ApiKey.issue(DEMO_KEY_NAME, "write")
                keep_demo_key(key)
        if not quiet_credentials:
            self.stdout.write(
                "\nHistoryHub demo is ready.\n"
                f"  Dashboard login: {DEMO_USERNAME} / {DEMO_PASSWORD}  (an admin of every project)\n"
                f"  Demo API key:    {key}\n"
                "  Open http://127.0.0.1:8000/\n"
            )
