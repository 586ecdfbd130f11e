"""The measures, each a module with ``run(job, progress)`` returning table rows. Need Django set up."""

from django.core.management import call_command

from bench import hub, seed
from bench.measures import dashboard, history, ingest, reads, streaming, turn
from bench.sdk import SdkStore

MODULES = {
    "ingest": ingest,
    "turn": turn,
    "reads": reads,
    "history": history,
    "dashboard": dashboard,
    "streaming": streaming,
}


def run(name, job, progress):
    return MODULES[name].run(job, progress)


def seed_data_set(job, progress):
    """Migrate an empty database, seed it and its SDK twin; returns what the data set holds."""
    call_command("migrate", verbosity=0)
    sdk = SdkStore(job.backend, job.sdk_location)
    try:
        seed.seed(job.size, sdk, progress)
        return {**hub.data_set_facts(seed.BIG_SESSION), "sdk_bytes": sdk.database_bytes(), "sdk_name": sdk.name}
    finally:
        sdk.close()
