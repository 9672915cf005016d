"""The library's model object: read once, infer shapes (also for new input shapes), run."""
from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from .analysis.execution_types import ApiTypes, compute_f16_in_f32
from .analysis.graph import ancestors, build_graph, inputs_of, live_order
from .analysis.inference import Types, infer_types
from .errors import InputError, IrrunError
from .io.npy import as_strings
from .ir.reader import IRModel, read_ir
from .limits import iterations
from .limits import memory as budget
from .ops.base import Op
from .ports import PortSpec
from .results import Results
from .runtime import heap
from .runtime.loop import RunContext, execute
from .runtime.observation import LayerRecorder, Observer, StopAt, find_layer
from .runtime.plan import Plan, check_memory, plan
from .runtime.program import Program
from .runtime.state import State, Variable
from .runtime.subgraph import Build
from .types import conversion, elements
from .types.elements import ElementType
from .types.shapes import PartialShape
from .types.tensor_info import Role, TensorInfo

_FEEDABLE = frozenset(t.dtype for t in elements.TYPES.values() if t.dtype is not None and t.name not in elements.PACKED)


class Model:
    """An OpenVINO IR model: ``graph`` (networkx MultiDiGraph), ``inputs``, ``outputs``,
    :meth:`infer_shapes` and :meth:`run`; ``state`` holds its variables' values (stateful models)
    across runs, :meth:`reset_state` resets them. Made by :func:`read_model`."""

    def __init__(self, ir: IRModel, strict: bool = True, declared_types: bool = False):
        self.ir = ir      # declared_types: no f16 computed in f32 (irrun.analysis.execution_types)
        self.path = ir.xml_path
        if strict and ir.problems:
            raise ir.problems[0]
        self.dag, self.problems = build_graph(ir.graph, self.path)
        self._nx = None
        if strict and self.problems:
            raise self.problems[0]
        build = Build(self.path)
        self.ops: dict[int, Op]
        self.op_errors: dict[int, IrrunError]
        self.ops, self.op_errors = build.ops(self.dag)    # bodies of sub-graph ops included
        widened = not declared_types and ir.ir_version == 10 and compute_f16_in_f32(self.dag, self.ops)
        self.variables: dict[str, Variable] = build.variables
        self.state = State(self.variables, self._variable_type)
        self.order = live_order(self.dag) if not any(
            "cycle" in p.message for p in self.problems) else []
        self.program = Program(self.dag, self.ops, self.op_errors, self.order, self.path)
        self.program.release = ir.release_pages
        self._params = self.program.params
        self._results = self.program.results
        self._types: Types | None = None
        self._plans: dict[tuple, Plan] = self.program.plans
        self._any_shape: bool | None = None     # may the plan of the declared shapes run?
        self._out_keys: dict[int, str] | None = None
        self.api = ApiTypes(self.dag, self._params, self._results, ir.ir_version if widened else -1)

    # -- structure --------------------------------------------------------------------------
    @property
    def graph(self):
        """The layers as a networkx MultiDiGraph (nodes: layer ids with the reader's record under
        ``"layer"``; edges keyed by destination port, with ``src_port``/``dst_port``). Built on
        first access: irrun itself walks ``dag`` (:class:`irrun.analysis.graph.Graph`), so that reading
        and running a model need no networkx."""
        if self._nx is None:
            self._nx = self.dag.to_networkx()
        return self._nx

    @property
    def parameter_nodes(self) -> list[int]:
        """The Parameters' layer ids in XML order (the order of :attr:`inputs`)."""
        return self._params

    @property
    def result_nodes(self) -> list[int]:
        """The Results' layer ids in XML order (the order of :attr:`outputs`)."""
        return self._results

    def input_names(self, n: int) -> tuple[str, ...]:
        """Every name Parameter ``n`` answers to: its tensor names, then its layer name (the first
        is the input's main name, ``inputs[i].name``)."""
        layer = self.dag.nodes[n]["layer"]
        names = tuple(layer.outputs[0].names) if layer.outputs else ()
        return names + ((layer.name,) if layer.name not in names else ())

    def output_names(self, n: int) -> tuple[str, ...]:
        """The names of the tensor Result ``n`` holds, as OpenVINO gives them (its own names, else
        its producer's; IR v10: the producer's layer name), then the Result's layer name."""
        layer = self.dag.nodes[n]["layer"]
        names: list[str] = list(layer.output_names or ())
        src = inputs_of(self.dag, n)
        if not names and src:
            (u, sp), = src
            prod = self.dag.nodes[u]["layer"]
            names = list(prod.outputs[sp].names)
            if not names and self.ir.ir_version == 10:
                names = [prod.name if len(prod.outputs) == 1 else f"{prod.name}.{sp}"]
        if layer.name not in names:
            names.append(layer.name)
        return tuple(names)

    def output_key(self, n: int) -> str:
        """The unique name of the output Result ``n`` holds (``run``'s key, ``outputs[i].name``).

        As OpenVINO names them: the first tensor name; when an earlier output of *another*
        tensor (or an input) already has it, OpenVINO renames the later one ``name_1``,
        ``name_2``...; two Results reading the *same* tensor share its names in OpenVINO, so irrun
        keys the later one by its Result's layer name (suffixed the same way if taken)."""
        if self._out_keys is None:
            inputs = {name: (p, 0) for p in self._params for name in self.input_names(p)}
            outputs: dict[str, object] = {}              # key -> the tensor it holds
            for r in self._results:
                src = inputs_of(self.dag, r)
                tensor = src[0] if len(src) == 1 else ("result", r)
                base = self.output_names(r)[0]
                if outputs.get(base) == tensor:
                    base = self.dag.nodes[r]["layer"].name
                key, k = base, 0
                while key in outputs or inputs.get(key, tensor) != tensor:
                    k += 1
                    key = f"{base}_{k}"
                outputs[key] = tensor
            self._out_keys = {r: k for r, k in zip(self._results, outputs)}
        return self._out_keys[n]

    @property
    def inputs(self) -> list[PortSpec]:
        """Model inputs in XML order, from the Parameters' own attributes (no inference)."""
        out = []
        for n in self._params:
            op = self.ops.get(n)
            if op is None:
                raise self.op_errors[n]
            names = self.input_names(n)
            out.append(PortSpec(names[0], names, self.api.input(n, op.element_type), op.shape, n))
        return out

    @property
    def outputs(self) -> list[PortSpec]:
        """Model outputs in XML order with inferred types (declared ones if inference fails,
        e.g. for a model with ops irrun does not support)."""
        try:
            t = self.types()
        except IrrunError:
            t = {}
        out = []
        for n in self._results:
            (u, sp), = inputs_of(self.dag, n)
            info = t.get((u, sp))
            if info is None:
                decl = self.dag.nodes[n]["layer"].inputs[0]
                info = TensorInfo(decl.etype or elements.DYNAMIC, PartialShape(decl.dims))
            key, names = self.output_key(n), self.output_names(n)
            names = (key, *names[1:]) if key.startswith(names[0]) and key != names[0] else \
                (key, *(x for x in names if x != key))
            out.append(PortSpec(key, names, self.api.output(n, info.etype), info.shape, n))
        return out

    # -- shapes -----------------------------------------------------------------------------
    def _require_ops(self) -> None:
        if not self.op_errors:      # (the usual case, at every run: no walk over every layer)
            return
        for n in self.order:
            if n in self.op_errors:
                raise self.op_errors[n]

    def types(self) -> Types:
        """Inferred TensorInfo of every live output port, keyed by (layer id, output index)."""
        if self._types is None:
            self._require_ops()
            self._types = infer_types(self.dag, self.order, self.ops, self.path)
        return self._types

    def find_input(self, name: str) -> int:
        """The Parameter a name (tensor or layer name) names; InputError listing the inputs if none."""
        for n in self._params:
            if name in self.input_names(n):
                return n
        have = ", ".join(self.input_names(n)[0] for n in self._params)
        raise InputError(f'the model has no input named "{name}" (its inputs: {have})', file=self.path)

    def use_types(self, types: Types) -> None:
        """Take ``types`` as the declared shapes' inference (:meth:`reshape` changed the
        Parameters) and forget the plans made for the old shapes."""
        self._types = types
        self._plans.clear()

    def _shape_args(self, shapes) -> dict[str, PartialShape]:
        """{input name: PartialShape} from what :meth:`reshape` accepts (:mod:`irrun.ports`)."""
        from . import ports as portkeys
        return portkeys.shapes(self, shapes)

    def infer_shapes(self, shapes: Mapping[object, object] | object | None = None) -> Types:
        """Infer every port for new input shapes (input name, index or PortSpec -> dims as a
        list, tuple or string like ``"1,3,?,224"``; or one shape for a one-input model), or for
        the declared ones. Returns {(layer id, port index): TensorInfo};
        the model itself is left as it was. Raises ShapeError naming the first layer that
        cannot take the shapes."""
        if shapes is None or (isinstance(shapes, Mapping) and not shapes):
            return self.types()
        shapes = self._shape_args(shapes)
        self._require_ops()
        overrides = {}
        for name, shape in shapes.items():       # (each a PartialShape: portkeys.as_shape)
            n = self.find_input(name)
            overrides[n] = TensorInfo(self.ops[n].element_type, shape)
        return infer_types(self.dag, self.order, self.ops, self.path, overrides)

    def reshape(self, shapes: Mapping[object, object] | object) -> None:
        """Give inputs new shapes (a dict keyed by input name, index or PortSpec, or one shape for
        a one-input model, as for :meth:`infer_shapes`), like OpenVINO's ``Model.reshape``. All or
        nothing: if a layer cannot take them, raises ShapeError naming the first such layer and why,
        and the model is left untouched. On success the Parameters take the new shapes and every
        port's declared dims become the inferred ones (dynamic -> -1); :meth:`save` writes them."""
        from .analysis.reshape import reshape
        reshape(self, self._shape_args(shapes))

    def save(self, xml_path: str | os.PathLike) -> os.PathLike:
        """Write the model as IR (``xml_path``, ending in .xml, and the .bin beside it): the XML
        it was read from with the current Parameter shapes and port dims, everything else kept;
        the .bin copied. Both files or neither are written (missing directories are created);
        never over the files the model was read from, never through a symlink
        (:class:`~irrun.errors.OutputError`). Returns the .xml path."""
        from .analysis.reshape import save
        return save(self, xml_path)

    # -- state ------------------------------------------------------------------------------
    def reset_state(self) -> None:
        """Reset every variable (ReadValue/Assign) to its initial value (``InferRequest.reset_state``)."""
        self.state.reset()

    def _variable_type(self, var: Variable) -> tuple[ElementType, PartialShape]:
        """A variable's type and shape as its ReadValue gives them: declared (ReadValue-6), else
        inferred from the initial value (ReadValue-3)."""
        if var.etype.dtype is not None and var.shape.rank is not None:
            return var.etype, var.shape
        for n in self.order:
            op = self.ops.get(n)
            if op is not None and op.role is Role.VARIABLE_READ and op.variable is var:
                try:
                    info = self.types().get((n, 0))
                except IrrunError:
                    break
                if info is not None:
                    return info.etype, info.shape
        return var.etype, var.shape

    # -- running ----------------------------------------------------------------------------
    def _feeds(self, inputs) -> dict[int, np.ndarray]:
        """{Parameter node: array} from what :meth:`run` accepts (:mod:`irrun.ports`)."""
        from . import ports as portkeys
        return portkeys.feeds(self, inputs)

    def _param_info(self, n: int) -> TensorInfo:
        """A Parameter's inferred port (its own attributes when it feeds no Result)."""
        info = self.types().get((n, 0))
        return info if info is not None else TensorInfo(self.ops[n].element_type, self.ops[n].shape)

    def check_input(self, n: int, arr: np.ndarray) -> None:
        self.check_signature(n, arr.dtype, arr.shape)

    def check_signature(self, n: int, dtype: np.dtype, shape: tuple[int, ...]) -> None:
        """Does an array of ``dtype`` and ``shape`` fit Parameter ``n``? (Also used on .npy
        headers, before their data is read; a unicode array fits a string input.)"""
        info = self._param_info(n)
        info, name = TensorInfo(self.api.input(n, info.etype), info.shape), self.input_names(n)[0]
        if info.etype.dtype is not None and not conversion.convertible(dtype, info.etype.dtype) and not (
                dtype.kind == "U" and info.etype.name == "string"):
            raise InputError(conversion.refusal(name, dtype, str(info.etype), info.etype.dtype), file=self.path)
        if info.etype.dtype is None and dtype not in _FEEDABLE:
            raise InputError(f'input "{name}" has dtype {dtype}, which is no OpenVINO element type',
                             file=self.path)
        if not info.shape.accepts(shape):
            raise InputError(f'input "{name}" has shape {PartialShape(shape)}, the model wants '
                             f"{info.shape}", file=self.path)

    def check_memory(self, max_memory: int | None = None) -> None:
        """Raise :class:`~irrun.limits.memory.MemoryBudgetError` naming the layer if, with the declared
        input shapes, some tensor must exceed ``max_memory`` bytes (default: the budget in
        force). Allocates nothing; the CLI calls it before reading any input file."""
        steps = plan(self.dag, self.order, self.ops, self.types())
        check_memory(steps, budget.current() if max_memory is None else max_memory, self.path)

    def __repr__(self) -> str:
        from .ports import model_repr
        return model_repr(self)

    def __call__(self, inputs: Mapping[Any, np.ndarray] | Sequence[np.ndarray] | np.ndarray,
                 **options: Any) -> dict[str, np.ndarray]:
        """``model(x)`` is ``model.run(x)``, as ``compiled_model(x)`` is in OpenVINO."""
        return self.run(inputs, **options)

    def run(self, inputs: Mapping[Any, np.ndarray] | Sequence[np.ndarray] | np.ndarray,
            max_memory: int | None = None, *, max_iterations: int | None = None,
            stop_at: int | str | None = None,
            dump: str | os.PathLike | None = None, observe: Observer | None = None
            ) -> dict[str, np.ndarray]:
        """Run on NumPy arrays: a dict keyed by input name, index or PortSpec, a list or tuple in
        input order, or one array for a one-input model.
        Returns the outputs keyed by output name, in model order. No tensor may exceed
        ``max_memory`` bytes (default: :func:`irrun.limits.memory.current`, half the machine's memory
        unless set): a bigger one is refused before it is allocated, naming the layer. The run's
        TensorIterator/Loop bodies may execute ``max_iterations`` times in all (default:
        :func:`irrun.limits.iterations.current`, 10**6 unless set) and, unless ``max_iterations`` is
        given, spend at most :data:`irrun.limits.iterations.DEFAULT_MAX_WORK` units of work (a body
        execution costs its layers + 8), so a hostile Loop stops within seconds; past either
        the run stops, naming the Loop (:mod:`irrun.limits.iterations`).

        Debugging (:mod:`irrun.debug`): ``stop_at`` (a layer id or name) runs only what that layer
        needs and returns its outputs instead; ``dump`` (a directory) writes every executed
        layer's outputs there (:mod:`irrun.io.dumps`); ``observe(step, inputs, outputs, seconds)``
        is called after every step (:mod:`irrun.runtime.observation`; with ``dump``, after the
        dump's own recorder)."""
        if max_memory is not None:
            with budget.limit(max_memory):
                return self.run(inputs, max_iterations=max_iterations, stop_at=stop_at, dump=dump,
                                observe=observe)
        if dump is not None:
            from .io.dumps import save_tensors  # (writing files: loaded when a dump is asked)
            from .io.writers import model_files
            recorder = LayerRecorder(self.dag)
            outputs = self.run(inputs, max_iterations=max_iterations, stop_at=stop_at,
                               observe=recorder if observe is None else _both(recorder, observe))
            save_tensors(dump, recorder.dump_entries(), model_files(self), model=str(self.path))
            return outputs
        self._require_ops()
        feeds = self._feeds(inputs)
        for n, arr in feeds.items():
            if arr.dtype.kind == "U" and self.ops[n].element_type.name == "string":
                feeds[n] = arr = as_strings(arr, f'input "{self.input_names(n)[0]}"')   # .npy: <U
            want = self.api.input(n, self._param_info(n).etype)      # the type OpenVINO shows
            if want.dtype is not None and arr.dtype != want.dtype and arr.dtype.kind != "U":   # OpenVINO's habit
                feeds[n] = arr = conversion.convert(self.input_names(n)[0], arr, want.dtype, str(want), self.path)
            self.check_input(n, arr)
            feeds[n] = self.api.feed(n, arr)
        target = None if stop_at is None else self._stop_target(stop_at)
        steps = self._any_shape_plan() if target is None and observe is None else None
        if steps is not None:
            try:
                return self._execute(steps, feeds, None, max_iterations)
            except budget.MemoryBudgetError:  # a guard's bound may be above the real size: the
                pass                          # plan for these shapes checks the exact sizes
            except IrrunError:   # nothing was kept; inference for these very shapes names the
                self._types_for(feeds)     # error as a per-shape plan would (a ShapeError), else
                raise                      # the kernel's error stands: the model is not run twice
        key: tuple = tuple((n, arr.shape, arr.dtype.str) for n, arr in sorted(feeds.items()))
        if target is not None:
            key += (("stop_at", target),)
        steps = self.program.plan(key, lambda: self._types_for(feeds), self._order_to(target),
                                  every_layer=target is not None or observe is not None)
        if target is not None:
            check_memory(steps, budget.current(), self.path)
            with iterations.limit(max_iterations), budget.live_scope():
                return self._run_to(target, steps, feeds, observe)
        return self._execute(steps, feeds, observe, max_iterations)

    def _execute(self, steps: Plan, feeds: dict[int, np.ndarray],
                 observe: Observer | None, max_iterations: int | None = None) -> dict[str, np.ndarray]:
        check_memory(steps, budget.current(), self.path)
        ctx = RunContext(self.state.held)
        with iterations.limit(max_iterations), budget.live_scope():   # per-run accounts
            results = execute(steps, feeds, self.path, observe, ctx)
        self.state.commit(ctx.writes)       # only a run that succeeded changes the state
        return Results({self.output_key(n): self.api.result(n, results[n]) for n in self._results},
                       lambda: self.outputs)

    def _any_shape_plan(self) -> Plan | None:
        """The plan inferred from the declared input shapes, which every input that passed
        :meth:`check_input` lies inside: made once, reused for every shape (no inference or
        planning per run). None when it cannot serve: an input of dynamic element type, shapes
        that infer only when concrete, or a layer whose output could pass the memory budget and
        whose op cannot check its own allocation — those runs get a plan for their own shapes."""
        if self._any_shape is False:
            return None
        try:
            if self._any_shape is None and any(self._param_info(n).etype.dtype is None
                                               for n in self._params):
                raise InputError("an input of dynamic element type")
            steps = self.program.plan(("declared shapes",), self.types)
        except IrrunError:
            self._any_shape = False
            return None
        self._any_shape = True
        return steps if steps.unguarded <= budget.current() else None

    def _types_for(self, feeds: dict[int, np.ndarray]) -> Types:
        """Every port inferred for these input arrays."""
        overrides = {}
        for n, a in feeds.items():
            etype = self._param_info(n).etype
            overrides[n] = TensorInfo(etype if etype.dtype is not None else elements.from_dtype(a.dtype), PartialShape(a.shape))
        return infer_types(self.dag, self.order, self.ops, self.path, overrides)

    def _order_to(self, target: int | None) -> list:
        """The live layers, or those ``target`` needs."""
        if target is None:
            return self.order
        need = ancestors(self.dag, [target]) | {target}
        return [n for n in self.order if n in need]

    def _stop_target(self, spec: int | str) -> int:
        n = find_layer(self.dag, spec, self.path)
        if n not in self.order:
            raise InputError(f"{self.dag.nodes[n]['layer'].ref} feeds no Result: OpenVINO drops "
                             "it, so irrun does not run it", file=self.path)
        return n

    def _run_to(self, target: int, steps: Plan, feeds: dict, observe: Observer | None
                ) -> dict[str, np.ndarray]:
        """Run a plan that ends at ``target``; its outputs keyed by
        :func:`irrun.runtime.observation.port_name` (a Result gives the model output it holds)."""
        result_key = self.output_key(target) if target in self._results else ""
        stop = StopAt(target, self.dag.nodes[target]["layer"], result_key, observe)
        execute(steps, feeds, self.path, stop, RunContext(self.state.held))   # state unchanged
        if target in self._results:                # as OpenVINO's API shows the output
            return {k: self.api.result(target, v) for k, v in stop.got.items()}
        return stop.got


def read_model(path: str | os.PathLike, bin_path: str | os.PathLike | None = None) -> Model:
    """Read an IR model (``.xml``, with the ``.bin`` beside it unless ``bin_path`` is given)."""
    with heap.gc_paused():
        return Model(read_ir(path, bin_path))


def _both(first: Observer, then: Observer) -> Observer:
    """An observer showing each step to ``first`` (which keeps what it is shown), then to
    ``then``, whose replaced outputs (if any) stand."""
    def observe(step, args, outs, seconds):
        first(step, args, outs, seconds)
        return then(step, args, outs, seconds)
    return observe
