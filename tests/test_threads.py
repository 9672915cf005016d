"""Process-wide run settings: ``irrun --threads N`` / :func:`irrun.set_threads` (the BLAS pool
size, also after NumPy loaded its BLAS, through threadpoolctl; the environment variables for
libraries loaded later), and glibc's malloc kept from returning freed memory (irrun/runtime/heap.py)."""
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from irrun.errors import InputError
from irrun.limits import threads

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "samples" / "shufflenet_block"


def _fresh(code: str) -> str:
    """Run ``code`` in a new Python whose BLAS starts with 2 threads."""
    env = dict(os.environ, OMP_NUM_THREADS="2", OPENBLAS_NUM_THREADS="2", MKL_NUM_THREADS="2")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          cwd=ROOT, env=env).stdout.strip()


def test_set_threads_changes_the_loaded_blas_pool_and_the_variables():
    out = _fresh("""
import os, irrun, numpy
from irrun.limits.threads import current
before = current().get('openblas')
irrun.set_threads(1)
print(before, current().get('openblas'), os.environ['OPENBLAS_NUM_THREADS'], os.environ['OMP_NUM_THREADS'])
""")
    assert out == "2 1 1 1"


def test_cli_threads():
    out = _fresh(f"""
import irrun.limits.threads as t
from irrun.cli.main import main
main([{str(SAMPLE / 'model.xml')!r}, '--input', {str(SAMPLE / 'input.npy')!r}, '--threads', '1'])
print('pools', t.current())
""")
    assert out.splitlines()[-1] == "pools {'openblas': 1}"


def test_zero_threads_is_refused():
    from irrun.limits.threads import set_threads
    with pytest.raises(InputError, match="at least 1"):
        set_threads(0)
    assert os.environ.get("OPENBLAS_NUM_THREADS") != "0"


def test_the_heap_is_kept_at_the_first_run_unless_told_not_to():
    code = """
import sys, numpy as np, irrun, irrun.runtime.heap as h
m = irrun.read_model(%r)
before = h._done
m.run({"x": np.load(%r)})
print(before, h._done, h.keep())
""" % (str(SAMPLE / "model.xml"), str(SAMPLE / "input.npy"))
    applies = sys.platform.startswith("linux") and "glibc" in " ".join(__import__("platform").libc_ver())
    assert _fresh(code) == f"False True {applies}"
    env = dict(os.environ, IRRUN_MALLOC="default")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=ROOT, env=env).stdout.strip()
    assert out == "False True False"


def test_a_small_product_runs_on_one_blas_thread_and_blas_is_restored_after_the_run(tmp_path):
    """A MatMul of fewer than SMALL_PRODUCT multiply-adds runs with one BLAS thread, a big one
    with all of them (2 here); after a run whose last product was small, BLAS has its full pool
    again (a user's own NumPy work after ``run`` is not left on one thread)."""
    from irrun.ir.builder import IRWriter
    rng = np.random.default_rng(0)
    b = IRWriter("products")
    x = b.parameter("x", "f32", [64, 256])
    y = b.layer("MatMul", [x, b.const(rng.standard_normal((256, 256), np.float32))])    # 64 x 256 x 256: big
    y = b.layer("MatMul", [y, b.const(rng.standard_normal((256, 16), np.float32))])     # 64 x 256 x 16: small
    y = b.layer("MatMul", [y, b.const(rng.standard_normal((16, 8), np.float32))])       # the last: small
    b.result(y, "y")
    xml = b.save(tmp_path / "products.xml")
    x0 = rng.standard_normal((64, 256), np.float32)
    np.save(tmp_path / "x.npy", x0)
    out = _fresh(f"""
import numpy as np, irrun
from irrun.limits import threads
from irrun.ops.matmul import MatMul1
seen, real = [], MatMul1.run
def spy(self, a, b):
    seen.append((a.shape[0] * a.shape[1] * b.shape[1], threads.current().get('openblas')))
    return real(self, a, b)
MatMul1.run = spy
m = irrun.read_model({str(xml)!r})
x = np.load({str(tmp_path / 'x.npy')!r})
y = m.run({{"x": x}})["y"]
print(seen, threads.current().get('openblas'))
""")
    assert out == f"[({64 * 256 * 256}, 2), ({64 * 256 * 16}, 1), ({64 * 16 * 8}, 1)] 2"
    assert threads.SMALL_PRODUCT > 262144 and 64 * 256 * 256 > threads.SMALL_PRODUCT


