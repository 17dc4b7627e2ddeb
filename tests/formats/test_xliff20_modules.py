"""XLIFF 2.0 modules (issue 36 item 6): a file breaking a module's structure or constraints
is refused naming file and line; the same file with the constraint kept is read."""
from __future__ import annotations

import re

import pytest

from engine.errors import FormatError
from engine.formats.xliff20 import FORMAT

DOC = """<?xml version="1.0" encoding="UTF-8"?>
<xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" version="2.0" srcLang="en" trgLang="de"
 xmlns:mtc="urn:oasis:names:tc:xliff:matches:2.0" xmlns:gls="urn:oasis:names:tc:xliff:glossary:2.0"
 xmlns:mda="urn:oasis:names:tc:xliff:metadata:2.0" xmlns:fs="urn:oasis:names:tc:xliff:fs:2.0"
 xmlns:res="urn:oasis:names:tc:xliff:resourcedata:2.0"
 xmlns:ctr="urn:oasis:names:tc:xliff:changetracking:2.0"
 xmlns:slr="urn:oasis:names:tc:xliff:sizerestriction:2.0"
 xmlns:val="urn:oasis:names:tc:xliff:validation:2.0" xmlns:my="urn:example">
 <file id="f1">
  {file}
  <unit id="u1"{unit_attrs}>
   {unit}
   <notes><note id="n1" category="style">Formal</note><note id="n2">Short</note></notes>
   <segment id="s1">
    <source>Open <pc id="1"{pc_attrs}>the file</pc>.</source>
    <target>Datei öffnen.</target>
   </segment>
  </unit>
 </file>
</xliff>
"""

MATCH = ('<mtc:matches><mtc:match id="m1" ref="#s1"{a}><source>Open it.</source>'
         '<target>Öffnen.</target></mtc:match>{more}</mtc:matches>')
ONE_MORE = '<mtc:match id="m1" ref="#s1"><source>Open.</source><target>Auf.</target></mtc:match>'
GLOSS = ('<gls:glossary><gls:glossEntry id="g1"><gls:term>file</gls:term>{t}</gls:glossEntry>'
         '</gls:glossary>')
META = '<mda:metadata id="md1"><mda:metaGroup id="{g}"{a}>{m}</mda:metaGroup></mda:metadata>'
RES = ('<res:resourceData><res:resourceItem id="r1"><res:source xml:lang="{lang}"{href}>{body}'
       '</res:source></res:resourceItem>{more}</res:resourceData>')
ITEM = '<res:resourceItem id="{i}"><res:source href="b.png"/></res:resourceItem>'
CTR = ('<ctr:changeTrack><ctr:revisions appliesTo="note"{ref}><ctr:revision>{items}'
       '</ctr:revision></ctr:revisions></ctr:changeTrack>')
VAL = '<val:validation><val:rule {r}/></val:validation>'

