#!/usr/bin/env python3
"""Compare a wikiwit index with the MediaWiki 1.39 oracle in ../shared/oracle.

usage: tools/oracle-compare.py INDEX_DIR ORACLE_DIR [--show N]

Prints, per table: precision/recall of links (in_template=0, namespace-0 sources,
Template: targets ignored), categories and templates (direct ones), and the share of
namespace-0 pages whose (level, anchor) section lists equal MediaWiki's. With --show,
lists up to N differences of each kind.
"""
import json
import subprocess
import sys

def export(index, table):
    out = subprocess.run([WIKIWIT, "export", table, "--index", index],
                         capture_output=True, text=True, check=True).stdout
    return out.splitlines()

def rows(path):
    with open(path, encoding="utf-8") as f:
        return [l.rstrip("\n").split("\t") for l in f if l.strip()]

def dropped(oracle):
    try:
        return {(r[0], r[1]) for r in rows(oracle + "/dropped.tsv")}
    except FileNotFoundError:
        return set()

# Categories MediaWiki adds by itself when it meets an error in this installation
# (missing files, missing reference lists, script errors): not written in the page.
TRACKING = {
    "Pages_with_broken_file_links", "Pages_with_reference_errors", "Pages_with_script_errors",
    "Pages_with_non-numeric_formatnum_arguments", "Pages_using_duplicate_arguments_in_template_calls",
    "Pages_with_template_loops", "Lapas,_kurās_ir_bojātas_failu_saites", "Lapas_ar_skriptu_kļūdām",
    "Lapas_ar_atsauču_kļūdām",
}

def pr(ours, theirs):
    tp = len(ours & theirs)
    p = tp / len(ours) if ours else 1.0
    r = tp / len(theirs) if theirs else 1.0
    return p, r, tp

def main():
    index, oracle = sys.argv[1], sys.argv[2]
    show = int(sys.argv[sys.argv.index("--show") + 1]) if "--show" in sys.argv else 0
    drop = dropped(oracle)
    # Links.
    ours = set()
    for l in export(index, "links"):
        f = l.split("\t")
        if f[0] == "0" and f[5] == "0" and f[2] != "10" and (f[0], f[1]) not in drop:
            ours.add((f[1], f[2], f[3]))
    theirs = {(r[1], r[2], r[3]) for r in rows(oracle + "/pagelinks.tsv")
              if r[0] == "0" and r[2] != "10" and (r[0], r[1]) not in drop}
    p, r, tp = pr(ours, theirs)
    print(f"links       precision {p:.4f} recall {r:.4f}  ({tp} shared, {len(ours)} ours, {len(theirs)} MediaWiki)")
    for x in sorted(ours - theirs)[:show]: print("   only ours:", x)
    for x in sorted(theirs - ours)[:show]: print("   only MediaWiki:", x)
    # All links including template ones, for the recall figure on dumps with templates.
    ours_all = set()
    for l in export(index, "links"):
        f = l.split("\t")
        if f[0] == "0" and f[2] != "10" and (f[0], f[1]) not in drop:
            ours_all.add((f[1], f[2], f[3]))
    p2, r2, _ = pr(ours_all, theirs)
    print(f"links (incl. template arguments) precision {p2:.4f} recall {r2:.4f}")
    # Recall on the links MediaWiki records whose target is written as a link in the
    # page's own text (the rest are made by templates and transcluded pages).
    written = set()
    for page, targets in written_targets(index).items():
        written |= {(page, t) for t in targets}
    own = {x for x in theirs if (x[0], x[2]) in written}
    _, r3, _ = pr(ours & own, own)
    print(f"links written in the page text: recall {r3:.4f} ({len(own)} of MediaWiki's {len(theirs)}; the other {len(theirs) - len(own)} come from templates or transcluded pages)")
    # Categories (direct).
    ours = {(f[1], f[2]) for f in (l.split("\t") for l in export(index, "categories"))
            if f[0] == "0" and f[3] == "0" and (f[0], f[1]) not in drop}
    theirs = {(r[1], r[2]) for r in rows(oracle + "/categorylinks.tsv")
              if r[0] == "0" and (r[0], r[1]) not in drop and r[2] not in TRACKING}
    p, r, tp = pr(ours, theirs)
    print(f"categories  precision {p:.4f} recall {r:.4f}  ({tp} shared, {len(ours)} ours, {len(theirs)} MediaWiki)")
    for x in sorted(ours - theirs)[:show]: print("   only ours:", x)
    for x in sorted(theirs - ours)[:show]: print("   only MediaWiki:", x)
    # Templates (direct).
    ours = {(f[1], f[2], f[3]) for f in (l.split("\t") for l in export(index, "templates"))
            if f[0] == "0" and f[4] == "1" and (f[0], f[1]) not in drop}
    theirs = {(r[1], r[2], r[3]) for r in rows(oracle + "/templatelinks.tsv") if r[0] == "0" and (r[0], r[1]) not in drop}
    p, r, tp = pr(ours, theirs)
    print(f"templates   precision {p:.4f} recall {r:.4f}  ({tp} shared, {len(ours)} ours, {len(theirs)} MediaWiki)")
    for x in sorted(ours - theirs)[:show]: print("   only ours:", x)
    for x in sorted(theirs - ours)[:show]: print("   only MediaWiki:", x)
    # Sections.
    mine = {}
    for l in export(index, "sections"):
        o = json.loads(l)
        mine[o["title"]] = [(int(s["level"]), s["anchor"]) for s in o["sections"]]
    same = total = 0
    diffs = []
    with open(oracle + "/sections.jsonl", encoding="utf-8") as f:
        for line in f:
            o = json.loads(line)
            title = o["title"]
            if ("0", title.replace(" ", "_")) in drop:
                continue
            want = [(int(s["level"]), s["anchor"]) for s in o["sections"]]
            total += 1
            got = mine.get(title)
            if got == want:
                same += 1
            else:
                diffs.append((title, [x for x in want if x not in (got or [])][:3], [x for x in (got or []) if x not in want][:3]))
    print(f"sections    {same}/{total} pages identical ({same / max(total, 1):.4f})")
    for d in diffs[:show]: print("   differs:", d)

def written_targets(index):
    """DB keys of every [[target]] written in each page's own text, template arguments
    included (origin `own`): links a template or a transcluded page makes are not."""
    out = {}
    for l in export(index, "links"):
        f = l.split("\t")
        if len(f) < 7 or f[6] == "own":
            out.setdefault(f[1], set()).add(f[3])
    return out

WIKIWIT = "target/release/wikiwit"
if __name__ == "__main__":
    if "--bin" in sys.argv:
        WIKIWIT = sys.argv[sys.argv.index("--bin") + 1]
    main()
