"""Op modules load lazily: ``import irrun`` imports none of them, a model imports the modules of
its own types (through irrun/ops/index.json), and nothing is ever missed."""
import json
import subprocess
import sys
from pathlib import Path

from irrun.ops import registry

ROOT = Path(__file__).resolve().parents[1]


def test_index_is_current():
    on_disk = json.loads((ROOT / "irrun/ops/index.json").read_text(encoding="utf-8"))
    assert on_disk == registry.index(), "irrun/ops/index.json is stale: run python -m tools.ops.make_op_index"


def _fresh(code: str) -> str:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          cwd=ROOT).stdout


def test_import_loads_no_op_module_and_a_model_only_its_own():
    out = _fresh("""
import sys, irrun
core = ('irrun.ops.base', 'irrun.ops.registry', 'irrun.ops.parameter')   # (inference uses Parameter)
before = sorted(m for m in sys.modules if m.startswith('irrun.ops.') and m not in core)
m = irrun.read_model('samples/space_to_depth/model.xml')
after = sorted(m for m in sys.modules if m.startswith('irrun.ops.'))
print(before, len(after))
""")
    before, after = out.rsplit(" ", 1)
    assert before == "[]"
    assert 2 < int(after) < 15


def test_a_type_missing_from_the_index_is_still_found(monkeypatch):
    out = _fresh("""
from irrun.ops import registry
registry._index.cache_clear()
registry._index = lambda: {}                  # an index that knows nothing
print(registry.resolve('ShuffleChannels', 'opset1').__name__, registry.resolve('Relu', 'opset1').__name__)
""")
    assert out.split() == ["ShuffleChannels1", "Relu1"]
