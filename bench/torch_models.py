"""The PyTorch peers of the benchmark workloads (same shapes and optimizers as the openspore versions)."""
import torch
from torch import nn


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc2, self.fc3 = nn.Linear(784, 512), nn.Linear(512, 512), nn.Linear(512, 10)

    def forward(self, x):
        return self.fc3(torch.relu(self.fc2(torch.relu(self.fc1(x)))))


class LeNet5(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1, self.conv2 = nn.Conv2d(1, 6, 5, bias=False), nn.Conv2d(6, 16, 5, bias=False)
        self.fc1, self.fc2, self.fc3 = nn.Linear(400, 120), nn.Linear(120, 84), nn.Linear(84, 10)

    def forward(self, x):
        x = torch.max_pool2d(torch.relu(self.conv1(x)), 2, 2)
        x = torch.max_pool2d(torch.relu(self.conv2(x)), 2, 2)
        x = torch.flatten(x, 1)
        return self.fc3(torch.relu(self.fc2(torch.relu(self.fc1(x)))))


class BasicBlock(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.down = None
        if stride != 1 or cin != cout:
            self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        idt = x if self.down is None else self.down(x)
        y = torch.relu(self.bn1(self.conv1(x)))
        return torch.relu(self.bn2(self.conv2(y)) + idt)


class ResNet20(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.conv = nn.Conv2d(3, 16, 3, 1, 1, bias=False)
        self.bn = nn.BatchNorm2d(16)
        layers, cin = [], 16
        for cout, stride in ((16, 1), (32, 2), (64, 2)):
            for i in range(3):
                layers.append(BasicBlock(cin, cout, stride if i == 0 else 1))
                cin = cout
        self.layers = nn.Sequential(*layers)
        self.fc = nn.Linear(64, num_classes)

    def forward(self, x):
        x = torch.relu(self.bn(self.conv(x)))
        x = self.layers(x)
        x = torch.flatten(torch.nn.functional.adaptive_avg_pool2d(x, 1), 1)
        return self.fc(x)


class Block(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.fc1, self.fc2 = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)
        self.heads = heads

    def forward(self, x, mask):
        b, t, d = x.shape
        h = self.ln1(x)
        q, k, v = self.qkv(h).split(d, dim=-1)
        q = q.reshape(b, t, self.heads, d // self.heads).transpose(1, 2)
        k = k.reshape(b, t, self.heads, d // self.heads).transpose(1, 2)
        v = v.reshape(b, t, self.heads, d // self.heads).transpose(1, 2)
        att = (q @ k.transpose(-1, -2)) * (1.0 / (d // self.heads) ** 0.5)
        att = torch.softmax(att + mask, dim=-1)
        y = (att @ v).transpose(1, 2).reshape(b, t, d)
        x = x + self.proj(y)
        return x + self.fc2(torch.nn.functional.gelu(self.fc1(self.ln2(x))))


class GPT(nn.Module):
    def __init__(self, vocab=512, d=128, layers=4, heads=4, seq=64):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Parameter(torch.zeros(1, seq, d))
        self.blocks = nn.ModuleList([Block(d, heads) for _ in range(layers)])
        self.ln = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)
        self.register_buffer("mask", torch.triu(torch.full((seq, seq), -1e9), diagonal=1))

    def forward(self, ids):
        x = self.tok(ids) + self.pos
        for blk in self.blocks:
            x = blk(x, self.mask)
        return self.head(self.ln(x))


def build(name):
    """(model, optimizer, inputs, labels) for a training workload."""
    torch.manual_seed(0)
    if name == "mlp":
        m = MLP()
        return m, torch.optim.SGD(m.parameters(), lr=0.01, momentum=0.9), torch.randn(128, 784), torch.randint(0, 10, (128,))
    if name == "lenet":
        m = LeNet5()
        return m, torch.optim.SGD(m.parameters(), lr=0.01, momentum=0.9), torch.randn(32, 1, 32, 32), torch.randint(0, 10, (32,))
    if name in ("resnet", "infer_resnet"):
        m = ResNet20()
        batch = 32 if name == "resnet" else 1
        return m, torch.optim.SGD(m.parameters(), lr=0.01, momentum=0.9), torch.randn(batch, 3, 32, 32), torch.randint(0, 10, (batch,))
    if name == "gpt":
        m = GPT()
        return m, torch.optim.Adam(m.parameters(), lr=1e-3), torch.randint(0, 512, (8, 64)), torch.randint(0, 512, (8, 64))
    raise ValueError(name)


# openspore parameter names -> PyTorch's (BatchNorm and LayerNorm affine parameters and statistics, embeddings)
_TORCH_NAMES = {"gamma": "weight", "beta": "bias", "moving_mean": "running_mean", "moving_variance": "running_var",
                "embedding_table": "weight"}


def load_openspore_init(model, params):
    """Copy {openspore parameter name: numpy array} into `model` (the same network here); every parameter and
    statistic must be set (the attention mask and BatchNorm's step counters are not openspore parameters)."""
    state = {}
    for name, value in params.items():
        head, _, leaf = name.rpartition(".")
        state[f"{head}.{_TORCH_NAMES.get(leaf, leaf)}" if head else leaf] = torch.from_numpy(value.copy())
    result = model.load_state_dict(state, strict=False)
    missing = [k for k in result.missing_keys if not k.endswith("num_batches_tracked") and k != "mask"]
    if missing or result.unexpected_keys:
        raise RuntimeError(f"torch peer: openspore weights do not fit: missing {missing}, "
                           f"unexpected {result.unexpected_keys}")


def make_step(name, compiled=False, device="cpu", init=None):
    """A zero-argument training (or inference) step. `init`: (openspore parameters, x, y) as numpy arrays, so the
    step starts from exactly the openspore network's weights and batch (its losses can then be compared)."""
    model, opt, x, y = build(name)
    if init is not None:
        params, xn, yn = init
        load_openspore_init(model, params)
        x, y = torch.from_numpy(xn.copy()), torch.from_numpy(yn.astype("int64"))
    # Module.to moves each parameter's data in place, so the optimizer built over them stays valid
    model, x, y = model.to(device), x.to(device), y.to(device)
    if name == "infer_resnet":
        model.eval()
        fwd = torch.compile(model) if compiled else model

        def infer():
            with torch.no_grad():
                fwd(x)
        return infer
    model.train()
    loss_fn = nn.CrossEntropyLoss()

    def train_step():
        opt.zero_grad(set_to_none=True)
        out = model(x)
        loss = loss_fn(out.reshape(-1, out.shape[-1]), y.reshape(-1))
        loss.backward()
        opt.step()
        return loss
    return torch.compile(train_step) if compiled else train_step
