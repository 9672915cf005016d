"""``irrun extract MODEL.xml --layer ID -o DIR``: one layer as its own IR, with its inputs."""
from __future__ import annotations

from ..errors import EXIT_OK, printable
from ..io.inputs import input_files, load_inputs


def add_arguments(p) -> None:
    p.add_argument("model", help="the IR .xml file (its .bin is read from beside it)")
    p.add_argument("--layer", "-l", required=True, metavar="ID|NAME", help="the layer to extract")
    p.add_argument("--output", "-o", required=True, metavar="DIR",
                   help="where to write model.xml, model.bin, inputs.npz and outputs.npz")
    p.add_argument("--input", "-i", action="append", default=[], metavar="[NAME=]FILE",
                   help="run the model on these inputs (as for irrun MODEL.xml) and save what "
                        "reaches the layer as DIR/inputs.npz; without, only the IR is written")


def _sig(arrays) -> str:
    from ..debug.dumps import dtype_name
    return ", ".join(f"{printable(k)}: {dtype_name(a)}[{','.join(map(str, a.shape))}]" for k, a in arrays.items())


def main(args) -> int:
    from .. import read_model
    from ..debug.extract import extract_layer, targets
    from ..io.writers import model_files

    model = read_model(args.model)
    protect = model_files(model) + input_files(args.input)
    targets(args.output, protect)                     # before running anything
    feeds = load_inputs(model, args.input) if args.input else None
    r = extract_layer(model, args.layer, args.output, feeds, protect)
    d = printable(r.directory)
    parts = [f"{len(r.params)} Parameter{'s' * (len(r.params) != 1)}", f"{r.consts} Const{'s' * (r.consts != 1)}"]
    print(f"wrote {d}/model.xml (+ .bin): {r.layer} with {', '.join(parts)}")
    if r.inputs is not None:
        print(f"wrote {d}/inputs.npz ({_sig(r.inputs) or 'no arrays: every input is constant'})")
        print(f"wrote {d}/outputs.npz (irrun's outputs: {_sig(r.outputs)})")
        print(f"check it: irrun compare {d}/model.xml --input {d}/inputs.npz")
    else:
        print("no --input given, so no inputs.npz; the Parameters keep the model's inferred shapes: "
              + (", ".join(f"{printable(k)}: {v}" for k, v in r.params.items()) or "none"))
    return EXIT_OK
