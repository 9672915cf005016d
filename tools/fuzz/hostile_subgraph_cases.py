"""Hostile cases of issue 11 for tools/fuzz/make_hostile_corpus.py: runs that never end (classes 2),
run-time sizes past the memory budget (5) and mis-declared sub-graph bodies (6).

The Loop models are the OpenVINO-written fixtures of tests/fixtures/subgraphs (valid models,
measured by tools/fixtures/make_subgraph_fixtures.py) given hostile trip counts, inputs or declarations;
the others are written with :class:`irrun.ir.builder.IRWriter`. ``cases(model_case, npy)`` adds
them through the generator's own ``model_case``.
"""
from __future__ import annotations

import struct

import numpy as np
from lxml import etree

from irrun.ir.builder import IRWriter
from tools import ROOT

FIXTURES = ROOT / "tests" / "fixtures" / "subgraphs"
BUDGET = "iteration budget"


def fixture(name: str) -> tuple[bytes, bytes]:
    d = FIXTURES / name
    return (d / "model.xml").read_bytes(), (d / "model.bin").read_bytes()


def with_trip(name: str, trip: int) -> tuple[bytes, bytes]:
    """The fixture with its constant trip count (an i64 at offset 0 of the .bin) replaced."""
    xml, bin_ = fixture(name)
    return xml, struct.pack("<q", trip) + bin_[8:]


def edited(name: str, fn) -> tuple[bytes, bytes]:
    xml, bin_ = fixture(name)
    root = etree.fromstring(xml)
    fn(root)
    return etree.tostring(root, xml_declaration=True, encoding="utf-8"), bin_


def runtime_size_model(kind: str) -> tuple[bytes, bytes]:
    """DFT-7 with a run-time ``signal_size``, Interpolate-11 with run-time ``sizes``, or a Tile
    of strings with run-time repeats."""
    b = IRWriter(kind)
    if kind == "dft":
        x = b.parameter("x", "f32", [4, 2])
        s = b.parameter("s", "i64", [1])
        y = b.layer("DFT", [x, b.const(np.array([0], np.int64)), s], version="opset7", out_dims=[[-1, 2]])
    elif kind == "interpolate":
        x = b.parameter("x", "f32", [1, 1, 2, 2])
        s = b.parameter("s", "i64", [2])
        y = b.layer("Interpolate", [x, s, b.const(np.array([2, 3], np.int64))],
                    {"mode": "nearest", "shape_calculation_mode": "sizes"}, version="opset11",
                    out_dims=[[1, 1, -1, -1]])
    else:
        x = b.parameter("x", "string", [1])
        s = b.parameter("s", "i64", [1])
        y = b.layer("Tile", [x, s], out_dims=[[-1]])
    b.result(y, "y")
    return b.to_xml(), bytes(b.blob)


