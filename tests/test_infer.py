"""Shape inference through constant sub-graphs, and run-time resolution when values are unknown."""
import numpy as np
import pytest

import irrun
from irrun.errors import ExecutionError, ShapeError
from irrun.ir.builder import IRWriter


def split_by_shape_model(tmp_path, y_shape: str):
    """x [2,6]; lengths = Concat(Gather(ShapeOf(y), [0]), [-1]); VariadicSplit(x, 1, lengths)."""
    b = IRWriter("sbs")
    x = b.parameter("x", "f32", [2, 6])
    y = b.parameter("y", "f32", y_shape, dims=[-1, 5])
    s = b.layer("ShapeOf", [y], {"output_type": "i64"}, version="opset3", out_precision="I64")
    first = b.layer("Gather", [s, b.const(np.array([0])), b.const(np.int64(0))], {"batch_dims": 0},
                    version="opset8", out_precision="I64")
    lengths = b.layer("Concat", [first, b.const(np.array([-1]))], {"axis": 0}, out_precision="I64")
    a, c = b.layer("VariadicSplit", [x, b.const(np.int64(1)), lengths], n_out=2)
    b.result(a, "a")
    b.result(c, "b")
    return irrun.read_model(b.save(tmp_path / "m.xml"))


def test_shapeof_gather_concat_resolves_minus_one(tmp_path):
    m = split_by_shape_model(tmp_path, "2,5")
    assert [str(o.shape) for o in m.outputs] == ["[2,2]", "[2,4]"]


def test_dynamic_lengths_are_dynamic_then_resolved_at_run_time(tmp_path):
    m = split_by_shape_model(tmp_path, "?,5")
    assert [str(o.shape) for o in m.outputs] == ["[2,?]", "[2,?]"]
    x = np.arange(12, dtype=np.float32).reshape(2, 6)
    out = m.run({"x": x, "y": np.zeros((4, 5), np.float32)})
    np.testing.assert_array_equal(out["a"], [[0, 1, 2, 3], [6, 7, 8, 9]])
    np.testing.assert_array_equal(out["b"], [[4, 5], [10, 11]])
    with pytest.raises(ShapeError, match="VariadicSplit"):   # 8 > 6: the -1 would be negative
        m.run({"x": x, "y": np.zeros((8, 5), np.float32)})


def test_infer_shapes_for_new_input_shapes_leaves_model_untouched(tmp_path):
    m = split_by_shape_model(tmp_path, "?,5")
    types = m.infer_shapes({"y": [3, 5]})
    outs = [str(types[(u, sp)].shape) for o in m.outputs
            for (u, sp) in [next((e[0], e[2]["src_port"]) for e in m.graph.in_edges(o.node, data=True))]]
    assert outs == ["[2,3]", "[2,3]"]
    assert [str(o.shape) for o in m.outputs] == ["[2,?]", "[2,?]"]


def test_runtime_lengths_from_a_parameter(tmp_path):
    b = IRWriter()
    x = b.parameter("x", "i32", [6])
    lens = b.parameter("lens", "i64", [2])
    a, c = b.layer("VariadicSplit", [x, b.const(np.int64(0)), lens], n_out=2)
    b.result(a, "a")
    b.result(c, "b")
    m = irrun.read_model(b.save(tmp_path / "m.xml"))
    assert [str(o.shape) for o in m.outputs] == ["[?]", "[?]"]
    out = m.run({"x": np.arange(6, dtype=np.int32), "lens": np.array([-1, 2])})
    assert out["a"].tolist() == [0, 1, 2, 3] and out["b"].tolist() == [4, 5]
    with pytest.raises(ExecutionError, match=r'"VariadicSplit_3".*Total length of splits: 5'):
        m.run({"x": np.arange(6, dtype=np.int32), "lens": np.array([2, 3])})
