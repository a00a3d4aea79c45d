"""bough's tests. What several test modules share is in helpers.py (plain code) and
conftest.py (fixtures)."""

import pytest

# helpers.py asserts too: pytest rewrites its asserts as it does a test module's, so a
# failing helper reports the values it compared.
pytest.register_assert_rewrite("tests.helpers")
