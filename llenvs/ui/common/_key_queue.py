"""Keyboard shortcuts that never drop a press: every key, in order, whatever the load.

A button's ``shortcut`` is a trigger: two presses of ``j`` that reach the server while one run
is under way merge into one click (Streamlit coalesces a widget's pending triggers), so quick
presses were lost. Here a small component listens on the page and keeps a running list of the
presses it accepted (``count`` in all, the latest ``KEPT`` of them) as its state; state is not
merged away, so however many presses arrive during a run, the next run sees them all. The
callback then applies each press not yet applied, in order, before the page draws: a press
moves from where the previous one left the page (kept in the session with the count of presses
applied, never read back from the URL, which a run the browser asked for during a burst holds
as it was before the last move).

Keys typed in a text box, a select's search or with Ctrl, Alt or Meta are not shortcuts.

Example:
    >>> unseen({"count": 5, "keys": ["j", "j", "k"]}, applied=3)
    ['j', 'k']
    >>> unseen({"count": 2, "keys": ["j", "j"]}, applied=7)  # a reloaded page counts afresh
    ['j', 'j']

"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import streamlit as st
import streamlit.components.v2 as components

__all__ = ["KEPT", "key_queue", "unseen"]

KEPT = 200
"""The most recent presses the page keeps for the server to read: far more than can arrive
during one run."""

_APPLIED = "key-queue-applied"
"""Session key, followed by ``-`` and the queue's name: ``(presses applied, where they left
the page)``."""

T = TypeVar("T")

_JS = """
export default function ({ data, setStateValue }) {
  const queues = (window.__llenvsKeyQueues = window.__llenvsKeyQueues || {});
  let queue = queues[data.queue];
  const flush = () => {
    if (queue.send && queue.sent < queue.count) {
      queue.sent = queue.count;
      queue.send("presses", { count: queue.count, keys: queue.keys.slice() });
    }
  };
  if (!queue) {
    queue = queues[data.queue] = {
      count: 0, sent: 0, keys: [], accept: "", send: null, detached: 0,
    };
    document.addEventListener(
      "keydown",
      (event) => {
        const target = event.target;
        const typing =
          target instanceof HTMLElement &&
          (target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName));
        if (typing || event.ctrlKey || event.altKey || event.metaKey) return;
        if (event.key.length !== 1 || !queue.accept.includes(event.key)) return;
        // between a rerun's unmount and mount the press waits; long gone, the page is another
        if (!queue.send && performance.now() - queue.detached > 3000) return;
        event.preventDefault();
        queue.count += 1;
        queue.keys.push(event.key);
        if (queue.keys.length > data.kept) queue.keys.shift();
        flush();
      },
      true,
    );
  }
  queue.accept = data.keys;
  const send = setStateValue;
  queue.send = send;
  flush();
  return () => {
    if (queue.send === send) {
      queue.send = null;
      queue.detached = performance.now();
    }
  };
}
"""

_COMPONENT = components.component("llenvs.key_queue", js=_JS, isolate_styles=False)


def unseen(presses: Mapping[str, Any] | None, applied: int) -> list[str]:
    """The presses of ``presses`` (the component's state) after the first ``applied``.

    A count below ``applied`` means the page was loaded again and counts from 0.
    """
    if not presses:
        return []
    count, keys = int(presses.get("count", 0)), list(presses.get("keys", []))
    start = applied if count >= applied else 0
    fresh = count - start
    return [str(key) for key in keys[max(len(keys) - fresh, 0) :]] if fresh > 0 else []


def key_queue(name: str, keys: str, here: T, apply: Callable[[str, T], T]) -> None:
    """Listen for ``keys`` on the page; ``apply`` gets each press, once, in order.

    ``name`` is the queue's (and its widget's) key: one name per set of ``keys``, so a page
    that changes which keys it takes draws a queue of another name. ``here`` is where the page
    is as drawn (the selection); ``apply(key, where)`` makes one press from ``where`` (moving
    the page with ``go_to``, writing files) and returns where it leaves the page, from which
    the next press goes. The presses applied and where they left the page are kept together,
    in one value: a run that Streamlit cuts short for the next keeps neither, and the next
    applies the presses again from where the last whole run left the page (so what a press
    writes must be the same when written twice).
    """
    _COMPONENT(
        key=name,
        data={"queue": name, "keys": keys, "kept": KEPT},
        default={"presses": None},
        height=0,
        on_presses_change=functools.partial(_apply_new, name, apply),
    )
    applied, _ = st.session_state.get(f"{_APPLIED}-{name}", (0, here))
    st.session_state[f"{_APPLIED}-{name}"] = (applied, here)


def _apply_new(name: str, apply: Callable[[str, Any], Any]) -> None:
    """The component's callback: apply the presses not applied yet, from where the last did."""
    state = st.session_state.get(name) or {}
    presses = state.get("presses") if isinstance(state, Mapping) else None
    applied, where = st.session_state.get(f"{_APPLIED}-{name}", (0, None))
    if not presses or where is None:
        return
    for key in unseen(presses, applied):
        where = apply(key, where)
    st.session_state[f"{_APPLIED}-{name}"] = (int(presses.get("count", 0)), where)
