"""The JAX peer of the infer_resnet workload: bench/ms_models.py's ResNet-20, the same weights, `jax.jit`.

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

    def conv(x, w, stride, pad):
        return jax.lax.conv_general_dilated(x, w, (stride, stride), [(pad, pad), (pad, pad)],
                                            dimension_numbers=("NCHW", "OIHW", "NCHW"))

    def bn(x, prefix):
        scale = p[prefix + ".gamma"] / jnp.sqrt(p[prefix + ".moving_variance"] + EPS)
        shift = p[prefix + ".beta"] - p[prefix + ".moving_mean"] * scale
        return x * scale[None, :, None, None] + shift[None, :, None, None]

    def forward(x):
        x = jax.nn.relu(bn(conv(x, p["conv.weight"], 1, 1), "bn"))
        cin = 16
        index = 0
        for cout, stride in ((16, 1), (32, 2), (64, 2)):
            for i in range(3):
                s = stride if i == 0 else 1
                pre = f"layers.{index}."
                idt = x
                if s != 1 or cin != cout:
                    idt = bn(conv(x, p[pre + "down.0.weight"], s, 0), pre + "down.1")
                y = jax.nn.relu(bn(conv(x, p[pre + "conv1.weight"], s, 1), pre + "bn1"))
                x = jax.nn.relu(bn(conv(y, p[pre + "conv2.weight"], 1, 1), pre + "bn2") + idt)
                cin = cout
                index += 1
        x = jnp.mean(x, axis=(2, 3))
        return x @ p["fc.weight"].T + p["fc.bias"]

    return jax.jit(forward)


def run(fn, x):
    return np.asarray(fn(x).block_until_ready())
