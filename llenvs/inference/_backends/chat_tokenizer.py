r"""``ChatTokenizer``: a model's chat template and token ids on the client side, for HTTP backends.

An HTTP backend in completions mode renders the conversation itself (the closed turns and an open
assistant turn), so that it can send the prompt as token ids and continue an assistant turn from
the ids the server generated (invariant 3). The tokenizer is loaded through transformers from a
local folder or the hub cache, offline.

Example:
    >>> from llenvs.core._backend import Message, Prompt
    >>> from llenvs.inference._backends.embedded_model import embedded_model_path
    >>> chat = ChatTokenizer.load(str(embedded_model_path()))
    >>> ids = chat.prompt_ids(Prompt((Message("user", "Hi"),), continuation="Hello"))
    >>> chat.decode(ids)[-27:]
    '<|im_start|>assistant\nHello'

"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from llenvs.core import Message, Prompt
from llenvs.core.errors import PermanentBackendError

__all__ = ["ChatTokenizer", "CountingTokens", "counting_tokenizer"]


class ChatTokenizer:
    """A transformers tokenizer used to render prompts as token ids and decode generated ones.

    Arguments:
        tokenizer: a transformers tokenizer (with a chat template, else turns are joined by
            blank lines).

    Example:
        >>> from llenvs.inference._backends.embedded_model import embedded_model_path
        >>> chat = ChatTokenizer.load(str(embedded_model_path()))
        >>> chat.encode("Hi there"), chat.decode(chat.encode("Hi there"))
        ([26843, 665], 'Hi there')

    """

    def __init__(self, tokenizer: Any) -> None:
        self.tokenizer = tokenizer
        ends = {tokenizer.eos_token_id} if tokenizer.eos_token_id is not None else set()
        self.end_ids = frozenset(ends)
        """Token ids that end the assistant turn (dropped from a generation)."""

    @classmethod
    def load(cls, where: str) -> ChatTokenizer:
        """The tokenizer in the folder (or cached hub repository) ``where``, loaded offline.

        Example:
            >>> ChatTokenizer.load("/no/such/folder")  # doctest: +ELLIPSIS
            Traceback (most recent call last):
            ...
            llenvs.core.errors.PermanentBackendError: cannot load the tokenizer '/no/such/folder' ...

        """  # noqa: E501
        from transformers import AutoTokenizer

        try:
            return cls(AutoTokenizer.from_pretrained(where))
        except (OSError, ValueError) as err:
            raise PermanentBackendError(
                f"cannot load the tokenizer {where!r} (a local folder, or a hub id already in the "
                "local cache; pass tokenizer=<folder> or --tokenizer): "
                f"{type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}"
            ) from None

    def encode(self, text: str) -> list[int]:
        """Token ids of ``text`` (special-token text included, no BOS added)."""
        return list(self.tokenizer(text, add_special_tokens=False)["input_ids"]) if text else []

    def decode(self, ids: Sequence[int]) -> str:
        """The text of ``ids``, special tokens included."""
        text: str = self.tokenizer.decode(
            list(ids), skip_special_tokens=False, clean_up_tokenization_spaces=False
        )
        return text

    def render(self, messages: Sequence[Message]) -> list[int]:
        r"""Token ids of ``messages`` through the chat template, with an open assistant turn.

        Example:
            >>> from llenvs.inference._backends.embedded_model import embedded_model_path
            >>> chat = ChatTokenizer.load(str(embedded_model_path()))
            >>> chat.decode(chat.render([Message("user", "Hi")]))[-22:]
            '<|im_start|>assistant\n'

        """
        if getattr(self.tokenizer, "chat_template", None):
            turns = [{"role": m.role, "content": m.content} for m in messages]
            text = self.tokenizer.apply_chat_template(
                turns, add_generation_prompt=True, tokenize=False
            )
        else:
            text = "".join(f"{m.content}\n\n" for m in messages)
        return self.encode(str(text))

    def prompt_ids(self, prompt: Prompt) -> list[int]:
        """The ids a request continues: the rendered turns, then the open turn's ids.

        The open turn is ``continuation_token_ids`` when given (the ids the server generated,
        so continuation is faithful); else the longest run of ``continuation_hint_ids`` that
        spells a prefix of the continuation, then the rest of the text encoded.

        Example:
            >>> from llenvs.inference._backends.embedded_model import embedded_model_path
            >>> chat = ChatTokenizer.load(str(embedded_model_path()))
            >>> turns = (Message("user", "Count."),)
            >>> hint = tuple(chat.encode("One. Two"))  # "One", ".", " Two"
            >>> ids = chat.prompt_ids(Prompt(turns, "One. ", continuation_hint_ids=hint))
            >>> ids[-3:-1] == list(hint[:2]), chat.decode(ids[-1:])
            (True, ' ')

        """
        head = self.render(prompt.messages)
        if prompt.continuation_token_ids is not None:
            return head + list(prompt.continuation_token_ids)
        text = prompt.continuation
        reused: list[int] = []
        if prompt.continuation_hint_ids and text:
            hint = list(prompt.continuation_hint_ids)
            for count in range(len(hint), 0, -1):
                spelled = self.decode(hint[:count])
                if "\ufffd" not in spelled and text.startswith(spelled):
                    reused = hint[:count]
                    text = text[len(spelled) :]
                    break
        return head + reused + self.encode(text)


class CountingTokens:
    """Token counts for a chat-mode server whose model's tokenizer is not at hand (a hosted API).

    tiktoken's ``cl100k_base`` (shipped offline): the ids it gives are approximate counts for
    ``max_tokens`` and the trace, not the server's tokens (chat mode never sends ids).

    Example:
        >>> CountingTokens().encode("Hello world")
        [9906, 1917]

    """

    name = "cl100k_base"
    """The tiktoken encoding that counts."""

    def __init__(self) -> None:
        from llenvs.core.segmenters import get_tiktoken_encoding

        self._encoding = get_tiktoken_encoding(self.name)

    def encode(self, text: str) -> list[int]:
        """Approximate token ids of ``text`` (special-token text counted as plain text)."""
        ids: list[int] = self._encoding.encode(text, disallowed_special=())
        return ids


def counting_tokenizer(where: str) -> ChatTokenizer | CountingTokens:
    """The tokenizer ``where`` names when it can be loaded, else ``CountingTokens``.

    Example:
        >>> type(counting_tokenizer("gpt-4o-mini")).__name__  # not a local folder or cached id
        'CountingTokens'

    """
    try:
        return ChatTokenizer.load(where)
    except PermanentBackendError:
        return CountingTokens()
