"""Prompt plans: the token ids a request continues, reusing known tokens that spell its text.

A request's continuation is text; the tokens a model generated for that text (a stored
session's, or the request's hint ids) are reused where they spell a prefix of it, so a segment
continues the very tokens the last one generated instead of a re-encoding of its text. When the
known token after them runs across the end of the text, the rest of the text is healed
(``token_healing``), not re-encoded.

Example:
    >>> class Chars:  # a toy tokenizer: one token per character
    ...     def decode(self, ids, **kwargs):
    ...         return "".join(chr(i) for i in ids)
    >>> from llenvs.inference._backends.kv_sessions import KVSession
    >>> sessions = KVSessionStore()
    >>> _ = sessions.add(KVSession([1, 2], None, 2, pending=[ord(c) for c in "One. Two"]))
    >>> reused, covered, straddles = reusable_tokens(Chars(), sessions, [1, 2], "One. ", None)
    >>> "".join(chr(i) for i in reused), covered, straddles
    ('One. ', 5, False)

"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from llenvs.core import Prompt
from llenvs.inference._backends.chat_tokenizer import ChatTokenizer
from llenvs.inference._backends.kv_sessions import KVSessionStore
from llenvs.inference._backends.text_decoding import TextDecoder
from llenvs.inference._backends.turn_lock import TurnLock

__all__ = ["plan_prompt", "reusable_tokens"]


def plan_prompt(
    chat: ChatTokenizer,
    sessions: KVSessionStore,
    steps: TurnLock,
    prompt: Prompt,
    call: object = None,
) -> tuple[list[int], str, range]:
    """The token ids ``prompt`` continues, the text its first tokens must spell, and where.

    The third item is the positions of the ids that hold tokens a model generated (reused
    from a session or the hint). A new session feeds those one at a time, as the model
    that generated them did, so its numbers (and a greedy choice between near ties) are
    the same. ``call`` is the call planning it: only its own and unclaimed ``sessions`` lend
    tokens, read while holding the backend's lock ``steps``.
    """
    head = chat.render(prompt.messages)
    if prompt.continuation_token_ids is not None:
        ids = head + list(prompt.continuation_token_ids)
        return ids, "", range(len(head), len(ids))
    text = prompt.continuation
    hint = prompt.continuation_hint_ids
    with steps.turn():
        reused, covered, straddles = reusable_tokens(
            chat.tokenizer, sessions, head, text, hint, call
        )
    generated = range(len(head), len(head) + len(reused))
    if straddles:
        return head + reused, text[covered:], generated
    return head + reused + chat.encode(text[covered:]), "", generated


def reusable_tokens(
    tokenizer: Any,
    sessions: KVSessionStore,
    head: list[int],
    text: str,
    hint: Sequence[int] | None,
    call: object = None,
) -> tuple[list[int], int, bool]:
    """The longest run of known tokens after ``head`` that spells a prefix of ``text``.

    Known tokens are the stored sessions' and the request's hint ids. Returns the tokens,
    the length of text they spell, and whether the known token after them runs across the
    end of ``text`` (the rest is then healed, not re-encoded). A token that ends inside a
    character never counts.
    """
    best: tuple[list[int], int, bool] = ([], 0, False)
    if not text:
        return best
    candidates = [
        session.tokens[len(head) :] for session in sessions.sessions_with_head(head, call)
    ]
    if hint:
        candidates.insert(0, list(hint))
    for generated in candidates:
        decoder = TextDecoder(tokenizer, head)
        low, high = 0, len(generated)  # largest count whose text is a prefix of ``text``
        while low < high:
            middle = (low + high + 1) // 2
            if text.startswith(decoder.text(generated[:middle])):
                low = middle
            else:
                high = middle - 1
        for count in range(low, -1, -1):
            spelled = decoder.text(generated[:count], final=True)
            if text.startswith(spelled):
                straddles = count < len(generated) and (
                    decoder.text(generated[: count + 1], final=True).startswith(text)
                )
                if len(spelled) > best[1] or (straddles and len(spelled) == best[1]):
                    best = (generated[:count], len(spelled), straddles and spelled != text)
                break
        if best[1] == len(text) or best[2]:
            break
    return best
