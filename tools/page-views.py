#!/usr/bin/env python3
"""Ask a running `wikiwit serve` for /wiki/TITLE of every namespace-0 page of an index.

Usage: tools/page-views.py WIKIWIT_BINARY INDEX_DIR PORT
(start `wikiwit serve --index INDEX_DIR --addr 127.0.0.1:PORT` first). For dumps too
large for `cargo test` (tests/html.rs walks the small shared dumps): prints the number
of pages, the time, the HTTP statuses and up to 20 pages that did not answer 200 with
a title heading; exits 1 if any did not.
"""
import collections
import http.client
import subprocess
import sys
import time
import urllib.parse

binary, index, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
pages = subprocess.run([binary, "export", "pages", "--index", index], check=True,
                       capture_output=True, text=True).stdout.splitlines()
titles = [l.split("\t")[2] for l in pages if l.split("\t")[1] == "0"]
status = collections.Counter()
bad = []
t0 = time.time()
conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
for t in titles:
    path = "/wiki/" + urllib.parse.quote(t, safe="")
    code, body = "no answer", b""
    for attempt in range(2):
        try:
            conn.request("GET", path)
            r = conn.getresponse()
            code, body = r.status, r.read()
            break
        except (http.client.HTTPException, OSError):
            # The server may close a connection; ask again on a new one.
            conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    status[code] += 1
    if code != 200 or b'<h1 id="title">' not in body:
        bad.append((t, code, body[:200]))
print(f"{len(titles)} pages, {time.time()-t0:.0f} s, status {dict(status)}, bad {len(bad)}")
for b in bad[:20]:
    print(b)
sys.exit(1 if bad else 0)
