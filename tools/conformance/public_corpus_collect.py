#!/usr/bin/env python3
"""Collect real OpenVINO IR files (model.xml + model.bin) from fetched GitHub snapshots.

The search tool's ``fetch`` puts a bare git directory of a public repository at
``/work/.mirror/<owner>+<name>/repo``.  Such a snapshot lacks blobs of 4 MiB and more and
Git LFS content, so every candidate is verified: the .bin must be present and its size must
equal what the xml's weights need (the largest ``offset + size`` over all ``<data>``/
``<weights>``/``<biases>``/``<custom>`` tags); an LFS pointer (~130 bytes) or a missing blob
is rejected.

Usage
-----
  collect.py scan MIRROR_GIT_DIR [--rev REV]
      list every IR xml in the snapshot with its .bin, required size, IR version, precision,
      MO version and whether it is usable (nothing is written).
  collect.py add MIRROR_GIT_DIR OWNER/REPO PATH.xml [--name NAME] [--rev REV] [--task TASK]
      extract one IR into CORPUS/<name>/model.xml + model.bin and add it to manifest.json.
  collect.py auto MIRROR_GIT_DIR OWNER/REPO [--include REGEX] [--exclude REGEX] [--max N]
      add every usable IR of the snapshot (optionally filtered by a regex on the path) that
      is not already in the corpus (same sha256 of xml and bin).
  collect.py list
      print the manifest as a table.
  collect.py remove NAME
      drop an entry (and its folder) from the corpus.
  collect.py rename OLD NEW [--task TASK]
      rename an entry (and its folder), optionally setting its task label.

The corpus folder is /work/corpus/public (override with IRRUN_PUBLIC_CORPUS=DIR).  manifest.json is a
list of {name, repo, path, commit, sha256_xml, sha256_bin, size_xml, size_bin, ir_version,
precision, has_fakequantize, task, mo_version, bin_path}.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

CORPUS = Path(os.environ.get("IRRUN_PUBLIC_CORPUS", "/work/corpus/public"))
MANIFEST = CORPUS / "manifest.json"

# name fragment -> task label (first match wins)
TASKS = [
    (r"yolo", "detection (YOLO)"),
    (r"reidentification|reid", "re-identification"),
    (r"gaze", "gaze estimation"),
    (r"head-pose|headpose", "head pose"),
    (r"landmark", "facial landmarks"),
    (r"pose|openpose|keypoint", "human pose"),
    (r"license-plate-recognition|lprnet|lpr", "OCR (license plate)"),
    (r"text-recognition|text_recognition|crnn|ocr|handwritten", "OCR (text recognition)"),
    (r"text-detection|text_detection", "text detection"),
    (r"segmentation|unet|deeplab|road-segmentation|semantic|mask", "segmentation"),
    (r"super-resolution|superres|srgan|esrgan", "super-resolution"),
    (r"attributes|age-gender|emotion|open-closed|recognition-retail|glasses", "attributes / classification"),
    (r"detection|ssd|detector|mobilenet-ssd|retinaface|faster", "detection (SSD)"),
    (r"speech|asr|wav2vec|deepspeech|quartznet|audio", "speech"),
    (r"bert|text|nlp|squad", "text"),
    (r"classif|resnet|mobilenet|squeezenet|googlenet|efficientnet|inception|vgg|alexnet|densenet", "classification"),
]

_TAG = re.compile(rb"<(data|weights|biases|custom)\b([^>]*)>")
_OFF = re.compile(rb'\boffset="(\d+)"')
_SIZE = re.compile(rb'\bsize="(\d+)"')


def git(gitdir: str, *args: str) -> bytes:
    return subprocess.run(["git", "--git-dir", gitdir, *args], check=True,
                          capture_output=True).stdout


def blob_sizes(gitdir: str, rev: str) -> dict[str, int | None]:
    """path -> blob size, None where the snapshot lacks the blob."""
    out = git(gitdir, "ls-tree", "-r", "-l", "-z", rev)
    sizes: dict[str, int | None] = {}
    for rec in out.split(b"\0"):
        if not rec:
            continue
        meta, path = rec.split(b"\t", 1)
        parts = meta.split()
        if parts[1] != b"blob":
            continue
        sizes[path.decode("utf-8", "replace")] = int(parts[3]) if parts[3].isdigit() else None
    # ls-tree prints a size even for blobs the pack lacks; check presence for candidates later
    return sizes


def blob_present(gitdir: str, rev: str, path: str) -> bool:
    r = subprocess.run(["git", "--git-dir", gitdir, "cat-file", "-e", f"{rev}:{path}"],
                       capture_output=True)
    return r.returncode == 0


def describe_xml(xml: bytes) -> dict:
    """IR version, weights size needed, precision, FakeQuantize, MO version of an IR xml."""
    head = xml[:4096]
    m = re.search(rb'<net\b[^>]*\bversion="(\d+)"', head)
    ir_version = int(m.group(1)) if m else None
    need = 0
    for tag in _TAG.finditer(xml):
        attrs = tag.group(2)
        o, s = _OFF.search(attrs), _SIZE.search(attrs)
        if o and s:
            need = max(need, int(o.group(1)) + int(s.group(1)))
    has_fq = b'type="FakeQuantize"' in xml
    # precision: from the Const element types (v10+) or the layer precision (v<=7)
    types = re.findall(rb'type="Const"[^>]*>\s*<data\b[^>]*element_type="(\w+)"', xml)
    f16 = sum(t == b"f16" for t in types)
    f32 = sum(t == b"f32" for t in types)
    i8 = sum(t in (b"i8", b"u8") for t in types)
    if ir_version is not None and ir_version < 10:
        f16 = len(re.findall(rb'precision="FP16"', xml))
        f32 = len(re.findall(rb'precision="FP32"', xml))
    has_weights_op = re.search(rb'type="(Convolution|GroupConvolution|MatMul)"', xml) is not None
    if has_fq or (i8 and has_weights_op and i8 > max(f16, f32) // 4):
        precision = "INT8"
    elif f16 > f32:
        precision = "FP16"
    else:
        precision = "FP32"
    mo = None
    for key in (rb"MO_version", rb"Runtime_version", rb"conversion_parameters"):
        mm = re.search(rb"<" + key + rb'\b[^>]*value="([^"]*)"', xml)
        if mm:
            mo = mm.group(1).decode("utf-8", "replace")
            break
    if mo is None:
        mm = re.search(rb'<attribute name="MO_version"[^>]*value="([^"]*)"', xml)
        if mm:
            mo = mm.group(1).decode()
    if mo is None:
        mm = re.search(rb"<(?:rt_info|meta_data)>.*?(ovc|openvino|MO)[^<]{0,200}", xml[-20000:], re.S)
        mo = None if not mm else None
    return {"ir_version": ir_version, "need_bin": need, "precision": precision,
            "has_fakequantize": has_fq, "mo_version": mo}


def guess_task(path: str) -> str:
    low = path.lower()
    for pat, task in TASKS:
        if re.search(pat, low):
            return task
    return "other"


def candidates(gitdir: str, rev: str = "HEAD") -> list[dict]:
    sizes = blob_sizes(gitdir, rev)
    out = []
    for path, size in sorted(sizes.items()):
        if not path.lower().endswith(".xml"):
            continue
        binp = path[:-4] + ".bin"
        if binp not in sizes:
            continue
        if not blob_present(gitdir, rev, path):
            out.append({"path": path, "ok": False, "why": "xml blob missing (>=4 MiB)"})
            continue
        xml = git(gitdir, "show", f"{rev}:{path}")
        if b"<net" not in xml[:4096]:
            continue
        d = describe_xml(xml)
        d["path"] = path
        d["bin"] = binp
        d["size_xml"] = len(xml)
        d["size_bin"] = sizes[binp]
        if not blob_present(gitdir, rev, binp):
            d["ok"], d["why"] = False, "bin blob missing (>=4 MiB or LFS)"
        elif sizes[binp] != d["need_bin"]:
            d["ok"], d["why"] = False, f"bin size {sizes[binp]} != needed {d['need_bin']}"
        else:
            d["ok"], d["why"] = True, ""
        out.append(d)
    return out


def load_manifest() -> list[dict]:
    if MANIFEST.exists():
        return json.loads(MANIFEST.read_text())
    return []


def save_manifest(entries: list[dict]) -> None:
    CORPUS.mkdir(parents=True, exist_ok=True)
    tmp = MANIFEST.with_suffix(".tmp")
    tmp.write_text(json.dumps(entries, indent=1) + "\n")
    tmp.replace(MANIFEST)


def short_name(path: str, precision: str, ir_version, taken: set[str]) -> str:
    stem = Path(path).stem.lower()
    stem = re.sub(r"[^a-z0-9]+", "-", stem).strip("-")[:48] or "model"
    parent = Path(path).parent.name.upper()
    tag = precision.lower()
    if parent in ("FP16-INT8", "FP32-INT8", "FP16-INT1", "FP32-INT1"):
        tag = parent.lower()
    base = f"{stem}-{tag}"
    if base in taken:
        base = f"{base}-v{ir_version}"
    name, i = base, 2
    while name in taken:
        name, i = f"{base}-{i}", i + 1
    return name


def add(gitdir: str, repo: str, path: str, rev: str = "HEAD", name: str | None = None,
        task: str | None = None, entries: list[dict] | None = None) -> dict | None:
    own = entries is None
    entries = load_manifest() if own else entries
    commit = git(gitdir, "rev-parse", rev).decode().strip()
    xml = git(gitdir, "show", f"{commit}:{path}")
    binp = path[:-4] + ".bin"
    bin_ = git(gitdir, "show", f"{commit}:{binp}")
    d = describe_xml(xml)
    if len(bin_) != d["need_bin"]:
        print(f"skip {repo}:{path}: bin {len(bin_)} bytes, xml needs {d['need_bin']}", file=sys.stderr)
        return None
    sx, sb = hashlib.sha256(xml).hexdigest(), hashlib.sha256(bin_).hexdigest()
    for e in entries:
        if e["sha256_xml"] == sx and e["sha256_bin"] == sb:
            print(f"dup {repo}:{path} == {e['name']}", file=sys.stderr)
            return None
    name = name or short_name(path, d["precision"], d["ir_version"], {e["name"] for e in entries})
    folder = CORPUS / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "model.xml").write_bytes(xml)
    (folder / "model.bin").write_bytes(bin_)
    entry = {"name": name, "repo": repo, "path": path, "bin_path": binp, "commit": commit,
             "sha256_xml": sx, "sha256_bin": sb, "size_xml": len(xml), "size_bin": len(bin_),
             "ir_version": d["ir_version"], "precision": d["precision"],
             "has_fakequantize": d["has_fakequantize"], "task": task or guess_task(path),
             "mo_version": d["mo_version"]}
    entries.append(entry)
    if own:
        save_manifest(entries)
    print(f"added {name}: {repo}:{path} v{d['ir_version']} {d['precision']} "
          f"{len(bin_)/1e6:.1f} MB mo={d['mo_version']}")
    return entry


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("scan"); s.add_argument("gitdir"); s.add_argument("--rev", default="HEAD")
    a = sub.add_parser("add"); a.add_argument("gitdir"); a.add_argument("repo"); a.add_argument("path")
    a.add_argument("--rev", default="HEAD"); a.add_argument("--name"); a.add_argument("--task")
    u = sub.add_parser("auto"); u.add_argument("gitdir"); u.add_argument("repo")
    u.add_argument("--rev", default="HEAD"); u.add_argument("--include"); u.add_argument("--exclude")
    u.add_argument("--max", type=int, default=1000)
    u.add_argument("--max-bin", type=int, default=32_000_000, help="skip bins larger than this")
    sub.add_parser("list")
    r = sub.add_parser("remove"); r.add_argument("name")
    n = sub.add_parser("rename"); n.add_argument("old"); n.add_argument("new"); n.add_argument("--task")
    args = ap.parse_args(argv)

    if args.cmd == "scan":
        for c in candidates(args.gitdir, args.rev):
            if not c.get("size_xml"):
                print(f"  -- {c['path']}: {c['why']}")
                continue
            flag = "OK" if c["ok"] else "--"
            print(f"  {flag} v{c['ir_version']} {c['precision']:5} fq={int(c['has_fakequantize'])} "
                  f"bin={c['size_bin']} need={c['need_bin']} mo={c['mo_version']} {c['path']} {c['why']}")
    elif args.cmd == "add":
        try:
            return 0 if add(args.gitdir, args.repo, args.path, args.rev, args.name, args.task) else 1
        except subprocess.CalledProcessError as e:
            print(f"git failed: {e.stderr.decode(errors='replace').strip()}", file=sys.stderr)
            return 2
    elif args.cmd == "auto":
        entries = load_manifest()
        n = 0
        for c in candidates(args.gitdir, args.rev):
            if not c["ok"] or n >= args.max or c["size_bin"] > args.max_bin:
                continue
            if args.include and not re.search(args.include, c["path"]):
                continue
            if args.exclude and re.search(args.exclude, c["path"]):
                continue
            if add(args.gitdir, args.repo, c["path"], args.rev, entries=entries):
                n += 1
                save_manifest(entries)
        print(f"{n} added; corpus has {len(entries)}")
    elif args.cmd == "list":
        for e in load_manifest():
            print(f"{e['name']:50} v{e['ir_version']} {e['precision']:5} fq={int(e['has_fakequantize'])} "
                  f"{e['size_bin']/1e6:6.1f}MB {e['task']:28} {e['mo_version']} {e['repo']}")
    elif args.cmd == "rename":
        entries = load_manifest()
        for e in entries:
            if e["name"] == args.old:
                if args.new != args.old:
                    (CORPUS / args.old).rename(CORPUS / args.new)
                e["name"] = args.new
                if args.task:
                    e["task"] = args.task
        save_manifest(entries)
    elif args.cmd == "remove":
        entries = [e for e in load_manifest() if e["name"] != args.name]
        shutil.rmtree(CORPUS / args.name, ignore_errors=True)
        save_manifest(entries)
    return 0


if __name__ == "__main__":
    sys.exit(main())
