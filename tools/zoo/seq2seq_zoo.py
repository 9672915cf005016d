"""The seq2seq suite of the conformance tool: optimum-intel encoder-decoder exports, irrun vs OpenVINO.

    python -m tools.zoo.seq2seq_zoo [-k SUBSTR] [--workdir DIR] [--write-fixtures]
    python -m tools.conformance.conformance --suite seq2seq ...      (the same, through the shared driver)

Every model of tools/zoo/make_seq2seq.py (T5, mT5, LongT5, BART, mBART, Marian, Pegasus, M2M100,
Blenderbot and Whisper with random weights, fixed seed, exported by ``optimum-cli export
openvino``; fp32, fp16, int8, int4 and nf4 weights) is built into the work directory (cached), then run as optimum-intel's generate runs it: the encoder once (``SOURCE``
tokens whose last ``MASKED`` are masked out, or mel features of Whisper's 3000 frames), then the
stateful decoder from a reset state: a prefill (the decoder start token; Whisper: four tokens)
and ``STEPS`` greedy steps, fed encoder_hidden_states (and encoder_attention_mask) each step,
beam_idx 0. ``BEAM_MODELS`` also run as ``<name>-beam2``: batch 2 moved as beam search moves its
beams (``beam_steps``: beam_idx forks, then swaps the rows of the state). The ``-stateless``
models (``--disable-stateful``) are run as optimum-intel runs them (``stateless_steps``), and
every output of every step (``present.*`` keys and values too) is compared.

* OpenVINO (the expected values): CPU plugin with the llm suite's ``OV_CONFIG`` (f32 inference,
  f32 KV cache, no dynamic quantisation) in a worker process (tools/ovoracle.py); each next token
  is OpenVINO's argmax, and the step inputs it was fed are kept.
* irrun: the encoder on the same inputs, then ``reset_state`` and the same decoder step inputs
  in order (teacher-forced with OpenVINO's encoder output and tokens, so one diverging value
  does not hide the later steps).

Agreement: the encoder's output and every step's logits within ``|irrun - ov| <= ATOL + RTOL*|ov|``
(the llm suite's bounds and comparison) and the same greedy tokens; ``irrun.check`` finds nothing
on any of the IRs. Status as in tools/zoo/llm_zoo.py.

``--write-fixtures`` writes the traces of ``FIXTURE_CASES`` to tests/fixtures/seq2seq_zoo/<model>/
(both IRs, case.json, one npz per trace: ``write_fixture``) for tests/test_seq2seq_zoo.py, which
needs no OpenVINO.
"""
from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import numpy as np

from tools import ROOT
from tools.conformance.conformance_rows import SEP, Row
from tools.zoo.llm_zoo import (
    ATOL,
    OV_CONFIG,
    RTOL,
    STEPS,
    case_row,
    compiled_for_cpu,
    disagreement,
    findings,
    greedy_steps,
    irrun_decode,
    warn_if_over,
)

SUITE = "seq2seq"
SOURCE, MASKED = 7, 2
ENCODER, DECODER = "openvino_encoder_model.xml", "openvino_decoder_model.xml"
WITH_PAST = "openvino_decoder_with_past_model.xml"     # the stateless exports' later steps
FIXTURES = ROOT / "tests" / "fixtures" / "seq2seq_zoo"
BEAM = "-beam2"
STATELESS = "-stateless"        # make_seq2seq's models exported with --disable-stateful
#: Every model greedily; these also with two beams (tools: beam_steps).
BEAM_MODELS = ("tiny_bart-fp32", "tiny_whisper-fp32", "mini_t5-int8", "mini_bart-int8")
FIXTURE_CASES = ("mini_bart-int8", "mini_bart-int8" + BEAM)
FIXTURE_LIMIT = 300 << 10           # per checked-in case


def _cases() -> list[str]:
    from tools.zoo import make_seq2seq
    return [*make_seq2seq.MODELS, *(m + BEAM for m in BEAM_MODELS)]


def encoder_feeds(dtypes: dict[str, np.dtype], config: dict) -> dict[str, np.ndarray]:
    """The encoder's inputs (fixed seed): SOURCE token ids with the last MASKED masked out, or
    Whisper's mel features (batch 1, ``2 * max_source_positions`` frames)."""
    rng = np.random.default_rng(0)
    if "input_features" in dtypes:
        frames = 2 * config["max_source_positions"]
        return {"input_features": rng.standard_normal((1, config["num_mel_bins"], frames)).astype(dtypes["input_features"])}
    mask = np.ones((1, SOURCE))
    mask[0, SOURCE - MASKED:] = 0
    feeds = {"input_ids": rng.integers(3, config["vocab_size"], (1, SOURCE)), "attention_mask": mask}
    return {k: v.astype(dtypes[k]) for k, v in feeds.items() if k in dtypes}


def prefill(config: dict, source: dict) -> list[int]:
    """The decoder's first tokens: the start token, and for Whisper three more, as its generate
    feeds <|startoftranscript|><|lang|><|task|><|notimestamps|> (ids 3-5 here)."""
    return [config["decoder_start_token_id"], *([3, 4, 5] if "input_features" in source else [])]


