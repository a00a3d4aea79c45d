"""bough's tests. What several test modules share is in the helpers package (plain
code, one module per concern) and conftest.py (fixtures)."""

import pytest

# The helpers assert too: pytest rewrites their asserts (every module of the package) as
# it does a test module's, so a failing helper reports the values it compared.
pytest.register_assert_rewrite("tests.helpers")
