#!/usr/bin/env python3
"""Writes src/expand/data/messages_en.tsv: a small set of MediaWiki 1.39's own English
interface messages that a module can ask `mw.message` for (`mw.message.new('mainpage')`,
separators, namespace tab names, …) and that a dump does not hold (they are MediaWiki's
i18n file, not pages). From languages/i18n/en.json of Debian's MediaWiki 1.39
(GPL-2.0-or-later; see src/expand/data/README.md). Month, weekday and duration messages
are in locale.tsv.

One line per message, sorted: key<TAB>text (with the whitespace entities MediaWiki's
message cache replaces already replaced), a backslash, tab and newline in the text
written `\\\\`, `\\t`, `\\n`.

Usage: tools/language-names/record-core-messages.py [MEDIAWIKI_DIR] > src/expand/data/messages_en.tsv
"""
import json
import os
import sys

KEYS = [
    "mainpage", "mainpage-description", "mainpage-nstab", "sitesubtitle", "tagline",
    "pagetitle", "pagetitle-view-mainpage", "aboutsite", "aboutpage", "disclaimers",
    "disclaimerpage", "privacy", "privacypage", "portal", "portal-url", "currentevents",
    "currentevents-url", "helppage-top-gethelp", "mainpage-title",
    # separators and punctuation
    "and", "comma-separator", "word-separator", "colon-separator", "semicolon-separator",
    "pipe-separator", "autocomment-prefix", "parentheses", "brackets",
    "quotation-marks", "ellipsis", "percent", "parentheses-start", "parentheses-end",
    "ago", "just-now", "seconds", "minutes", "hours", "days", "weeks", "months", "years",
    # namespace tabs and page furniture
    "blanknamespace", "nstab-main", "nstab-user", "nstab-media", "nstab-special",
    "nstab-project", "nstab-image", "nstab-mediawiki", "nstab-template", "nstab-help",
    "nstab-category", "talk", "edit", "view", "history_short", "categories",
    "pagecategories", "hidden-categories", "redirectedfrom", "retrievedfrom", "toc",
    "showtoc", "hidetoc", "editsection", "search", "print", "version", "otherlanguages",
    "red-link-title", "viewsource", "whatlinkshere",
    # tracking categories a module may name
    "broken-file-category", "hidden-category-category", "expansion-depth-exceeded-category",
    "scribunto-common-error-category", "scribunto-module-with-errors-category",
    "cite-tracking-category-cite-error",
]

root = sys.argv[1] if len(sys.argv) > 1 else "/usr/share/mediawiki"
messages = {}
for path in ("languages/i18n/en.json", "extensions/Scribunto/i18n/en.json",
             "extensions/Cite/i18n/en.json"):
    full = os.path.join(root, path)
    if os.path.exists(full):
        with open(full, encoding="utf-8") as f:
            messages.update(json.load(f))
for key in sorted(KEYS):
    if key not in messages:
        sys.exit(f"no message {key} in MediaWiki's English files")
    # MessageCache::get's whitespace fixes, applied to every message it returns.
    text = messages[key]
    for entity, char in (("&#32;", " "), ("&nbsp;", "\u00a0"), ("&#160;", "\u00a0"), ("&shy;", "\u00ad")):
        text = text.replace(entity, char)
    text = text.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n")
    print(f"{key}\t{text}")
