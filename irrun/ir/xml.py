"""Reading an XML file safely with lxml (input-safety.md): a regular file within the memory
budget, no DOCTYPE (an IR never has one, and it is where external entities would come from), no
entity resolution, DTD loading or network access. Used by the reader and by whatever parses a
model's XML again (``Model.save``, the OpenVINO reference runner)."""
from __future__ import annotations

import os
import re

from lxml import etree

from ..errors import ModelFileError
from ..io.files import open_regular
from ..limits import memory as budget

_FIRST_ELEMENT = re.compile(rb"<[A-Za-z_]")
DOCTYPE = re.compile(rb"<!DOCTYPE", re.IGNORECASE)
#: XML whitespace before an XML declaration (``\n<?xml ...``): libxml2 refuses it ("XML
#: declaration allowed only at the start of the document"); OpenVINO's reader (pugixml) reads
#: such a file, and so does irrun, without it. Anything else before the declaration stays an error.
_SPACE_BEFORE_DECLARATION = re.compile(rb"[ \t\r\n]+(?=<\?xml[ \t\r\n])")


def without_leading_space(data: bytes) -> bytes:
    """``data`` without the whitespace before its XML declaration, if it has both."""
    m = _SPACE_BEFORE_DECLARATION.match(data)
    return data[m.end():] if m else data


def safe_parser(**options) -> etree.XMLParser:
    """An lxml parser that resolves no entity and loads no DTD or network resource, with
    comments and processing instructions dropped — the one configuration every IR read uses
    (``options``: lxml's others, e.g. a parser ``target``, ``remove_blank_text``)."""
    return etree.XMLParser(resolve_entities=False, load_dtd=False, no_network=True,
                           dtd_validation=False, huge_tree=False, remove_comments=True,
                           remove_pis=True, **options)


def parse_xml(path: str):
    """Parse with lxml, safely: no entities, no DTD, no network; a DOCTYPE is refused before
    parsing (an IR never has one, and it is where external entities would come from)."""
    return parse_xml_bytes(read_xml_bytes(path), path)


def read_xml_bytes(path: str) -> bytes:
    """The bytes of a regular file within the memory budget (from its XML declaration on:
    :func:`without_leading_space`)."""
    try:
        with open_regular(path, ModelFileError) as f:   # /dev/zero, a FIFO... would never end
            size = os.fstat(f.fileno()).st_size
            if size > budget.current():
                raise budget.MemoryBudgetError(budget.over_message("reading the XML", size,
                                                                   budget.current()), file=path)
            data = f.read()
    except OSError as e:
        raise ModelFileError(f"cannot read the file: {e.strerror or e}", file=path) from None
    return without_leading_space(data)


def parse_xml_bytes(data: bytes, path: str, keep_blank: bool = True):
    """:func:`parse_xml` of the bytes read from ``path``; ``keep_blank=False`` drops the
    whitespace between elements (a quarter less memory and time; the reader never reads it)."""
    data = without_leading_space(data)
    m = _FIRST_ELEMENT.search(data)
    if DOCTYPE.search(data, 0, m.start() if m else len(data)):
        raise ModelFileError("the file has a DOCTYPE declaration; OpenVINO IR never has one, "
                             "and irrun refuses it (it could pull in external entities)", file=path)
    try:
        root = etree.fromstring(data, safe_parser(remove_blank_text=not keep_blank), base_url=None)
    except etree.XMLSyntaxError as e:
        msg = re.sub(r",? (try|use) XML_PARSE_HUGE( option)?", "", " ".join(str(e.msg).split()))
        raise ModelFileError(f"not a well-formed XML file: {msg}", file=path) from None
    except (etree.LxmlError, ValueError) as e:     # e.g. an unknown encoding
        raise ModelFileError(f"not a well-formed XML file: {' '.join(str(e).split())}",
                             file=path) from None
    if root is None:
        raise ModelFileError("not a well-formed XML file: no root element", file=path)
    tree = root.getroottree()
    if tree.docinfo.doctype or tree.docinfo.internalDTD is not None:
        raise ModelFileError("the file has a DOCTYPE declaration; OpenVINO IR never has one, "
                             "and irrun refuses it (it could pull in external entities)", file=path)
    return root
