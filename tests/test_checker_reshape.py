"""``Model.reshape`` / ``Model.save`` / ``irrun reshape``: all or nothing, the blocking layer named,
and an IR that OpenVINO reads (its output shapes as declared) and computes exactly as it computes
the original model for the same inputs. The OpenVINO side runs in a worker process
(tools/ovoracle.py) with its reference evaluator."""
from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from helpers import needs_openvino
import irrun
from irrun import check as check_model
from irrun.cli.main import main
from irrun.errors import OutputError, ShapeError
from irrun.ir.builder import IRWriter

FIXTURES = Path(__file__).parent / "fixtures"


def run_cli(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def declared(xml: Path, layer_type: str) -> list[list[int]]:
    """The declared dims of every port of the first layer of ``layer_type`` (input, then output)."""
    model = irrun.read_model(xml)
    L = next(d["layer"] for _, d in model.graph.nodes(data=True) if d["layer"].type == layer_type)
    return [list(p.dims) for p in L.inputs + L.outputs]


# --- the writer --------------------------------------------------------------------------------

@pytest.mark.parametrize("xml", sorted(FIXTURES.rglob("*.xml")),
                         ids=lambda p: str(p.relative_to(FIXTURES).parent))
def test_saving_an_unchanged_model_gives_the_same_bytes(tmp_path, xml):
    irrun.read_model(xml).save(tmp_path / "m.xml")
    assert (tmp_path / "m.xml").read_bytes() == xml.read_bytes()
    assert (tmp_path / "m.bin").read_bytes() == xml.with_suffix(".bin").read_bytes()


def test_reshape_rewrites_only_shapes_and_dims(tmp_path):
    src = FIXTURES / "shufflenet_block" / "model.xml"
    model = irrun.read_model(src)
    model.reshape({"x": "3,8,4,4"})
    model.save(tmp_path / "out.xml")
    old, new = src.read_text().splitlines(), (tmp_path / "out.xml").read_text().splitlines()
    changed = [(a.strip(), b.strip()) for a, b in zip(old, new) if a != b]
    assert len(old) == len(new)
    assert set(changed) == {('<data shape="1,8,4,4" element_type="f32" />',
                             '<data shape="3,8,4,4" element_type="f32" />'),
                            ("<dim>1</dim>", "<dim>3</dim>")}
    assert check_model(tmp_path / "out.xml") == []


def test_rank_changes_keep_the_layout(tmp_path):
    b = IRWriter("conv")
    x = b.parameter("x", "f32", [2, 3])
    c = b.layer("Convert", [x], {"destination_type": "i32"}, out_dims=[[2, 3]], out_precision="I32")
    b.result(c, "y")
    src = b.save(tmp_path / "conv.xml")
    for shape, dims, attr in [("4,2,3", [4, 2, 3], "4,2,3"), ("", [], ""), ("...", [], "..."),
                              ("2..5,?", [-1, -1], "2..5,?")]:
        model = irrun.read_model(src)
        model.reshape({"x": shape})
        model.save(tmp_path / "out.xml")
        assert declared(tmp_path / "out.xml", "Convert") == [dims, dims]
        assert f'shape="{attr}"' in (tmp_path / "out.xml").read_text()
        assert check_model(tmp_path / "out.xml") == []
    assert '\n        <port id="1" precision="I32">\n          <dim>-1</dim>\n          <dim>-1</dim>\n' \
        '        </port>\n' in (tmp_path / "out.xml").read_text()   # indented like the file
    src = FIXTURES / "convert_chain" / "model.xml"                    # x f32[6], tab-indented
    model = irrun.read_model(src)
    model.reshape({"x": "2,3"})
    model.save(tmp_path / "cc.xml")
    new = (tmp_path / "cc.xml").read_text().splitlines()
    old = src.read_text().splitlines()
    assert set(new) - set(old) == {'\t\t\t<data shape="2,3" element_type="f32" />',
                                   "\t\t\t\t\t<dim>2</dim>", "\t\t\t\t\t<dim>3</dim>"}
    assert len(new) > len(old)


def test_save_refuses_a_source_file_that_changed(tmp_path):
    for f in ("model.xml", "model.bin"):
        shutil.copy(FIXTURES / "split_neg_axis" / f, tmp_path / f)
    model = irrun.read_model(tmp_path / "model.xml")
    text = (tmp_path / "model.xml").read_text()
    (tmp_path / "model.xml").write_text(text.replace('type="Split"', 'type="VariadicSplit"'))
    with pytest.raises(irrun.IrrunError, match="the file has changed since the model was read"):
        model.save(tmp_path / "out.xml")
    assert not (tmp_path / "out.xml").exists()


# --- all or nothing ----------------------------------------------------------------------------

def test_blocking_layer_is_named_and_the_model_is_untouched(tmp_path, capsys):
    src = FIXTURES / "ir_v10" / "model.xml"          # x [2,12] -> Reshape to Const [2,3,4] -> ...
    model = irrun.read_model(src)
    before = (model.inputs, model.outputs, dict(model.types()))
    with pytest.raises(ShapeError) as e:
        model.reshape({"x": "4,12"})
    err = e.value
    assert (err.layer.id, err.layer.type, err.port) == ("2", "Reshape", "input 1")
    assert "Requested output shape [2,3,4] is incompatible with input shape [4,12]" in err.message
    assert 'input 1 is Const "Constant_507" = [2, 3, 4], which may hold the old shapes' in err.message
    assert (model.inputs, model.outputs, dict(model.types())) == before
    model.save(tmp_path / "same.xml")
    assert (tmp_path / "same.xml").read_bytes() == src.read_bytes()
    code, out, err = run_cli(capsys, "reshape", src, "--shape", "x=4,12", "-o", tmp_path / "o.xml")
    assert code == 1 and out == ""
    assert err.startswith("irrun: cannot reshape, nothing written: ") and '"Reshape_508"' in err
    assert not (tmp_path / "o.xml").exists() and not (tmp_path / "o.bin").exists()


def test_reshape_cli(tmp_path, capsys):
    src = FIXTURES / "shufflenet_block" / "model.xml"
    code, out, err = run_cli(capsys, "reshape", src, "--shape", "x=?,8,4,4", "-o", tmp_path / "o.xml")
    assert code == 0, err
    assert out.splitlines() == ["input   x  f32[1,8,4,4]  -> f32[?,8,4,4]",
                                "output  p  f32[1,4,4,4]  -> f32[?,4,4,4]",
                                "output  q  f32[1,4,4,4]  -> f32[?,4,4,4]",
                                f"wrote {tmp_path / 'o.xml'} and {tmp_path / 'o.bin'}"]
    assert run_cli(capsys, "check", tmp_path / "o.xml")[0] == 0
    code, out, err = run_cli(capsys, "reshape", src, "--shape", "nope=1,8,4,4", "-o", tmp_path / "p.xml")
    assert code == 2 and 'no input named "nope"' in err
    code, out, err = run_cli(capsys, "reshape", src, "--shape", "x=1,8,4,four", "-o", tmp_path / "p.xml")
    assert code == 2 and "bad --shape" in err
    assert not (tmp_path / "p.xml").exists()


def test_saving_over_the_model_itself_is_refused(tmp_path):
    """Writers never overwrite the files a model was read from (issue 11): the model stays as it
    was, and saving beside it works, creating missing directories."""
    for f in ("model.xml", "model.bin"):
        shutil.copy(FIXTURES / "shufflenet_block" / f, tmp_path / f)
    model = irrun.read_model(tmp_path / "model.xml")
    model.reshape({"x": [2, 8, 4, 4]})
    for target in ("model.xml", "model.XML", "./model.xml"):
        with pytest.raises(OutputError, match="never overwrites"):
            model.save(tmp_path / target)
    for f in ("model.xml", "model.bin"):
        assert (tmp_path / f).read_bytes() == (FIXTURES / "shufflenet_block" / f).read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.bin", "model.xml"]
    model.save(tmp_path / "new" / "dir" / "b2.xml")
    assert (tmp_path / "new/dir/b2.bin").read_bytes() == (FIXTURES / "shufflenet_block/model.bin").read_bytes()
    out = irrun.read_model(tmp_path / "new" / "dir" / "b2.xml").run(np.ones((2, 8, 4, 4), np.float32))
    assert [a.shape for a in out.values()] == [(2, 4, 4, 4)] * 2


# --- OpenVINO reads the result and computes the same outputs ------------------------------------

RESHAPES = [
    ("shufflenet_block", {"x": "3,8,4,4"}, {"x": (3, 8, 4, 4)}),
    ("shufflenet_block", {"x": "?,8,4,4"}, {"x": (2, 8, 4, 4)}),
    ("interval_dim", {"x": "3,6"}, {"x": (3, 6)}),
    ("interval_dim", {"x": "2..5,6"}, {"x": (5, 6)}),
    ("shapeof_reshape_dynamic_batch", {"x": "5,3,4"}, {"x": (5, 3, 4)}),
    ("variadic_split_minus1", {"x": "3,1,12"}, {"x": (3, 1, 12)}),
    ("transpose_orders", {"x": "1,5,2"}, {"x": (1, 5, 2)}),
    ("squeeze_unsqueeze", {"x": "1,4,1,3"}, {"x": (1, 4, 1, 3)}),
    ("depth_to_space", {"x": "2,8,3,1", "y": "?,4,5"}, {"x": (2, 8, 3, 1), "y": (3, 4, 5)}),
    ("f16_compressed_weights", {"x": "4,3"}, {"x": (4, 3)}),
    ("convert_chain", {"x": "2,3"}, {"x": (2, 3)}),
]


def _sample(shape, et) -> np.ndarray:
    rng = np.random.default_rng(0)
    return (rng.integers(-50, 50, shape) / 2).astype(et.dtype) if et.is_float else \
        rng.integers(0, 50, shape).astype(et.dtype)


@needs_openvino
def test_openvino_reads_the_reshaped_ir_and_computes_the_same(tmp_path):
    from tools.ovoracle import Oracle

    problems = []
    with Oracle() as ov:
        for i, (case, shapes, feed_shapes) in enumerate(RESHAPES):
            src = FIXTURES / case / "model.xml"
            out = tmp_path / f"{i}.xml"
            model = irrun.read_model(src)
            model.reshape(shapes)
            model.save(out)
            assert check_model(out) == [], case
            loaded = ov.load(out)
            assert loaded.ok, f"{case}: OpenVINO cannot read the reshaped IR: {loaded.message}"
            want_shapes = [str(p.shape) for p in model.outputs]
            got_shapes = ["[" + ",".join(str(lo) if lo == hi else "?" if lo == 0 and hi is None
                                         else f"{lo}..{'' if hi is None else hi}" for lo, hi in o.shape)
                          + "]" for o in loaded.outputs]
            if got_shapes != want_shapes:
                problems.append(f"{case} {shapes}: OpenVINO infers {got_shapes}, irrun {want_shapes}")
            feeds = {p.name: _sample(feed_shapes[p.name], p.etype) for p in model.inputs}
            original = ov.reference(src, feeds)        # OpenVINO on the original file
            rewritten = ov.reference(out, feeds)       # OpenVINO on the file irrun wrote
            assert original.ok and rewritten.ok, (case, original.message, rewritten.message)
            mine = model.run(feeds)
            for o_orig, o_new in zip(original.outputs, rewritten.outputs):
                name = sorted(o_new.names)[0]
                assert o_orig.names == o_new.names
                assert np.array_equal(o_orig.array, o_new.array), f"{case}: {name}"
                assert np.array_equal(mine[next(p.name for p in model.outputs if name in p.names)],
                                      o_new.array), f"{case}: irrun {name}"
    assert not problems, "\n".join(problems)
