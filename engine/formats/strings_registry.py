"""The software-string and subtitle formats, in the order detection tries them (most specific first)."""
from __future__ import annotations

from engine.formats import jsonfmt, props

FORMATS = [props.FORMAT, jsonfmt.FORMAT]
#: how the refusal of an unknown file names them
KINDS = "Java properties, JSON"
#: local names (lower case) of the XML roots these formats read
XML_ROOTS: set[str] = set()
