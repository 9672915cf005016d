"""Building a graph's ops, and sub-graph bodies run by the same machinery as a model.

:class:`Build` turns layers into ops (for the model and, recursively, for every TensorIterator/
Loop/If body) and keeps what is shared model-wide: the file name for messages and the model's
variables (ReadValue/Assign). A :class:`Body` is one ``<body>``/``<then_body>``/``<else_body>``:
an ordinary irrun graph (its own id space, ir-format.md §8) whose Parameters are fed by the
sub-graph op. It is inferred with :func:`irrun.analysis.inference.infer_types`, planned with
:func:`irrun.runtime.executor.plan` once per Parameter signature and run with
:func:`irrun.runtime.executor.execute` — no second executor loop. Errors inside a body name the layer
with its path (``layer 3/5 ...``).
"""
from __future__ import annotations

import numpy as np

from ..analysis.graph import Graph, build_graph, inputs_of, live_order
from ..analysis.inference import Types, infer_types
from ..errors import InternalError, IrrunError, OpError, ShapeError, UnsupportedError
from ..ir.records import IRGraph, Layer
from ..limits import memory as budget
from ..ops import registry
from ..ops.base import Op
from ..types.tensor_info import TensorInfo
from ..types.variable import Variable
from .executor import RunContext, Step, check_memory, execute
from .program import Program


class Build:
    """What building ops needs beyond one layer: the file (for messages) and the model's
    variables by id, shared by the model and every body."""

    def __init__(self, file: str):
        self.file = file
        self.variables: dict[str, Variable] = {}

    def variable(self, variable_id: str) -> Variable:
        """The model's variable of that id (made on first mention)."""
        return self.variables.setdefault(variable_id, Variable(variable_id))

    def ops(self, g: Graph) -> tuple[dict[int, Op], dict[int, IrrunError]]:
        """An op for every layer of ``g`` that can be built, and the error of every other."""
        ops: dict[int, Op] = {}
        errors: dict[int, IrrunError] = {}
        classes: dict[tuple[str, str], type[Op]] = {}     # (type, version) -> class, resolved once
        for n, data in g.nodes.items():
            layer = data["layer"]
            try:
                cls = classes.get((layer.type, layer.version))
                if cls is None:
                    cls = classes[layer.type, layer.version] = registry.resolve(layer.type, layer.version)
                ops[n] = cls.from_ir(layer, self)
            except OpError as e:
                errors[n] = (UnsupportedError if e.unsupported else ShapeError)(
                    e.message, file=self.file, layer=layer.ref, port=e.port,
                    openvino_loads=e.openvino_loads)
            except IrrunError as e:     # irrun lacks the op; a body that is not a valid graph
                if e.layer is None:
                    e.file, e.layer = self.file, layer.ref
                errors[n] = e
            except Exception as e:     # an op constructor that crashes on odd attributes: a bug
                err = InternalError(f"building the op failed: {type(e).__name__}: {e}",
                                    file=self.file, layer=layer.ref)
                err.__cause__ = e
                errors[n] = err
        return ops, errors

    def body(self, irg: IRGraph, owner: Layer, tag: str) -> "Body":
        return Body(irg, owner, tag, self)


class Body:
    """One sub-graph body. ``params``/``results``: its Parameter and Result nodes in XML order
    (a port map names them by layer id, which is the node)."""

    def __init__(self, irg: IRGraph, owner: Layer, tag: str, build: Build):
        self.tag = tag
        self.file = build.file
        self.g, problems = build_graph(irg, build.file)
        if problems:                     # the checker lists them all; running needs none
            raise problems[0]
        ops, op_errors = build.ops(self.g)
        self.program = Program(self.g, ops, op_errors, live_order(self.g), build.file)
        self.ops, self.op_errors, self.order = ops, op_errors, self.program.order
        self.params, self.results = self.program.params, self.program.results
        self.uses_context = any(op.uses_context for op in self.ops.values())
        self._declared_error: ShapeError | bool | None = None

    def layer(self, n: int) -> Layer:
        return self.g.nodes[n]["layer"]

    def declared(self, n: int) -> TensorInfo:
        """A Parameter's own type and shape (what it gives when the op does not override it)."""
        op = self.ops.get(n)
        if op is None:
            raise self.op_errors[n]
        return TensorInfo(op.element_type, op.shape)

    def infer(self, params: dict[int, TensorInfo]) -> Types:
        """Infer the body with these Parameter infos (the others keep their attributes); raises
        the first problem, named with the body layer's path."""
        for n in self.order:
            if n in self.op_errors:
                raise self.op_errors[n]
        return infer_types(self.g, self.order, self.ops, self.file, params)

    def check_declared(self) -> None:
        """OpenVINO validates every body as written — its Parameters with their declared element
        types and shapes — before the layer gives them its inputs' (measured on 2026.4: a
        TensorIterator body Parameter declared f16 where f32 flows in fails in the body's
        MatMul; one declared [2,4] where the body needs [2,3] too; a declared shape that the
        body accepts is replaced). Raises the body layer's :class:`ShapeError` (checked once)."""
        if self._declared_error is None:
            self._declared_error = False
            try:
                infer_types(self.g, self.order, self.ops, self.file)
            except ShapeError as e:
                self._declared_error = ShapeError(
                    "with the body's Parameters as declared (OpenVINO validates a body as written, "
                    f"before it gives it the layer's inputs): {e.message}", file=e.file,
                    layer=e.layer, port=e.port)
        if isinstance(self._declared_error, ShapeError):
            raise self._declared_error

    def result(self, types: Types, n: int) -> TensorInfo:
        """What Result ``n`` receives."""
        (u, sp), = inputs_of(self.g, n)
        info = types.get((u, sp))
        if info is None:
            raise OpError(f"<{self.tag}> Result {n} receives a value whose type is not inferred")
        return info

    def plan(self, params: dict[int, TensorInfo]) -> list[Step]:
        """The execution plan for these Parameter infos (cached), checked against the budget."""
        key = tuple((n, i.etype.name, i.shape.dims) for n, i in sorted(params.items()))
        steps = self.program.plan(key, lambda: self.infer(params))
        check_memory(steps, budget.current(), self.file)
        return steps

    def execute(self, steps: list[Step], params: dict[int, TensorInfo],
                feeds: dict[int, np.ndarray], ctx: RunContext | None) -> dict[int, np.ndarray]:
        """Run one pass; ``feeds`` maps Parameter node -> array. Returns Result node -> array.
        A fed array outside its Parameter's info would be a bug of the op's shape rule."""
        for n, arr in feeds.items():
            info = params.get(n) or self.declared(n)
            if not info.shape.accepts(arr.shape):
                raise InternalError(f"<{self.tag}> Parameter fed shape {list(arr.shape)}, outside "
                                    f"its inferred {info.shape}", file=self.file,
                                    layer=self.layer(n).ref)
        return execute(steps, feeds, self.file, None, ctx)
