"""The access world's fixture (tests/integration/access/conftest.py), for the data products' grants."""

from tests.integration.access.conftest import access  # noqa: F401
