"""Segment records of a response given as pieces (a segmenter's cut, or a file's own steps).

Example:
    >>> [(s.start, s.end) for s in segments_of(["Hi. ", "Bye."])]
    [(0, 4), (4, 8)]

"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from llenvs.core.segmenters import segmenter_from_spec
from llenvs.traces.records import SegmentFlag, SegmentRecord

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
    pieces: Sequence[str],
    rewards: Sequence[Mapping[str, float]] | None = None,
    prm_scores: Sequence[Mapping[str, float]] | None = None,
) -> tuple[SegmentRecord, ...]:
    """One replayed segment per piece, in order, with piece i's step rewards and PRM scores.

    ``rewards[i]`` are piece i's rewards (a human label, say); ``prm_scores[i]`` its model
    scores by name, which are rewards of its step too, as a ``PRMRewardFunction`` records them.
    The last piece is terminal.

    Example:
        >>> [s] = segments_of(["x"], [{"human_label": 1.0}], [{"prm": 0.5}])
        >>> s.rewards, s.prm_scores, s.terminal
        ({'human_label': 1.0, 'prm': 0.5}, {'prm': 0.5}, True)

    """
    records, offset = [], 0
    for index, piece in enumerate(pieces):
        scores = dict(prm_scores[index]) if prm_scores is not None else {}
        step_rewards = {**(rewards[index] if rewards is not None else {}), **scores}
        records.append(
            SegmentRecord(
                index=index,
                start=offset,
                end=offset + len(piece),
                text=piece,
                rewards=step_rewards,
                prm_scores=scores,
                flags=frozenset({SegmentFlag.REPLAYED}),
                terminal=index == len(pieces) - 1,
            )
        )
        offset += len(piece)
    return tuple(records)
