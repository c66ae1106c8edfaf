"""communication.get_comm_name: type check, needs init, names the group's communicator (single process)."""
import pytest

from openspore import communication


def test_get_comm_name():
    with pytest.raises(TypeError, match="'group' must be a str"):
        communication.get_comm_name(1)
    communication.init()
    try:
        assert communication.get_comm_name() == communication.GlobalComm.WORLD_COMM_GROUP
        with pytest.raises(ValueError, match="does not exist"):
            communication.get_comm_name("no_such_group")
    finally:
        communication.release()
    with pytest.raises(RuntimeError, match="not initialized"):
        communication.get_comm_name()
