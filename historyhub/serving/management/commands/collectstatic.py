"""Django's collectstatic, which also stamps STATIC_ROOT with what it collected, and with ``--if-stale``
collects only when that stamp no longer matches the sources or the manifest is missing
(historyhub.serving.static_files; ``bin/start`` runs it so)."""

from django.contrib.staticfiles.management.commands import collectstatic

from historyhub.serving import static_files


class Command(collectstatic.Command):
    help = collectstatic.Command.help + " With --if-stale, only when the sources changed since the last collection."

    def add_arguments(self, parser):
        super().add_arguments(parser)
        parser.add_argument(
            "--if-stale",
            action="store_true",
            help="Collect only when the static files are missing or their sources changed since they were collected.",
        )

    def handle(self, **options):
        stamp = static_files.sources_stamp()
        if options["if_stale"] and static_files.collected() and static_files.collected_stamp() == stamp:
            if options["verbosity"] >= 1:
                self.stdout.write("The static files are current: nothing to collect.")
            return ""
        summary = super().handle(**options)
        if not options["dry_run"]:
            static_files.record_stamp(stamp)
        return summary
