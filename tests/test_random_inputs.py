"""``--random-inputs`` that know what common inputs mean (issue 26, point 3).

Random integers in a converted BERT's attention mask made NaN without a word: masks are ones,
token ids stay below the embedding table (read from the Gather that consumes them), position ids
and beam indices are ranges; a NaN/Inf output gets a warning naming ``--find-nonfinite``; ``--shape``
gives the dynamic dims. Expected values come from the model file (the table's declared rows) and
the meaning of the inputs, not from irrun."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from lxml import etree

import irrun
from irrun.cli.main import main
from irrun.debug.profiling import index_bound, random_inputs

BERT = Path(__file__).parent / "fixtures" / "zoo" / "bert_fp32" / "model.xml"
GPT2 = Path(__file__).parent / "fixtures" / "zoo" / "gpt2_fp32" / "model.xml"


def run_cli(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def table_rows(xml: Path, gather_name: str) -> int:
    """The declared first dim of a Gather's data input, read from the XML itself."""
    layer = etree.parse(str(xml)).find(f".//layer[@name='{gather_name}']")
    return int(layer.find("input/port[@id='0']/dim").text)


def test_bert_inputs_by_meaning():
    model = irrun.read_model(BERT)
    feeds = random_inputs(model, seed=3, shapes={"input_ids": (2, 64), "attention_mask": (2, 64),
                                                 "token_type_ids": (2, 64)})
    vocab = table_rows(BERT, "__module.word/aten::embedding/Gather")
    ids = feeds["input_ids"]
    assert ids.shape == (2, 64) and ids.dtype == np.int64
    assert ids.min() >= 0 and ids.max() < vocab and ids.max() >= 8        # the whole table, not [0, 8)
    mask = next(v for k, v in feeds.items() if k not in ("input_ids", "token_type_ids"))
    assert (mask == 1).all() and mask.shape == (2, 64)
    assert (feeds["token_type_ids"] == 0).all()
    out = model.run(feeds)
    assert all(np.isfinite(v).all() for v in out.values())


def test_index_bound_follows_converts_to_the_gather():
    model = irrun.read_model(BERT)
    node = next(p.node for p in model.inputs if p.name == "input_ids")
    assert index_bound(model, node) == table_rows(BERT, "__module.word/aten::embedding/Gather") == 100


def test_position_ids_and_beam_idx_are_ranges():
    from irrun.debug.profiling import random_array
    from irrun.types.elements import TYPES
    rng = np.random.default_rng(0)
    pos = random_array("position_ids", TYPES["i64"], (2, 5), rng, "positions")
    np.testing.assert_array_equal(pos, [[0, 1, 2, 3, 4]] * 2)
    beams = random_array("beam_idx", TYPES["i32"], (3,), rng, "beams")
    np.testing.assert_array_equal(beams, [0, 1, 2])


def test_cli_shape_sets_dynamic_dims_and_notes_the_guess(tmp_path, capsys):
    code, out, err = run_cli(capsys, BERT, "--random-inputs", "-o", tmp_path / "a.npz")
    assert code == 0, err
    assert np.load(tmp_path / "a.npz")["last_hidden_state"].shape == (1, 1, 32)
    assert re.search(r'note: --random-inputs: input "input_ids": i64\[1,1\], token ids in \[0, 100\) '
                     r"\(dynamic dims \[\?,\?\] taken as the smallest, at least 1: --shape input_ids=DIMS", err)
    code, out, err = run_cli(capsys, BERT, "--random-inputs", "--shape", "input_ids=2,16", "--shape",
                             "attention_mask=2,16", "-shape", "token_type_ids=2,16", "-o", tmp_path / "b.npz")
    assert code == 0, err
    assert np.load(tmp_path / "b.npz")["last_hidden_state"].shape == (2, 16, 32)
    assert "taken as the smallest" not in err and "warning" not in err
    code, out, err = run_cli(capsys, "--quiet", BERT, "--random-inputs", "-o", tmp_path / "c.npz")
    assert code == 0 and err == ""


@pytest.mark.parametrize("args,fragment", [
    (["--random-inputs", "--shape", "input_ids=1,?"], "a random input needs static dims"),
    (["--random-inputs", "--shape", "input_ids=1,2,3"], "does not fit the input, which the model declares [?,?]"),
    (["--random-inputs", "--shape", "nope=1,2"], 'the model has no input named "nope"'),
    (["--shape", "input_ids=1,2"], "use it with --random-inputs"),
])
def test_cli_bad_shapes(capsys, args, fragment):
    code, out, err = run_cli(capsys, BERT, *args)
    assert code == 2 and fragment in err and "Traceback" not in err


def test_nonfinite_output_warns_and_points_to_find_nonfinite(tmp_path, capsys):
    """What the old random inputs did: integers in [0, 8) in the attention mask."""
    mask = np.random.default_rng(0).integers(0, 8, (1, 4)).astype(np.int64)
    np.save(tmp_path / "mask.npy", mask)
    code, out, err = run_cli(capsys, BERT, "--random-inputs", "--shape", "input_ids=1,4", "--shape",
                             "token_type_ids=1,4", "-i", f"attention_mask={tmp_path / 'mask.npy'}")
    assert code == 0, err
    assert re.search(r'irrun: warning: output "\w+" has \d+ NaN/Inf values? of \d+.*--random-inputs --seed 0 '
                     r"--find-nonfinite names the first layer that makes them", err), err


def test_nonfinite_inputs_passing_through_do_not_warn(tmp_path, capsys):
    """An output that only carries the input's own infinities is no finding."""
    sample = Path(__file__).parent.parent / "samples" / "shufflenet_block" / "model.xml"
    x = np.zeros((1, 8, 4, 4), np.float32)
    x[0, 0, 0, 0] = np.inf
    np.save(tmp_path / "x.npy", x)
    code, out, err = run_cli(capsys, sample, "-i", tmp_path / "x.npy")
    assert code == 0 and "warning" not in err
