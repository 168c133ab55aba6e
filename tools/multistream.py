#!/usr/bin/env python3
"""Re-lays a MediaWiki XML dump as a Wikimedia-style multistream dump with its index.

    tools/multistream.py DUMP.xml[.bz2] OUT-multistream.xml.bz2 OUT-multistream-index.txt.bz2
                         [--pages-per-stream 100]

The layout is Wikimedia's: one bz2 stream holding the header (everything before the
first `<page>`: `<mediawiki>` and `<siteinfo>`), then one stream per
`--pages-per-stream` pages, then one stream holding the closing `</mediawiki>`. The
index has one line `offset:page_id:title` per page, `offset` the byte where the page's
stream starts and `title` the page's title as text (XML entities decoded), as
Wikimedia writes it; it is bz2-compressed like theirs. Decompressed, the streams are
the input's bytes unchanged, so a build reads the same XML from either file.
"""

import argparse
import bz2
import html
import re
import sys

PAGE = re.compile(rb"[ \t]*<page>.*?</page>[ \t]*\n?", re.S)
TITLE = re.compile(rb"<title>(.*?)</title>", re.S)
PAGE_ID = re.compile(rb"<id>(\d+)</id>")


def read(path):
    with open(path, "rb") as f:
        data = f.read()
    return bz2.decompress(data) if data[:3] == b"BZh" else data


def relay(xml, per_stream):
    """Yields (chunk, pages) where pages are (id, title) of the chunk's pages."""
    pages = list(PAGE.finditer(xml))
    if not pages:
        sys.exit("no <page> in the input")
    yield xml[: pages[0].start()], []
    for i in range(0, len(pages), per_stream):
        group = pages[i : i + per_stream]
        # Whatever lies between two pages stays with the stream of the page before it.
        end = pages[i + per_stream].start() if i + per_stream < len(pages) else group[-1].end()
        chunk = xml[group[0].start() : end]
        heads = []
        for m in group:
            body = m.group(0)
            title = html.unescape(TITLE.search(body).group(1).decode("utf-8"))
            heads.append((int(PAGE_ID.search(body).group(1)), title))
        yield chunk, heads
    yield xml[pages[-1].end() :], []


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dump")
    ap.add_argument("out")
    ap.add_argument("index")
    ap.add_argument("--pages-per-stream", type=int, default=100)
    args = ap.parse_args()
    xml = read(args.dump)
    offset, lines = 0, []
    with open(args.out, "wb") as out:
        for chunk, heads in relay(xml, args.pages_per_stream):
            for page_id, title in heads:
                lines.append(f"{offset}:{page_id}:{title}\n")
            stream = bz2.compress(chunk, 9)
            out.write(stream)
            offset += len(stream)
    with open(args.index, "wb") as f:
        f.write(bz2.compress("".join(lines).encode("utf-8"), 9))
    print(f"{len(lines)} pages in {args.out} ({offset} bytes)")


if __name__ == "__main__":
    main()
