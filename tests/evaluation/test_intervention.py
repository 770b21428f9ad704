import copy
import pickle

import pytest

from llenvs.evaluation import COMPLETE, Complete, ForceAction


def test_complete_is_a_singleton_with_a_readable_repr():
    assert Complete() is COMPLETE
    assert repr(COMPLETE) == "COMPLETE"
    assert pickle.loads(pickle.dumps(COMPLETE)) is COMPLETE
    assert copy.deepcopy(COMPLETE) is COMPLETE


def test_force_action_is_frozen_and_refuses_empty_text():
    action = ForceAction("x")
    with pytest.raises(AttributeError):
        action.text = "y"
    with pytest.raises(ValueError, match="non-empty"):
        ForceAction("")
    with pytest.raises(TypeError):
        ForceAction(None)