def beam_steps(request, feeds_for, first: list[int], steps: int = STEPS) -> dict:
    """Run in the OpenVINO worker: two beams as beam search moves them, from a reset state: both
    fed ``first``; then beam_idx [0, 0] with row 0's two best tokens (both continue beam 0);
    then beam_idx [1, 0] with each row's best (the beams swap), so the state is gathered by
    beam_idx and its rows differ. The step inputs and logits (output 0) of each step."""
    feeds, logits, ids, beam = [], [], [first, first], [0, 1]
    request.reset_state()
    for k in range(steps + 1):
        f = feeds_for(ids, beam)
        request.infer(f)
        out = np.array(request.get_output_tensor(0).data, np.float32, copy=True)
        feeds.append(f)
        logits.append(out)
        last = out[:, -1]
        if k == 0:
            beam, ids = [0, 0], [[int(t)] for t in np.argsort(-last[0], kind="stable")[:2]]
        else:
            beam, ids = [1, 0], [[int(last[1].argmax())], [int(last[0].argmax())]]
    return {"feeds": feeds, "logits": logits}


def stateless_steps(first, with_past, feeds_for, ids: list[int], steps: int = STEPS) -> dict:
    """Run in the OpenVINO worker: optimum-intel's stateless decoding: ``first`` (compiled
    decoder_model) on the prefill, then ``with_past`` (decoder_with_past) on each greedy token, fed
    the last step's ``present.*`` outputs as ``past_key_values.*`` (the cross-attention ones from
    the first step). The step inputs, logits and every other output of each step."""
    feeds: list[dict] = []
    outs: list[dict] = []
    past: dict[str, np.ndarray] = {}
    for k in range(steps + 1):
        compiled = with_past if k else first
        names = {i.get_any_name() for i in compiled.inputs}
        f = {**feeds_for(compiled, [ids]), **{n: v for n, v in past.items() if n in names}}
        r = compiled.create_infer_request()
        r.infer(f)
        out = {o.get_any_name(): np.array(r.get_tensor(o).data, copy=True) for o in compiled.outputs}
        feeds.append(f)
        outs.append(out)
        past.update({"past_key_values." + n.removeprefix("present."): v for n, v in out.items() if n != "logits"})
        ids = [int(out["logits"][0, -1].argmax())]
    return {"feeds": feeds, "logits": [o.pop("logits") for o in outs], "outputs": outs}


def openvino_seq2seq(d: str, config: dict, mode: str = "") -> dict:
    """Run in the OpenVINO worker: the encoder once, then the decoder's prefill and STEPS steps:
    greedy with the state carried (``mode`` "", or BEAM: beam_steps; STATELESS: stateless_steps).
    The inputs and outputs of each."""
    enc, enc_types = compiled_for_cpu(str(Path(d) / ENCODER))
    source = encoder_feeds(enc_types, config)
    hidden = np.array(enc(source)[0], np.float32, copy=True)
    beams = 2 if mode == BEAM else 1
    fixed = {"encoder_hidden_states": hidden.repeat(beams, 0)}
    if "attention_mask" in source:      # Whisper's decoder has no encoder_attention_mask
        fixed["encoder_attention_mask"] = source["attention_mask"].repeat(beams, 0)

    def feeds_for(compiled, rows: list[list[int]], beam_idx: tuple[int, ...] = (0,)) -> dict[str, np.ndarray]:
        dtypes = {p.get_any_name(): np.dtype(p.get_element_type().to_dtype()) for p in compiled.inputs}
        f = {"input_ids": np.array(rows), "beam_idx": np.array(beam_idx), **fixed}
        return {k: v.astype(dtypes[k]) for k, v in f.items() if k in dtypes}

    first = prefill(config, source)
    if mode == STATELESS:
        steps = stateless_steps(compiled_for_cpu(str(Path(d) / DECODER))[0],
                                compiled_for_cpu(str(Path(d) / WITH_PAST))[0], feeds_for, first)
    else:
        dec = compiled_for_cpu(str(Path(d) / DECODER))[0]
        request = dec.create_infer_request()
        steps = (beam_steps(request, lambda rows, b: feeds_for(dec, rows, b), first) if beams == 2 else
                 greedy_steps(request, lambda ids, past: feeds_for(dec, [ids]), first, STEPS))
    return {"source": source, "hidden": hidden, **steps}


def irrun_encode(d: Path, source: dict[str, np.ndarray]) -> np.ndarray:
    import irrun
    return np.asarray(next(iter(irrun.read_model(d / ENCODER).run(source).values())))


def irrun_stateless(d: Path, feeds: list[dict]) -> list[dict[str, np.ndarray]]:
    """irrun's outputs for the stateless decoder IRs: decoder_model on step 0, decoder_with_past after."""
    import irrun
    first, with_past = irrun.read_model(d / DECODER), irrun.read_model(d / WITH_PAST)
    return [(with_past if i else first).run(f) for i, f in enumerate(feeds)]


