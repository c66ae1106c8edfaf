"""`OnRequestExit` and `BackupAndRestore`: callbacks that let a training job stop on a signal and resume later."""
import os
import signal

from ._callback import Callback


def _train_net(run_context):
    cb_params = run_context.original_args()
    return cb_params, cb_params.train_network


class OnRequestExit(Callback):
    """`OnRequestExit(save_ckpt=True, save_mindir=False, file_name='Net', directory='./', sig=signal.SIGTERM)`:
    when the process receives `sig` during training, finish the current step, save the network's parameters to
    `<directory>/<file_name>.ckpt` (and a MindIR with save_mindir) and stop training cleanly. The previous
    handler of the signal is put back when training ends."""

    def __init__(self, save_ckpt=True, save_mindir=False, file_name="Net", directory="./", sig=signal.SIGTERM):
        if not isinstance(file_name, str) or not file_name:
            raise ValueError(f"For 'OnRequestExit', 'file_name' must be a non-empty str, but got {file_name!r}.")
        if not isinstance(directory, str):
            raise ValueError(f"For 'OnRequestExit', 'directory' must be a str, but got {directory!r}.")
        self.save_ckpt, self.save_mindir = bool(save_ckpt), bool(save_mindir)
        self.file_name, self.directory, self.sig = file_name, directory, sig
        self.exit_requested = False
        self._previous = None

    def _on_signal(self, signum, frame):
        self.exit_requested = True

    def on_train_begin(self, run_context):
        self.exit_requested = False
        self._previous = signal.signal(self.sig, self._on_signal)

    def _save_and_stop(self, run_context):
        cb_params, net = _train_net(run_context)
        os.makedirs(self.directory, exist_ok=True)
        base = os.path.join(self.directory, self.file_name)
        if self.save_ckpt:
            from ..serialization import save_checkpoint
            save_checkpoint(net, base + ".ckpt")
        if self.save_mindir:
            element = cb_params.train_dataset_element
            if element is not None:
                from ...serialization import export
                export(cb_params.network, *element[:-1], file_name=base, file_format="MINDIR")
        run_context.request_stop()

    def on_train_step_end(self, run_context):
        if self.exit_requested:
            self._save_and_stop(run_context)

    def on_train_epoch_end(self, run_context):
        if self.exit_requested and not run_context.get_stop_requested():
            self._save_and_stop(run_context)

    def on_train_end(self, run_context):
        if self._previous is not None:
            signal.signal(self.sig, self._previous)
            self._previous = None


class BackupAndRestore(Callback):
    """`BackupAndRestore(backup_dir, save_freq="epoch", delete_checkpoint=True)`: save the training network and
    the epoch/step counters to `<backup_dir>/backup.ckpt` every `save_freq` epochs ("epoch" = every epoch); when
    training starts and a backup exists (an interrupted run), load it and continue after the saved epoch. The
    backup is deleted when training ends (a crash never reaches that point), unless delete_checkpoint=False."""

    def __init__(self, backup_dir, save_freq="epoch", delete_checkpoint=True):
        if not isinstance(backup_dir, str) or not backup_dir:
            raise ValueError(f"For 'BackupAndRestore', 'backup_dir' must be a non-empty str, but got {backup_dir!r}.")
        if save_freq != "epoch" and (isinstance(save_freq, bool) or not isinstance(save_freq, int) or save_freq <= 0):
            raise ValueError(f"For 'BackupAndRestore', 'save_freq' must be 'epoch' or a positive int, but got "
                             f"{save_freq!r}.")
        self.backup_dir, self.save_freq, self.delete_checkpoint = backup_dir, save_freq, bool(delete_checkpoint)
        self.backup_file = os.path.join(backup_dir, "backup.ckpt")

    def on_train_begin(self, run_context):
        if not os.path.exists(self.backup_file):
            return
        from ..serialization import load_checkpoint, load_param_into_net
        cb_params, net = _train_net(run_context)
        params = load_checkpoint(self.backup_file)
        epoch, step = params.pop("epoch_num", None), params.pop("step_num", None)
        load_param_into_net(net, params)
        if epoch is not None:
            cb_params.cur_epoch_num = int(epoch.asnumpy())
            cb_params.cur_step_num = int(step.asnumpy()) if step is not None else cb_params.cur_step_num

    def on_train_epoch_end(self, run_context):
        cb_params, net = _train_net(run_context)
        every = 1 if self.save_freq == "epoch" else self.save_freq
        if cb_params.cur_epoch_num % every == 0:
            from ..serialization import save_checkpoint
            os.makedirs(self.backup_dir, exist_ok=True)
            save_checkpoint(net, self.backup_file,
                            append_dict={"epoch_num": cb_params.cur_epoch_num, "step_num": cb_params.cur_step_num})

    def on_train_end(self, run_context):
        if self.delete_checkpoint and os.path.exists(self.backup_file):
            os.remove(self.backup_file)
