"""Which model and PRM a page uses, the settings that name them, and the pool of loaded models."""

from llenvs.workbench.models._model_choice import ModelChoice, ModelKind, own_model
from llenvs.workbench.models._model_pool import (
    MAX_MODELS_ENV,
    Lease,
    PoolKey,
    max_models,
    pool_spec,
    shared_pool,
)
from llenvs.workbench.models._prm_choice import (
    DEFAULT_BASE_URL,
    PRM_CHOICES,
    SERVED_PRM,
    PRMChoice,
    describe_choice,
)
from llenvs.workbench.models._settings_store import (
    MAX_MODELS_LIMIT,
    SETTINGS_FILE,
    Settings,
    load_settings,
    save_settings,
)

__all__ = [
    "DEFAULT_BASE_URL",
    "MAX_MODELS_ENV",
    "MAX_MODELS_LIMIT",
    "PRM_CHOICES",
    "SERVED_PRM",
    "SETTINGS_FILE",
    "Lease",
    "ModelChoice",
    "ModelKind",
    "PRMChoice",
    "PoolKey",
    "Settings",
    "describe_choice",
    "load_settings",
    "max_models",
    "own_model",
    "pool_spec",
    "save_settings",
    "shared_pool",
]
