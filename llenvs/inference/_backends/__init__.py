"""Backend implementations; make them with ``llenvs.inference.get_backend``."""
