"""Four small models defined in torch, with fixed seeds: an MLP, a 2-layer
transformer encoder, a small CNN and a MobileNet-style network of depthwise
separable blocks. examples/models/run.py runs them
through Jeet's two frontends; the tests (test/python/frontends) and
bench/models.py use them too.

Each builder returns (model in eval mode, example inputs as a tuple); the
same seed gives the same weights and inputs.
"""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class MLP(nn.Module):
    def __init__(self, inputs=784, hidden=256, classes=10):
        super().__init__()
        self.fc1 = nn.Linear(inputs, hidden)
        self.fc2 = nn.Linear(hidden, hidden)
        self.fc3 = nn.Linear(hidden, classes)

    def forward(self, x):
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)


class SelfAttention(nn.Module):
    """Multi-head self-attention, written out: one projection for queries,
    keys and values, scaled dot products, softmax, the output projection."""

    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, dim)

    def forward(self, x):
        batch, seq, dim = x.shape
        head_dim = dim // self.heads
        qkv = self.qkv(x).reshape(batch, seq, 3, self.heads, head_dim)
        q, k, v = qkv.permute(2, 0, 3, 1, 4).unbind(0)
        scores = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(head_dim))
        context = torch.softmax(scores, dim=-1) @ v
        return self.out(context.transpose(1, 2).reshape(batch, seq, dim))


class EncoderLayer(nn.Module):
    """Pre-norm transformer encoder layer: x + attention(LN(x)), then
    x + MLP(LN(x)) with the exact (erf) GELU."""

    def __init__(self, dim, heads, hidden):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attention = SelfAttention(dim, heads)
        self.norm2 = nn.LayerNorm(dim)
        self.fc1 = nn.Linear(dim, hidden)
        self.fc2 = nn.Linear(hidden, dim)

    def forward(self, x):
        x = x + self.attention(self.norm1(x))
        return x + self.fc2(F.gelu(self.fc1(self.norm2(x))))


class TransformerEncoder(nn.Module):
    """Token and position embeddings, two encoder layers, a final layer
    norm; returns the hidden states."""

    def __init__(self, vocab=1000, seq=64, dim=128, heads=4, hidden=512, layers=2):
        super().__init__()
        self.tokens = nn.Embedding(vocab, dim)
        self.positions = nn.Embedding(seq, dim)
        self.register_buffer("position_ids", torch.arange(seq).unsqueeze(0),
                             persistent=False)
        self.layers = nn.ModuleList(
            EncoderLayer(dim, heads, hidden) for _ in range(layers))
        self.norm = nn.LayerNorm(dim)

    def forward(self, ids):
        x = self.tokens(ids) + self.positions(self.position_ids[:, :ids.shape[1]])
        for layer in self.layers:
            x = layer(x)
        return self.norm(x)


class SmallCNN(nn.Module):
    """Two conv-batchnorm-relu-pool stages and a linear classifier."""

    def __init__(self, channels=3, classes=10, size=32):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, 16, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(16)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.bn2 = nn.BatchNorm2d(32)
        self.fc = nn.Linear(32 * (size // 4) ** 2, classes)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 2)
        x = F.avg_pool2d(F.relu(self.bn2(self.conv2(x))), 2)
        return self.fc(torch.flatten(x, 1))


class InvertedResidual(nn.Module):
    """MobileNetV2's block: a 1x1 expansion, a 3x3 depthwise convolution
    (stride 1 or 2), each with batch norm and ReLU6, and a 1x1 projection
    with batch norm, added to the input where the shapes agree."""

    def __init__(self, inputs, outputs, stride, expand=4):
        super().__init__()
        hidden = inputs * expand
        self.expand = nn.Conv2d(inputs, hidden, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(hidden)
        self.depthwise = nn.Conv2d(hidden, hidden, 3, stride, 1, groups=hidden, bias=False)
        self.bn2 = nn.BatchNorm2d(hidden)
        self.project = nn.Conv2d(hidden, outputs, 1, bias=False)
        self.bn3 = nn.BatchNorm2d(outputs)
        self.residual = stride == 1 and inputs == outputs

    def forward(self, x):
        y = F.relu6(self.bn1(self.expand(x)))
        y = F.relu6(self.bn2(self.depthwise(y)))
        y = self.bn3(self.project(y))
        return x + y if self.residual else y


class MobileNet(nn.Module):
    """A stride-2 stem and inverted residual blocks down to 1/32 of the
    input (3x3 at 96x96), global average pooling and a linear classifier."""

    BLOCKS = [(16, 24, 2), (24, 24, 1), (24, 32, 2), (32, 32, 1), (32, 64, 2),
              (64, 64, 1), (64, 96, 2), (96, 96, 1)]

    def __init__(self, channels=3, classes=10):
        super().__init__()
        self.stem = nn.Conv2d(channels, 16, 3, 2, 1, bias=False)
        self.bn = nn.BatchNorm2d(16)
        self.blocks = nn.Sequential(*[InvertedResidual(i, o, s) for i, o, s in self.BLOCKS])
        self.fc = nn.Linear(self.BLOCKS[-1][1], classes)

    def forward(self, x):
        x = self.blocks(F.relu6(self.bn(self.stem(x))))
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


def _randomize_batchnorm(model, generator):
    # Fresh BatchNorm layers hold mean 0, variance 1: give them statistics
    # so that folding them for inference is tested for real.
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.running_mean.copy_(torch.randn(m.num_features, generator=generator) * 0.1)
            m.running_var.copy_(torch.rand(m.num_features, generator=generator) + 0.5)
            m.weight.data.copy_(torch.rand(m.num_features, generator=generator) + 0.5)
            m.bias.data.copy_(torch.randn(m.num_features, generator=generator) * 0.1)


def mlp(batch=64, seed=0, **sizes):
    torch.manual_seed(seed)
    model = MLP(**sizes).eval()
    x = torch.randn(batch, model.fc1.in_features)
    return model, (x,)


def transformer(batch=8, seq=64, seed=0, **sizes):
    torch.manual_seed(seed)
    model = TransformerEncoder(seq=seq, **sizes).eval()
    ids = torch.randint(0, model.tokens.num_embeddings, (batch, seq))
    return model, (ids,)


def cnn(batch=8, size=32, seed=0, **sizes):
    torch.manual_seed(seed)
    model = SmallCNN(size=size, **sizes).eval()
    generator = torch.Generator().manual_seed(seed + 1)
    with torch.no_grad():
        _randomize_batchnorm(model, generator)
    x = torch.randn(batch, model.conv1.in_channels, size, size)
    return model, (x,)


def mobile(batch=2, size=96, seed=0, **sizes):
    torch.manual_seed(seed)
    model = MobileNet(**sizes).eval()
    generator = torch.Generator().manual_seed(seed + 1)
    with torch.no_grad():
        _randomize_batchnorm(model, generator)
    x = torch.randn(batch, model.stem.in_channels, size, size)
    return model, (x,)


BUILDERS = {"mlp": mlp, "transformer": transformer, "cnn": cnn, "mobile": mobile}


def export_onnx(model, inputs, path, opset=18):
    """The model exported to ONNX (torch's TorchScript-based exporter, which
    needs no further package), static shapes, inputs named input0, ...;
    returns the path."""
    import warnings
    names = [f"input{i}" for i in range(len(inputs))]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, inputs, path, dynamo=False, opset_version=opset,
                          input_names=names, output_names=["output"])
    return path
