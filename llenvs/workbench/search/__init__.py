"""Step search: every step of the trace files in a folder, by text, regex or meaning.

The step index beside the files (SQLite with FTS5, kept fresh file by file), the meaning index
(all-MiniLM-L6-v2 vectors in usearch), the ``--where`` filter language over a step's facts,
the hits, and the label queue a search exports.
"""

from llenvs.workbench.search._label_queue import (
    QUEUE_SUFFIX,
    LabelQueueError,
    QueueEntry,
    next_unlabelled,
    queue_folder,
    queue_step,
    read_label_queue,
    write_label_queue,
)
from llenvs.workbench.search._meaning_index import (
    MEANING_DTYPE,
    MeaningBuild,
    MeaningIndex,
    MeaningProgress,
)
from llenvs.workbench.search._search_view import (
    HIT_COLUMNS,
    MeaningIndexJob,
    browse_url,
    hit_table,
    queue_labels,
)
from llenvs.workbench.search._step_facts import (
    FACT_FIELDS,
    StepFacts,
    facts_of,
    file_facts,
    trace_facts,
)
from llenvs.workbench.search._step_hit import MARKS, StepHit, snippet
from llenvs.workbench.search._step_search import (
    SearchError,
    SearchMode,
    build_meaning_index,
    search_folders,
    search_steps,
)
from llenvs.workbench.search._step_store import INDEX_FOLDER, StepRow, StepStore, file_signature
from llenvs.workbench.search._stored_similarity import StoredSimilarity, stored_vectors
from llenvs.workbench.search._where import LABEL_WORDS, Where, WhereError

__all__ = [
    "FACT_FIELDS",
    "HIT_COLUMNS",
    "INDEX_FOLDER",
    "LABEL_WORDS",
    "MARKS",
    "MEANING_DTYPE",
    "QUEUE_SUFFIX",
    "LabelQueueError",
    "MeaningBuild",
    "MeaningIndex",
    "MeaningIndexJob",
    "MeaningProgress",
    "QueueEntry",
    "SearchError",
    "SearchMode",
    "StepFacts",
    "StepHit",
    "StepRow",
    "StepStore",
    "StoredSimilarity",
    "Where",
    "WhereError",
    "browse_url",
    "build_meaning_index",
    "facts_of",
    "file_facts",
    "file_signature",
    "hit_table",
    "next_unlabelled",
    "queue_folder",
    "queue_labels",
    "queue_step",
    "read_label_queue",
    "search_folders",
    "search_steps",
    "snippet",
    "stored_vectors",
    "trace_facts",
    "write_label_queue",
]
