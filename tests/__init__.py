"""Gradwalk's tests, in folders by what they cover; what they share is in tests.support."""

import pytest

# The shared helpers assert too: pytest rewrites their asserts as it does the tests', so
# that a failure inside one shows the values compared.
pytest.register_assert_rewrite("tests.support")
