"""The software-string and subtitle formats, in the order detection tries them (most specific first)."""
from __future__ import annotations

from engine.formats import android, jsonfmt, props, qt_ts, resx, subtitles, yamlfmt

FORMATS = [android.FORMAT, qt_ts.FORMAT, resx.FORMAT, props.FORMAT, jsonfmt.FORMAT, yamlfmt.FORMAT, subtitles.FORMAT]
#: how the refusal of an unknown file names them
KINDS = "Android strings.xml, Qt TS, RESX, Java properties, JSON, YAML, SubRip, WebVTT"
#: local names (lower case) of the XML roots these formats read
XML_ROOTS = {"resources", "ts", "root"}
