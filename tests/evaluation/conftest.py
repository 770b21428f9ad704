"""Helpers for the runner tests: environments, a PROCESS reward, and small test backends."""

from __future__ import annotations

import pytest

from llenvs.core import (
    BackendCapabilities,
    FinishReason,
    Generation,
    SegmentedEnvironment,
    Segmenter,
    SentenceSegmenter,
)
from llenvs.core.segmenters import FirstCut
from llenvs.inference._backends.scripted import TOKEN_PATTERN, ScriptedBackend
from tests.helpers import Hesitation

# Task 0 of leg_counting (size 100, seed 42): 3 sea slugs, 12 deers, 2 giraffes, 11 elephants.
SCRIPT = (
    "First, count the animals. There are 3 sea slugs. Sea slugs have 0 legs. "
    "Deer have 4 legs, so 12 deer have 48. Giraffes have 4 legs, so 8. "
    "Elephants have 4 legs, so 44. Total: 48 + 8 + 44 = 100. <answer>100</answer>"
)
SCRIPT_PIECES = SentenceSegmenter().pieces(SCRIPT)


@pytest.fixture
def env(leg_counting):
    return SegmentedEnvironment(leg_counting, SentenceSegmenter())


@pytest.fixture
def process_env(leg_counting):
    return SegmentedEnvironment(
        leg_counting,
        SentenceSegmenter(),
        reward_functions=(Hesitation(), *leg_counting.reward_functions),
    )


class KeyedBackend:
    """Deterministic in its requests: the script is chosen by the conversation's last message.

    Each key has its own scripted backend, so the order in which conversations open does not
    matter (unlike one scripted backend, which hands out outputs in order).
    """

    name = "keyed"
    capabilities = BackendCapabilities()

    def __init__(self, scripts):
        self.backends = {key: ScriptedBackend([s]) for key, s in scripts.items()}
        self.calls = []

    def generate(self, requests):
        self.calls.append(len(requests))
        out = []
        for request in requests:
            key = request.prompt.messages[-1].content
            out.append(self.backends[key].generate([request])[0])
        return out


class ChunkBackend:
    """Plays a script in chunks of ``size`` pseudo-tokens, ignoring ``stop_at`` (overshoot)."""

    name = "chunks"
    capabilities = BackendCapabilities()

    def __init__(self, script, size):
        self.script, self.size = script, size
        self.requests = []

    def generate(self, requests):
        out = []
        for request in requests:
            self.requests.append(request)
            rest = self.script[len(request.prompt.continuation) :]
            tokens = TOKEN_PATTERN.findall(rest)
            limit = min(self.size, request.max_tokens)
            if request.stop_at is None:
                limit = request.max_tokens
            taken = tokens[:limit]
            more = len(tokens) > len(taken)
            reason = FinishReason.BOUNDARY if more and request.stop_at else FinishReason.STOP
            if more and request.stop_at is None:
                reason = FinishReason.LENGTH
            out.append(Generation("".join(taken), reason, tuple(range(len(taken)))))
        return out


class PseudoTokenizer:
    """The scripted backend's pseudo-tokens as a tokenizer (encode/decode)."""

    def encode(self, text):
        return TOKEN_PATTERN.findall(text)

    def decode(self, tokens):
        return "".join(tokens)


class FakeTokenSegmenter(Segmenter):
    """Cuts every ``token_size`` pseudo-tokens (a stand-in for the coming TokenSegmenter)."""

    trims = False

    def __init__(self, tokenizer, token_size):
        self.tokenizer, self.token_size = tokenizer, token_size

    @property
    def spec(self):
        return f"faketoken:{self.token_size}"

    def spans(self, text):
        tokens = self.tokenizer.encode(text)
        spans, start = [], 0
        for i in range(0, len(tokens), self.token_size):
            end = start + len("".join(tokens[i : i + self.token_size]))
            spans.append((start, end))
            start = end
        return spans

    def first_cut(self, buffer, resume=0):
        tokens = self.tokenizer.encode(buffer)
        if len(tokens) > self.token_size:
            end = len("".join(tokens[: self.token_size]))
            return FirstCut(end, end)
        return FirstCut(None, 0)


class ScriptedWithTokenizer(ScriptedBackend):
    """The scripted backend, declaring the tokenizer it generates with."""

    def __init__(self, outputs, tokenizer):
        super().__init__(outputs)
        self.tokenizer = tokenizer
        self.capabilities = BackendCapabilities(load_tokenizer=lambda: tokenizer)
