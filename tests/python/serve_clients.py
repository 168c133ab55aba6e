"""Drives real PyPI clients of MediaWiki's Action API against `wikiwit serve`.

Usage: serve_clients.py PORT SPEC_JSON. SPEC names the pages to ask about; the answers
are printed as one JSON object for the Rust test (tests/serve.rs) to compare with the
CLI's answers. The clients are used as published: only their host/URL is pointed at
the local server, the way each package lets a user choose a wiki.
"""

import json
import sys

import mwclient
import wikipedia
import wikipediaapi
from wikipediaapi._http_client.base_http_client import BaseHTTPClient

port = int(sys.argv[1])
spec = json.loads(sys.argv[2])
api = f"http://127.0.0.1:{port}/w/api.php"
out = {}

# mwclient: host, scheme and script path are constructor arguments.
site = mwclient.Site(f"127.0.0.1:{port}", scheme="http", path="/w/",
                     clients_useragent="wikiwit-test")
page = site.pages[spec["page"]]
redirect = site.pages[spec["redirect"]]
out["mwclient"] = {
    "exists": page.exists,
    "text": page.text(),
    "links": [p.name for p in page.links()],
    "categories": [c.name for c in page.categories()],
    "backlinks": [p.name for p in page.backlinks()],
    "categorymembers": [p.name for p in site.categories[spec["category"]]],
    "search": [r["title"] for r in site.search(spec["search"], max_items=10)],
    "redirect": redirect.redirect,
    "redirect_target": redirect.resolve_redirect().name,
}

# wikipedia: the module-level API_URL is its wiki setting (set_lang rewrites it).
wikipedia.wikipedia.API_URL = api
wikipedia.set_rate_limiting(False)
wp = wikipedia.page(spec["page"], auto_suggest=False)
out["wikipedia"] = {
    "search": wikipedia.search(spec["search"]),
    "summary": wikipedia.summary(spec["page"], auto_suggest=False),
    "links": wp.links,
    "sections": wp.sections,
    "title": wp.title,
}

# Wikipedia-API: the endpoint URL comes from BaseHTTPClient._build_url(language).
BaseHTTPClient._build_url = staticmethod(lambda language: api)
wiki = wikipediaapi.Wikipedia(user_agent="wikiwit-test", language="en")
wpage = wiki.page(spec["page"])


def section_titles(sections):
    for s in sections:
        yield s.title
        yield from section_titles(s.sections)


out["wikipediaapi"] = {
    "exists": wpage.exists(),
    "summary": wpage.summary,
    "sections": list(section_titles(wpage.sections)),
    "links": sorted(wpage.links.keys()),
    "backlinks": sorted(wpage.backlinks.keys()),
    "categories": sorted(wpage.categories.keys()),
}

json.dump(out, sys.stdout)
