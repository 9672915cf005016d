"""The recurrent cells' shared rules: the LSTM/GRU/RNN families (gate counts, activations), the
shape rules (OpenVINO's rnn::cell_base_shape_infer / seq_base_shape_infer, measured) and the
recurrence kernel the cells and sequences run (see :mod:`irrun.ops.rnn`).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import OpError
from ..types.elements import ElementType
from ..types.shapes import DYN, Dim, PartialShape
from .base import TensorInfo

FLOAT_TYPES = ("f64", "f32", "f16", "bf16")


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * x))       # = 1 / (1 + exp(-x)), without overflow


ACTIVATIONS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "sigmoid": _sigmoid, "tanh": np.tanh, "relu": lambda x: np.maximum(x, 0)}


@dataclass(frozen=True)
class Family:
    """What distinguishes LSTM, GRU and RNN: gate count, state count (H, C), activation count."""

    name: str
    gates: int
    states: int
    activations: tuple[str, ...]      # the defaults, one per activation slot

    @property
    def state_names(self) -> str:
        return "initial_hidden_state, initial_cell_state" if self.states == 2 else "initial_hidden_state"


LSTM = Family("LSTM", 4, 2, ("sigmoid", "tanh", "tanh"))
GRU = Family("GRU", 3, 1, ("sigmoid", "tanh"))
RNN = Family("RNN", 1, 1, ("tanh",))


# ---------------------------------------------------------------------------------------------
# Shape rules (OpenVINO's rnn::cell_base_shape_infer / seq_base_shape_infer, measured)

def _merge(a: Dim, b: Dim, what: str) -> Dim:
    m = a.intersect(b)
    if m is None:
        raise OpError(f"Dimension `{what}` is not matched between inputs.")
    return m


def _div(d: Dim, n: int) -> Dim | None:
    """OpenVINO's ``Dimension / n``: the interval of whole quotients (None when there is none)."""
    lo, hi = -(-d.lo // n), None if d.hi is None else d.hi // n
    return None if hi is not None and hi < lo else Dim(lo, hi)


def _check_ranks(shapes: Sequence[PartialShape], ranks: Sequence[int]) -> None:
    for i, (s, r) in enumerate(zip(shapes, ranks)):
        if s.rank is not None and s.rank != r:
            raise OpError(f"Shape rank of input at {i} is incompatible. Expected rank: {r}, actual shape: {s}.",
                          port=f"input {i}")


def dim_or_dynamic(s: PartialShape, i: int) -> Dim:
    """Dim ``i`` of ``s``, or a dynamic dim when the rank is unknown."""
    return DYN if s.rank is None else s[i]


def _merge_all(d: Dim, shapes: Sequence[PartialShape], axis: int, what: str) -> Dim:
    """``d`` merged with dim ``axis`` of every shape (a dynamic rank merges as ``?``)."""
    for s in shapes:
        d = _merge(d, dim_or_dynamic(s, axis), what)
    return d


def _weights_hidden(hidden: Dim, gates: int, w: PartialShape, r: PartialShape, b: PartialShape,
                    axis: int, ordinal: str, lbr: bool) -> Dim:
    """The W/R/B checks shared by cells (``axis`` 0, "First") and sequences (1, "Second"): with a
    static hidden size the gate dims must agree; otherwise W and R (when their leading dim is
    static — OpenVINO's condition, also for sequences) narrow the hidden size to ``dim / gates``."""
    if hidden.is_static:
        h = hidden.value
        r_ordinal = "Fisrt" if ordinal == "First" else ordinal        # (sic) OpenVINO's message
        for name, s, n in (("W", w, gates * h), ("R", r, gates * h), ("B", b, (gates + lbr) * h)):
            if s.rank is not None and not s[axis].contains(n):
                raise OpError(f"{r_ordinal if name == 'R' else ordinal} dimension of {name} input shape is "
                              f"required to be compatible with {n}. Got shape: {s[axis]}.")
        return hidden
    for s in (w, r):
        if s.rank is not None and s[0].is_static:
            q = _div(s[axis], gates)            # (W/R dims that no hidden size divides: a mismatch)
            hidden = _merge(hidden, Dim(1, 0) if q is None else q, "hidden_size")
    return hidden


def cell_shape(fam: Family, shapes: Sequence[PartialShape], lbr: bool = False) -> tuple[Dim, Dim]:
    """(batch, hidden) of a cell from its input shapes X, H[, C], W, R, B."""
    s = fam.states
    _check_ranks(shapes, [2] * (1 + s) + [2, 2, 1])
    x, h, w, r, b = shapes[0], shapes[1], shapes[1 + s], shapes[2 + s], shapes[3 + s]
    batch = _merge_all(dim_or_dynamic(x, 0), shapes[1:1 + s], 0, "batch_size")      # H[, C]
    hidden = _merge_all(dim_or_dynamic(h, 1), [*shapes[2:1 + s], r], 1, "hidden_size")      # [C,] R
    return batch, _weights_hidden(hidden, fam.gates, w, r, b, 0, "First", lbr)


def sequence_shape(fam: Family, shapes: Sequence[PartialShape], ndir: int, lbr: bool = False) -> tuple[Dim, Dim, Dim, Dim]:
    """(batch, num_directions, seq_length, hidden) from X, H[, C], sequence_lengths, W, R, B."""
    s = fam.states
    _check_ranks(shapes, [3] * (1 + s) + [1, 3, 3, 2])
    x, h, w, r, b = shapes[0], shapes[1], shapes[2 + s], shapes[3 + s], shapes[4 + s]
    batch = _merge_all(dim_or_dynamic(x, 0), shapes[1:2 + s], 0, "batch_size")      # H[, C], sequence_lengths
    hidden = _merge_all(dim_or_dynamic(h, 2), [*shapes[2:1 + s], r], 2, "hidden_size")      # [C,] R
    dirs: Dim | None = Dim(ndir, ndir)
    for i, axis in [(i, 1) for i in range(1, 1 + s)] + [(i, 0) for i in range(2 + s, 5 + s)]:
        dirs = dirs and dirs.intersect(dim_or_dynamic(shapes[i], axis))
    if dirs is None:
        raise OpError("Dimension `num_directions` doesn't match to other inputs or `direction` attribute.")
    hidden = _weights_hidden(hidden, fam.gates, w, r, b, 1, "Second", lbr)
    return batch, dirs, dim_or_dynamic(x, 1), hidden


def merge_types(infos: Sequence[TensorInfo], message: str) -> ElementType:
    """The one element type of the data inputs (a dynamic type matches any)."""
    known = [t.etype for t in infos if not t.etype.is_dynamic]
    if any(t != known[0] for t in known):
        raise OpError(message)
    return known[0] if known else infos[0].etype


# ---------------------------------------------------------------------------------------------
# The kernel

def _clip(x: np.ndarray, clip: float) -> np.ndarray:
    return np.clip(x, -clip, clip) if clip > 0 else x


def recurrence(fam: Family, acts: Sequence[Callable], clip: float, x: np.ndarray, states: Sequence[np.ndarray],
               lengths: np.ndarray, w: np.ndarray, r: np.ndarray, b: np.ndarray, reverse: Sequence[bool],
               lbr: bool = False) -> tuple[np.ndarray, list[np.ndarray]]:
    """Run every direction ``d`` (``reverse[d]``) over ``x`` [batch, T, input].

    ``states`` are [D, batch, hidden], ``w``/``r``/``b`` [D, gates*hidden, ...] in the canonical gate
    order, ``lengths`` [batch] float64 (compared as OpenVINO's TensorIterator conversion does:
    a step ``s`` is live while ``s + 1 <= length``, the final state is taken at ``s + 1 == length``;
    reverse rows need whole lengths in 0..T). Returns Y [D, batch, T, hidden] and the final states,
    all in the compute type."""
    D, (B, T, _), H = len(reverse), x.shape, r.shape[-1]
    G = fam.gates * H
    # input projection of every step and direction, with the biases of W (and R, summed)
    xp = np.matmul(x[None], np.swapaxes(w, 1, 2)[:, None]) + b[:, None, None, :G]   # [D, B, T, G]
    rt = np.swapaxes(r, 1, 2)                                                         # [D, H, G]
    rbh = b[:, None, G:] if lbr else None
    f, g = acts[0], acts[1] if len(acts) > 1 else acts[0]    # (RNN: one activation, g unused)
    h, c = states[0], states[1] if fam.states == 2 else None
    y = np.zeros((D, B, T, H), x.dtype)
    finals = [np.zeros_like(s) for s in states]
    rows, dd = np.arange(B), np.arange(D)[:, None]
    rev, whole = np.array(reverse)[:, None], lengths.astype(np.int64)
    for step in range(T):
        # reverse rows read x[len-1-step] (ReverseSequence by length), padding steps keep their place
        t = np.where(rev & (step < whole), whole - 1 - step, step)                         # [D, B]
        gx = xp[dd, rows, t]                                                             # [D, B, G]
        if fam is LSTM:
            gates = _clip(gx + np.matmul(h, rt), clip)
            gf, gi, gc, go = (gates[..., k * H:(k + 1) * H] for k in range(4))
            c_new = f(gf) * c + f(gi) * g(gc)
            h_new = f(go) * acts[2](c_new)
        elif fam is GRU:
            hr = np.matmul(h, rt[..., :2 * H] if not lbr else rt)
            z = f(_clip(gx[..., :H] + hr[..., :H], clip))
            rg = f(_clip(gx[..., H:2 * H] + hr[..., H:2 * H], clip))
            if lbr:
                cand = gx[..., 2 * H:] + rg * (hr[..., 2 * H:] + rbh)
            else:
                cand = gx[..., 2 * H:] + np.matmul(rg * h, rt[..., 2 * H:])
            h_new = (1 - z) * g(_clip(cand, clip)) + z * h
        else:
            h_new = f(_clip(gx + np.matmul(h, rt), clip))
        live = (lengths >= step + 1)[None, :, None]
        at_end = (lengths == step + 1)[None, :, None]
        h = np.where(live, h_new, 0)
        y[dd, rows, t] = h
        finals[0] = np.where(at_end, h_new, finals[0])
        if c is not None:
            c = np.where(live, c_new, 0)
            finals[1] = np.where(at_end, c_new, finals[1])
    return y, finals


def sequence_lengths(value: np.ndarray, T: int, reverse: bool, port: str) -> np.ndarray:
    """``sequence_lengths`` as float64 (OpenVINO compares them in their own type, so 2.5 masks
    step 3 and never marks a final state). Forward, any value works (negative = 0: zero outputs
    and states); a reverse direction needs lengths in [0, T], as OpenVINO's ReverseSequence."""
    lens = value.astype(np.float64).reshape(-1)
    if reverse and lens.size and (lens.min() < 0 or lens.max() >= T + 1):
        raise OpError(f"sequence_lengths {value.tolist()} must lie in [0, {T}] for a reverse direction "
                      "(OpenVINO: \"Incorrect input 'seq_lengths' values!\")", port=port, openvino_loads=True)
    return lens
