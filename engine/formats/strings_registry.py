"""The software-string and subtitle formats, in the order detection tries them (most specific first)."""
from __future__ import annotations

from engine.formats import android, apple, jsonfmt, props, qt_ts, resx, subtitles, yamlfmt

FORMATS = [android.FORMAT, qt_ts.FORMAT, resx.FORMAT, apple.STRINGSDICT, apple.STRINGS, props.FORMAT,
           jsonfmt.FORMAT, yamlfmt.FORMAT, subtitles.FORMAT]
#: how the refusal of an unknown file names them
KINDS = "Android strings.xml, Qt TS, RESX, Apple .strings/.stringsdict, Java properties, JSON, YAML, SubRip, WebVTT"
#: local names (lower case) of the XML roots these formats read
XML_ROOTS = {"resources", "ts", "root", "plist"}