def cases(model_case, npy) -> None:
    x23 = npy(np.ones((2, 3), np.float32))
    i64 = lambda v: npy(np.array(v, np.int64))                      # noqa: E731

    def case(name, what, model, code, fragments, inputs=None, args=None, cmd="run"):
        model_case(name, what, model[0], model[1], code, fragments, inputs, args, cmd)

    # -- 2: runs that never end -----------------------------------------------------------------
    case("loop_trip_2_62_const", "Loop with the constant trip count 2**62, condition always true",
         with_trip("loop_fixed", 2**62), 2, ["layer 3", "4611686018427387904 iterations", BUDGET],
         {"X.npy": x23})
    case("loop_trip_minus1_input", "trip count -1 from an input, conditions constant true",
         fixture("loop_runtime_trip_scan"), 2, ["layer 3", "never ends"],
         {"X.npy": x23, "T.npy": i64(-1)}, ["--input", "X={dir}/X.npy", "--input", "T={dir}/T.npy"])
    case("loop_trip_huge_input", "trip count 2**62 from an input, refused before iterating",
         fixture("loop_runtime_trip_scan"), 2, ["layer 3", BUDGET, "--max-iterations"],
         {"X.npy": x23, "T.npy": i64(2**62)}, ["--input", "X={dir}/X.npy", "--input", "T={dir}/T.npy"])
    case("loop_computed_condition_forever", "trip count -1, a computed condition that stays true",
         with_trip("loop_early_stop", -1), 2, ["layer 3", "reached 301 body executions", BUDGET],
         {"X.npy": npy(np.full((2, 3), -5, np.float32))},
         ["--input", "{dir}/X.npy", "--max-iterations", "300"])
    case("loop_nested_product", "nested Loops of 10**3 x 10**3 body runs, --max-iterations 3000",
         fixture("loop_nested"), 2, ['layer 4/4 "Loop_13" (Loop-opset5)', "1000 iterations", "already", BUDGET],
         {"X.npy": npy(np.ones(2, np.float32)), "T1.npy": i64(1000), "T2.npy": i64(1000)},
         ["--input", "X={dir}/X.npy", "--input", "T1={dir}/T1.npy", "--input", "T2={dir}/T2.npy",
          "--max-iterations", "3000"])
    case("check_loop_unbounded", "check warns about a Loop nothing bounds (trip -1, computed "
         "condition)", fixture("loop_while"), 0, ["1 warning", "cannot bound", "--max-iterations"],
         cmd="check")
    # -- 5: run-time sizes and the live total -----------------------------------------------------
    case("loop_doubling_state", "a Loop doubling its state 40 times, --max-memory 64M",
         fixture("loop_doubling"), 2, ["layer 3", "memory budget", "live tensors"],
         {"A.npy": npy(np.ones(1, np.float32)), "T.npy": i64(40)},
         ["--input", "A={dir}/A.npy", "--input", "T={dir}/T.npy", "--max-memory", "64M"])
    case("dft_runtime_signal_size", "DFT with a run-time signal_size of 10**12",
         runtime_size_model("dft"), 2, ['"DFT_3"', "8.0 TB", "memory budget"],
         {"x.npy": npy(np.ones((4, 2), np.float32)), "s.npy": i64([10**12])},
         ["--input", "x={dir}/x.npy", "--input", "s={dir}/s.npy"])
    case("interpolate_runtime_sizes", "Interpolate with run-time sizes of 10**6 x 10**6",
         runtime_size_model("interpolate"), 2, ['"Interpolate_3"', "4.0 TB", "memory budget"],
         {"x.npy": npy(np.ones((1, 1, 2, 2), np.float32)), "s.npy": i64([10**6, 10**6])},
         ["--input", "x={dir}/x.npy", "--input", "s={dir}/s.npy"])
    case("tile_long_strings", "a Tile of one 1000-character string 10**5 times, --max-memory 64M",
         runtime_size_model("tile"), 2, ["string[100000]", "1016 bytes each", "memory budget"],
         {"x.npy": npy(np.array(["a" * 1000])), "s.npy": i64([10**5])},
         ["--input", "x={dir}/x.npy", "--input", "s={dir}/s.npy", "--max-memory", "64M"])
    # -- 6: mis-declared bodies -------------------------------------------------------------------
    def retype(root):
        d = root.find("layers/layer[@id='3']/body/layers/layer[@id='1']/data")
        d.set("element_type", "f16")
    case("ti_body_parameter_f16", "a TensorIterator body Parameter declared f16, fed f32",
         edited("ti_forward", retype), 2, ["layer 3/3", "as declared", "element type"],
         {"X.npy": npy(np.ones((2, 5, 3), np.float32)), "H.npy": x23,
          "W.npy": npy(np.eye(3, dtype=np.float32))},
         ["--input", "X={dir}/X.npy", "--input", "H={dir}/H.npy", "--input", "W={dir}/W.npy"])
    # -- issue 27, class 14 (a separate block: loop_cases_27 below) ----------------------------
    loop_cases_27(case, npy, i64)


# =============================================================================================
# Issue 27, class 14: loops that must stop fast (a hostile file refused within 5 s by default,
# within its memory budget). Separate block: other engineers add cases above/elsewhere.
# =============================================================================================

def _port(pid: int, etype: str, dims: list[int]) -> str:
    prec = {"f32": "FP32", "i64": "I64", "boolean": "BOOL"}[etype]
    return f'<port id="{pid}" precision="{prec}">' + "".join(f"<dim>{d}</dim>" for d in dims) + "</port>"


