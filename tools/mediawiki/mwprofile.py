"""What the Python tools of tools/mediawiki share: a reference wiki's profile
(wikis/WIKI.sh, also read by setup and serve), a call to its Action API, and the
`%% header` blocks the fixture files are written in."""

import json
import os
import urllib.parse
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def profile(wiki):
    """The `key=value` lines of wikis/WIKI.sh, and `api` and `settings` made from them."""
    out = {}
    with open(os.path.join(HERE, "wikis", wiki + ".sh"), encoding="utf-8") as f:
        for line in f:
            key, eq, value = line.strip().partition("=")
            if eq and not key.startswith("#"):
                out[key] = value.strip('"')
    out["api"] = f"http://127.0.0.1:{out['port']}/api.php"
    out["settings"] = os.path.join(out["dir"], "LocalSettings.php")
    return out


def api(url, **params):
    """POSTs `params` to the API at `url`; the JSON answer, or RuntimeError on an error."""
    params.update(format="json", formatversion="2")
    data = urllib.parse.urlencode(params).encode("utf-8")
    with urllib.request.urlopen(url, data=data, timeout=120) as r:
        reply = json.load(r)
    if "error" in reply:
        raise RuntimeError(f"{params.get('title', params.get('action'))}: {reply['error']}")
    return reply


def read_blocks(path):
    """`%% header` blocks of a cases/pages file: [(header, text)]."""
    blocks, header, lines = [], None, []
    with open(path, encoding="utf-8") as f:
        for line in f.read().split("\n"):
            if line.startswith("%% "):
                if header is not None:
                    blocks.append((header, "\n".join(lines).rstrip("\n")))
                header, lines = line[3:].strip(), []
            elif header is not None:
                lines.append(line)
    if header is not None:
        blocks.append((header, "\n".join(lines).rstrip("\n")))
    return blocks
