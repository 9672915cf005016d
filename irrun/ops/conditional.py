"""If-8: one of two bodies, chosen by a condition (see :mod:`irrun.ops._subgraph_op`)."""
from __future__ import annotations

from ..errors import IrrunError, OpError
from ._port_maps import body_param_info, check_one_value, entry_int, entry_where, hull, info_of, output_maps, scalar_value
from ._subgraph_op import SubgraphOp
from .base import TensorInfo, spec_url
from .registry import register


@register
class If8(SubgraphOp):
    """Runs ``then_body`` when input 0 is true, else ``else_body``; each body's port map feeds
    some of inputs 1.. to its Parameters."""

    type, version = "If", "opset8"
    spec = spec_url("infrastructure/if-8")
    num_inputs = (1, None)
    body_tags = ("then_body", "else_body")
    attrs = {}

    def parse(self, layer) -> None:
        self.feeds: dict[str, list[tuple[int, int]]] = {}
        self.results: dict[str, list[int]] = {}
        counts = {}
        for tag, pm in (("then_body", "then_port_map"), ("else_body", "else_port_map")):
            body, feeds, seen = self.bodies[tag], [], set()
            for e in layer.port_maps.get(pm, ()):
                if e["kind"] != "input":
                    continue
                where = entry_where(pm, e)
                ext, pid = entry_int(e, "external_port_id", where), entry_int(e, "internal_layer_id", where)
                if pid not in body.params:
                    raise OpError(f"{where}: internal_layer_id {pid} is not a Parameter of the body")
                if ext < 1:
                    raise OpError(f"{where}: external_port_id must name an input after the condition")
                if pid not in seen:
                    seen.add(pid)
                    feeds.append((ext, pid))
            for p in body.params:
                if p not in seen:
                    raise OpError(f'<{tag}> Parameter {p} "{body.layer(p).name}" is fed by no '
                                  f"<{pm}> input")
            self.feeds[tag] = feeds
            self.results[tag] = [m.result for m, _ in output_maps(layer, pm, body)]
            counts[tag] = len(self.results[tag])
        if counts["then_body"] != counts["else_body"]:
            short = min(counts, key=counts.__getitem__)
            raise OpError(f"Incorrect associating in {short}! Output {counts[short]} is not "
                          f"associated with results in {short}!")

    def params(self, tag: str, ins, dynamic: bool = False) -> dict[int, TensorInfo]:
        if dynamic:
            return {p: info_of(ins[i]) for i, p in self.feeds[tag]}
        for i, _ in self.feeds[tag]:
            if i >= len(ins):
                raise OpError(f"<{tag[:4]}_port_map> names input {i}, but the layer has {len(ins)} inputs")
        return {p: body_param_info(self.bodies[tag], p, ins[i]) for i, p in self.feeds[tag]}

    def body_inputs(self, inputs):
        out = []
        for tag, body in self.bodies.items():
            try:
                body.check_declared()
                out.append((body, self.params(tag, inputs)))
            except (OpError, IrrunError):
                out.append((body, {}))
        return out

    def infer(self, inputs):
        cond = inputs[0]
        check_one_value(cond, "If condition input", "input 0")
        for b in self.bodies.values():
            b.check_declared()
        types = {tag: b.infer(self.params(tag, inputs)) for tag, b in self.bodies.items()}
        res = {tag: [self.bodies[tag].result(types[tag], r) for r in self.results[tag]]
               for tag in self.bodies}
        if cond.value is not None:
            return res["then_body" if bool(cond.value.reshape(-1)[0]) else "else_body"]
        outs = []
        for k, (t, e) in enumerate(zip(res["then_body"], res["else_body"])):
            if not (t.etype.is_dynamic or e.etype.is_dynamic or t.etype == e.etype):
                raise OpError(f"type of then_body output is not equal type of else_body output "
                              f"(output {k}: {t.etype} and {e.etype})")
            outs.append(TensorInfo(e.etype if t.etype.is_dynamic else t.etype, hull(t.shape, e.shape)))
        return outs

    def run(self, cond, *xs, ctx=None):
        tag = "then_body" if bool(scalar_value(cond, "the If condition", "input 0")) else "else_body"
        body = self.bodies[tag]
        ins = (cond,) + xs
        params = self.params(tag, ins, dynamic=True)
        res = body.execute(body.plan(params), params, {p: ins[i] for i, p in self.feeds[tag]}, ctx)
        return [res[r] for r in self.results[tag]]
