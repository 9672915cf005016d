"""The model zoo of the conformance tool: small random-weight models in the shapes real IR has.

Each ``@case`` function returns a :class:`Spec`: the source model (a torch ``nn.Module``, or an
ONNX ``ModelProto`` where torch cannot express the op without torchvision), the input sets it is
run on (NumPy, seeded; the first one is also the ``example_input`` for tracing), the
``convert_model`` ``input=`` argument when the IR should have fixed or interval dims (``None``:
what the front end gives by default, i.e. dynamic dims, as a user's plain conversion has) and
the names given to the outputs. :func:`convert` (run in OpenVINO's worker process by tools/zoo/zoo.py)
converts it with ``openvino.convert_model`` and saves it twice, ``compress_to_fp16`` False and
True.

Weights are torch's default initialisation under ``torch.manual_seed(0)``; BatchNorm gets random
affine parameters and running statistics measured on random inputs (see :func:`_ready`). Widths
and inputs are small, so that the whole zoo runs in about a minute and all but the two full-size
cases (``fixture=False``) are checked-in fixtures.
"""
from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any, Callable, NamedTuple

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn


class Spec(NamedTuple):   # (not a dataclass: the oracle worker imports this file unregistered)
    model: Any                                  # torch.nn.Module or onnx.ModelProto
    feeds: list[dict[str, np.ndarray]]          # input sets, by input name
    outputs: list[str]                          # names given to the outputs, in order
    input: Any = None                           # convert_model(input=...) or None


class CaseInfo(NamedTuple):
    name: str
    build: Callable[[], Spec]
    doc: str
    tol: tuple[float, float, str] | None        # (rtol, atol, why) when wider than the default
    fixture: bool                               # small enough to be checked in (tests/test_zoo.py)


CASES: dict[str, CaseInfo] = {}


def case(tol: tuple[float, float, str] | None = None, fixture: bool = True):
    def deco(fn: Callable[[], Spec]) -> Callable[[], Spec]:
        CASES[fn.__name__] = CaseInfo(fn.__name__, fn, " ".join((fn.__doc__ or "").split()), tol, fixture)
        return fn
    return deco


def _rng(seed: int = 0) -> np.random.Generator:
    return np.random.default_rng(seed)


def _image(*shape: int, seed: int = 0) -> np.ndarray:
    return _rng(seed).standard_normal(shape).astype(np.float32)


def _ready(m: nn.Module, *shape: int) -> nn.Module:
    """Give BatchNorm a trained network's statistics: random affine parameters (seeded), running
    mean/var measured on a batch of four random inputs of ``shape`` (not the test inputs), so
    that activations stay O(1) through the depth instead of fading into the biases (which would
    let a wrong kernel hide under the tolerance). Returns ``m`` in eval mode."""
    g = torch.Generator().manual_seed(1)
    bns = [b for b in m.modules() if isinstance(b, nn.BatchNorm2d)]
    for b in bns:
        b.weight.data.copy_(torch.rand(b.num_features, generator=g) * 0.5 + 0.75)
        b.bias.data.copy_(torch.randn(b.num_features, generator=g) * 0.1)
        b.reset_running_stats()
        b.momentum = None                               # cumulative average over the batches
    if bns:
        m.train()
        with torch.no_grad():
            m(torch.randn(4, *shape[1:], generator=g))
    return m.eval()


class Classifier(nn.Module):
    """``body`` then global average pool and ``head``; returns the logits and the last feature
    map (a second output, so a wrong pixel cannot hide in the average)."""

    def __init__(self, body: list[nn.Module], head: list[nn.Module]):
        super().__init__()
        self.body, self.head = nn.Sequential(*body), nn.Sequential(*head)

    def forward(self, x):
        f = self.body(x)
        return self.head(F.adaptive_avg_pool2d(f, 1).flatten(1)), f


