"""Build ``tests/hostile/``: one bad input per kind listed in issue 5, and how irrun must answer.

    python -m tools.fuzz.make_hostile_corpus        # rewrites tests/hostile/corpus/ and cases.json

Each case is a directory ``corpus/<name>/`` (model.xml, maybe model.bin and input files) and an
entry in ``cases.json``: the command line (``{dir}`` = the case directory), the exit code, and
fragments the one-paragraph error must contain (the layer, the file, the offending value).
Files too big to check in (a 12 MB attribute) are described by ``"make"``: the name of a function
here that tests/hostile/test_hostile.py calls to write them into a temporary copy.
Models are written with :class:`irrun.ir.builder.IRWriter` and then broken by editing the XML.
"""
from __future__ import annotations

import copy
import json
import os
import shutil
import struct
import zipfile
from pathlib import Path

import numpy as np
from lxml import etree


from irrun.ir.builder import IRWriter
from tools import ROOT

OUT = ROOT / "tests" / "hostile"
CASES: list[dict] = []
XML_HEAD = b'<?xml version="1.0"?>\n'
FIXED_TIME = (2026, 1, 1, 0, 0, 0)


# -- models ---------------------------------------------------------------------------------

def concat_model() -> IRWriter:
    """x f32[1,4] ++ const f32[1,4] (axis 0) -> y f32[2,4]: layers 0 x, 1 Const, 2 Concat, 3 y."""
    b = IRWriter("concat")
    x = b.parameter("x", "f32", [1, 4])
    c = b.const(np.arange(4, dtype=np.float32).reshape(1, 4))
    b.result(b.layer("Concat", [x, c], {"axis": 0}, out_dims=[[2, 4]], name="cat"), "y")
    return b


def xml_of(b: IRWriter) -> bytes:
    return b.to_xml()


def edit(b: IRWriter, fn) -> bytes:
    """Apply ``fn(root)`` to the model's XML tree; returns the edited bytes."""
    root = etree.fromstring(b.to_xml())
    fn(root)
    return etree.tostring(root, xml_declaration=True, encoding="utf-8")


def layer(root, lid) -> etree._Element:
    return root.find(f"layers/layer[@id='{lid}']")


def data_of(root, lid) -> etree._Element:
    return layer(root, lid).find("data")


def add_case(name: str, files: dict[str, bytes | None], argv: list[str], code: int,
             fragments: list[str], what: str, make: str | None = None, **extra) -> None:
    """``extra``: ``setup`` (a function here that plants links etc. in the test's copy of the
    case), ``creates`` (files the command must write; every other file must stay as it was),
    ``stdout_lines`` (how many lines a successful command prints)."""
    CASES.append(dict(name=name, what=what, argv=argv, exit=code, fragments=fragments,
                      files=sorted({f.split("/")[0] for f in files}), **({"make": make} if make else {}), **extra))
    d = OUT / "corpus" / name
    d.mkdir(parents=True)
    for fname, content in files.items():
        (d / fname).parent.mkdir(parents=True, exist_ok=True)
        if content is None:                       # a directory standing where a file should be
            (d / fname).mkdir()
            (d / fname / "README").write_text("a directory named like an IR file\n")
        else:
            (d / fname).write_bytes(content)


def model_case(name: str, what: str, xml: bytes, bin_: bytes | None, code: int,
               fragments: list[str], inputs: dict[str, bytes] | None = None,
               args: list[str] | None = None, cmd: str = "run", **extra) -> None:
    files = {"model.xml": xml, **({"model.bin": bin_} if bin_ is not None else {}), **(inputs or {})}
    if args is None:
        args = [a for f in (inputs or {}) for a in ("--input", "{dir}/" + f)]
    argv = (["check"] if cmd == "check" else []) + ["{dir}/model.xml"] + args
    add_case(name, files, argv, code, fragments, what, **extra)


def npy(arr: np.ndarray) -> bytes:
    import io
    f = io.BytesIO()
    np.save(f, arr, allow_pickle=arr.dtype.hasobject)
    return f.getvalue()


def npz(**arrays) -> bytes:
    """Like np.savez, but with fixed timestamps so that the corpus is reproducible."""
    import io
    f = io.BytesIO()
    with zipfile.ZipFile(f, "w") as zf:
        for k, v in arrays.items():
            zf.writestr(zipfile.ZipInfo(f"{k}.npy", FIXED_TIME), npy(v))
    return f.getvalue()


X = {"x.npy": npy(np.ones((1, 4), np.float32))}


# -- XML ------------------------------------------------------------------------------------