def _nested_level(depth: int) -> tuple[str, str]:
    """The layers and edges of a graph that feeds x f32[1] (layer 0) through ``depth`` nested
    Loops (trip count: the i64 at .bin offset 0, condition: the boolean at offset 8, constant
    true in every body) into a Result; the innermost body adds 1."""
    const = ('<layer id="{id}" name="{name}" type="Const" version="opset1"><data element_type="{t}" '
             'shape="" offset="{off}" size="{size}"/><output>{port}</output></layer>')
    trip = const.format(id=2, name=f"trip{depth}", t="i64", off=0, size=8, port=_port(0, "i64", []))
    cond = const.format(id=3, name=f"cond{depth}", t="boolean", off=8, size=1, port=_port(0, "boolean", []))
    param = ('<layer id="0" name="x{d}" type="Parameter" version="opset1"><data shape="1" '
             'element_type="f32"/><output>' + _port(0, "f32", [1]) + '</output></layer>').format(d=depth)
    if depth == 0:
        one = ('<layer id="1" name="one" type="Const" version="opset1"><data element_type="f32" '
               'shape="1" offset="12" size="4"/><output>' + _port(0, "f32", [1]) + '</output></layer>')
        add = ('<layer id="4" name="add" type="Add" version="opset1"><input>' + _port(0, "f32", [1])
               + _port(1, "f32", [1]) + '</input><output>' + _port(2, "f32", [1]) + '</output></layer>')
        res = ('<layer id="5" name="out0" type="Result" version="opset1"><input>' + _port(0, "f32", [1])
               + '</input></layer>')
        layers = param + one + cond + add + res
        edges = '<edge from-layer="0" from-port="0" to-layer="4" to-port="0"/>' \
                '<edge from-layer="1" from-port="0" to-layer="4" to-port="1"/>' \
                '<edge from-layer="4" from-port="2" to-layer="5" to-port="0"/>'
        return layers, edges
    inner_layers, inner_edges = _nested_level(depth - 1)
    body_cond = ('<layer id="90" name="again" type="Result" version="opset1"><input>'
                 + _port(0, "boolean", []) + '</input></layer>')
    inner_res = 5 if depth == 1 else 6
    loop = ('<layer id="4" name="loop{d}" type="Loop" version="opset5"><port_map>'
            '<input external_port_id="2" internal_layer_id="0"/>'
            '<output external_port_id="3" internal_layer_id="{r}"/>'
            '<output external_port_id="-1" internal_layer_id="90" purpose="execution_condition"/>'
            '</port_map><back_edges><edge from-layer="{r}" to-layer="0"/></back_edges><input>'
            + _port(0, "i64", []) + _port(1, "boolean", []) + _port(2, "f32", [1]) + '</input><output>'
            + _port(3, "f32", [1]) + '</output><body><layers>{il}{bc}</layers><edges>{ie}'
            '<edge from-layer="3" from-port="0" to-layer="90" to-port="0"/></edges></body></layer>'
            ).format(d=depth, r=inner_res, il=inner_layers, bc=body_cond, ie=inner_edges)
    res = ('<layer id="6" name="out{d}" type="Result" version="opset1"><input>' + _port(0, "f32", [1])
           + '</input></layer>').format(d=depth)
    layers = param + trip + cond + loop + res
    edges = ('<edge from-layer="2" from-port="0" to-layer="4" to-port="0"/>'
             '<edge from-layer="3" from-port="0" to-layer="4" to-port="1"/>'
             '<edge from-layer="0" from-port="0" to-layer="4" to-port="2"/>'
             '<edge from-layer="4" from-port="3" to-layer="6" to-port="0"/>')
    return layers, edges


def nested_loops(depth: int, trip: int) -> tuple[bytes, bytes]:
    """``depth`` Loops nested in one another, each running ``trip`` times (trip**depth runs of
    the innermost body); the model's input x f32[1]."""
    layers, edges = _nested_level(depth)
    xml = f'<?xml version="1.0"?>\n<net name="nested{depth}" version="11"><layers>{layers}</layers>' \
          f'<edges>{edges}</edges></net>\n'
    return xml.encode(), struct.pack("<q?xxxf", trip, True, 1.0)


WORK = "loop work budget"


def loop_cases_27(case, npy, i64) -> None:
    """Refused with exit 2 by default within 5 s (tests/hostile/test_iteration_budget.py times
    them in a subprocess); before issue 27 they ran 20 s, 10 s, 18 s and peaked at 1.6 GB."""
    case("loop27_never_ends", "a Loop whose computed condition stays true (trip -1, limit 10**18), "
         "default budget", fixture("loop_while"), 2, ["layer 4", WORK, "--max-iterations"],
         {"X.npy": npy(np.ones((2, 3), np.float32)), "L.npy": i64(10**18)},
         ["--input", "X={dir}/X.npy", "--input", "L={dir}/L.npy"])
    case("loop27_nested_1e9", "two nested Loops of 31623 iterations each (10**9 inner bodies), "
         "default budget", fixture("loop_nested"), 2, ['layer 4 "Loop_18"', "31623 iterations", WORK],
         {"X.npy": npy(np.ones(2, np.float32)), "T1.npy": i64(31623), "T2.npy": i64(31623)},
         ["--input", "X={dir}/X.npy", "--input", "T1={dir}/T1.npy", "--input", "T2={dir}/T2.npy"])
    case("loop27_nested_30", "30 nested Loops of 2 iterations each (2**30 inner bodies), default "
         "budget", nested_loops(30, 2), 2, ['"loop1" (Loop-opset5)', "4/4/4", WORK],
         {"x.npy": npy(np.ones(1, np.float32))})
    case("loop27_doubling_1g", "a Loop doubling its state 40 times under --max-memory 1G",
         fixture("loop_doubling"), 2, ["layer 3/4", "Concat", "beside the run's live tensors", "memory budget of 1.0 GB"],
         {"A.npy": npy(np.ones(1, np.float32)), "T.npy": i64(40)},
         ["--input", "A={dir}/A.npy", "--input", "T={dir}/T.npy", "--max-memory", "1G"])
