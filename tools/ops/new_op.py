"""Write the three files a new op starts from (README "How to add an op"):

    python -m tools.ops.new_op TYPE VERSION CATEGORY [--module NAME] [--root DIR]
    python -m tools.ops.new_op Roll 7 movement

* ``irrun/ops/<module>.py``: the class ``<Type><N>`` (the naming rule), registered under
  ``(Type, "opsetN")``, its spec link (``spec_url("<category>/<type-in-kebab-case>-<N>")``) and the
  places to fill: attributes, ``infer``, ``run`` and, if the op computes shapes, ``bounds``;
* ``tests/ops/test_<module>.py``: the OpenVINO cases replayed and a spec-example test that fails
  until the example is copied in;
* ``tools/expectations/make_<module>_expectations.py``: the generator of ``tests/fixtures/<module>_expectations``
  (OpenVINO measures the cases you list; run it once the op exists in OpenVINO's Python API).

Then ``python -m tools.ops.make_op_index``, and ``irrun ops --markdown > docs/ops.md``. Nothing is
overwritten: an existing file is an error.
"""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from tools import ROOT

OP = '''"""{type}-{n}: TODO one line on what it computes (and what irrun does not support of it).

TODO: the numerics as measured on OpenVINO (tools/expectations/make_{module}_expectations.py), where the spec
is silent or OpenVINO differs from it.
"""
from __future__ import annotations

import numpy as np

from ..errors import OpError
from .base import Attr, Op, TensorInfo, spec_url
from .registry import register


@register
class {type}{n}(Op):
    """TODO: the rule in one paragraph."""

    type, version = "{type}", "opset{n}"
    spec = spec_url("{category}/{page}-{n}")
    attrs: dict[str, Attr] = {{}}          # e.g. {{"axis": Attr("int", 0, required=True)}}
    num_inputs = (1, 1)

    def infer(self, inputs: list[TensorInfo]) -> list[TensorInfo]:
        (x,) = inputs
        if x.etype.name == "string":
            raise OpError("TODO: OpenVINO's message for an input it refuses", port="input 0")
        return [TensorInfo(x.etype, x.shape)]

    def run(self, x: np.ndarray) -> list[np.ndarray]:
        raise NotImplementedError("{type}-{n}: the kernel")
'''

TEST = '''"""{type}-{n}: the spec's examples and the OpenVINO measurements of
tools/expectations/make_{module}_expectations.py."""
import numpy as np
import pytest

from helpers import run_op
from nn_cases import case_ids, replay


@pytest.mark.parametrize("case", case_ids("{type}"))
def test_openvino_case(case):
    replay(case)


def test_spec_example():
    x = None        # TODO: the input of the example in the spec ({category}/{page}-{n})
    want = None     # TODO: its output
    if x is None:
        pytest.fail("copy the spec's example into this test")
    np.testing.assert_array_equal(run_op("{type}", [np.asarray(x)], {{}}, "opset{n}")[0], want)
'''

GENERATOR = '''"""Measure OpenVINO's {type}-{n} into tests/fixtures/{module}_expectations.{{json,npz}}.

    python -m tools.expectations.make_{module}_expectations [--out tests/fixtures/{module}_expectations] [-k substring]

The format and machinery are tools/expectations/make_nn_expectations.py's; tests/ops/test_{module}.py replays
the cases (tests/ops/nn_cases.py).
"""
from __future__ import annotations

import sys

from tools.expectations import make_nn_expectations as nn
from tools.expectations.make_nn_expectations import Case, Cases, Dyn, Rnd

CASES = Cases()
add = CASES.add
rnd = Rnd({seed})


def {func}_cases() -> None:
    add(Case("{type}-basic", "{type}", "opset{n}", [rnd(2, 3)], {{}}))
    add(Case("{type}-shape-dynamic", "{type}", "opset{n}", [Dyn("f32", "?,3")], {{}}, params=()))


all_cases = CASES.built_by({func}_cases)


if __name__ == "__main__":
    sys.exit(nn.main(cases_of=all_cases, out="{module}_expectations", doc=__doc__))
'''


def snake(name: str) -> str:
    """``ReverseSequence`` -> ``reverse_sequence``, ``MatMul`` -> ``mat_mul``, ``LRN`` -> ``lrn``."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", name).lower()


def files(type_: str, n: int, category: str, module: str | None = None) -> dict[str, str]:
    """{path relative to the repository: text} of the three files."""
    module = module or snake(type_)
    values = dict(type=type_, n=n, category=category, module=module, page=snake(type_).replace("_", "-"),
                  func=module, seed=sum(map(ord, type_)) * 100 + n)
    return {f"irrun/ops/{module}.py": OP.format(**values),
            f"tests/ops/test_{module}.py": TEST.format(**values),
            f"tools/expectations/make_{module}_expectations.py": GENERATOR.format(**values)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("type", help="the op type as OpenVINO's C++ class names it, e.g. ReverseSequence")
    ap.add_argument("version", type=int, help="the opset number of this version, e.g. 1")
    ap.add_argument("category", help="the spec's category folder, e.g. movement, arithmetic, activation")
    ap.add_argument("--module", help="the op module's name (default: the type in snake_case)")
    ap.add_argument("--root", type=Path, default=ROOT, help="the repository (default: this one)")
    args = ap.parse_args(argv)
    if not re.fullmatch(r"[A-Z][A-Za-z0-9]*", args.type):
        ap.error(f"{args.type!r} is not an op type name (CamelCase, as OpenVINO's class)")
    out = files(args.type, args.version, args.category, args.module)
    existing = [p for p in out if (args.root / p).exists()]
    if existing:
        print(f"new_op: not overwriting {', '.join(existing)}", file=sys.stderr)
        return 1
    for rel, text in out.items():
        path = args.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