def xml_cases() -> None:
    good = xml_of(concat_model())
    body = good.split(b"?>", 1)[1]
    dt = "DOCTYPE"
    for name, what, doctype in [
        ("xml_external_entity_file", "external entity reading a local file",
         b'<!DOCTYPE net [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>'),
        ("xml_external_entity_url", "external entity fetching a URL",
         b'<!DOCTYPE net [<!ENTITY xxe SYSTEM "http://127.0.0.1:9/secret">]>'),
        ("xml_external_dtd", "external DTD subset", b'<!DOCTYPE net SYSTEM "file:///etc/passwd">'),
        ("xml_parameter_entity", "external parameter entity",
         b'<!DOCTYPE net [<!ENTITY % pe SYSTEM "file:///etc/passwd"> %pe;]>'),
        ("xml_billion_laughs", "billion laughs (nested entity expansion)",
         b"<!DOCTYPE net [<!ENTITY a0 \"lol\">" + b"".join(
             b'<!ENTITY a%d "%s">' % (i, b"".join(b"&a%d;" % (i - 1) for _ in range(10)))
             for i in range(1, 10)) + b"]>"),
        ("xml_quadratic_blowup", "quadratic blow-up (one big entity used many times)",
         b'<!DOCTYPE net [<!ENTITY big "' + b"x" * 20000 + b'">]>'),
        ("xml_doctype", "any DOCTYPE at all", b"<!DOCTYPE net>"),
    ]:
        text = body
        if b"xxe" in doctype:
            text = text.replace(b"<dim>4</dim>", b"<dim>&xxe;</dim>", 1)
        if b"a9" in doctype:
            text = text.replace(b'name="cat"', b'name="&a9;"')
        if b"big" in doctype:
            text = text.replace(b'name="cat"', b'name="' + b"&big;" * 2000 + b'"')
        model_case(name, what, XML_HEAD + doctype + text, concat_model().blob, 2, [dt, "model.xml"],
                   X)
    add_case("xml_huge_attribute", {"README": b"written at test time by huge_attribute()\n"},
             ["{dir}/model.xml", "--input", "{dir}/x.npy"], 2,
             ["not a well-formed XML file", "model.xml"], "a 12 MB attribute value (written at test "
             "time; libxml2 refuses values over 10 MB)", make="huge_attribute")
    model_case("xml_deep_nesting", "10000 nested elements", good.replace(
        b"<rt_info/>", b"<rt_info>" + b"<a>" * 10000 + b"</a>" * 10000 + b"</rt_info>"), None, 2,
        ["Excessive depth", "model.xml"], X)
    model_case("xml_nested_bodies", "sub-graph bodies nested 40 deep", nested_bodies(40), None, 2,
               ["nested more than 32 deep", "model.xml"], X)
    model_case("xml_truncated", "the file cut in the middle", good[: len(good) // 2],
               concat_model().blob, 2, ["not a well-formed XML file", "model.xml"], X)
    model_case("xml_invalid_utf8", "invalid UTF-8 in a name",
               good.replace(b'name="cat"', b'name="c\xff\xfet"'),
               concat_model().blob, 2, ["not a well-formed XML file", "model.xml"], X)
    model_case("xml_unknown_encoding", "an encoding libxml2 does not know",
               good.replace(b"encoding='utf-8'", b"encoding='x-no-such'"),
               concat_model().blob, 2, ["not a well-formed XML file", "model.xml"], X)
    model_case("xml_not_xml", "not XML at all (a .npy file)", npy(np.ones(3)), None, 2,
               ["not a well-formed XML file", "model.xml"], X)
    model_case("xml_empty", "an empty file", b"", None, 2, ["not a well-formed XML file", "model.xml"], X)
    model_case("xml_wrong_root", "a well-formed file whose root is not <net>",
               XML_HEAD + b"<html><body>hello</body></html>", None, 2, ["<html>", "not <net>"], X)
    model_case("xml_ir_version", "IR version 7", good.replace(b'version="11"', b'version="7"', 1),
               concat_model().blob, 2, ['IR version "7" is not supported'], X)
    add_case("model_is_directory", {"model.xml": None}, ["{dir}/model.xml", "--input", "x.npy"], 2,
             ["is a directory", "model.xml"], "the model path is a directory")
    add_case("model_is_device", {"README": b"the model path is /dev/zero\n"},
             ["/dev/zero", "--input", "x.npy"], 2,
             ["/dev/zero", "not a regular file"], "the model path is a device that never ends")
    add_case("model_missing", {"README": b"the model path points to a file that does not exist\n"},
             ["{dir}/model.xml", "--input", "x.npy"], 2, ["no such file", "model.xml"],
             "the model path does not exist")


def nested_bodies(depth: int) -> bytes:
    """A TensorIterator whose body holds a TensorIterator... ``depth`` deep."""
    inner = (b'<layers><layer id="0" name="p" type="Parameter" version="opset1">'
             b'<data shape="1" element_type="f32"/><output><port id="0" precision="FP32"><dim>1</dim>'
             b"</port></output></layer></layers><edges/>")
    for i in range(depth):
        inner = (b'<layers><layer id="0" name="ti%d" type="TensorIterator" version="opset1"><body>' % i
                 + inner + b"</body></layer></layers><edges/>")
    return XML_HEAD + b'<net name="deep" version="11">' + inner + b"</net>"


def huge_attribute(d: Path) -> None:
    """Written at test time: a valid model whose layer name is 12 MB long."""
    good = xml_of(concat_model())
    (d / "model.xml").write_bytes(good.replace(b'name="cat"', b'name="' + b"A" * (12 << 20) + b'"'))
    (d / "model.bin").write_bytes(bytes(concat_model().blob))
    (d / "x.npy").write_bytes(X["x.npy"])


# -- weights --------------------------------------------------------------------------------

def const_case(name: str, what: str, attrs: dict[str, str], fragments: list[str], bin_=None,
               code: int = 2) -> None:
    b = concat_model()
    xml = edit(b, lambda r: data_of(r, 1).attrib.update(attrs))
    model_case(name, what, xml, bytes(b.blob) if bin_ is None else bin_, code,
               ['layer 1 "Const_1" (Const-opset1)', *fragments], X)


def weight_cases() -> None:
    b = concat_model()
    model_case("bin_missing", "no .bin although a Const needs it", xml_of(b), None, 2,
               ['layer 1 "Const_1"', "model.bin is missing"], X)
    model_case("bin_short", ".bin shorter than offset + size", xml_of(b), bytes(b.blob[:10]), 2,
               ['layer 1 "Const_1"', "model.bin", "lie outside the weights file (10 bytes)"], X)
    const_case("const_negative_offset", "negative offset", {"offset": "-8"}, ["offset=-8"])
    const_case("const_negative_size", "negative size", {"size": "-16"}, ["size=-16"])
    const_case("const_offset_wraps_u64", "offset + size wraps around 2**64",
               {"offset": str(2**64 - 8), "size": "16"}, ["lie outside the weights file"])
    const_case("const_offset_over_u64", "offset beyond 64 bits", {"offset": "9" * 25},
               ["lie outside the weights file"])
    const_case("const_empty_huge_dim", "an empty Const with a dim beyond 64 bits",
               {"shape": "0," + "9" * 25, "size": "0"}, ["is too large for any array"])
    const_case("const_non_numeric", "non-numeric size", {"size": "0x10"}, ['size="0x10"'])
    const_case("const_size_mismatch", "size smaller than shape x element size", {"size": "12"},
               ["needs 16 bytes but size=12"])
    const_case("const_unknown_type", "unknown element type", {"element_type": "f33"}, ["'f33'"])
    const_case("const_packed_short", "u4 Const with 3 elements in 1 byte (needs 2)",
               {"element_type": "u4", "shape": "3", "size": "1"}, ["needs 2 bytes but size=1"])
    # valid packed Consts with odd element counts must run (values from ir-format.md §6)
    for name, etype, shape, raw, values in [
        ("const_u4_odd_valid", "u4", [3], b"\x21\x03", "[1, 2, 3]"),        # low nibble first
        ("const_i4_odd_valid", "i4", [3], b"\xf7\x08", "[7, -1, -8]"),
        ("const_u1_odd_valid", "u1", [5], b"\xb0", "[1, 0, 1, 1, 0]"),       # MSB first
    ]:
        w = IRWriter(name)
        w.result(w.const(None, etype, raw=raw, shape=shape), "c")
        model_case(name, f"valid {etype} Const of {shape[0]} elements (must run)", w.to_xml(),
                   bytes(w.blob), 0, [values], {})


# -- shapes and memory ----------------------------------------------------------------------

def big_model(kind: str, runtime: bool) -> tuple[bytes, bytes, dict[str, bytes]]:
    """x f32[1] -> Broadcast/Tile/Pad to 100000^3, the sizes from a Const or from an input."""
    b = IRWriter(f"{kind}_huge")
    big = [100000, 100000, 100000]
    if kind == "Pad":
        x = b.parameter("x", "f32", [1, 1, 1])
        pads = np.array([99999, 99999, 99999], np.int64)
        p = b.parameter("pads", "i64", [3]) if runtime else b.const(pads)
        out = b.layer("Pad", [x, p, b.const(np.zeros(3, np.int64))], {"pad_mode": "edge"},
                      version="opset12", out_dims=[big], name="grow")
        inputs = {"x": np.ones((1, 1, 1), np.float32), "pads": pads}
    else:
        x = b.parameter("x", "f32", [1])
        t = np.array(big, np.int64)
        tp = b.parameter("t", "i64", [3]) if runtime else b.const(t)
        out = b.layer(kind, [x, tp], version="opset3" if kind == "Broadcast" else "opset1",
                      out_dims=[big], name="grow")
        inputs = {"x": np.ones(1, np.float32), "t": t}
    b.result(out, "y")
    if not runtime:
        inputs = {"x": inputs["x"]}
    return b.to_xml(), bytes(b.blob), {"in.npz": npz(**inputs)}


def shape_cases() -> None:
    b = concat_model()
    model_case("param_negative_dim", "Parameter shape with a negative dim",
               edit(b, lambda r: data_of(r, 0).set("shape", "-5,4")), bytes(b.blob), 2,
               ['layer 0 "x" (Parameter-opset1)', 'shape="-5,4"'], X)
    model_case("port_negative_dim", "a port dim below -1",
               xml_of(b).replace(b"<dim>4</dim>", b"<dim>-5</dim>", 1), bytes(b.blob), 2,
               ['layer 0 "x"', "output port 0", "dimension -5 must be >= -1"], X)
    w = IRWriter("param_huge")
    w.result(w.parameter("x", "f32", [100000, 100000, 100000]), "y")
    model_case("param_huge", "a Parameter of 100000x100000x100000 f32 (refused before inputs are read)",
               w.to_xml(), b"", 2, ['layer 0 "x" (Parameter-opset1)', "4.0 PB (4000000000000000 bytes)",
                                    "memory budget"], X)
    model_case("const_huge", "a Const of 100000x100000x100000 f32",
               edit(b, lambda r: data_of(r, 1).attrib.update({"shape": "100000,100000,100000",
                                                               "size": str(4 * 10**15)})), bytes(b.blob), 2,
               ['layer 1 "Const_1"', "[0, 4000000000000000)", "lie outside the weights file"], X)
    for kind in ("Broadcast", "Tile", "Pad"):
        for runtime in (False, True):
            xml, bin_, inputs = big_model(kind, runtime)
            src = "an input" if runtime else "a Const"
            model_case(f"{kind.lower()}_huge_{'input' if runtime else 'const'}",
                       f"{kind} to 100000x100000x100000 f32, the sizes from {src}", xml, bin_, 2,
                       [f'"grow" ({kind}-opset', "4.0 PB (4000000000000000 bytes)", "memory budget"],
                       inputs)
    xml, bin_, _ = big_model("Broadcast", False)
    model_case("broadcast_huge_check", "`irrun check` on the 4 PB Broadcast: allocates nothing",
               xml, bin_, 0, [], cmd="check")
    for runtime in (False, True):    # NumPy arrays have at most 64 dims
        w = IRWriter("rank70")
        x = w.parameter("x", "f32", [1])
        axes = np.arange(1, 70, dtype=np.int64)
        a = w.parameter("a", "i64", [69]) if runtime else w.const(axes)
        w.result(w.layer("Unsqueeze", [x, a], name="lift"), "y")
        model_case(f"rank_over_64_{'input' if runtime else 'const'}",
                   f"Unsqueeze to rank 70, the axes from {'an input' if runtime else 'a Const'}",
                   w.to_xml(), bytes(w.blob), 3, ['"lift" (Unsqueeze-opset1)', "at most 64 dims"],
                   {"in.npz": npz(x=np.ones(1, np.float32), **({"a": axes} if runtime else {}))})
    # Concat whose inputs fit a 1 MB budget but whose output does not (sizes known at run time)
    w = IRWriter("concat_budget")
    x = w.parameter("x", "f32", [1])
    t = w.parameter("t", "i64", [1])
    a = w.layer("Broadcast", [x, t], version="opset3", out_dims=[[-1]])
    c = w.layer("Broadcast", [x, t], version="opset3", out_dims=[[-1]])
    w.result(w.layer("Concat", [a, c], {"axis": 0}, out_dims=[[-1]], name="join"), "y")
    model_case("concat_over_budget", "Concat of two 600 kB run-time Broadcasts, --max-memory 1M",
               w.to_xml(), bytes(w.blob), 2,
               ['"join" (Concat-opset1)', "1.2 MB (1200000 bytes)", "1.0 MB (1000000 bytes)"],
               {"in.npz": npz(x=np.ones(1, np.float32), t=np.array([150000], np.int64))},
               ["--input", "{dir}/in.npz", "--max-memory", "1M"])


# -- graph ----------------------------------------------------------------------------------

def set_edge(root, i: int, **kv) -> None:
    e = root.findall("edges/edge")[i]
    for k, v in kv.items():
        e.set(k.replace("_", "-"), str(v))


def graph_cases() -> None:
    b = concat_model()
    bin_ = bytes(b.blob)

    def g(name, what, fn, fragments, code=2):
        model_case(name, what, edit(b, fn), bin_, code, fragments, X)

    g("edge_missing_layer", "an edge from a layer that does not exist",
      lambda r: set_edge(r, 0, from_layer=77), ["edge 77:0 -> 2:0 names layer 77, which does not exist"])
    g("edge_missing_port", "an edge to a port that does not exist",
      lambda r: set_edge(r, 1, to_port=9), ['layer 2 "cat"', "has no input port with id 9"])
    g("duplicate_ids", "two layers with the same id",
      lambda r: layer(r, 1).set("id", "0"), ["duplicate layer id 0"])

    def cycle(r):
        set_edge(r, 0, from_layer=2, from_port=2)         # cat's output feeds cat's input 0
    g("self_loop", "a layer feeding itself", cycle, ["cycle through layers 2 -> 2"])

    def loop2(r):   # x -> cat, and cat -> a Convert -> cat: a two-layer cycle
        layers = r.find("layers")
        conv = etree.SubElement(layers, "layer", id="9", name="conv", type="Convert", version="opset1")
        etree.SubElement(conv, "data", destination_type="f32")
        inp = etree.SubElement(conv, "input")
        etree.SubElement(inp, "port", id="0", precision="FP32")
        out = etree.SubElement(conv, "output")
        etree.SubElement(out, "port", id="1", precision="FP32")
        set_edge(r, 1, from_layer=9, from_port=1)
        etree.SubElement(r.find("edges"), "edge", {"from-layer": "2", "from-port": "2",
                                                    "to-layer": "9", "to-port": "0"})
    g("cycle", "two layers feeding each other", loop2, ["cycle through layers"])
    g("result_no_input", "a Result with no incoming edge",
      lambda r: r.find("edges").remove(r.findall("edges/edge")[2]),
      ['layer 3 "y" (Result-opset1)', "input port 0", "not connected"])
    g("port_fed_twice", "one input port fed by two edges",
      lambda r: etree.SubElement(r.find("edges"), "edge", {"from-layer": "1", "from-port": "0",
                                                           "to-layer": "2", "to-port": "0"}),
      ['layer 2 "cat"', "fed by more than one edge"])
    g("unknown_type", "a layer type no opset has, in a standard opset (OpenVINO refuses it)",
      lambda r: layer(r, 2).set("type", "FrobnicateND"), ['layer 2 "cat"', "FrobnicateND"])
    g("custom_op", "an extension op irrun does not know",
      lambda r: layer(r, 2).attrib.update({"type": "MyOp", "version": "my_extension"}),
      ['layer 2 "cat" (MyOp-my_extension)', "unsupported op MyOp"], code=3)
    g("unknown_opset", "an opset version that does not exist",
      lambda r: layer(r, 2).set("version", "opset99"), ['layer 2 "cat"', 'version="opset99"'], code=3)
    g("op_not_in_opset", "an op asked for in an opset that lacks it",
      lambda r: layer(r, 2).attrib.update({"type": "Slice", "version": "opset1"}),
      ['layer 2 "cat"', "opset opset1 does not contain an op of type Slice"])
    g("no_result", "no Result layer", lambda r: (r.find("layers").remove(layer(r, 3)),
                                                 r.find("edges").remove(r.findall("edges/edge")[2])),
      ["no Result layer"])


# -- op rules -------------------------------------------------------------------------------

def op_model(type_, data, consts, attrs=None, version="opset1", n_out=1, name="op"):
    b = IRWriter(type_)
    x = b.parameter("x", "f32", list(data.shape))
    outs = b.layer(type_, [x] + [b.const(c) for c in consts], attrs, version=version, n_out=n_out,
                   name=name)
    for i, o in enumerate([outs] if n_out == 1 else outs):
        b.result(o, f"out{i}")
    return b.to_xml(), bytes(b.blob), {"x.npy": npy(data)}


def op_cases() -> None:
    f = np.zeros((2, 6), np.float32)
    for name, what, model, fragments in [
        ("variadic_split_sum", "VariadicSplit lengths summing past the axis",
         op_model("VariadicSplit", f, [np.int64(1), np.array([2, 5])], n_out=2),
         ["(VariadicSplit-opset1)", "Total length of splits: 7"]),
        ("variadic_split_two_minus1", "VariadicSplit with two -1 lengths",
         op_model("VariadicSplit", f, [np.int64(1), np.array([-1, -1])], n_out=2),
         ["(VariadicSplit-opset1)", "multiple -1"]),
        ("variadic_split_axis", "VariadicSplit axis out of range",
         op_model("VariadicSplit", f, [np.int64(5), np.array([1, 1])], n_out=2),
         ["(VariadicSplit-opset1)", "out of the tensor rank range"]),
        ("split_divisibility", "Split of 6 into 4",
         op_model("Split", f, [np.int64(1)], {"num_splits": 4}, n_out=4),
         ["(Split-opset1)", "must be evenly divisible"]),
        ("slice_step_zero", "Slice with step 0",
         op_model("Slice", f, [np.array([0]), np.array([2]), np.array([0]), np.array([1])],
                  version="opset8"), ["(Slice-opset8)", "Step must be non-zero"]),
        ("strided_slice_masks", "StridedSlice masks of different lengths",
         op_model("StridedSlice", f, [np.array([0, 0]), np.array([1, 1]), np.array([1, 1])],
                  {"begin_mask": "0,0", "end_mask": "0,0,0"}),
         ["(StridedSlice-opset1)", "same size"]),
        ("shuffle_channels_group", "ShuffleChannels group 4 on 6 channels",
         op_model("ShuffleChannels", f, [], {"axis": 1, "group": 4}),
         ["(ShuffleChannels-opset1)", "multiple of the groups"]),
        ("concat_dims", "Concat of [2,6] and [3,5]",
         op_model("Concat", f, [np.zeros((3, 5), np.float32)], {"axis": 0}),
         ["(Concat-opset1)", "Argument shapes are inconsistent"]),
        ("reshape_count", "Reshape of 12 elements to 5",
         op_model("Reshape", f, [np.array([5])], {"special_zero": "false"}),
         ["(Reshape-opset1)", "is incompatible with input shape"]),
    ]:
        xml, bin_, inputs = model
        model_case(name, what, xml, bin_, 2, ['"op"', *fragments], inputs)


# -- inputs ---------------------------------------------------------------------------------

def input_cases() -> None:
    b = concat_model()
    xml, bin_ = xml_of(b), bytes(b.blob)
    two = IRWriter("two")
    x = two.parameter("x", "f32", [1, 4])
    z = two.parameter("z", "f32", "?")
    two.result(x, "xo")
    two.result(z, "zo")

    def inp(name, what, files, fragments, args=None, model=(xml, bin_)):
        model_case(name, what, model[0], model[1], 2, fragments, files, args)

    inp("input_wrong_dtype", ".npy of float64 for an f32 input", {"x.npy": npy(np.ones((1, 4)))},
        ["x.npy", 'input "x" has dtype float64', "f32"])
    inp("input_wrong_shape", ".npy of shape [4,1] for [1,4]", {"x.npy": npy(np.ones((4, 1), np.float32))},
        ["x.npy", 'input "x" has shape [4,1]'])
    inp("input_pickled", "an object array (pickled), never unpickled",
        {"x.npy": npy(np.array([1, "two", None], dtype=object))}, ["x.npy", "never unpickles"])
    good = npy(np.ones((1, 4), np.float32))
    hlen = struct.unpack("<H", good[8:10])[0]
    broken = b"{'descr': '<f4', 'fortran_order': False, 'shape': (1, 4".ljust(hlen - 1) + b"\n"
    inp("input_corrupt_header", "a header that is not a Python dict literal",
        {"x.npy": good[:10] + broken + good[10 + hlen:]}, ["x.npy", "corrupted .npy header"])
    inp("input_oversized_header", "a v2 header claiming 4 GB",
        {"x.npy": b"\x93NUMPY\x02\x00" + struct.pack("<I", 0xFFFFFFF0) + b"{}"},
        ["x.npy", "header of 4294967280 bytes is too large"])
    inp("input_truncated_data", "a header promising more data than the file holds",
        {"x.npy": good[:-4]}, ["x.npy", "promises 16 bytes"])
    inp("input_not_npy", "a text file given as .npy", {"x.npy": b"1 2 3 4\n"},
        ["x.npy", "not a .npy file"])
    inp("input_npz_not_zip", "an .npz that is no zip file", {"in.npz": b"PK\x03\x04 not really"},
        ["in.npz", "not a valid .npz"])
    inp("input_npz_missing_key", "an .npz without one of the model's two inputs",
        {"in.npz": npz(x=np.ones((1, 4), np.float32))}, ["missing input(s): z"],
        model=(two.to_xml(), bytes(two.blob)))
    inp("input_npz_extra_key", "an .npz with an extra array besides the input",
        {"in.npz": npz(x=np.ones((1, 4), np.float32), extra=np.ones(2))},
        ["in.npz[extra.npy]", 'no input named "extra"'])
    # a deflate bomb: 200 MB of zeros in a ~200 kB member, refused before inflating
    bomb = OUT / "_bomb.npz"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
        info = zipfile.ZipInfo("z.npy", FIXED_TIME)
        info.compress_type = zipfile.ZIP_DEFLATED
        with zf.open(info, "w", force_zip64=True) as f:
            np.lib.format.write_array_header_1_0(f, {"descr": "<f4", "fortran_order": False,
                                                     "shape": (50_000_000,)})
            chunk = bytes(1 << 20)
            for _ in range(200_000_000 // len(chunk)):
                f.write(chunk)
            f.write(bytes(200_000_000 % len(chunk)))
        zf.writestr(zipfile.ZipInfo("x.npy", FIXED_TIME), npy(np.ones((1, 4), np.float32)))
    data = bomb.read_bytes()
    bomb.unlink()
    inp("input_npz_zip_bomb", "an .npz member inflating to 200 MB, --max-memory 64M",
        {"in.npz": data}, ["in.npz[z.npy]", "200.0 MB", "memory budget"],
        ["--input", "{dir}/in.npz", "--max-memory", "64M"], model=(two.to_xml(), bytes(two.blob)))
    inp("input_one_for_two", "one unnamed array for a two-input model", {"x.npy": good},
        ["x.npy", "the model has 2 inputs (x, z)"], model=(two.to_xml(), bytes(two.blob)))
    inp("input_missing_path", "an input path that does not exist", {},
        ["nope.npy", "no such file"], ["--input", "{dir}/nope.npy"])


# -- files irrun writes (issue 11 class 3) -------------------------------------------------------

VICTIM = {"victim.txt": b"a file a planted symlink points to; it must never change\n"}


def plant(d: Path, link: str, target: str = "victim.txt") -> None:
    (d / link).parent.mkdir(parents=True, exist_ok=True)
    (d / link).symlink_to(d / target)


def link_out(d: Path) -> None:
    plant(d, "out.npz")


def link_manifest(d: Path) -> None:
    plant(d, "dump/manifest.json")


def link_batch(d: Path) -> None:
    plant(d, "outdir/a.npz")


def link_extract(d: Path) -> None:
    plant(d, "ext/model.bin")


def link_graph(d: Path) -> None:
    plant(d, "g.dot")


def huge_manifest(d: Path) -> None:
    """A sparse 3 GiB manifest.json (no disk used)."""
    with open(d / "ref" / "manifest.json", "wb") as f:
        f.truncate(3 << 30)


def writer_cases() -> None:
    b = concat_model()
    base = {"model.xml": xml_of(b), "model.bin": bytes(b.blob), **X, **VICTIM}
    run = ["{dir}/model.xml", "--input", "{dir}/x.npy"]

    def w(name, what, argv, code, fragments, files=None, **extra):
        add_case(name, {**base, **(files or {})}, argv, code, fragments, what, **extra)

    w("write_out_symlink", "--output at a planted symlink", run + ["-o", "{dir}/out.npz"], 2,
      ["out.npz", "symbolic link"], setup="link_out")
    w("write_dump_symlink", "--dump whose manifest.json is a planted symlink", run + ["--dump", "{dir}/dump"],
      2, ["manifest.json", "symbolic link"], setup="link_manifest")
    w("write_batch_symlink", "-o OUTDIR/ holding a planted symlink for one output",
      ["{dir}/model.xml", "--input", "{dir}/in", "-o", "{dir}/outdir"], 2, ["a.npz", "symbolic link"],
      files={"in/a.npy": X["x.npy"]}, setup="link_batch")
    w("write_extract_symlink", "extract -o DIR whose model.bin is a planted symlink",
      ["extract", "{dir}/model.xml", "--layer", "cat", "-o", "{dir}/ext"], 2,
      ["model.bin", "symbolic link"], setup="link_extract")
    w("write_graph_symlink", "graph -o at a planted symlink", ["graph", "{dir}/model.xml", "-o", "{dir}/g.dot"],
      2, ["g.dot", "symbolic link"], setup="link_graph")
    w("write_extract_over_model", "extract -o . (the model's own directory)",
      ["extract", "{dir}/model.xml", "--layer", "cat", "-o", "{dir}"], 2, ["model.xml", "never overwrites"])
    w("write_reshape_over_model", "reshape -o the model's own .xml",
      ["reshape", "{dir}/model.xml", "--shape", "x=1,4", "-o", "{dir}/model.xml"], 2, ["never overwrites"])
    w("write_reshape_to_bin", "reshape -o model.bin (XML over the weights)",
      ["reshape", "{dir}/model.xml", "--shape", "x=1,4", "-o", "{dir}/model.bin"], 2, ["must end in .xml"])
    w("write_reshape_to_dir", "reshape -o an existing directory",
      ["reshape", "{dir}/model.xml", "--shape", "x=1,4", "-o", "{dir}/sub.xml"], 2,
      ["sub.xml", "is a directory"], files={"sub.xml": None})
    w("write_out_over_input", "--output the input file itself", run + ["-o", "{dir}/x.npy"], 2,
      ["x.npy", "never overwrites"])
    w("write_out_under_file", "--output under a regular file", run + ["-o", "{dir}/x.npy/out.npz"], 2,
      ["x.npy is not a directory"])
    w("write_out_is_dir", "--output an existing directory", run + ["-o", "{dir}/sub"], 2,
      ["sub", "is a directory"], files={"sub": None})
    w("write_out_suffix", "--output with a suffix other than .npz/.npy", run + ["-o", "{dir}/out.txt"], 2,
      ["out.txt", "must end in .npz"])
    w("write_dump_is_file", "--dump at an existing file (refused before the run)",
      run + ["--dump", "{dir}/victim.txt"], 2, ["victim.txt", "is a file, not a directory"])
    w("write_out_no_suffix", "--output OUT writes OUT.npz and says so", run + ["-o", "{dir}/out"], 0,
      ["to {dir}/out.npz:"], creates=["out.npz"], stdout_lines=1)
    w("write_out_npy", "--output OUT.npy for a one-output model writes that .npy", run + ["-o", "{dir}/y.npy"],
      0, ["to {dir}/y.npy:"], creates=["y.npy"], stdout_lines=1)
    w("write_reshape_new_dirs", "reshape -o into directories that do not exist yet",
      ["reshape", "{dir}/model.xml", "--shape", "x=1,4", "-o", "{dir}/new/sub/m.xml"], 0,
      ["wrote {dir}/new/sub/m.xml and {dir}/new/sub/m.bin"], creates=["new/sub/m.bin", "new/sub/m.xml"])
    two = IRWriter("two")
    x = two.parameter("x", "f32", [1, 4])
    two.result(two.layer("Relu", [x], name="file"), "file")
    two.result(two.layer("Negative", [x], name="allow_pickle"), "allow_pickle")
    add_case("write_npy_two_outputs", {"model.xml": two.to_xml(), **X},
             ["{dir}/model.xml", "--input", "{dir}/x.npy", "-o", "{dir}/y.npy"], 2,
             ["y.npy", "there are 2 outputs"], "--output OUT.npy for a two-output model (before the run)")
    add_case("write_outputs_named_file", {"model.xml": two.to_xml(), **X},
             ["{dir}/model.xml", "--input", "{dir}/x.npy", "-o", "{dir}/o.npz"], 0,
             ["file, allow_pickle"], "outputs named file and allow_pickle (np.savez keywords)",
             creates=["o.npz"], stdout_lines=1)


# -- reference dumps (issue 11 class 7) -------------------------------------------------------

def dump_cases() -> None:
    b = concat_model()
    base = {"model.xml": xml_of(b), "model.bin": bytes(b.blob), **X,
            "ref/tensors.npz": npz(**{"2:2": np.zeros((2, 4), np.float32)})}
    argv = ["compare", "{dir}/model.xml", "--input", "{dir}/x.npy", "--reference", "{dir}/ref"]
    for name, what, manifest, fragments, extra in [
        ("ref_manifest_deep", "manifest.json nested 200000 deep", b"[" * 200000 + b"]" * 200000,
         ["manifest.json", "nested too deeply"], {}),
        ("ref_manifest_list", "manifest.json whose top level is a list", b"[1, 2]",
         ["manifest.json", "the top level is a list"], {}),
        ("ref_manifest_field", "manifest.json with a key that is a number",
         b'{"tensors": [{"key": 5, "dtype": "float32"}]}', ["manifest.json", 'no string "key"'], {}),
        ("ref_manifest_shape", "manifest.json with a shape of strings",
         b'{"tensors": [{"key": "2:2", "shape": ["2", 4]}]}', ["manifest.json", '"shape" is not a list'], {}),
        ("ref_manifest_huge", "a 3 GiB manifest.json (sparse, written at test time)", b"{}",
         ["manifest.json", "3221225472 bytes"], {"setup": "huge_manifest"}),
    ]:
        add_case(name, {**base, "ref/manifest.json": manifest}, argv, 2, fragments, what, **extra)
    add_case("ref_bf16_three_bytes", {**base, "ref/tensors.npz": npz(**{"2:2": np.zeros(3, np.uint8)}),
                                      "ref/manifest.json": b'{"tensors": [{"key": "2:2", "dtype": "bfloat16"}]}'},
             argv, 2, ["tensors.npz[2:2.npy]", "bfloat16 stored as uint8"], "a bf16 tensor of 3 bytes")


# -- issue 27 classes 1, 2, 3, 12 (h27-files): files read are protected, outputs distinct, -------
# -- names match formats, every file read is a regular file --------------------------------------

def hard_link_scope(d: Path) -> None:
    """scope.json: a hard link to the input in/x.npy (one inode; the command reads it)."""
    os.link(d / "in" / "x.npy", d / "scope.json")


def fifo(d: Path, name: str) -> None:
    (d / name).unlink(missing_ok=True)
    os.mkfifo(d / name)


def fifo_ref_xml(d: Path) -> None:
    fifo(d, "ref.xml")


def fifo_input(d: Path) -> None:
    fifo(d, "x.npy")


def fifo_bin(d: Path) -> None:
    fifo(d, "model.bin")


def fifo_manifest(d: Path) -> None:
    fifo(d, "ref/manifest.json")


def fifo_in_dir(d: Path) -> None:
    fifo(d, "in/a.npy")


def self_link_manifest(d: Path) -> None:
    (d / "ref" / "manifest.json").unlink(missing_ok=True)
    (d / "ref" / "manifest.json").symlink_to("manifest.json")


def files_read_cases() -> None:
    b = concat_model()
    model = {"model.xml": xml_of(b), "model.bin": bytes(b.blob)}
    both = {**model, "ref.xml": xml_of(b), "ref.bin": bytes(b.blob), "in/x.npy": X["x.npy"]}
    cmp = ["compare", "{dir}/model.xml", "--reference", "{dir}/ref.xml", "--input"]
    run = ["{dir}/model.xml", "--input", "{dir}/x.npy"]
    # class 1: the files read from -i DIR/ are protected, not the directory as typed
    add_case("files_scope_over_dir_input", both, cmp + ["{dir}/in/", "--ignored-scope", "{dir}/scope.json"],
             2, ["scope.json", "never overwrites"], "--ignored-scope at a hard link to a file of -i DIR/",
             setup="hard_link_scope")
    # class 2: two outputs of one command are one file
    add_case("files_two_outputs_same_file", both,
             cmp + ["{dir}/in/", "--ignored-scope", "{dir}/out.dot", "--graph", "{dir}/./out.dot"], 2,
             ["--ignored-scope and --graph would write the same file", "out.dot"],
             "--ignored-scope and --graph name one file (spelled differently)")
    add_case("files_output_inside_dump", {**model, **X},
             run + ["--output", "{dir}/d/tensors.npz", "--dump", "{dir}/d/../d"], 2,
             ["--output and --dump would write the same file", "tensors.npz"],
             "--output is the tensors.npz --dump writes")
    # class 3: a file is what its name says
    add_case("files_graph_jpg", model, ["graph", "{dir}/model.xml", "-o", "{dir}/g.jpg"], 2,
             ["g.jpg", 'cannot write a ".jpg" file'], "graph -o g.jpg (irrun writes no JPEG)")
    add_case("files_graph_format_mismatch", model,
             ["graph", "{dir}/model.xml", "--format", "png", "-o", "{dir}/x.svg"], 2,
             ["x.svg", "--format png does not match the file name"], "graph --format png -o x.svg")
    add_case("files_scope_not_json", both, cmp + ["{dir}/in/", "--ignored-scope", "{dir}/scope.txt"], 2,
             ["scope.txt", "must end in .json"], "--ignored-scope scope.txt (the file is JSON)")
    add_case("files_graph_no_suffix", model, ["graph", "{dir}/model.xml", "-o", "{dir}/g"], 0,
             ["wrote {dir}/g (dot,"], "graph -o g (no suffix): --format's default, dot",
             creates=["g"], stdout_lines=1)
    # class 12: every file read is a regular file, checked without blocking, named when not
    add_case("files_fifo_reference", both, cmp + ["{dir}/in/x.npy"], 2, ["ref.xml", "is a FIFO"],
             "--reference ref.xml that is a FIFO (used to hang)", setup="fifo_ref_xml")
    add_case("files_fifo_input", {**model, **X}, run, 2, ["x.npy", "is a FIFO"],
             "--input x.npy that is a FIFO", setup="fifo_input")
    add_case("files_fifo_weights", {**model, **X}, run, 2, ["model.bin", "not a regular file"],
             "model.bin that is a FIFO", setup="fifo_bin")
    add_case("files_fifo_in_input_dir", {**model, "in/a.npy": X["x.npy"], "in/b.npy": X["x.npy"]},
             ["{dir}/model.xml", "--input", "{dir}/in/", "-o", "{dir}/out/"], 2, ["a.npy", "is a FIFO"],
             "-i DIR/ holding a FIFO a.npy (was silently skipped)", setup="fifo_in_dir")
    dump = {**model, **X, "ref/tensors.npz": npz(**{"2:2": np.zeros((2, 4), np.float32)}),
            "ref/manifest.json": b'{"tensors": []}'}
    ref_dump = ["compare", "{dir}/model.xml", "--input", "{dir}/x.npy", "--reference", "{dir}/ref"]
    add_case("files_fifo_manifest", dump, ref_dump, 2, ["manifest.json", "is a FIFO"],
             "a reference dump whose manifest.json is a FIFO (was skipped)", setup="fifo_manifest")
    add_case("files_self_link_manifest", dump, ref_dump, 2,
             ["manifest.json", "Too many levels of symbolic links"],
             "a reference dump whose manifest.json links to itself (was skipped)", setup="self_link_manifest")


# -- names that would forge lines (issue 11 class 8) -------------------------------------------

def name_cases() -> None:
    forged = "cat\nirrun: OK, all layers agree\x85\u202e"
    b = concat_model()
    xml = edit(b, lambda r: (layer(r, 2).set("name", forged), data_of(r, 2).set("axis", "7")))
    model_case("name_forges_error_line", "a layer name with a newline in a failing layer", xml, bytes(b.blob),
               2, ['"cat\\nirrun: OK, all layers agree\\x85\\u202e"'], X)
    w = IRWriter("forged")
    x = w.parameter("x", "f32", [1, 4])
    w.layer("Relu", [x], name="dead\nmodel.xml: OK, no problems found")       # unused: a warning
    w.result(x, "y")
    add_case("name_forges_check_row", {"model.xml": w.to_xml()}, ["check", "{dir}/model.xml"], 0,
             ['dead\\nmodel.xml: OK, no problems found'], "a newline in a layer name shown by check",
             stdout_lines=3)


# -- issue 27 (round 3), reader and checker: classes 9, 10, 11 ------------------------------------
# OpenVINO 2026.4.1's answers (read_model/compile/infer in a `python -I` child, own temp cwd):
# ids, dims and attributes in Arabic-Indic or fullwidth digits: refused at read ("stoll",
# "Cannot parse '٠' to number", "dimension (２) ... must be greater or equal to -1"); a second
# <layers>/<edges>: runs with the first; a body Parameter declared [1,1,3] where [2,1,3] flows in:
# runs (the declaration ignored); one declared i32 where f32 flows into a MatMul: refused at read.

def issue27_reader_cases() -> None:
    from tools.fuzz.hostile_subgraph_cases import edited
    b = concat_model()
    bin_ = bytes(b.blob)

    def g(name, what, fn, fragments, code=2, cmd="run"):
        model_case(name, what, edit(b, fn), bin_, code, fragments, X if cmd == "run" else None, cmd=cmd)

    def renumber(r, old, new):
        layer(r, old).set("id", new)
        for e in r.findall("edges/edge"):
            for k in ("from-layer", "to-layer"):
                if e.get(k) == str(old):
                    e.set(k, new)
    ascii_only = "not written in ASCII digits"
    g("layer_id_arabic_indic", "a layer id in Arabic-Indic digits (١), edges to match",
      lambda r: renumber(r, 1, "\u0661"), ['layer \u0661 "Const_1"', 'id="\u0661"', ascii_only, "OpenVINO refuses"])
    g("layer_id_fullwidth", "a layer id in fullwidth digits (１), edges to match",
      lambda r: renumber(r, 1, "\uff11"), ['"Const_1"', 'id="\uff11"', ascii_only])
    g("port_id_fullwidth", "an input port id and its edge in fullwidth digits",
      lambda r: (layer(r, 2).find("input/port[2]").set("id", "\uff11"), set_edge(r, 1, to_port="\uff11")),
      ['layer 2 "cat" (Concat-opset1)', "input port", 'id="\uff11"', ascii_only])
    g("edge_port_arabic_indic", "an edge's to-port in Arabic-Indic digits",
      lambda r: set_edge(r, 1, to_port="\u0661"), ["edge at line", 'to-port="\u0661"', "ASCII digits"])
    g("dim_fullwidth", "a port dim in fullwidth digits",
      lambda r: layer(r, 2).find("output/port/dim").__setattr__("text", "\uff12"),
      ['layer 2 "cat"', "output port 2", 'dimension "\uff12"', ascii_only])
    g("attribute_arabic_indic", "an int attribute in Arabic-Indic digits",
      lambda r: data_of(r, 2).set("axis", "\u0660"), ['layer 2 "cat"', 'attribute axis="\u0660"'])
    g("check_second_layers", "a second <layers> section (OpenVINO uses the first)",
      lambda r: r.append(copy.deepcopy(r.find("layers"))),
      ["1 warning", "a second <layers> at line", "OpenVINO uses the first"], code=0, cmd="check")
    g("check_second_edges", "a second, different <edges> section (OpenVINO uses the first)",
      lambda r: (r.append(copy.deepcopy(r.find("edges"))), r.findall("edges")[1].remove(r.findall("edges")[1][0])),
      ["1 warning", "a second <edges> at line", "ignores this one"], code=0, cmd="check")

    def body_param(lid, **attrs):
        def fn(root):
            d = root.find(f"layers/layer[@id='3']/body/layers/layer[@id='{lid}']/data")
            for k, v in attrs.items():
                d.set(k, v)
        return fn
    xml, tbin = edited("ti_forward", body_param(0, shape="1,1,3"))
    model_case("check_ti_body_parameter_shape_lie", "a TensorIterator body Parameter declared [1,1,3], "
               "fed [2,1,3] (OpenVINO ignores the declaration)", xml, tbin, 1,
               ["1 error", "bx", "is declared f32[1,1,3]", '"TensorIterator_16"', "f32[2,1,3]",
                "OpenVINO ignores the declared shape"], cmd="check")
    xml, tbin = edited("ti_forward", body_param(1, element_type="i32"))
    ti_in = {"X.npy": npy(np.ones((2, 5, 3), np.float32)), "H.npy": npy(np.ones((2, 3), np.float32)),
             "W.npy": npy(np.eye(3, dtype=np.float32))}
    model_case("ti_body_parameter_i32_lie", "a TensorIterator body Parameter declared i32, fed f32, "
               "breaking its MatMul as written", xml, tbin, 2,
               ['layer 3/3 "MatMul_9"', 'body Parameter layer 3/1 "bh" (Parameter-opset1)', "is declared i32[2,3]",
                'layer 3 "TensorIterator_16" (TensorIterator-opset1)', "feeds it f32[2,3]"], ti_in,
               ["--input", "X={dir}/X.npy", "--input", "H={dir}/H.npy", "--input", "W={dir}/W.npy"])
    model_case("check_ti_body_parameter_i32_lie", "check: the same body as written (exit 1)", xml, tbin, 1,
               ["1 error", "MatMul_9", 'body Parameter layer 3/1 "bh"'], cmd="check")
    def loop_lie(root):
        root.find("layers/layer[@id='3']/body/layers/layer[@id='0']/data").set("shape", "1,3")
    xml, lbin = edited("loop_fixed", loop_lie)
    model_case("check_loop_body_parameter_shape_lie", "a Loop body Parameter declared [1,3], fed [2,3]",
               xml, lbin, 1, ["1 error", "bx", "is declared f32[1,3]", '"Loop_27270" (Loop-opset5)',
                              "OpenVINO ignores the declared shape"], cmd="check")


def main() -> None:
    shutil.rmtree(OUT / "corpus", ignore_errors=True)
    (OUT / "corpus").mkdir(parents=True)
    for group in (xml_cases, weight_cases, shape_cases, graph_cases, op_cases, input_cases,
                  writer_cases, dump_cases, name_cases, files_read_cases, issue27_reader_cases):
        group()
    from tools.fuzz.hostile_subgraph_cases import cases as subgraph_cases     # issue 11: loops, sizes, bodies
    subgraph_cases(model_case, npy)
    from tools.fuzz.hostile_tokenizer_cases import cases as tokenizer_cases   # issue 27: tokenizer ops
    tokenizer_cases(model_case, npy)
    (OUT / "cases.json").write_text(json.dumps(CASES, indent=1) + "\n")
    print(f"wrote {len(CASES)} cases to {OUT / 'corpus'}")


if __name__ == "__main__":
    main()
