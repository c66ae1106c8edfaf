"""Server side, once per job: turn an openspore network into the `.ms` training model the devices run, and read
its trainable weights as the job's initial global model. (Uses the full openspore runtime; devices do not.)

>>> export_client_model.__name__
'export_client_model'
"""
import os


def export_client_model(net, x, y, path, lr=0.01, momentum=0.0, loss=None):
    """Export TrainOneStepCell(WithLossCell(net, loss), Momentum(lr, momentum)) on example batch (x, y) as MindIR,
    convert it with --trainModel=true, and return (path of the .ms, {weight name: array})."""
    import openspore as ms
    from openspore import lite as mslite
    from openspore import nn
    loss = loss or nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), nn.Momentum(net.trainable_params(), lr, momentum))
    step.set_train()
    base = os.path.splitext(path)[0]
    ms.export(step, ms.Tensor(x), ms.Tensor(y), file_name=base, file_format="MINDIR")
    conv = mslite.Converter()
    conv.train_model = True
    ms_path = conv.convert(mslite.FmkType.MINDIR, base + ".mindir", base)
    return ms_path, initial_weights(ms_path)


def initial_weights(ms_path):
    """The trainable weights of a training `.ms` (what the server hands out in iteration 1)."""
    from openspore import lite as mslite
    model = mslite.Model()
    model.build_from_file(ms_path, mslite.ModelType.MINDIR_LITE, train_cfg=mslite.TrainCfg())
    return {t.name: t.get_data_to_numpy() for t in model.get_trainable_params()}
