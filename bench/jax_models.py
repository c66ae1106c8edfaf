"""The JAX peers of the benchmark workloads: bench/ms_models.py's networks, the same weights, `jax.jit`.

Training (`train_step`): mlp, lenet, resnet and gpt from the openspore initial parameters, the same batch, the
same loss (sparse softmax cross-entropy, mean) and the same optimizer as openspore (MindSpore's Momentum, lr 0.01,
momentum 0.9; Adam lr 1e-3 for gpt), one jitted step with parameters and optimizer state donated.

Inference (`resnet20_forward`, the infer_resnet workload):
The network is written from the openspore Cell's parameters (`resnet20_params(net)`), layer for layer: a 3x3
stem to 16 channels, three stages of three BasicBlocks at 16/32/64 channels (the first of stages 2-3 with stride 2
and a 1x1-conv + BatchNorm projection shortcut), global mean pool, Dense 64 -> 10; BatchNorm in eval mode
(moving statistics, epsilon 1e-5), convolutions without bias (MindSpore's nn.Conv2d default).
"""
import numpy as np

EPS = 1e-5


def resnet20_params(net):
    """{checkpoint name: numpy array} of a bench ResNet20 Cell."""
    return {p.name: p.asnumpy() for p in net.get_parameters()}


def resnet20_forward(params):
    """A jitted fn(x) -> logits over `params` (numpy arrays become device constants once)."""
    import jax
    import jax.numpy as jnp
    p = {k: jnp.asarray(v) for k, v in params.items()}

    def bn(x, prefix):  # eval mode: the moving statistics
        scale = p[prefix + ".gamma"] / jnp.sqrt(p[prefix + ".moving_variance"] + EPS)
        shift = p[prefix + ".beta"] - p[prefix + ".moving_mean"] * scale
        return x * scale[None, :, None, None] + shift[None, :, None, None]

    return jax.jit(lambda x: _resnet_body(jax, jnp, p, bn, x))


def _resnet_body(jax, jnp, p, bn, x):
    """ResNet-20 (bench/ms_models.py) with `bn(x, prefix)` as its BatchNorm: eval or training flavour."""
    x = jax.nn.relu(bn(_conv(jax, x, p["conv.weight"], 1, 1), "bn"))
    cin, index = 16, 0
    for cout, stride in ((16, 1), (32, 2), (64, 2)):
        for i in range(3):
            s = stride if i == 0 else 1
            pre = f"layers.{index}."
            idt = x
            if s != 1 or cin != cout:
                idt = bn(_conv(jax, x, p[pre + "down.0.weight"], s, 0), pre + "down.1")
            y = jax.nn.relu(bn(_conv(jax, x, p[pre + "conv1.weight"], s, 1), pre + "bn1"))
            x = jax.nn.relu(bn(_conv(jax, y, p[pre + "conv2.weight"], 1, 1), pre + "bn2") + idt)
            cin, index = cout, index + 1
    return _dense(jnp, p, jnp.mean(x, axis=(2, 3)), "fc")


def run(fn, x):
    return np.asarray(fn(x).block_until_ready())


# ---- training: the four training workloads of bench/run.py, written in JAX over the openspore initial weights ----

BN_MOMENTUM = 0.9  # MindSpore's BatchNorm momentum: moving = 0.9 * moving + 0.1 * batch statistic
BUFFER_SUFFIXES = (".moving_mean", ".moving_variance")  # BatchNorm state: updated by the step, not trained


def _dense(jnp, p, x, prefix):
    y = x @ p[prefix + ".weight"].T
    bias = p.get(prefix + ".bias")
    return y if bias is None else y + bias


def _conv(jax, x, w, stride, pad):
    return jax.lax.conv_general_dilated(x, w, (stride, stride), [(pad, pad), (pad, pad)],
                                        dimension_numbers=("NCHW", "OIHW", "NCHW"))


def _mlp(jax, jnp, p, buffers, x):
    h = jax.nn.relu(_dense(jnp, p, x, "fc1"))
    h = jax.nn.relu(_dense(jnp, p, h, "fc2"))
    return _dense(jnp, p, h, "fc3"), buffers