def _differs(what: str, got: np.ndarray, want: np.ndarray) -> str:
    """'' when ``got`` is within RTOL/ATOL of ``want``, else what is off."""
    from irrun.debug.layer_diff import compare_arrays
    c = compare_arrays(what, np.asarray(got, np.float32), want, RTOL, ATOL)
    return "" if c.equal else f"{what} differs{SEP}" + (
        f"{c.bad} of {c.size} values off, max abs err {c.max_abs:.3g}" if c.max_abs is not None else c.note)


def check_case(name: str, d: Path, ref: dict) -> Row:
    from irrun.errors import UnsupportedError
    stateless = "outputs" in ref
    try:
        hidden = irrun_encode(d, ref["source"])
        outs = irrun_stateless(d, ref["feeds"]) if stateless else []
        got = [o["logits"] for o in outs] if stateless else irrun_decode(d / DECODER, ref["feeds"])
    except UnsupportedError as e:
        return Row(SUITE, name, "unsupported", str(e).split(": ", 1)[-1])
    except Exception as e:          # any error of irrun's is a failure of the case, said in the table
        return Row(SUITE, name, "fail", f"irrun raised {type(e).__name__}{SEP}{str(e)[:300]}")
    bad = _differs("encoder output", hidden, ref["hidden"]) or disagreement(got, ref["logits"])
    for i, want in enumerate(ref.get("outputs", [])):
        bad = bad or next((b for n, w in want.items() if (b := _differs(f"step {i} {n}", outs[i][n], w))), "")
    for xml in (ENCODER, DECODER, *[WITH_PAST][:stateless]):
        alarm = "" if bad else findings(d / xml)
        bad = bad or (f"irrun check reports a finding{SEP}{xml}: {alarm}" if alarm else "")
    worst = max(float(np.abs(g.astype(np.float64) - w).max()) for g, w in [(hidden, ref["hidden"]), *zip(got, ref["logits"])])
    return Row(SUITE, name, "fail" if bad else "pass", bad or f"max abs err {worst:.3g}")


def write_fixture(d: Path, src: Path, ref: dict, beams: bool) -> None:
    """One checked-in trace of model ``d.name`` (both IRs copied once): ``greedy.npz`` or
    ``beam2.npz`` with the encoder's inputs (``source.<input>``), each step's inputs
    (``<step>.<input>``) and OpenVINO's outputs (``expected.encoder``, ``expected.<step>``)."""
    d.mkdir(parents=True, exist_ok=True)
    for f in (ENCODER, DECODER):
        for p in (src / f, (src / f).with_suffix(".bin")):
            shutil.copyfile(p, d / p.name)
    np.savez_compressed(d / ("beam2.npz" if beams else "greedy.npz"),
                        **{f"source.{k}": v for k, v in ref["source"].items()},
                        **{f"{i}.{k}": v for i, f in enumerate(ref["feeds"]) for k, v in f.items()},
                        **{"expected.encoder": ref["hidden"]}, **{f"expected.{i}": v for i, v in enumerate(ref["logits"])})
    build = json.loads((src / "build.json").read_text())
    (d / "case.json").write_text(json.dumps({
        "doc": f"{d.name}: the encoder once, then the decoder start token + {STEPS} steps, state carried, "
               f"greedy (batch 1) and as two beams (batch 2, beam_idx forking then swapping the rows: "
               f"beam_steps); expected: OpenVINO CPU {OV_CONFIG} (tools/zoo/seq2seq_zoo.py --write-fixtures)",
        "command": build["command"], "note": build["note"], "rtol": RTOL, "atol": ATOL}, indent=1) + "\n")
    warn_if_over(d, FIXTURE_LIMIT)


def run(workdir: Path, k: str = "", *, write_fixtures: bool = False) -> list[Row]:
    """Export (or reuse), run and compare every model whose name contains ``k``."""
    from tools.zoo import make_seq2seq
    from tools.ovoracle import Oracle
    rows: list[Row] = []
    workdir = Path(workdir)
    with Oracle(timeout=600) as oracle:
        for case in [c for c in _cases() if k in c]:
            name = case.removesuffix(BEAM)
            mode = BEAM if case.endswith(BEAM) else STATELESS if case.endswith(STATELESS) else ""
            d = workdir / name

            def expected():
                make_seq2seq.export(name, workdir)
                config = {**json.loads((d / "config.json").read_text()),
                          **json.loads((d / "generation_config.json").read_text())}
                return oracle.call(openvino_seq2seq, str(d), config, mode)
            row, ref = case_row(SUITE, case, expected, lambda ref: check_case(case, d, ref))
            rows.append(row)
            if write_fixtures and case in FIXTURE_CASES and row.status == "pass":
                write_fixture(FIXTURES / name, d, ref, mode == BEAM)
    return rows


def main(argv: list[str] | None = None) -> int:
    from tools.zoo import llm_zoo
    return llm_zoo.main(argv, __doc__, run, SUITE, FIXTURES)


if __name__ == "__main__":
    sys.exit(main())
