"""The reader's streaming fast path (irrun/ir/fast_reader.py) makes the tree reader's records to the
field, and gives every file it does not expect (and every error) to the tree reader."""
from __future__ import annotations

from pathlib import Path

import pytest

import irrun
from irrun.ir import fast_reader as fastread
from irrun.errors import ModelFileError
from irrun.ir.declared_ports import all_plain
from irrun.ir.reader import _Reader, read_ir

ROOT = Path(__file__).parents[1]
MODELS = sorted({*ROOT.glob("tests/fixtures/**/*.xml"), *ROOT.glob("samples/**/*.xml")})
SHUFFLE = ROOT / "samples" / "shufflenet_block" / "model.xml"


def _fast(path: Path, data: bytes | None = None):
    data = path.read_bytes() if data is None else data
    r = _Reader(str(path), str(path.with_suffix(".bin")))
    enc = fastread.encoding(data)
    if enc is None or not all_plain(data, enc):
        return None
    r.lazy = r.lazy_dims(data)
    return fastread.read(r, data)


def _records(ir) -> tuple:
    def layer(L):
        const = None if L.const is None else (getattr(L.const, "etype", None), getattr(L.const, "shape", None),
                                               bytes(L.const.blob) if hasattr(L.const, "blob") else None)
        return (L.id, L.name, L.type, L.version, L.data, L.position, L.rt_info, L.output_names, const,
                [(p.id, p.index, p.precision, p.etype, p.names, p.dims) for p in L.inputs + L.outputs],
                {t: _records_of(g) for t, g in L.bodies.items()}, L.port_maps, list(L.back_edges), L.path)

    def _records_of(g):
        return [layer(L) for L in g.layers], list(g.edges)
    return ir.name, ir.ir_version, ir.rt_info, _records_of(ir.graph)


@pytest.mark.parametrize("path", MODELS, ids=lambda p: str(p.relative_to(ROOT).parent))
def test_fast_path_records_equal_the_tree_readers(path):
    fast = _fast(path)
    if fast is None:
        data = path.read_bytes()
        enc = fastread.encoding(data)
        legacy = b"<meta_data>" in data or b"<quantization_parameters>" in data   # Model Optimizer's v10
        # sections (tests/fixtures/public/): the fast path leaves them to the tree reader
        assert enc is None or not all_plain(data, enc) or b"<body>" in data or b"then_body" in data or legacy, \
            "gave up on a plain file"
        return
    tree = _Reader(str(path), str(path.with_suffix(".bin"))).read(path.read_bytes(), lazy_dims=False)
    assert _records(fast) == _records(tree)


def test_a_plain_file_is_read_by_the_fast_path_and_a_body_is_not():
    assert sum(_fast(p) is not None for p in MODELS) > len(MODELS) // 2
    assert _fast(SHUFFLE) is not None
    assert _fast(ROOT / "tests" / "fixtures" / "subgraphs" / "ti_forward" / "model.xml") is None


@pytest.mark.parametrize("old,new", [
    (b'name="x"', b'name="x&amp;y"'),                      # an entity: lxml's target would not decode it
    (b'<?xml version="1.0"?>', b'<?xml version="1.0" encoding="ISO-8859-1"?>'),
    (b"<layers>", b"<layers><note/>"),                    # a child the fast path does not expect
    (b'<layer id="0"', b'<layer id="x0"'),               # an error: the tree reader's message
])
def test_what_the_fast_path_does_not_read_goes_to_the_tree_reader(tmp_path, old, new):
    data = SHUFFLE.read_bytes()
    assert old in data
    p = tmp_path / "model.xml"
    p.write_bytes(data.replace(old, new, 1))
    p.with_suffix(".bin").write_bytes(SHUFFLE.with_suffix(".bin").read_bytes())
    assert _fast(p) is None
    if b"x0" in new:
        with pytest.raises(ModelFileError, match="layer at line 4 has a missing or invalid id"):
            read_ir(p)
        return
    ir = read_ir(p)
    assert [L.id for L in ir.graph.layers] == [L.id for L in read_ir(SHUFFLE).graph.layers]
    if b"&amp;" in new:
        assert ir.graph.layers[0].name == "x&y"
    assert irrun.read_model(p).order                # reads and builds


def test_fast_path_model_runs_like_the_tree_path(tmp_path):
    import numpy as np
    x = np.random.default_rng(0).standard_normal((1, 8, 4, 4)).astype(np.float32)
    fast = irrun.read_model(SHUFFLE)
    data = SHUFFLE.read_bytes().replace(b'<?xml version="1.0"?>', b'<?xml version="1.0" encoding="ISO-8859-1"?>', 1)
    p = tmp_path / "model.xml"
    p.write_bytes(data)
    p.with_suffix(".bin").write_bytes(SHUFFLE.with_suffix(".bin").read_bytes())
    assert _fast(p) is None
    tree = irrun.read_model(p)
    a, b = fast.run(x), tree.run(x)
    assert a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)


_TOKENS = [b"<", b">", b"/", b'"', b"=", b"&amp;", b"<dim>", b"</dim>", b"-1", b"-5", b'<port id="9">', b"<layer ",
           b'<data a="1"/>', b"<rt_info/>", b" ", b"x", b"0", b'<edge from-layer="1" from-port="0" to-layer="2" to-port="0"/>',
           b'precision="FP32"', b'names="a,b"', b"<body>", b'id="0"']


@pytest.mark.parametrize("seed", range(4))
def test_mutated_files_read_the_same_or_fail_the_same_on_both_paths(tmp_path, seed):
    """Differential: ``read_ir`` (fast path first, lazy dims) against the tree reader with eager
    dims, on randomly mutated copies of a real IR: equal records, or the same error."""
    import random

    from irrun.errors import IrrunError
    base = SHUFFLE.read_bytes()
    p = tmp_path / "model.xml"
    p.with_suffix(".bin").write_bytes(SHUFFLE.with_suffix(".bin").read_bytes())
    rng = random.Random(seed)
    outcomes = set()
    for _ in range(100):
        data = bytearray(base)
        for _ in range(rng.randint(1, 3)):
            k = rng.randrange(len(data))
            op = rng.random()
            if op < 0.15:
                del data[k:k + rng.randint(1, 20)]
            elif op < 0.7:
                data[k:k] = rng.choice(_TOKENS)
            else:
                data[k:k + 1] = bytes([rng.randrange(32, 127)])
        p.write_bytes(bytes(data))

        def outcome(read):
            try:
                return ("ok", _records(read()))
            except IrrunError as e:
                return (type(e).__name__, str(e))
        got = outcome(lambda: read_ir(p))
        assert got == outcome(lambda: _Reader(str(p), str(p.with_suffix(".bin"))).read(bytes(data), lazy_dims=False))
        outcomes.add(got[0])
    assert "ok" in outcomes and len(outcomes) > 1        # both kinds of case were met
