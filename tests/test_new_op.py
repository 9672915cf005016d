"""tools/ops/new_op.py writes an op module, its test and its expectation generator that follow the
layout rules (tests/test_architecture.py), and never overwrites a file."""
import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TOOL = ["-m", "tools.ops.new_op"]          # as the README runs it, from the checkout


def test_new_op_writes_the_three_files(tmp_path):
    r = subprocess.run([sys.executable, *TOOL, "ReverseSequence", "1", "movement", "--root", str(tmp_path)],
                       capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    op = tmp_path / "irrun/ops/reverse_sequence.py"
    test = tmp_path / "tests/ops/test_reverse_sequence.py"
    gen = tmp_path / "tools/expectations/make_reverse_sequence_expectations.py"
    trees = {p: ast.parse(p.read_text()) for p in (op, test, gen)}
    classes = [n.name for n in ast.walk(trees[op]) if isinstance(n, ast.ClassDef)]
    assert classes == ["ReverseSequence1"]
    assert 'spec_url("movement/reverse-sequence-1")' in op.read_text()
    imported = {n.module for n in ast.walk(trees[op]) if isinstance(n, ast.ImportFrom) and n.level == 1}
    assert imported == {"base", "registry"}
    assert 'case_ids("ReverseSequence")' in test.read_text()
    assert 'out="reverse_sequence_expectations"' in gen.read_text()
    # the generator imports its machinery through the tools package, never by editing sys.path
    from_tools = {n.module for n in ast.walk(trees[gen])
                  if isinstance(n, ast.ImportFrom) and (n.module or "").startswith("tools")}
    assert from_tools == {"tools.expectations", "tools.expectations.make_nn_expectations"}
    assert "sys.path" not in gen.read_text()


def test_new_op_never_overwrites(tmp_path):
    args = [sys.executable, *TOOL, "Foo", "3", "movement", "--root", str(tmp_path)]
    assert subprocess.run(args, capture_output=True, cwd=ROOT).returncode == 0
    (tmp_path / "irrun/ops/foo.py").write_text("# mine\n")
    r = subprocess.run(args, capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 1 and "not overwriting" in r.stderr
    assert (tmp_path / "irrun/ops/foo.py").read_text() == "# mine\n"
