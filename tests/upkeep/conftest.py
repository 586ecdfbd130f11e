"""The upkeep tests share the data tests' second project, ``acme``."""

from tests.data.conftest import acme  # noqa: F401 (a fixture)
