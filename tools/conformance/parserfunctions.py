"""ParserFunctions' own tests, run through `wikiwit expand` from a dump.

- `tests/parser/*.txt` (MediaWiki's parser-test format): the `!! article` pages go into
  the dump; each `!! test`'s wikitext is expanded as the page "Parser test" (the parser
  tests' title) and compared with its `!! html` after `normalize_html` has undone what
  rendering adds and expansion does not (see there, and docs/expansion.md).
- `tests/phpunit/unit/ExpressionTest.php`: each `[ input, expected ]` of
  `provideExpressions` as `{{#expr: input}}` against `expected` (assertEquals on two
  strings: equal text), and each case of `provideExpressionThrows` must render
  `#expr`'s error (ExprError).
"""

import argparse
import os
import re
import sys

from . import common

TITLE = "Parser test"  # ParserTestRunner's default title
SITENAME = "Wikiwit test wiki"
SERVER = "http://wiki.local"
EXPRESSION_FILE = "ExpressionTest.php"

STRING_FUNCTIONS = ("string functions (#len, #pos, #explode, #urldecode…): the parser tests "
                    "force $wgPFEnableStringFunctions on; MediaWiki's default and Wikimedia's "
                    "are off, as are wikiwit's")
UPLOADED_FILES = ("Media: links check uploaded files (the parser-test environment uploads "
                  "Foobar.jpg); a dump holds file description pages, not files")

# Left out by file: a whole file, or tests of a file by name.
LEFT_OUT_FILES = {"stringFunctionTests.txt": STRING_FUNCTIONS}
LEFT_OUT = {
    ("funcsParserTests.txt", "{{#ifexist}}"): UPLOADED_FILES,
    ("funcsParserTests.txt", "{{#ifexist:}} media redirect (bug 32031)"): UPLOADED_FILES,
}

MEDIAWIKI_SETTINGS = "\nwfLoadExtension( 'ParserFunctions' );\n"


def parse_parser_tests(text):
    """A parser-test file's articles [(title, text)] and tests [{name, wikitext, html,
    options}], in file order."""
    articles, tests = [], []
    section, item, lines = None, None, []

    def close():
        if item is not None and section:
            item[section] = "\n".join(lines)

    for line in text.split("\n"):
        m = re.match(r"^!!\s*([\w/*-]+)\s*$", line)
        if not m:
            lines.append(line)
            continue
        close()
        word = m.group(1).lower()
        lines = []
        if word in ("test", "article"):
            item, section = {"kind": word}, "name"
        elif word in ("end", "endarticle"):
            if item is not None:
                (tests if item["kind"] == "test" else articles).append(item)
            item, section = None, None
        elif item is not None:
            section = word
        else:
            section = None
    out_articles = [(a["name"].strip(), a.get("text", "")) for a in articles]
    out_tests = []
    for t in tests:
        expected = t.get("html/php", t.get("html/*", t.get("html")))
        out_tests.append({"name": t["name"].strip(), "wikitext": t.get("wikitext", ""),
                          "html": expected, "options": (t.get("options") or "").strip(),
                          "config": (t.get("config") or "").strip()})
    return out_articles, out_tests


def normalize_html(text):
    """Expected HTML back to the text expansion gives, undoing only what rendering adds:
    paragraph tags (<p>, </p>, and the <br /> of an empty paragraph), one-level bullet
    lists (<ul><li>x</li></ul> from `*x`), and `&lt;`/`&gt;` (rendering escapes a `<`
    or `>` that opens no allowed tag). Then `lines`."""
    text = re.sub(r"</?p>|<p><br />", "", text)
    text = re.sub(r"</li>|</?ul>", "", text)
    text = text.replace("<li>", "\n*")
    text = text.replace("&lt;", "<").replace("&gt;", ">")
    return lines(text)


def lines(text):
    """Lines without trailing whitespace, blank lines dropped: the paragraph breaks that
    <p> stood for, and the whitespace rendering trims."""
    return [line.rstrip() for line in text.split("\n") if line.strip()]


def php_strings(source):
    """The value of a PHP expression made of single-quoted literals and
    `str_repeat( 'x', n )` joined by `.`."""
    out = []
    for lit, rep, count in re.findall(r"'((?:[^'\\]|\\.)*)'|str_repeat\(\s*'((?:[^'\\]|\\.)*)'\s*,"
                                      r"\s*(\d+)\s*\)", source):
        if rep or count:
            out.append(re.sub(r"\\([\\'])", r"\1", rep) * int(count))
        else:
            out.append(re.sub(r"\\([\\'])", r"\1", lit))
    return "".join(out)


