"""Process-wide run settings: ``irrun --threads N`` / :func:`irrun.set_threads` (the BLAS pool
size, also after NumPy loaded its BLAS, through threadpoolctl; the environment variables for
libraries loaded later), and glibc's malloc kept from returning freed memory (irrun/runtime/heap.py)."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

from irrun.errors import InputError

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
