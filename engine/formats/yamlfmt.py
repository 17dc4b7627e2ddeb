"""YAML string resources (Rails ``config/locales/*.yml``, Symfony, Hugo, i18next YAML).

Every non-empty string scalar that is a mapping value or a sequence item is a segment keyed by
its path (a JSON array of keys and indexes; documents after the first are prefixed with their
number); its context is the dotted path.  Numbers, booleans, null and scalars with other tags
are not text.  Rails plural keys (``one:``, ``other:``...) get a note naming the form.  A
scalar reached again through an alias (``*name``) is the anchored one: it is one segment, at
its anchor, and its translation is what every alias says.

Reading composes the file with PyYAML's safe loader (libyaml's when built): only the node
graph, nothing constructed, so no tag can make an object; an alias is the node it names, so
an alias bomb is as big as its text.  The nodes' marks give each scalar's place in the text:
an edited export replaces only the translated scalars, written in their own style (plain when
the new text stays a plain string, else double-quoted; single-quoted; literal or folded block
as a literal block at the same indentation), and keeps comments, anchors, quoting and key
order.  A file over :data:`MAX_YAML_BYTES` is refused before it is read.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

from engine.errors import FormatError
from engine.formats import textutil
from engine.formats.strsplice import Parsed, StringsFormat, Unit, key_json, read_text, unique_keys
from engine.formats.textutil import newline_style

#: libyaml composes about 0.6 MB a second here (4 MB of Rails-style keys: 7.1 s; PyYAML's
#: pure-Python composer 39 s); locale files of large applications stay under 2 MB
MAX_YAML_BYTES = 4 << 20
_STR = "tag:yaml.org,2002:str"
_CORE = {f"tag:yaml.org,2002:{t}" for t in ("str", "map", "seq", "omap", "set", "int", "float", "bool", "null",
                                            "binary", "timestamp", "merge", "value")}
_PROPS = re.compile(r"(?:[&!][^\s]*\s+)+")
_PLURAL = {"zero", "one", "two", "few", "many", "other"}
_PLAIN_BAD = re.compile(r"^[\s\-?:,\[\]{}#&*!|>'\"%@`]|[\s]$|: |:$| #|[\r\n\t]")


def _loader():
    import yaml

    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class YamlFormat(StringsFormat):
    name = "yaml"
    #: ``key: value`` with the value on its line
    UNITS = re.compile(rb"[^\s]:[ \t]+[^\s#|>&*!\[{]")
    extensions = (".yml", ".yaml")

    def sniff(self, path: Path, head: bytes) -> bool:
        return Path(path).suffix.lower() in self.extensions

    def parse(self, path: Path) -> Parsed:
        import yaml

        try:
            size = Path(path).stat().st_size
        except OSError as e:
            raise FormatError(path, f"cannot read: {e.strerror or e}") from None
        if size > MAX_YAML_BYTES:
            raise FormatError(path, f"{size:,} bytes: a YAML file over {textutil.size_label(MAX_YAML_BYTES)} is more "
                                    "than Verso imports at once; split it")
        dec = read_text(path, "the file is empty (no YAML mapping)")
        text = dec.text
        try:
            docs = list(yaml.compose_all(text, Loader=_loader()))
        except yaml.MarkedYAMLError as e:
            mark = e.problem_mark or e.context_mark
            where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else None
            raise FormatError(path, f"not valid YAML: {e.problem or e.context}", where) from None
        except yaml.YAMLError as e:
            raise FormatError(path, f"not valid YAML: {e}") from None
        units: list[Unit] = []
        seen: set[int] = set()
        for d, root in enumerate(docs):
            if root is not None:
                self._walk(path, text, root, [d] if d else [], units, seen)
        problems: list[str] = []
        unique_keys(units, problems)
        return Parsed(dec, units, problems, meta={"newline": newline_style(text)})

    def _walk(self, path: Path, text: str, node, keys: list, units: list[Unit], seen: set[int]) -> None:
        import yaml

        stack = [(node, keys, False)]
        while stack:  # iterative: a deep file cannot exhaust the Python stack
            node, keys, flow = stack.pop()
            if id(node) in seen:
                continue  # an alias: the anchored node is translated once, where it stands
            seen.add(id(node))
            if node.tag not in _CORE:
                continue  # an application's own type ("!ruby/object", "!!python/..."): not text
            if isinstance(node, yaml.MappingNode):
                stack += [(v, keys + [k.value if isinstance(k, yaml.ScalarNode) else str(i)], bool(node.flow_style))
                          for i, (k, v) in reversed(list(enumerate(node.value)))]
            elif isinstance(node, yaml.SequenceNode):
                stack += [(v, keys + [i], bool(node.flow_style)) for i, v in reversed(list(enumerate(node.value)))]
            elif isinstance(node, yaml.ScalarNode) and node.tag == _STR and keys:
                units.append(self._unit(text, node, keys))
                units[-1].meta["flow"] = flow
                if len(units) > textutil.MAX_SEGMENTS:
                    raise FormatError(path, f"more than {textutil.MAX_SEGMENTS:,} strings: more than Verso "
                                            "imports as one document; split it", f"line {node.start_mark.line + 1}")

    def _unit(self, text: str, node, keys: list) -> Unit:
        a, b = node.start_mark.index, node.end_mark.index
        props = _PROPS.match(text, a)
        if props:  # "&anchor !!str value": the anchor and tag stay
            a = props.end()
        style = node.style or ""
        if style in ("|", ">"):
            body = text[a:b]
            content = body.rstrip(" \t\r\n")  # the line ends and blank lines after the block stay
            indent = re.search(r"\n([ \t]+)\S", content)
            meta = {"style": style, "indent": indent.group(1) if indent else "  "}
            b = a + len(content)
        else:
            meta = {"style": style}
        last = keys[-1]
        note = f"plural form {last!r}" if isinstance(last, str) and last in _PLURAL and len(keys) > 1 else ""
        return Unit(key=key_json(keys), value=node.value, start=a, end=b, line=node.start_mark.line + 1,
                    note=note, context=".".join(str(k) for k in keys), meta=meta)

    def escape(self, value: str, unit: Unit, parsed: Parsed) -> str:
        style, nl = unit.meta.get("style", ""), parsed.meta.get("newline", "\n")
        if style in ("|", ">") and not value.endswith("\n\n") and value.strip() and value[0] not in " \t":
            # the blank lines after the block are outside the span: the text ends at its last line
            body = value[:-1] if value.endswith("\n") else value
            chomp = "" if value.endswith("\n") else "-"
            lines = [unit.meta["indent"] + line if line.strip() else "" for line in body.split("\n")]
            return "|" + chomp + nl + nl.join(lines)
        if style == "'" and "\n" not in value:
            return "'" + value.replace("'", "''") + "'"
        if style in ("", None) and _plain_ok(value) and not (unit.meta.get("flow") and re.search(r"[,\[\]{}]", value)):
            return value
        return json.dumps(value, ensure_ascii=False)


def _plain_ok(value: str) -> bool:
    """True when ``value`` written plain reads back as the same string."""
    import yaml

    if not value or _PLAIN_BAD.search(value):
        return False
    try:
        node = yaml.compose("k: " + value, Loader=_loader())
    except yaml.YAMLError:
        return False
    v = node.value[0][1]
    return v.tag == _STR and v.value == value


FORMAT = YamlFormat()