CASES = [
    # (name, fields when valid, fields when invalid, message)
    ("match id unique", {"unit": MATCH.format(a="", more="")},
     {"unit": MATCH.format(a="", more=ONE_MORE)},
     "<mtc:match> id 'm1' is not unique"),
    ("match type from the list", {"unit": MATCH.format(a=' type="mt" subType="x:y"', more="")},
     {"unit": MATCH.format(a=' type="my.mt"', more="")}, "type='my.mt' is not an allowed value"),
    ("match subType needs type", {"unit": MATCH.format(a=' type="tm" subType="x:y"', more="")},
     {"unit": MATCH.format(a=' subType="x:y"', more="")}, "has subType without type"),
    ("match without xml:lang", {"unit": MATCH.format(a=' my:x="1"', more="")},
     {"unit": MATCH.format(a=' xml:lang="fr"', more="")}, "does not allow the attribute 'xml:lang'"),
    ("match ref into the unit", {"unit": MATCH.format(a="", more="").replace("#s1", "#1")},
     {"unit": MATCH.format(a="", more="").replace("#s1", "#u1")},
     "<mtc:match ref='#u1'> names no segment or code of its unit"),
    ("matches only in a unit", {"unit": MATCH.format(a="", more="")},
     {"file": MATCH.format(a="", more="")}, "<mtc:matches> belongs in a <unit>"),
    ("glossEntry with a translation or definition",
     {"unit": GLOSS.format(t="<gls:definition>A document</gls:definition>")},
     {"unit": GLOSS.format(t="")}, "has neither a <translation> nor a <definition>"),
    ("glossary translation ids unique",
     {"unit": GLOSS.format(t='<gls:translation id="t1">Datei</gls:translation>')},
     {"unit": GLOSS.format(t='<gls:translation id="t1">Datei</gls:translation>' * 2)},
     "<gls:translation> id 't1' is not unique"),
    ("fs is an HTML element", {"pc_attrs": ' fs:fs="b"'}, {"pc_attrs": ' fs:fs="bold"'},
     "fs:fs='bold' is not an HTML element"),
    ("subFs needs fs", {"pc_attrs": ' fs:fs="a" fs:subFs="a,href,x"'},
     {"pc_attrs": ' fs:subFs="a,href,x"'}, "fs:subFs needs fs:fs"),
    ("meta has a type", {"unit": META.format(g="g1", a="", m='<mda:meta type="k">v</mda:meta>')},
     {"unit": META.format(g="g1", a="", m="<mda:meta>v</mda:meta>")}, "<mda:meta> has no 'type'"),
    ("metaGroup appliesTo", {"unit": META.format(g="g1", a=' appliesTo="target"',
                                                 m='<mda:meta type="k">v</mda:meta>')},
     {"unit": META.format(g="g1", a=' appliesTo="unit"', m='<mda:meta type="k">v</mda:meta>')},
     "appliesTo='unit' is not an allowed value"),
    ("metaGroup ids unique", {"unit": META.format(g="g1", a="", m='<mda:meta type="k">v</mda:meta>')},
     {"unit": META.format(g="md1", a="", m='<mda:meta type="k">v</mda:meta>')},
     "id 'md1' is not unique"),
    ("res source href or content", {"unit": RES.format(lang="en", href=' href="a.png"', body="", more="")},
     {"unit": RES.format(lang="en", href=' href="a.png"', body="<my:img/>", more="")},
     "<res:source> has href if and only if it is empty"),
    ("res source in srcLang", {"unit": RES.format(lang="en", href="", body="<my:img/>", more="")},
     {"unit": RES.format(lang="fr", href="", body="<my:img/>", more="")},
     "<res:source> is in xml:lang 'fr', not the srcLang 'en'"),
    ("res item ids unique in the unit",
     {"unit": RES.format(lang="en", href=' href="a"', body="", more=ITEM.format(i="r2"))},
     {"unit": RES.format(lang="en", href=' href="a"', body="", more=ITEM.format(i="r1"))},
     "<res:resourceItem>/<res:resourceItemRef> id 'r1' is not unique"),
    ("ctr ref names a note", {"unit": CTR.format(ref=' ref="n1"', items='<ctr:item property="content">x</ctr:item>')},
     {"unit": CTR.format(ref=' ref="n9"', items='<ctr:item property="content">x</ctr:item>')},
     "<ctr:revisions ref='n9'> names no <note>"),
    ("ctr ref needed among several", {"unit": CTR.format(ref=' ref="n2"', items='<ctr:item property="content">x</ctr:item>')},
     {"unit": CTR.format(ref="", items='<ctr:item property="content">x</ctr:item>')},
     "needs a ref: there are 2 <note>"),
    ("ctr property an attribute of the element",
     {"unit": CTR.format(ref=' ref="n1"', items='<ctr:item property="category">tone</ctr:item>')},
     {"unit": CTR.format(ref=' ref="n1"', items='<ctr:item property="priority">1</ctr:item>')},
     "<ctr:item property='priority'> is neither content nor an attribute of the <note>"),
    ("slr restriction pattern", {"unit_attrs": ' slr:sizeRestriction="0,*"'},
     {"unit_attrs": ' slr:sizeRestriction="*6"'}, "slr:sizeRestriction='*6' is not *, n, n,m or n,*"),
    ("slr sizeInfo an integer", {"pc_attrs": ' slr:sizeInfo="25"'}, {"pc_attrs": ' slr:sizeInfo="25.5"'},
     "slr:sizeInfo='25.5' is not an integer"),
    ("slr sizeInfoRef to data beside", {"file": '<slr:data profile="p"><my:d id="z1"/></slr:data>',
                                        "unit_attrs": ' slr:sizeInfoRef="z1"'},
     {"file": '<slr:data profile="p"><my:d id="z1"/></slr:data>', "unit_attrs": ' slr:sizeInfoRef="z2"'},
     "slr:sizeInfoRef='z2' names nothing in an <slr:data>"),
    ("slr sizeInfo xor sizeInfoRef", {"file": '<slr:data profile="p"><my:d id="z1"/></slr:data>',
                                      "unit_attrs": ' slr:sizeInfoRef="z1"'},
     {"file": '<slr:data profile="p"><my:d id="z1"/></slr:data>',
      "unit_attrs": ' slr:sizeInfoRef="z1" slr:sizeInfo="3"'}, "slr:sizeInfo and slr:sizeInfoRef together"),
    ("val one rule kind", {"unit": VAL.format(r='isPresent="Datei" occurs="1"')},
     {"unit": VAL.format(r='isPresent="Datei" my:check="x"')}, "needs exactly one of isPresent"),
    ("val existsInSource with isPresent", {"unit": VAL.format(r='endsWith="." existsInSource="yes"')},
     {"unit": VAL.format(r='isNotPresent="x" existsInSource="yes"')},
     "existsInSource goes with isPresent, startsWith or endsWith"),
    ("val occurs positive", {"unit": VAL.format(r='isPresent="x" occurs="2"')},
     {"unit": VAL.format(r='isPresent="x" occurs="0"')}, "occurs='0' is not an allowed value"),
]


def _doc(tmp_path, fields: dict, name: str):
    text = DOC.format(**{"file": "", "unit": "", "unit_attrs": "", "pc_attrs": "", **fields})
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("name, good, bad, message", CASES, ids=[c[0] for c in CASES])
def test_module_constraint_kept_is_read_and_broken_is_refused_with_file_and_line(
        tmp_path, name, good, bad, message):
    FORMAT.read(_doc(tmp_path, good, "good.xlf"))
    path = _doc(tmp_path, bad, "bad.xlf")
    with pytest.raises(FormatError) as e:
        FORMAT.read(path)
    text = str(e.value)
    assert "\n" not in text and text.startswith(str(path))
    assert re.search(r", line \d+: not valid XLIFF 2.0: ", text) and message in text, text
