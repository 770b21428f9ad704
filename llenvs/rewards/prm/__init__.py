"""Process reward models: the contract, the PRMs, and their scores of traces.

The PRM contract (a question's steps in, a judgement per step out) and how step scores become one
number; the built-in PRMs (arithmetic, judge, transformers, vLLM, any text scorer), the two
published ways a model PRM reads a trace, PRMs by name, any PRM as a process reward, which PRM
scored a trace, and one PRM's step scores of a file's traces (stored, or scored now).
``TransformersPRM`` is imported on first use: its module imports torch, the rest of the face
does not.
"""

from typing import TYPE_CHECKING

from llenvs.rewards.prm._aggregation import Aggregation, aggregate
from llenvs.rewards.prm._arithmetic import ArithmeticPRM
from llenvs.rewards.prm._contract import (
    NEUTRAL_SCORE,
    PRM,
    BatchPRM,
    JudgingPRM,
    judge_traces,
    score_traces,
)
from llenvs.rewards.prm._conventions import (
    CONVENTIONS,
    MathShepherd,
    PRMConvention,
    QwenMathPRM,
    convention_from_name,
)
from llenvs.rewards.prm._judge import JUDGE_SYSTEM_PROMPT, JudgePRM
from llenvs.rewards.prm._judge_verdict import read_verdict
from llenvs.rewards.prm._provenance import (
    describe_prm,
    prm_provenance,
    provenance_of,
    recorded_prm_rewards,
)
from llenvs.rewards.prm._registry import (
    PRM_NAMES,
    PRMFactory,
    build_prm,
    build_prm_rewards,
    get_prm,
    prm_rewards,
    register_prm,
)
from llenvs.rewards.prm._reward_function import PRM_REWARD_NAME, UNRATED_KEY, PRMRewardFunction
from llenvs.rewards.prm._scores import (
    PRMScores,
    stored_names,
    stored_scores,
    with_prm_scores,
    with_step_scores,
)
from llenvs.rewards.prm._step_judgement import StepJudgement
from llenvs.rewards.prm._text_scorer import TextScorer, TextScorerPRM
from llenvs.rewards.prm._vllm import DEFAULT_BASE_URL, PRM_BASE_URL_ENV, VllmPRM

__all__ = [
    "CONVENTIONS",
    "DEFAULT_BASE_URL",
    "JUDGE_SYSTEM_PROMPT",
    "NEUTRAL_SCORE",
    "PRM",
    "PRM_BASE_URL_ENV",
    "PRM_NAMES",
    "PRM_REWARD_NAME",
    "UNRATED_KEY",
    "Aggregation",
    "ArithmeticPRM",
    "BatchPRM",
    "JudgePRM",
    "JudgingPRM",
    "MathShepherd",
    "PRMConvention",
    "PRMFactory",
    "PRMRewardFunction",
    "PRMScores",
    "QwenMathPRM",
    "StepJudgement",
    "TextScorer",
    "TextScorerPRM",
    "TransformersPRM",
    "VllmPRM",
    "aggregate",
    "build_prm",
    "build_prm_rewards",
    "convention_from_name",
    "describe_prm",
    "get_prm",
    "judge_traces",
    "prm_provenance",
    "prm_rewards",
    "provenance_of",
    "read_verdict",
    "recorded_prm_rewards",
    "register_prm",
    "score_traces",
    "stored_names",
    "stored_scores",
    "with_prm_scores",
    "with_step_scores",
]


if TYPE_CHECKING:
    from llenvs.rewards.prm._transformers import TransformersPRM


def __getattr__(name: str) -> object:
    """``TransformersPRM``, imported when first asked for (its module imports torch)."""
    if name == "TransformersPRM":
        from llenvs.rewards.prm._transformers import TransformersPRM

        return TransformersPRM
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
