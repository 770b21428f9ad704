"""What the openai backend reads of a vLLM server besides generations.

Prompt log-probabilities, and the served context window (``served_context_length``). The openai
backend scores a text after a prompt (``BackendCapabilities.score``) by sending the
token ids of the prompt and the text (``text_positions``) as a completions prompt with vLLM's
``prompt_logprobs: 0`` and one token to generate: the server prefills them once and returns,
for every prompt token after the first, its log-probability given the tokens before it. A
server that returns none (an OpenAI-compatible server without the extension) is a
``PermanentBackendError`` saying so.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from llenvs.core import Prompt, TextScore
from llenvs.core.errors import PermanentBackendError
from llenvs.inference._backends.chat_tokenizer import ChatTokenizer
from llenvs.inference._backends.text_positions import text_positions

__all__ = ["served_context_length", "server_score"]


def server_score(
    client: Any, model: str, chat: ChatTokenizer, prompt: Prompt, text: str, where: str
) -> TextScore:
    """``text``'s token log-probabilities after ``prompt``, read from the server at ``where``.

    ``client`` is an ``openai.OpenAI`` client of the server, ``model`` its served model name,
    ``chat`` the model's tokenizer (the chat template and the offsets).
    """
    ids, at = text_positions(
        chat.tokenizer, chat.render(prompt.messages), prompt.continuation, text
    )
    response = client.completions.create(
        model=model,
        prompt=ids,
        max_tokens=1,
        temperature=0.0,
        extra_body={"prompt_logprobs": 0},
    )
    choices = response.choices
    found = (choices[0].model_extra or {}).get("prompt_logprobs") if choices else None
    if not isinstance(found, list) or len(found) != len(ids):
        raise PermanentBackendError(
            f"{where} returns no prompt log-probabilities (vLLM's prompt_logprobs): it cannot "
            "score a text"
        )
    picked = []
    for position in range(at, len(ids)):
        entry = found[position]
        chosen = entry.get(str(ids[position])) if isinstance(entry, Mapping) else None
        if not isinstance(chosen, Mapping) or "logprob" not in chosen:
            raise PermanentBackendError(
                f"{where}: no log-probability for prompt token {position} ({ids[position]})"
            )
        picked.append(float(chosen["logprob"]))
    return TextScore(tuple(ids[at:]), tuple(picked))


def served_context_length(client: Any, model: str) -> int | None:
    """``model``'s context window from vLLM's ``/models`` (``max_model_len``), or None."""
    try:
        served = client.models.list().data
    except Exception:  # an optional extra: a server without /models still generates
        return None
    for entry in served:
        if entry.id == model:
            length = (entry.model_extra or {}).get("max_model_len")
            return length if isinstance(length, int) and length > 0 else None
    return None
