"""Segment records of a response given as pieces (a segmenter's cut, or a file's own steps).

Example:
    >>> [(s.start, s.end) for s in segments_of(["Hi. ", "Bye."])]
    [(0, 4), (4, 8)]

"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from llenvs.core.segmenters import segmenter_from_spec
from llenvs.traces.segment_flag import SegmentFlag
from llenvs.traces.segment_record import SegmentRecord

__all__ = ["pieces_of", "segments_of"]


def pieces_of(text: str, segmenter: str) -> list[str]:
    r"""The lossless pieces of ``text`` under the segmenter a spec names.

    Example:
        >>> pieces_of("Add 2.\n\nSo 5.", "steps")
        ['Add 2.\n\n', 'So 5.']

    """
    cutter = segmenter_from_spec(segmenter)
    return [text[start:end] for start, end in cutter.spans(text)]


def segments_of(
    pieces: Sequence[str], rewards: Sequence[Mapping[str, float]] | None = None
) -> tuple[SegmentRecord, ...]:
    """One replayed segment per piece, in order; ``rewards[i]`` are piece i's step rewards.

    The last piece is terminal. A piece's rewards named ``prm`` or ending in ``_prm`` are
    its PRM scores too.

    Example:
        >>> [s] = segments_of(["x"], [{"human_label": 1.0}])
        >>> s.rewards, s.terminal
        ({'human_label': 1.0}, True)

    """
    records, offset = [], 0
    for index, piece in enumerate(pieces):
        step_rewards = dict(rewards[index]) if rewards is not None else {}
        records.append(
            SegmentRecord(
                index=index,
                start=offset,
                end=offset + len(piece),
                text=piece,
                rewards=step_rewards,
                prm_scores={k: v for k, v in step_rewards.items() if _is_prm(k)},
                flags=frozenset({SegmentFlag.REPLAYED}),
                terminal=index == len(pieces) - 1,
            )
        )
        offset += len(piece)
    return tuple(records)


def _is_prm(name: str) -> bool:
    return name == "prm" or name.endswith("_prm")
