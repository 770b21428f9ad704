"""The workbench's background jobs: the queue, the job contract and each kind of job."""

from llenvs.workbench.jobs._background_job import BackgroundJob, JobDropped, stop_session
from llenvs.workbench.jobs._evaluation_job import EvaluationJob, EvaluationPlan, TaskState
from llenvs.workbench.jobs._experiment_job import ExperimentJob
from llenvs.workbench.jobs._intervention_job import InterventionJob
from llenvs.workbench.jobs._job_queue import JobQueue, shared_queue
from llenvs.workbench.jobs._on_policy_job import OnPolicyJob, on_policy_key
from llenvs.workbench.jobs._run_outcome import OutcomeKind, RunOutcome, run_outcome
from llenvs.workbench.jobs._segmenter_values_job import SegmenterValuesJob
from llenvs.workbench.jobs._step_values_job import StepValuesJob
from llenvs.workbench.jobs._suppression_job import MAX_TOKENS, SuppressionJob

__all__ = [
    "MAX_TOKENS",
    "BackgroundJob",
    "EvaluationJob",
    "EvaluationPlan",
    "ExperimentJob",
    "InterventionJob",
    "JobDropped",
    "JobQueue",
    "OnPolicyJob",
    "OutcomeKind",
    "RunOutcome",
    "SegmenterValuesJob",
    "StepValuesJob",
    "SuppressionJob",
    "TaskState",
    "on_policy_key",
    "run_outcome",
    "shared_queue",
    "stop_session",
]