def conv_bn(cin: int, cout: int, k: int = 3, stride: int = 1, groups: int = 1,
            act: nn.Module | None = None) -> nn.Sequential:
    layers: list[nn.Module] = [nn.Conv2d(cin, cout, k, stride, k // 2, groups=groups, bias=False),
                               nn.BatchNorm2d(cout)]
    return nn.Sequential(*layers, act) if act is not None else nn.Sequential(*layers)


# ============================================================================================ CNNs

def _cnn(m: Classifier, *shape: int) -> Spec:
    """A static-shape image classifier: its Spec, with the features as a second output."""
    return Spec(_ready(m, *shape), [{"x": _image(*shape)}], ["logits", "features"], [("x", list(shape))])


class BasicBlock(nn.Module):
    def __init__(self, cin: int, cout: int, stride: int):
        super().__init__()
        self.a = conv_bn(cin, cout, 3, stride, act=nn.ReLU())
        self.b = conv_bn(cout, cout, 3)
        self.down = conv_bn(cin, cout, 1, stride) if stride != 1 or cin != cout else nn.Identity()

    def forward(self, x):
        return F.relu(self.b(self.a(x)) + self.down(x))


@case()
def resnet() -> Spec:
    """ResNet-style: conv-BN-ReLU stem, MaxPool 3x3/2, three BasicBlock stages (8, 16, 32
    channels; strided 1x1 projection shortcuts), global average pool, Linear. Static 1x3x32x32."""
    torch.manual_seed(0)
    m = Classifier([conv_bn(3, 8, act=nn.ReLU()), nn.MaxPool2d(3, 2, 1),
                    BasicBlock(8, 8, 1), BasicBlock(8, 16, 2), BasicBlock(16, 32, 2)], [nn.Linear(32, 10)])
    return _cnn(m, 1, 3, 32, 32)


@case(fixture=False, tol=(1e-4, 1e-4, "atol 1e-4: the 512-channel features are sums of up to 4608 "
                          "f32 products with terms far larger than the result; measured, OpenVINO CPU is 5.1e-5 "
                          "off a float64 run of the torch model there and irrun 2.6e-5 (they differ by up to "
                          "5e-5 on values up to 7.5) - rounding, not an error of either"))
def resnet18() -> Spec:
    """ResNet-18 at full width (64..512 channels, 11.7 M weights) on 1x3x64x64: the tolerance
    at real accumulation lengths (up to 4608 products per output). Too big to check in."""
    torch.manual_seed(0)
    stages, cin = [], 64
    for cout, stride in ((64, 1), (128, 2), (256, 2), (512, 2)):
        stages += [BasicBlock(cin, cout, stride), BasicBlock(cout, cout, 1)]
        cin = cout
    m = Classifier([conv_bn(3, 64, 7, 2, act=nn.ReLU()), nn.MaxPool2d(3, 2, 1), *stages], [nn.Linear(512, 1000)])
    return _cnn(m, 1, 3, 64, 64)


class InvertedResidual(nn.Module):
    """MobileNetV2/V3 block: 1x1 expand, depthwise kxk, optional squeeze-excite, 1x1 project."""

    def __init__(self, cin: int, hidden: int, cout: int, k: int, stride: int, act: type[nn.Module],
                 se: bool = False):
        super().__init__()
        self.res = stride == 1 and cin == cout
        self.body = nn.Sequential(
            conv_bn(cin, hidden, 1, act=act()),
            conv_bn(hidden, hidden, k, stride, groups=hidden, act=act()),
            SqueezeExcite(hidden) if se else nn.Identity(),
            conv_bn(hidden, cout, 1))

    def forward(self, x):
        y = self.body(x)
        return x + y if self.res else y


class SqueezeExcite(nn.Module):
    def __init__(self, c: int):
        super().__init__()
        self.fc1, self.fc2 = nn.Conv2d(c, max(8, c // 4), 1), nn.Conv2d(max(8, c // 4), c, 1)

    def forward(self, x):
        s = F.adaptive_avg_pool2d(x, 1)
        return x * F.hardsigmoid(self.fc2(F.relu(self.fc1(s))))


@case()
def mobilenet_v2() -> Spec:
    """MobileNetV2-style: ReLU6 (Clamp), inverted residuals with depthwise 3x3
    (GroupConvolution), linear bottlenecks with and without the residual Add. Static 1x3x32x32."""
    torch.manual_seed(0)
    m = Classifier([conv_bn(3, 8, 3, 2, act=nn.ReLU6()),
                    InvertedResidual(8, 8, 8, 3, 1, nn.ReLU6),
                    InvertedResidual(8, 32, 12, 3, 2, nn.ReLU6),
                    InvertedResidual(12, 48, 12, 3, 1, nn.ReLU6),
                    InvertedResidual(12, 48, 16, 3, 2, nn.ReLU6),
                    conv_bn(16, 64, 1, act=nn.ReLU6())], [nn.Dropout(0.2), nn.Linear(64, 10)])
    return _cnn(m, 1, 3, 32, 32)


@case()
def mobilenet_v3() -> Spec:
    """MobileNetV3-style: HardSwish, depthwise 3x3 and 5x5, squeeze-excite blocks (global pool,
    1x1 convs, HardSigmoid gate, Multiply), a HardSwish classifier. Static 1x3x32x32."""
    torch.manual_seed(0)
    m = Classifier([conv_bn(3, 8, 3, 2, act=nn.Hardswish()),
                    InvertedResidual(8, 8, 8, 3, 1, nn.ReLU, se=True),
                    InvertedResidual(8, 32, 16, 5, 2, nn.Hardswish, se=True),
                    InvertedResidual(16, 48, 16, 5, 1, nn.Hardswish, se=True),
                    InvertedResidual(16, 48, 24, 3, 2, nn.Hardswish),
                    conv_bn(24, 64, 1, act=nn.Hardswish())],
                   [nn.Linear(64, 48), nn.Hardswish(), nn.Dropout(0.2), nn.Linear(48, 10)])
    return _cnn(m, 1, 3, 32, 32)


def channel_shuffle(x: torch.Tensor, groups: int) -> torch.Tensor:
    b, c, h, w = x.shape
    return x.view(b, groups, c // groups, h, w).transpose(1, 2).reshape(b, c, h, w)


class ShuffleUnit(nn.Module):
    def __init__(self, cin: int, cout: int, stride: int):
        super().__init__()
        self.stride, half = stride, cout // 2
        bin_ = cin if stride == 2 else half
        self.branch2 = nn.Sequential(conv_bn(bin_, half, 1, act=nn.ReLU()),
                                     conv_bn(half, half, 3, stride, groups=half),
                                     conv_bn(half, half, 1, act=nn.ReLU()))
        self.branch1 = nn.Sequential(conv_bn(cin, cin, 3, stride, groups=cin),
                                     conv_bn(cin, half, 1, act=nn.ReLU())) if stride == 2 else None

    def forward(self, x):
        if self.stride == 1:
            a, b = x.chunk(2, dim=1)
            y = torch.cat((a, self.branch2(b)), 1)
        else:
            y = torch.cat((self.branch1(x), self.branch2(x)), 1)
        return channel_shuffle(y, 2)


@case()
def shufflenet_v2() -> Spec:
    """ShuffleNetV2-style: channel split (chunk -> Split/VariadicSplit), Concat, channel shuffle
    as Reshape-Transpose-Reshape, strided units with two branches. Static 1x3x32x32."""
    torch.manual_seed(0)
    m = Classifier([conv_bn(3, 8, 3, 2, act=nn.ReLU()), nn.MaxPool2d(3, 2, 1),
                    ShuffleUnit(8, 16, 2), ShuffleUnit(16, 16, 1), ShuffleUnit(16, 32, 2),
                    ShuffleUnit(32, 32, 1), conv_bn(32, 64, 1, act=nn.ReLU())], [nn.Linear(64, 10)])
    return _cnn(m, 1, 3, 32, 32)


class UNet(nn.Module):
    def __init__(self, c: int = 8):
        super().__init__()
        def block(i, o):
            return nn.Sequential(conv_bn(i, o, act=nn.ReLU()), conv_bn(o, o, act=nn.ReLU()))
        self.e1, self.e2, self.mid = block(3, c), block(c, 2 * c), block(2 * c, 4 * c)
        self.up2 = nn.ConvTranspose2d(4 * c, 2 * c, 2, stride=2)
        self.d2 = block(4 * c, 2 * c)
        self.up1 = nn.Sequential(nn.Upsample(scale_factor=2, mode="bilinear", align_corners=False),
                                 nn.Conv2d(2 * c, c, 1))
        self.d1 = block(2 * c, c)
        self.head = nn.Conv2d(c, 2, 1)

    def forward(self, x):
        s1 = self.e1(x)
        s2 = self.e2(F.max_pool2d(s1, 2))
        y = self.mid(F.max_pool2d(s2, 2))
        y = self.d2(torch.cat([self.up2(y), s2], 1))
        y = self.d1(torch.cat([self.up1(y), s1], 1))
        return self.head(y)


@case()
def unet() -> Spec:
    """UNet-style: two encoder levels with MaxPool, a ConvTranspose (stride 2) and a bilinear
    Upsample (Interpolate) decoder path, skip connections by Concat. Static 1x3x32x32."""
    torch.manual_seed(0)
    return Spec(_ready(UNet(), 1, 3, 32, 32), [{"x": _image(1, 3, 32, 32)}], ["mask"], [("x", [1, 3, 32, 32])])


class DynamicNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = conv_bn(3, 8, 3, 2, act=nn.ReLU())
        self.body = conv_bn(8, 8, 3, act=nn.ReLU())
        self.fc = nn.Linear(8, 5)

    def forward(self, x):
        y = self.body(self.stem(x))
        dense = F.interpolate(y, size=x.shape[-2:], mode="nearest") + x.mean(1, keepdim=True)
        flat = y.flatten(2).transpose(1, 2)                       # [N, H*W, C] from run-time dims
        return dense, self.fc(flat.mean(1))


@case()
def dynamic_cnn() -> Spec:
    """A CNN converted with dynamic dims: input [?,3,16..64,?], run at 1x3x16x24 and 2x3x32x20.
    Its Interpolate target size, flatten and reshape come from ShapeOf at run time."""
    import openvino as ov
    torch.manual_seed(0)
    shape = ov.PartialShape([ov.Dimension(), 3, ov.Dimension(16, 64), ov.Dimension()])
    feeds = [{"x": _image(1, 3, 16, 24)}, {"x": _image(2, 3, 32, 20, seed=1)}]
    return Spec(_ready(DynamicNet(), 1, 3, 32, 32), feeds, ["dense", "logits"], [("x", shape)])


# ================================================================================== detection

@case()
def detection() -> Spec:
    """Detection head written in ONNX (no torchvision here for torch's NMS): conv features,
    box deltas added to an anchor grid, Sigmoid scores, TopK(32) of the scores, Gather of the
    kept boxes, NonMaxSuppression (IoU 0.5, score 0.75, at most 20 boxes per class; 14 are
    selected, so the output's run-time row count matters). Static 1x3x16x16."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    rng = _rng(3)
    n, k = 8 * 8, 32

    def init(name, arr):
        return numpy_helper.from_array(np.asarray(arr), name)
    grid = np.arange(8, dtype=np.float32) * 2
    yy, xx = np.meshgrid(grid, grid, indexing="ij")
    anchors = np.stack([yy, xx, yy + 4, xx + 4], -1).reshape(1, n, 4).astype(np.float32)
    inits = [
        init("w1", (rng.standard_normal((8, 3, 3, 3)) * 0.3).astype(np.float32)),
        init("b1", (rng.standard_normal(8) * 0.1).astype(np.float32)),
        init("wb", (rng.standard_normal((4, 8, 1, 1)) * 0.5).astype(np.float32)),
        init("ws", (rng.standard_normal((1, 8, 1, 1)) * 0.7).astype(np.float32)),
        init("anchors", anchors),
        init("shape_boxes", np.array([1, n, 4], np.int64)), init("shape_scores", np.array([1, n], np.int64)),
        init("k", np.array([k], np.int64)), init("shape_kept", np.array([1, k, 4], np.int64)),
        init("shape_nms_scores", np.array([1, 1, k], np.int64)),
        init("max_out", np.array([20], np.int64)), init("iou", np.array([0.5], np.float32)),
        init("score_thr", np.array([0.75], np.float32)),
    ]
    N = helper.make_node
    nodes = [
        N("Conv", ["x", "w1", "b1"], ["f"], pads=[1, 1, 1, 1], strides=[2, 2]),
        N("Relu", ["f"], ["fr"]),
        N("Conv", ["fr", "wb"], ["d"]),
        N("Transpose", ["d"], ["dt"], perm=[0, 2, 3, 1]),
        N("Reshape", ["dt", "shape_boxes"], ["deltas"]),
        N("Add", ["deltas", "anchors"], ["all_boxes"]),                 # [1, n, 4]
        N("Conv", ["fr", "ws"], ["s"]),
        N("Sigmoid", ["s"], ["sig"]),
        N("Reshape", ["sig", "shape_scores"], ["all_scores"]),          # [1, n]
        N("TopK", ["all_scores", "k"], ["top_scores", "top_idx"], axis=1),
        N("Gather", ["all_boxes", "top_idx"], ["g"], axis=1),           # [1, 1, k, 4]
        N("Reshape", ["g", "shape_kept"], ["boxes"]),
        N("Reshape", ["top_scores", "shape_nms_scores"], ["nms_scores"]),
        N("NonMaxSuppression", ["boxes", "nms_scores", "max_out", "iou", "score_thr"], ["selected"]),
    ]
    graph = helper.make_graph(
        nodes, "detection", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 16, 16])],
        [helper.make_tensor_value_info("top_scores", TensorProto.FLOAT, [1, k]),
         helper.make_tensor_value_info("boxes", TensorProto.FLOAT, [1, k, 4]),
         helper.make_tensor_value_info("selected", TensorProto.INT64, [None, 3])],
        inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    onnx.checker.check_model(model, full_check=True)
    return Spec(model, [{"x": _image(1, 3, 16, 16, seed=4)}], ["top_scores", "boxes", "selected"])


# ================================================================================ transformers

class SelfAttention(nn.Module):
    def __init__(self, d: int, heads: int, sdpa: bool = False):
        super().__init__()
        self.h, self.sdpa, self.scale = heads, sdpa, 1 / math.sqrt(d // heads)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)

    def forward(self, x, bias=None, causal: bool = False):
        b, t, d = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, self.h, d // self.h).permute(2, 0, 3, 1, 4).unbind(0)
        if self.sdpa:
            y = F.scaled_dot_product_attention(q, k, v, attn_mask=bias, is_causal=causal)
        else:
            a = q @ k.transpose(-2, -1) * self.scale
            if causal:
                keep = torch.ones(t, t, dtype=torch.bool).tril()            # as HF GPT-2 does
                a = torch.where(keep, a, torch.tensor(torch.finfo(a.dtype).min))
            if bias is not None:
                a = a + bias
            y = a.softmax(-1) @ v
        return self.proj(y.transpose(1, 2).reshape(b, t, d))


class EncoderLayer(nn.Module):
    """Post-norm (BERT) or pre-norm (GPT-2, ViT) transformer layer."""

    def __init__(self, d: int, heads: int, ff: int, pre_norm: bool, gelu: str = "none", sdpa: bool = False):
        super().__init__()
        self.pre = pre_norm
        self.attn = SelfAttention(d, heads, sdpa)
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.ff = nn.Sequential(nn.Linear(d, ff), nn.GELU(approximate=gelu), nn.Linear(ff, d))

    def forward(self, x, bias=None, causal: bool = False):
        if self.pre:
            x = x + self.attn(self.ln1(x), bias, causal)
            return x + self.ff(self.ln2(x))
        x = self.ln1(x + self.attn(x, bias, causal))
        return self.ln2(x + self.ff(x))


class Bert(nn.Module):
    def __init__(self, vocab: int = 100, d: int = 32, layers: int = 2, heads: int = 4, max_pos: int = 16):
        super().__init__()
        self.word, self.pos, self.tok_type = nn.Embedding(vocab, d), nn.Embedding(max_pos, d), nn.Embedding(2, d)
        self.ln = nn.LayerNorm(d)
        self.layers = nn.ModuleList(EncoderLayer(d, heads, 2 * d, pre_norm=False) for _ in range(layers))
        self.pool = nn.Linear(d, d)

    def forward(self, input_ids, attention_mask, token_type_ids):
        t = input_ids.shape[1]
        pos = torch.arange(t, device=input_ids.device).unsqueeze(0)
        x = self.ln(self.word(input_ids) + self.pos(pos) + self.tok_type(token_type_ids))
        bias = (1.0 - attention_mask[:, None, None, :].to(x.dtype)) * torch.finfo(x.dtype).min
        for layer in self.layers:
            x = layer(x, bias)
        return x, torch.tanh(self.pool(x[:, 0]))


@case()
def bert() -> Spec:
    """BERT-style encoder: word/position/token-type embeddings (Gather), LayerNorm (MVN), 2
    post-norm layers of 4-head attention with a padding mask turned into an additive bias,
    erf GELU, tanh pooler. Default conversion: batch and sequence dims dynamic; run at 1x8 with
    the last two tokens masked and at 2x5."""
    torch.manual_seed(0)
    r = _rng(5)
    mask = np.ones((1, 8), np.int64)
    mask[0, 6:] = 0
    feeds = [{"input_ids": r.integers(0, 100, (1, 8)), "attention_mask": mask,
              "token_type_ids": (np.arange(8) >= 4).astype(np.int64)[None]},
             {"input_ids": r.integers(0, 100, (2, 5)),
              "attention_mask": np.array([[1] * 5, [1, 1, 1, 0, 0]], np.int64),
              "token_type_ids": np.zeros((2, 5), np.int64)}]
    return Spec(Bert().eval(), feeds, ["last_hidden_state", "pooler_output"])


@case(fixture=False)
def bert_small() -> Spec:
    """BERT-small-style encoder (hidden 256, 4 layers, 4 heads, FFN 512) on 1x128 tokens with
    the last 16 padded: the tolerance at real sizes. Too big to check in."""
    torch.manual_seed(0)
    r = _rng(7)
    mask = np.ones((1, 128), np.int64)
    mask[0, 112:] = 0
    feeds = [{"input_ids": r.integers(0, 1000, (1, 128)), "attention_mask": mask,
              "token_type_ids": np.zeros((1, 128), np.int64)}]
    return Spec(Bert(vocab=1000, d=256, layers=4, heads=4, max_pos=128).eval(), feeds,
                ["last_hidden_state", "pooler_output"])


class Gpt2(nn.Module):
    def __init__(self, vocab: int = 100, d: int = 32, layers: int = 2, heads: int = 4, max_pos: int = 16,
                 sdpa: bool = False):
        super().__init__()
        self.wte, self.wpe = nn.Embedding(vocab, d), nn.Embedding(max_pos, d)
        self.layers = nn.ModuleList(EncoderLayer(d, heads, 4 * d, pre_norm=True, gelu="tanh", sdpa=sdpa)
                                    for _ in range(layers))
        self.ln_f = nn.LayerNorm(d)

    def forward(self, input_ids):
        pos = torch.arange(input_ids.shape[1], device=input_ids.device).unsqueeze(0)
        x = self.wte(input_ids) + self.wpe(pos)
        for layer in self.layers:
            x = layer(x, causal=True)
        return F.linear(self.ln_f(x), self.wte.weight)            # tied embeddings


def _tokens(seed: int) -> list[dict[str, np.ndarray]]:
    r = _rng(seed)
    return [{"input_ids": r.integers(0, 100, (1, 8))}, {"input_ids": r.integers(0, 100, (2, 3))}]


@case()
def gpt2() -> Spec:
    """GPT-2-style decoder: token + position embeddings (position ids from a run-time Range),
    2 pre-norm layers with a causal mask (Select of the scores or the f32 minimum), tanh-GELU MLP,
    final LayerNorm and an LM head tied to the token embedding. Dynamic batch and sequence;
    run at 1x8 and 2x3."""
    torch.manual_seed(0)
    return Spec(Gpt2().eval(), _tokens(6), ["logits"])


@case()
def gpt2_sdpa() -> Spec:
    """The GPT-2-style decoder with torch.nn.functional.scaled_dot_product_attention
    (is_causal=True), which the front end converts to ScaledDotProductAttention."""
    torch.manual_seed(0)
    return Spec(Gpt2(sdpa=True).eval(), _tokens(6), ["logits"])


class ViT(nn.Module):
    def __init__(self, img: int = 16, patch: int = 4, d: int = 32, layers: int = 2, heads: int = 4,
                 classes: int = 10):
        super().__init__()
        self.patch = nn.Conv2d(3, d, patch, patch)
        self.cls = nn.Parameter(torch.randn(1, 1, d) * 0.02)
        self.pos = nn.Parameter(torch.randn(1, (img // patch) ** 2 + 1, d) * 0.02)
        self.layers = nn.ModuleList(EncoderLayer(d, heads, 2 * d, pre_norm=True) for _ in range(layers))
        self.ln, self.head = nn.LayerNorm(d), nn.Linear(d, classes)

    def forward(self, x):
        x = self.patch(x).flatten(2).transpose(1, 2)
        x = torch.cat([self.cls.expand(x.shape[0], -1, -1), x], 1) + self.pos
        for layer in self.layers:
            x = layer(x)
        return self.head(self.ln(x)[:, 0])


@case()
def vit() -> Spec:
    """ViT-style: 4x4 patch embedding by a strided Conv, class token (Broadcast + Concat),
    learned position embedding, 2 pre-norm encoder layers, head on the class token.
    Static 1x3x16x16."""
    torch.manual_seed(0)
    return Spec(ViT().eval(), [{"x": _image(1, 3, 16, 16)}], ["logits"], [("x", [1, 3, 16, 16])])


class Recurrent(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(8, 16, num_layers=2, batch_first=True)
        self.gru = nn.GRU(16, 12, batch_first=True, bidirectional=True)
        self.fc = nn.Linear(24, 4)

    def forward(self, x):
        y, (h, c) = self.lstm(x)
        z, hg = self.gru(y)
        return self.fc(z[:, -1]), h, hg


@case()
def lstm_gru() -> Spec:
    """Recurrent: a 2-layer LSTM (zero initial state) into a bidirectional GRU, Linear on the
    last step; also returns the final LSTM and GRU hidden states. Dynamic batch and time; run at
    1x6 and 3x4 steps."""
    torch.manual_seed(0)
    return Spec(Recurrent().eval(), [{"x": _image(1, 6, 8)}, {"x": _image(3, 4, 8, seed=1)}],
                ["logits", "lstm_h", "gru_h"])


# ================================================================================== conversion

def convert(name: str, outdir: str) -> dict:
    """Build case ``name`` and write ``outdir/{fp32,fp16}/model.xml`` and ``outdir/inputs_<i>.npz``;
    returns the input and output names. Runs in OpenVINO's worker process (CI=true)."""
    import openvino as ov
    info = CASES[name]
    spec = info.build()
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    kwargs: dict[str, Any] = {}
    if spec.input is not None:
        kwargs["input"] = spec.input
    if isinstance(spec.model, nn.Module):
        example = {k: torch.from_numpy(v) for k, v in spec.feeds[0].items()}
        with torch.no_grad():
            model = ov.convert_model(spec.model, example_input=example, **kwargs)
    else:
        path = out / "source.onnx"
        path.write_bytes(spec.model.SerializeToString())
        model = ov.convert_model(str(path), **kwargs)
    if len(model.outputs) != len(spec.outputs):
        raise ValueError(f"{name}: {len(model.outputs)} outputs, {len(spec.outputs)} names")
    for port, oname in zip(model.outputs, spec.outputs):
        port.get_tensor().set_names({oname})
    for variant, fp16 in (("fp32", False), ("fp16", True)):
        (out / variant).mkdir(exist_ok=True)
        ov.save_model(model, out / variant / "model.xml", compress_to_fp16=fp16)
    for i, feeds in enumerate(spec.feeds):
        np.savez(out / f"inputs_{i}.npz", **feeds)
    if isinstance(spec.model, nn.Module):
        _float64_outputs(spec, out)
    return {"inputs": [sorted(p.get_names() & spec.feeds[0].keys())[0] for p in model.inputs],
            "outputs": spec.outputs,
            "feeds": len(spec.feeds)}


def _float64_outputs(spec: Spec, out: Path) -> None:
    """The torch model run in float64 on each input set -> ``out/float64_<i>.npz``: the exact
    answer (for the fp32 weights) that tells whose rounding a disagreement is."""
    import copy
    m = copy.deepcopy(spec.model).double()
    for i, feeds in enumerate(spec.feeds):
        args = {k: torch.from_numpy(v.astype(np.float64) if v.dtype.kind == "f" else v) for k, v in feeds.items()}
        with torch.no_grad():
            res = m(**args)
        flat = [res] if isinstance(res, torch.Tensor) else list(res)
        np.savez(out / f"float64_{i}.npz", **{n: t.numpy() for n, t in zip(spec.outputs, flat)})


if __name__ == "__main__":   # python -m tools.zoo.zoo_models NAME OUTDIR: convert one case here
    import sys
    os.environ["CI"] = "true"
    print(convert(sys.argv[1], sys.argv[2]))
