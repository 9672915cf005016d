"""The Python API at OpenVINO's edges: what ``run`` and ``reshape`` accept, errors for the wrong
types, the top-level names. Expected outputs are the sample's OpenVINO outputs (expected.npy)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import irrun
from irrun.ir.builder import IRWriter

SAMPLE = Path(__file__).parent.parent / "samples" / "shufflenet_block"


@pytest.fixture
def model():
    return irrun.read_model(SAMPLE / "model.xml")


@pytest.fixture
def x():
    return np.load(SAMPLE / "input.npy")


@pytest.mark.parametrize("form", ["array", "list", "tuple", "index", "numpy index", "name", "portspec"])
def test_run_accepts_what_openvino_accepts(model, x, form):
    arg = {"array": x, "list": [x], "tuple": (x,), "index": {0: x}, "numpy index": {np.int64(0): x},
           "name": {"x": x}, "portspec": {model.inputs[0]: x}}[form]
    (out,) = model.run(arg).values()
    np.testing.assert_allclose(out, np.load(SAMPLE / "expected.npy"), rtol=1e-6, atol=1e-6)


def two_inputs(tmp_path):
    b = IRWriter("two")
    a, c = b.parameter("a", "f32", [2]), b.parameter("c", "f32", [2])
    b.result(b.layer("Subtract", [a, c], out_dims=[[2]]), "d")
    return irrun.read_model(b.save(tmp_path / "two.xml"))


def test_list_is_in_input_order_and_keys_mix(tmp_path):
    m = two_inputs(tmp_path)
    a, c = np.array([5, 7], np.float32), np.array([1, 2], np.float32)
    np.testing.assert_array_equal(m.run([a, c])["d"], [4, 5])           # a - c, by position
    np.testing.assert_array_equal(m.run({1: a, "a": c})["d"], [-4, -5])
    np.testing.assert_array_equal(m.run({m.inputs[1]: c, 0: a})["d"], [4, 5])


@pytest.mark.parametrize("arg, fragment", [
    ("x.npy", "inputs must be a dict (keyed by input name, index or PortSpec), a list or tuple"),
    (None, "got NoneType"),
    ({1: np.zeros(1)}, "input index 1 is out of range: the model has 1 input (x)"),
    ({-1: np.zeros(1)}, "input index -1 is out of range"),
    ({True: np.zeros(1)}, "not by bool True"),
    ({2.0: np.zeros(1)}, "not by float 2.0"),
    ({"x": "data.npy"}, 'input "x": expected an array'),
    ({"x": {"a": 1}}, 'input "x": expected an array'),
    ({"x": [object()]}, "does not make a numeric array"),
    ([np.zeros(1), np.zeros(1)], "2 arrays given in a list, the model has 1 input (x)"),
    ({0: np.zeros((1, 8, 4, 4), np.float32), "x": np.zeros((1, 8, 4, 4), np.float32)}, 'input "x" is given twice'),
])
def test_wrong_run_arguments_are_input_errors(model, arg, fragment):
    with pytest.raises(irrun.InputError) as e:
        model.run(arg)
    assert fragment in str(e.value)


def test_portspec_of_another_model_is_refused(model, tmp_path):
    other = two_inputs(tmp_path)
    with pytest.raises(irrun.InputError, match="is not an input of this model"):
        model.run({other.inputs[0]: np.zeros(2, np.float32)})


@pytest.mark.parametrize("shape", ["2,8,4,4", [2, 8, 4, 4], (2, 8, 4, 4), ["2", 8, "4", 4],
                                   {"x": "2,8,4,4"}, {0: [2, 8, 4, 4]}, [[2, 8, 4, 4]]])
def test_reshape_forms(model, shape):
    model.reshape(shape)
    assert str(model.inputs[0].shape) == "[2,8,4,4]" and str(model.outputs[0].shape) == "[2,8,4,4]"


def test_reshape_keeps_intervals_and_partial_shapes(model):
    model.reshape("1..4,8,4,4")
    assert str(model.inputs[0].shape) == "[1..4,8,4,4]"
    model.reshape(irrun.PartialShape.parse("?,8,4,4"))
    assert str(model.inputs[0].shape) == "[?,8,4,4]"
    types = model.infer_shapes([3, 8, 4, 4])                    # infer_shapes takes the same forms
    assert str(types[(7, 0)].shape) == "[3,8,4,4]"              # layer 7: ShuffleChannels, the last op
    assert str(model.inputs[0].shape) == "[?,8,4,4]"


@pytest.mark.parametrize("arg, fragment", [
    (5, "shapes must be a dict"), ({"x": 3.5}, "got float 3.5"), ({"x": "1,abc"}, "dimension 'abc'"),
    ({"y": "1,8,4,4"}, 'no input named "y"'), ({3: "1,8,4,4"}, "input index 3 is out of range"),
])
def test_wrong_reshape_arguments_are_input_errors(model, arg, fragment):
    with pytest.raises(irrun.InputError) as e:
        model.reshape(arg)
    assert fragment in str(e.value)
    assert str(model.inputs[0].shape) == "[?,8,4,4]", "the model is left as it was"


def test_one_shape_for_a_two_input_model_is_refused(tmp_path):
    with pytest.raises(irrun.InputError, match="one shape given, the model has 2 inputs"):
        two_inputs(tmp_path).reshape("4")


def test_repr(model):
    assert repr(model) == (f'<irrun.Model "shufflenet_block" ({SAMPLE / "model.xml"}): 9 layers; '
                           "inputs x: f32[?,8,4,4]; outputs y>")


def test_top_level_names():
    from irrun import errors
    for name in ("IrrunError", "ModelFileError", "GraphError", "ShapeError", "ExecutionError", "InputError",
                 "UnsupportedError", "InternalError"):
        assert getattr(irrun, name) is getattr(errors, name) and name in irrun.__all__
    assert issubclass(irrun.MemoryBudgetError, irrun.ExecutionError)
    assert set(irrun.__all__) <= set(dir(irrun))
    with pytest.raises(AttributeError):
        irrun.no_such_name       # noqa: B018
    assert irrun.check.__annotations__ == {"path": "str | os.PathLike",
                                           "shapes": "Mapping[str, object] | None", "return": "list[Finding]"}


def test_import_irrun_is_light():
    code = "import sys, irrun; print(sorted(m for m in ('numpy', 'networkx', 'lxml') if m in sys.modules))"
    r = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True, check=True)
    assert r.stdout.strip() == "[]", "import irrun loads the heavy modules only when a model is read"


def test_py_typed_is_shipped():
    from importlib import resources
    assert resources.files("irrun").joinpath("py.typed").is_file()


def test_api_reference_is_current():
    from tools.docs.make_api_docs import OUT, generate
    assert OUT.read_text(encoding="utf-8") == generate(), "regenerate it: python -m tools.docs.make_api_docs"