def _lenet(jax, jnp, p, buffers, x):
    def pool(v):  # MaxPool2d(2, 2), 'valid'
        return jax.lax.reduce_window(v, -jnp.inf, jax.lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")
    x = pool(jax.nn.relu(_conv(jax, x, p["conv1.weight"], 1, 0)))
    x = pool(jax.nn.relu(_conv(jax, x, p["conv2.weight"], 1, 0)))
    x = x.reshape(x.shape[0], -1)
    h = jax.nn.relu(_dense(jnp, p, x, "fc1"))
    h = jax.nn.relu(_dense(jnp, p, h, "fc2"))
    return _dense(jnp, p, h, "fc3"), buffers


def _resnet(jax, jnp, p, buffers, x):
    new_buffers = {}

    def bn(v, prefix):
        """Training-mode BatchNorm: batch statistics normalise (biased variance); the moving statistics move
        towards the batch mean and the unbiased batch variance, as openspore's nn.BatchNorm2d does."""
        mean = jnp.mean(v, axis=(0, 2, 3))
        var = jnp.mean(jnp.square(v - mean[None, :, None, None]), axis=(0, 2, 3))
        count = v.size // v.shape[1]
        moving_mean, moving_var = buffers[prefix + ".moving_mean"], buffers[prefix + ".moving_variance"]
        update = 1.0 - BN_MOMENTUM
        stats = jax.lax.stop_gradient((mean, var * (count / max(count - 1, 1))))
        new_buffers[prefix + ".moving_mean"] = moving_mean - (moving_mean - stats[0]) * update
        new_buffers[prefix + ".moving_variance"] = moving_var - (moving_var - stats[1]) * update
        scale = p[prefix + ".gamma"] / jnp.sqrt(var + EPS)
        return (v - mean[None, :, None, None]) * scale[None, :, None, None] + p[prefix + ".beta"][None, :, None, None]

    return _resnet_body(jax, jnp, p, bn, x), new_buffers


def _layer_norm(jnp, p, x, prefix):
    mean = jnp.mean(x, axis=-1, keepdims=True)
    var = jnp.mean(jnp.square(x - mean), axis=-1, keepdims=True)
    return (x - mean) / jnp.sqrt(var + EPS) * p[prefix + ".gamma"] + p[prefix + ".beta"]


def _gpt(jax, jnp, p, buffers, ids, heads=4):
    """bench/ms_models.py's GPT: token + position embedding, pre-LN blocks (causal attention, exact GELU MLP)."""
    x = p["tok.embedding_table"][ids] + p["pos"]
    b, t, d = x.shape
    hd = d // heads
    mask = jnp.triu(jnp.full((t, t), -1e9, jnp.float32), 1)
    layers = len({k.split(".")[1] for k in p if k.startswith("blocks.")})
    for i in range(layers):
        pre = f"blocks.{i}."
        q, k, v = jnp.split(_dense(jnp, p, _layer_norm(jnp, p, x, pre + "ln1"), pre + "qkv"), 3, axis=-1)
        q = q.reshape(b, t, heads, hd).transpose(0, 2, 1, 3)
        k = k.reshape(b, t, heads, hd).transpose(0, 2, 3, 1)
        v = v.reshape(b, t, heads, hd).transpose(0, 2, 1, 3)
        att = jax.nn.softmax(q @ k * (1.0 / hd ** 0.5) + mask, axis=-1)
        y = (att @ v).transpose(0, 2, 1, 3).reshape(b, t, d)
        x = x + _dense(jnp, p, y, pre + "proj")
        h = jax.nn.gelu(_dense(jnp, p, _layer_norm(jnp, p, x, pre + "ln2"), pre + "fc1"), approximate=False)
        x = x + _dense(jnp, p, h, pre + "fc2")
    logits = _dense(jnp, p, _layer_norm(jnp, p, x, "ln"), "head")
    return logits.reshape(-1, logits.shape[-1]), buffers


FORWARD = {"mlp": _mlp, "lenet": _lenet, "resnet": _resnet, "gpt": _gpt}


def _momentum(jnp, lr=0.01, momentum=0.9):
    """MindSpore's Momentum (ApplyMomentum): accum = momentum * accum + grad; param -= lr * accum."""
    def init(params):
        return {k: jnp.zeros_like(v) for k, v in params.items()}

    def update(params, grads, accum):
        accum = {k: momentum * accum[k] + grads[k] for k in params}
        return {k: params[k] - lr * accum[k] for k in params}, accum
    return init, update


def _adam(jnp, lr=1e-3, beta1=0.9, beta2=0.999, eps=1e-8):
    """MindSpore's Adam: the beta powers advance first, then m, v and
    param -= lr * sqrt(1 - beta2^t) / (1 - beta1^t) * m / (sqrt(v) + eps)."""
    def init(params):
        def zeros():  # distinct buffers for m and v: donated arguments may not alias
            return {k: jnp.zeros_like(v) for k, v in params.items()}
        return {"m": zeros(), "v": zeros(), "b1p": jnp.float32(1.0), "b2p": jnp.float32(1.0)}

    def update(params, grads, state):
        b1p, b2p = state["b1p"] * beta1, state["b2p"] * beta2
        m = {k: beta1 * state["m"][k] + (1 - beta1) * grads[k] for k in params}
        v = {k: beta2 * state["v"][k] + (1 - beta2) * jnp.square(grads[k]) for k in params}
        rate = lr * jnp.sqrt(1 - b2p) / (1 - b1p)
        new = {k: params[k] - rate * m[k] / (jnp.sqrt(v[k]) + eps) for k in params}
        return new, {"m": m, "v": v, "b1p": b1p, "b2p": b2p}
    return init, update


def train_step(workload, init, x, y):
    """A zero-argument training step over `init` ({openspore parameter name: numpy array}) and the batch (x, y):
    one `jax.jit` of value_and_grad + the optimizer update, parameters and optimizer state donated. Returns
    (step, sync): step() runs one step and returns its loss (a jax scalar, possibly still being computed);
    sync() waits for the last one.

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> init = {"fc1.weight": rng.standard_normal((8, 784), np.float32) * 0.05, "fc1.bias": np.zeros(8, np.float32),
    ...         "fc2.weight": rng.standard_normal((512, 8), np.float32) * 0.05, "fc2.bias": np.zeros(512, np.float32),
    ...         "fc3.weight": rng.standard_normal((10, 512), np.float32) * 0.05, "fc3.bias": np.zeros(10, np.float32)}
    >>> step, sync = train_step("mlp", init, rng.standard_normal((4, 784), np.float32), np.arange(4))
    >>> first, second = float(step()), float(step())
    >>> second < first
    True
    """
    import jax
    import jax.numpy as jnp
    forward = FORWARD[workload]
    params = {k: jnp.asarray(v) for k, v in init.items() if not k.endswith(BUFFER_SUFFIXES)}
    buffers = {k: jnp.asarray(v) for k, v in init.items() if k.endswith(BUFFER_SUFFIXES)}
    opt_init, opt_update = _adam(jnp) if workload == "gpt" else _momentum(jnp)

    def loss_fn(params, buffers, x, y):
        logits, new_buffers = forward(jax, jnp, params, buffers, x)
        logz = jax.nn.logsumexp(logits, axis=-1)
        picked = jnp.take_along_axis(logits, y.reshape(-1, 1), axis=-1)[:, 0]
        return jnp.mean(logz - picked), new_buffers  # sparse softmax cross-entropy, mean reduction

    def one_step(params, buffers, opt_state, x, y):
        (loss, buffers), grads = jax.value_and_grad(loss_fn, has_aux=True)(params, buffers, x, y)
        params, opt_state = opt_update(params, grads, opt_state)
        return params, buffers, opt_state, loss

    jitted = jax.jit(one_step, donate_argnums=(0, 1, 2))
    xd, yd = jnp.asarray(x), jnp.asarray(np.asarray(y).astype(np.int32))
    state = {"params": params, "buffers": buffers, "opt": opt_init(params), "loss": None}

    def step():
        state["params"], state["buffers"], state["opt"], state["loss"] = jitted(
            state["params"], state["buffers"], state["opt"], xd, yd)
        return state["loss"]

    def sync():
        if state["loss"] is not None:
            state["loss"].block_until_ready()
    return step, sync
