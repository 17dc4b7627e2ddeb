"""Canonical XML for "the file is unchanged" assertions (a module of its own, as datafiles)."""
from __future__ import annotations

import copy

from lxml import etree


def c14n(node) -> bytes:
    """C14N 2.0 of a tree or element (1.0 refuses relative namespace URIs such as memoQ's "MQXliff")."""
    return etree.tostring(node, method="c14n2")


def element_c14n(el) -> bytes:
    """One element's canonical XML: a deep copy keeps the namespaces in scope, not the tail."""
    dup = copy.deepcopy(el)
    dup.tail = None
    return c14n(dup)
