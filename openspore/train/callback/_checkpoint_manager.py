"""Private checkpoint helpers under MindSpore's own names, which its tests and some training scripts import:
`_CheckpointManager` (the files of one prefix in a folder, and the keep policies applied to them),
`_chg_ckpt_file_name_if_same_exist`, and `_set_cur_net` / `_checkpoint_cb_for_save_op` (load saved values into
the network registered as current).

>>> import os, tempfile
>>> folder = tempfile.mkdtemp()
>>> for name in ("run-1_1.ckpt", "run-1_2.ckpt", "run1.ckpt", "other-1_1.ckpt"):
...     open(os.path.join(folder, name), "w").close()
>>> manager = _CheckpointManager()
>>> manager.update_ckpoint_filelist(folder, "run")
>>> manager.ckpoint_num
2
>>> manager.remove_oldest_ckpoint_file(); manager.update_ckpoint_filelist(folder, "run"); manager.ckpoint_num
1
"""
import os
import stat

from ._checkpoint import _chg_ckpt_file_name_if_same_exist  # noqa: F401  (re-exported)

_CURRENT_NET = [None]


class _CheckpointManager:
    """The `{prefix}-*.ckpt` files of one folder (refreshed by `update_ckpoint_filelist`)."""

    def __init__(self, format="ckpt"):  # pylint: disable=redefined-builtin
        self._format = format
        self._ckpoint_filelist = []

    @property
    def ckpoint_filelist(self):
        return self._ckpoint_filelist

    @property
    def ckpoint_num(self):
        return len(self._ckpoint_filelist)

    def update_ckpoint_filelist(self, directory, prefix):
        """Rescan `directory` for `{prefix}-*.{format}` files (the names ModelCheckpoint writes)."""
        names = sorted(os.listdir(directory)) if os.path.isdir(directory) else []
        self._ckpoint_filelist = [os.path.join(directory, name) for name in names
                                  if name.startswith(prefix + "-") and name.endswith("." + self._format)]

    def remove_ckpoint_file(self, file_name):
        """Delete one file (made writable first) and forget it; a missing file is not an error."""
        try:
            os.chmod(file_name, stat.S_IWRITE)
            os.remove(file_name)
        except OSError:
            pass
        if file_name in self._ckpoint_filelist:
            self._ckpoint_filelist.remove(file_name)

    def remove_oldest_ckpoint_file(self):
        """Delete the file with the oldest modification time."""
        if self._ckpoint_filelist:
            self.remove_ckpoint_file(min(self._ckpoint_filelist, key=os.path.getmtime))

    def keep_one_ckpoint_per_minutes(self, minutes, cur_time):
        """Of the files written in the last `minutes` before `cur_time`, keep only the oldest."""
        recent = [f for f in self._ckpoint_filelist if cur_time - os.path.getmtime(f) < 60 * minutes]
        if not recent:
            return
        keep = min(recent, key=os.path.getmtime)
        for path in recent:
            if path != keep:
                self.remove_ckpoint_file(path)


def _set_cur_net(net):
    """Register the network `_checkpoint_cb_for_save_op` loads values into."""
    _CURRENT_NET[0] = net


def _checkpoint_cb_for_save_op(parameter_list):
    """Copy `[{'name': ..., 'data': Tensor}, ...]` into the registered network's parameters of those names
    (nothing to do when no network is registered). Returns True."""
    net = _CURRENT_NET[0]
    if net is None:
        return True
    params = net.parameters_dict()
    for entry in parameter_list:
        param = params.get(entry["name"])
        if param is not None:
            param.set_data(entry["data"])
    return True
