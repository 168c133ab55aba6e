#!/usr/bin/env python3
"""Writes src/expand/data/grammar.tsv: the rules `Language::convertGrammar` applies
(`mw.language:grammar`, `convertGrammar`), from MediaWiki 1.39's
languages/data/grammarTransformations/*.json (GPL-2.0-or-later; see data/README.md).

One line per rule, in the files' order: code<TAB>case<TAB>pattern<TAB>replacement; a case
that names another case (Hebrew's `prefixed`) gets that case's rules; `@metadata` entries
are left out. MediaWiki tries a case's rules in order and applies the first whose pattern
matches.

Usage: tools/language-names/record-grammar.py [MEDIAWIKI_DIR] > src/expand/data/grammar.tsv
(MEDIAWIKI_DIR: default /usr/share/mediawiki, Debian's MediaWiki 1.39)
"""
import glob
import json
import os
import sys

root = sys.argv[1] if len(sys.argv) > 1 else "/usr/share/mediawiki"
for path in sorted(glob.glob(os.path.join(root, "languages/data/grammarTransformations/*.json"))):
    code = os.path.basename(path)[: -len(".json")].lower()
    with open(path, encoding="utf-8") as f:
        cases = json.load(f)
    for case, rules in cases.items():
        if case == "@metadata":
            continue
        if isinstance(rules, str):
            rules = cases[rules]
        for pattern, replacement in rules:
            if pattern == "@metadata":
                continue
            fields = [code, case, pattern, replacement]
            if any(c in field for field in fields for c in "\t\n"):
                sys.exit(f"tab or newline in a rule of {code}")
            print("\t".join(fields))
