"""Build tests/fixtures/consts/<element type>/: one tiny IR per element type of ir-format.md §6.

    python tools/make_const_fixtures.py [--out tests/fixtures/consts] [etype ...]

Each fixture is a model ``Constant -> Result`` built with OpenVINO's Python API (``op.Constant``
from an array, an ``ov.Tensor`` for strings, or element type + shape + values for the types NumPy
lacks) and saved with ``ov.save_model(..., compress_to_fp16=False)``. Packed types get odd element
counts, so the last byte/block has a tail. ``expected.npz`` holds ``value``: what OpenVINO reads
back from that file (``read_model``, then the Constant's data):

* f64 f32 f16 i64 i32 i16 i8 u64 u32 u16 u8 boolean: the data as is;
* string: the strings (``<U`` array);
* bf16 f8e4m3 f8e5m2 f8e8m0 f4e2m1 nf4: converted to f32 by OpenVINO (``Convert`` + ConstantFolding);
* u1 u2 u3 u4 u6 i4: converted to i64 the same way.

Each element type is handled in a forked child (OpenVINO may crash a process; CI=true set).
"""
from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import shutil
import sys
from pathlib import Path

os.environ["CI"] = "true"

import numpy as np  # noqa: E402

INF, NAN = float("inf"), float("nan")
NF4 = [-1.0, -0.6961928009986877, -0.5250730514526367, -0.39491748809814453, -0.28444138169288635,
       -0.18477343022823334, -0.09105003625154495, 0.0, 0.07958029955625534, 0.16093020141124725,
       0.24611230194568634, 0.33791524171829224, 0.44070982933044434, 0.5626170039176941,
       0.7229568362236023, 1.0]

#: element type -> (shape, values). Values that the type cannot hold exactly are rounded by OpenVINO
#: when it builds the Constant; expected.npz records what it then reads back from the file.
CASES: dict[str, tuple[list[int], list]] = {
    "f64": ([5], [1.5, -2.25, 1e-300, INF, NAN]),
    "f32": ([2, 3], [1.5, -2.25, 3.4e38, -INF, NAN, 1e-45]),
    "f16": ([5], [1.5, -2.25, 65504.0, 6e-8, NAN]),
    "bf16": ([5], [1.0, -2.5, 3.14159, 1e38, -INF]),
    "f8e4m3": ([7], [1.0, 448.0, -0.5, 2.0 ** -9, 2.0 ** -6, 0.3, NAN]),
    "f8e5m2": ([5], [1.0, 57344.0, -0.75, INF, NAN]),
    "f8e8m0": ([5], [1.0, 2.0, 0.25, 2.0 ** -127, 2.0 ** 127]),
    "f4e2m1": ([11], [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, -0.5, -6.0, -1.0]),
    "nf4": ([17], NF4 + [-1.0]),
    "i64": ([5], [-(2 ** 63), 2 ** 63 - 1, -1, 0, 1]),
    "i32": ([5], [-(2 ** 31), 2 ** 31 - 1, -1, 0, 1]),
    "i16": ([5], [-(2 ** 15), 2 ** 15 - 1, -1, 0, 1]),
    "i8": ([5], [-128, 127, -1, 0, 1]),
    "i4": ([17], list(range(-8, 8)) + [-8]),
    "u64": ([4], [0, 1, 2 ** 64 - 1, 2 ** 63]),
    "u32": ([3], [0, 1, 2 ** 32 - 1]),
    "u16": ([3], [0, 1, 2 ** 16 - 1]),
    "u8": ([3], [0, 1, 255]),
    "u6": ([7], [42, 21, 48, 12, 63, 0, 1]),
    "u4": ([17], list(range(16)) + [15]),
    "u3": ([11], list(range(8)) + [7, 0, 5]),
    "u2": ([7], [0, 1, 2, 3, 3, 2, 1]),
    "u1": ([11], [1, 0, 1, 1, 0, 0, 0, 0, 1, 1, 0]),
    "boolean": ([3], [True, False, True]),
    "string": ([4], ["ab", "", "xyz", "\u00fcn\u00efc\u00f6d\u00e9"]),
}
NUMPY_DTYPES = {"f64": np.float64, "f32": np.float32, "f16": np.float16, "i64": np.int64,
                "i32": np.int32, "i16": np.int16, "i8": np.int8, "u64": np.uint64,
                "u32": np.uint32, "u16": np.uint16, "u8": np.uint8, "boolean": np.bool_}
TO_F32 = {"bf16", "f8e4m3", "f8e5m2", "f8e8m0", "f4e2m1", "nf4"}
TO_I64 = {"u1", "u2", "u3", "u4", "u6", "i4"}


def _constant(etype: str, shape: list[int], values: list):
    import openvino as ov
    from openvino import op
    if etype in NUMPY_DTYPES:
        return op.Constant(np.array(values, dtype=NUMPY_DTYPES[etype]).reshape(shape))
    if etype == "string":
        return op.Constant(ov.Tensor(np.array(values).reshape(shape)))
    return op.Constant(getattr(ov.Type, etype), ov.Shape(shape), values)


def read_back(xml: Path, etype: str) -> np.ndarray:
    """What OpenVINO reads from the saved file, in a NumPy-storable type (see module docstring)."""
    import openvino as ov
    import openvino.opset1 as o1
    from openvino.passes import ConstantFolding, Manager
    model = ov.Core().read_model(str(xml))
    (const,) = [n for n in model.get_ops() if n.get_type_name() == "Constant"]
    assert str(const.get_element_type().get_type_name()) == etype or etype == "boolean", \
        (etype, const.get_element_type())
    if etype in NUMPY_DTYPES:
        return np.array(const.get_data(), dtype=NUMPY_DTYPES[etype])
    if etype == "string":
        return np.array(const.get_tensor_view().str_data)
    conv = o1.convert(const, "f32" if etype in TO_F32 else "i64")
    folded = ov.Model([conv], [])
    m = Manager()
    m.register_pass(ConstantFolding())
    m.run_passes(folded)
    src = folded.get_results()[0].input_value(0).get_node()
    if src.get_type_name() != "Constant":
        raise RuntimeError(f"OpenVINO did not fold Convert({etype})")
    return np.array(src.get_data())


def make_one(etype: str, out: Path) -> None:
    import openvino as ov
    from openvino import op
    shape, values = CASES[etype]
    const = _constant(etype, shape, values)
    const.set_friendly_name(f"const_{etype}")
    result = op.Result(const.output(0))
    result.set_friendly_name("out")
    model = ov.Model([result], [], f"const_{etype}")
    d = out / etype
    if d.exists():
        shutil.rmtree(d)
    d.mkdir(parents=True)
    ov.save_model(model, str(d / "model.xml"), compress_to_fp16=False)
    value = read_back(d / "model.xml", etype)
    if list(value.shape) != shape:
        raise RuntimeError(f"{etype}: OpenVINO read back shape {value.shape}, built {shape}")
    np.savez(d / "expected.npz", value=value)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parents[1] / "tests/fixtures/consts")
    ap.add_argument("etypes", nargs="*", default=list(CASES))
    args = ap.parse_args(argv)
    ctx = mp.get_context("fork")
    failed = []
    for et in args.etypes:
        p = ctx.Process(target=make_one, args=(et, args.out))
        p.start()
        p.join(120)
        if p.exitcode != 0:
            p.kill()
            failed.append(et)
        print(f"{et:8s} {'ok' if p.exitcode == 0 else f'FAILED (exit {p.exitcode})'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