def expression_cases(php):
    """(name, input, expected or None for 'must fail') of ExpressionTest.php."""
    cases = []
    body = php.split("function provideExpressions", 1)[1].split("function ", 1)[0]
    for n, (inp, want) in enumerate(re.findall(r"\[\s*'((?:[^'\\]|\\.)*)'\s*,\s*'((?:[^'\\]|\\.)*)'\s*\]",
                                               body), start=1):
        cases.append((f"provideExpressions #{n}: {inp}", php_strings(f"'{inp}'"),
                      php_strings(f"'{want}'")))
    throws = php.split("function provideExpressionThrows", 1)[1]
    variables = {name: php_strings(expr) for name, expr in
                 re.findall(r"\$(\w+)\s*=\s*(.+?);\s*$", throws, re.M)}
    for line in throws.splitlines():
        if line.strip().startswith("//"):
            continue
        m = re.match(r"\s*'((?:[^'\\]|\\.)*)'\s*=>\s*\[\s*(.+?)\s*\],?\s*$", line)
        if not m:
            continue
        arg = m.group(2)
        value = variables[arg[1:]] if arg.startswith("$") else php_strings(arg)
        cases.append((f"provideExpressionThrows: {m.group(1)}", value, None))
    return cases


EXPR_ERROR = re.compile(r'^<strong class="error">[^<]*</strong>$')


def expression_results(ww, cases, jobs):
    def run(case):
        name, inp, want = case
        proc = ww.expand("{{#expr:" + inp + "}}", TITLE)
        r = {"file": EXPRESSION_FILE, "name": name}
        if proc["timeout"] or proc["rc"] != 0:
            r["status"] = common.TIMEOUT if proc["timeout"] else common.CRASH
            r["detail"] = (proc["stderr"].strip().splitlines() or [""])[-1]
            return r
        got = proc["stdout"].rstrip("\n")
        ok = got == want if want is not None else bool(EXPR_ERROR.match(got))
        r["status"] = common.PASS if ok else common.FAIL
        if not ok:
            r["expected"] = want if want is not None else "(an expression error)"
            r["actual"] = got
        return r
    results = common.parallel_map(run, cases, jobs, common.progress_printer(EXPRESSION_FILE))
    for n, r in enumerate(results, start=1):
        r["index"] = n
    return results


def parser_test_results(ww, name, tests, jobs):
    todo, results = [], []
    for n, t in enumerate(tests, start=1):
        r = {"file": name, "index": n, "name": t["name"]}
        reason = LEFT_OUT_FILES.get(name) or LEFT_OUT.get((name, t["name"]))
        if not reason and (t["options"] or t["config"]):
            reason = f"test options not reproduced: {t['options']} {t['config']}".strip()
        if reason:
            r.update(status=common.LEFT_OUT, detail=reason)
        elif t["html"] is None:
            r.update(status=common.LEFT_OUT, detail="no expected PHP parser output")
        else:
            todo.append((r, t))
        results.append(r)

    def run(item):
        r, t = item
        proc = ww.expand(t["wikitext"], TITLE)
        if proc["timeout"] or proc["rc"] != 0:
            r["status"] = common.TIMEOUT if proc["timeout"] else common.CRASH
            r["detail"] = (proc["stderr"].strip().splitlines() or [""])[-1]
            return
        want, got = normalize_html(t["html"]), lines(proc["stdout"])
        r["status"] = common.PASS if want == got else common.FAIL
        if want != got:
            r["expected"] = "\n".join(want)
            r["actual"] = "\n".join(got)
    common.parallel_map(run, todo, jobs, common.progress_printer(name))
    return results


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="tools/parserfunctions-tests",
        description="Run ParserFunctions' parser tests and #expr cases (read from a "
                    "checkout) through `wikiwit expand`.")
    parser.add_argument("parserfunctions",
                        help="a ParserFunctions checkout, or a git directory with --ref")
    common.add_common_args(parser)
    args = parser.parse_args(argv)
    try:
        src = common.Source(args.parserfunctions, args.ref)
        files = [n for n in src.listdir("tests/parser") if n.endswith(".txt")]
        parsed = {n: parse_parser_tests(src.read(f"tests/parser/{n}")) for n in files}
        expr_php = src.read(f"tests/phpunit/unit/{EXPRESSION_FILE}")
    except common.SourceError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    pages = [common.Page(title, text, redirect=common.redirect_target(text))
             for n in files for title, text in parsed[n][0]]
    work, _keep = common.work_dir(args.work)
    ww = common.engine(args, work, MEDIAWIKI_SETTINGS)
    dump = os.path.join(work, "parserfunctions-tests.xml")
    common.write_dump(dump, pages, SITENAME, SERVER)
    try:
        ww.build(dump, SITENAME, SERVER)
    except (OSError, RuntimeError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    results = []
    for n in files:
        results += parser_test_results(ww, n, parsed[n][1], args.jobs)
    results += expression_results(ww, expression_cases(expr_php), args.jobs)
    header = {"suite": "parserfunctions", **src.describe(), **common.engine_header(args, ww)}
    ww.close()
    return common.finish(args, header, results, files + [EXPRESSION_FILE])
