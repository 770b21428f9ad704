"""The views' tests share the app tests' browser (Debian's chromium, one per test module)."""

from tests.app.conftest import browser

__all__ = ["browser"]
