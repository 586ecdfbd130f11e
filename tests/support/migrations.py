"""Moving the test database between migration states, for tests of what an upgrade does to existing rows."""

from django.db import connection
from django.db.migrations.executor import MigrationExecutor


def migrate(targets):
    """Migrate to ``targets`` ((app, migration) pairs; a migration of None unapplies the app) and return the apps
    as they were then, for writing rows the way that version stored them."""
    executor = MigrationExecutor(connection)
    executor.migrate(targets)
    executor.loader.build_graph()
    return executor.loader.project_state([target for target in targets if target[1] is not None]).apps


def latest():
    """Every app's newest migration."""
    return MigrationExecutor(connection).loader.graph.leaf_nodes()