def test_multiply_adds_are_counted_from_the_shapes():
    """M x K x N for MatMul (transposes respected), output elements x input channels x kernel
    taps (per group) for convolutions, the two products of attention."""
    from irrun.ops.registry import resolve
    from irrun.types.shapes import PartialShape
    from irrun.types.tensor_info import TensorInfo
    from irrun.types.elements import TYPES

    def info(*dims):
        return TensorInfo(TYPES["f32"], PartialShape(list(dims)))
    mm = resolve("MatMul", "opset1")(transpose_a=True, transpose_b=False)
    assert mm.multiply_adds([info(2, 7, 5), info(7, 3)], [info(2, 5, 3)]) == 2 * 5 * 7 * 3
    conv = resolve("Convolution", "opset1")(strides=[1, 1], pads_begin=[0, 0], pads_end=[0, 0],
                                            dilations=[1, 1])
    assert conv.multiply_adds([info(1, 16, 10, 10), info(32, 16, 3, 3)], [info(1, 32, 8, 8)]) == 32 * 64 * 16 * 9
    group = resolve("GroupConvolution", "opset1")(strides=[1, 1], pads_begin=[0, 0], pads_end=[0, 0],
                                                  dilations=[1, 1])
    assert group.multiply_adds([info(1, 8, 10, 10), info(4, 2, 2, 3, 3)], [info(1, 8, 8, 8)]) == 8 * 64 * 2 * 9
    sdpa = resolve("ScaledDotProductAttention", "opset13")(causal=False)
    assert sdpa.multiply_adds([info(1, 4, 10, 16), info(1, 4, 12, 16), info(1, 4, 12, 8)], [info(1, 4, 10, 8)]) \
        == 4 * 10 * 12 * (16 + 8)
    assert mm.multiply_adds([TensorInfo(TYPES["f32"], PartialShape(None)), info(7, 3)], [info(5, 3)]) is None


def test_a_run_in_another_thread_leaves_the_user_in_control_of_blas():
    """The run loop's BLAS switch (irrun.limits.threads.use_blas) called from a Python thread
    that stays alive does not stop the main thread's set_threads from changing OpenBLAS
    (threadpoolctl's own setter would: it obeys the first thread that calls it)."""
    out = _fresh("""
import threading, numpy, irrun
from irrun.limits import threads
switched, finish = threading.Event(), threading.Event()
def other():
    threads.use_blas(threads.ONE)
    threads.use_blas(threads.ALL)
    switched.set()
    finish.wait(30)
t = threading.Thread(target=other)
t.start()
switched.wait(30)
before = threads.current().get('openblas')
irrun.set_threads(1)
print(before, threads.current().get('openblas'))
finish.set()
t.join()
""")
    assert out == "2 1"


def test_a_matrix_vector_product_with_a_big_matrix_is_not_small():
    """Few multiply-adds but a matrix of more than SMALL_OPERAND elements (an LLM decode step's
    1 x 1024 x 512 product): bound by reading the matrix, it keeps every BLAS thread; unknown
    sizes too."""
    assert threads.blas_threads_for(64 * 256 * 16, 64 * 256) == threads.ONE
    assert threads.blas_threads_for(1 * 1024 * 512, 1024 * 512) == threads.ALL
    assert threads.blas_threads_for(threads.SMALL_PRODUCT, 16) == threads.ALL
    assert threads.blas_threads_for(None, 16) == threads.ALL and threads.blas_threads_for(16, None) == threads.ALL
    assert threads.blas_threads_for(threads.BLAS_SINGLE - 1, 64) is threads.NO_BLAS     # one thread anyway
