"""Scribunto's LuaCommon library tests, run from a dump through `wikiwit expand`.

What Scribunto's PHP test bases do, and what this harness does in their place:
- `getTestModules()` serves `Module:TestFramework` and each `*Tests.lua` (and the data
  modules CommonTests loads) from files: here they are Scribunto-model pages of the dump.
- setUp creates pages (`editPage`, `doUserEditContent`): read from the PHP files and
  written into the dump with the same titles and text.
- setUp runs a little Lua in the engine (strip markers, `mw.title.testPageId`):
  `driver.lua`'s `setups` does the same before the module loads.
- The data provider loads the module on an engine where no setUp ran and asks `provide(n)`
  for each test's name and formatted expectation; each test then runs `run(n)` on a fresh
  engine and `assertSame`s the two strings. Here one `wikiwit expand` lists the tests of a
  file, and each test runs in a `wikiwit expand` process of its own.
- What a dump cannot hold (wiki configuration, mocked services, PHP's i18n files) is listed
  in `LEFT_OUT` with the reason; those tests are reported, not counted.
"""

import argparse
import bz2
import os
import re
import subprocess
import sys
import tempfile
import time

from . import common

DRIVER = "WikiwitTestDriver"
TITLE = "Main Page"  # Title::newMainPage(), the title the test engines parse as
SITENAME = "Wikiwit test wiki"
SERVER = "http://wiki.local"  # the URL tests' $wgCanonicalServer; $wgServer is //wiki.local
NORMALIZATION = "UstringLibraryNormalizationTests"
NORMALIZATION_BATCH = 400

# Why a test is left out: each names the PHP-side setting the test depends on.
EXPENSIVE = ("the PHP test sets the expensive-function limit to 10 (wiki configuration, "
             "not in a dump; wikiwit has Wikimedia's 500)")
INTERWIKI = ("needs the interwiki prefix `interwikiprefix` the PHP test puts into "
             "$wgInterwikiCache (the interwiki table is not in a dump)")
RESTRICTIONS = ("page protections and cascading sources come from a mocked "
                "RestrictionStore (not in a dump)")
FRAGMENT_MODE = ("the PHP test sets $wgFragmentMode to legacy (wiki configuration; "
                 "MediaWiki 1.39 and Wikimedia use html5)")
NOWIKI_RENDER = ("a nowiki strip item holds the tag's content only when a page is rendered "
                 "(the PHP test's OT_HTML parser); in expandtemplates, which `wikiwit "
                 "expand` is, MediaWiki's holds the whole <nowiki> tag")
ENV_FUNCS = ("needs setfenv/getfenv, which the PHP tests enable (allowEnvFuncs); "
             "Scribunto's default and Wikimedia's engine have none, and a module cannot "
             "reach mw.makeProtectedEnvFuncs")
RU_MESSAGES = ("needs MediaWiki's Russian interface messages with useDatabase(false): "
               "its i18n files, which no dump holds")

_TITLE_INTERWIKI = [
    "tostring", "title.compare (5)", ".isLocal", ".isTalkPage", ".isSubpage", ".text",
    ".prefixedText", ".rootText", ".baseText", ".subpageText", ".fullText",
    ".subjectNsText", ".fragment", ".interwiki", ".namespace", ".inNamespace()",
    ".inNamespace() 2", ".inNamespaces()", ".hasSubjectNamespace()", ".isSubpageOf() 1",
    ".isSubpageOf() 2", ".partialUrl()", ".fullUrl()", ".fullUrl() 2", ".fullUrl() 3",
    ".localUrl()", ".canonicalUrl()",
]

_ENV_FUNCS_TESTS = [
    "setfenv global", "setfenv invalid level", "setfenv invalid environment",
    "setfenv on unprotected past protected", "setfenv from inside protected",
    "setfenv protected function", "setfenv on a non-function", "getfenv(1)", "getfenv(0)",
    "getfenv with tail call",
]

LEFT_OUT = {
    ("CommonTests", "Not quite too many expensive function calls"): EXPENSIVE,
    ("CommonTests", "Too many expensive function calls"): EXPENSIVE,
    ("TitleLibraryTests", "not quite too many expensive functions"): EXPENSIVE,
    ("TitleLibraryTests", "too many expensive functions"): EXPENSIVE,
    ("TitleLibraryTests", ".protectionLevels"): RESTRICTIONS,
    ("TitleLibraryTests", ".cascadingProtection"): RESTRICTIONS,
    ("UriLibraryTests", "uri.anchorEncode"): FRAGMENT_MODE,
    ("MessageLibraryTests", "inLanguage"): RU_MESSAGES,
    ("TextLibraryTests", "unstrip (nowiki)"): NOWIKI_RENDER,
    ("TextLibraryTests", "unstripNoWiki (nowiki)"): NOWIKI_RENDER,
}
for _name in _TITLE_INTERWIKI:
    LEFT_OUT.setdefault(("TitleLibraryTests", _name), INTERWIKI)
for _name in _ENV_FUNCS_TESTS:
    LEFT_OUT[("CommonTests", _name)] = ENV_FUNCS

# Test classes that run no engine test of their own: the pure-Lua ustring class runs
# UstringLibraryTests again on Scribunto's own Lua implementation (`require 'ustring'`),
# which is Scribunto's code, not the engine's.
NOT_ENGINE = {"UstringLibraryPureLuaTest.php"}

# The reference wiki's extensions, with Scribunto's default engine settings (as on
# Wikimedia: no setfenv/getfenv) on the Lua 5.1 Debian installs with MediaWiki.
MEDIAWIKI_SETTINGS = """
wfLoadExtension( 'ParserFunctions' );
wfLoadExtension( 'Scribunto' );
$wgScribuntoDefaultEngine = 'luastandalone';
$wgScribuntoEngineConf['luastandalone']['luaPath'] = '/usr/bin/lua5.1';
"""

RECORD = re.compile(r"@@WWT:([a-z]+)((?::[0-9a-f]*)*);")


def lua_common_dir(src):
    for rel in ("tests/phpunit/engines/LuaCommon", "tests/phpunit/Engines/LuaCommon"):
        if src.exists(rel + "/TestFramework.lua"):
            return rel
    raise common.SourceError("no tests/phpunit/{engines,Engines}/LuaCommon/TestFramework.lua "
                             "in the checkout")


def php_string(body):
    """The value of a PHP single-quoted string literal's body."""
    return re.sub(r"\\([\\'])", r"\1", body)


_QUOTED = r"'((?:[^'\\]|\\.)*)'"
_EDIT_PAGE = re.compile(
    r"editPage\(\s*Title::makeTitle\(\s*NS_(\w+)\s*,\s*" + _QUOTED + r"\s*\)\s*,\s*"
    r"(?:file_get_contents\(\s*__DIR__\s*\.\s*'/([^']+)'\s*\)|" + _QUOTED + r")", re.S)
_USER_EDIT = re.compile(
    r"newFromTitle\(\s*Title::newFromText\(\s*" + _QUOTED + r"\s*\)\s*\)\s*;\s*"
    r"\$page->doUserEditContent\(\s*new WikitextContent\(\s*" + _QUOTED, re.S)
_MODULE_NAME = re.compile(r"\$moduleName\s*=\s*'(\w+)'")
_NS_NAMES = {"MAIN": "", "HELP": "Help", "MODULE": "Module", "TEMPLATE": "Template",
             "USER": "User"}


def fixture_pages(src, rel, php_files):
    """The pages the PHP test classes create in setUp, as dump pages."""
    pages = []
    for name in php_files:
        php = src.read(f"{rel}/{name}")
        for ns, title, file, text in _EDIT_PAGE.findall(php):
            prefix = _NS_NAMES.get(ns)
            if prefix is None:
                raise common.SourceError(f"{name}: page in namespace NS_{ns} not handled")
            full = f"{prefix}:{php_string(title)}" if prefix else php_string(title)
            body = src.read(f"{rel}/{file}") if file else php_string(text)
            model = "json" if full.endswith(".json") and prefix == "Module" else None
            pages.append(common.Page(full, body, model=model))
        for title, text in _USER_EDIT.findall(php):
            body = php_string(text)
            pages.append(common.Page(php_string(title), body,
                                     redirect=common.redirect_target(body)))
    return pages


class Suite:
    """The test files of a checkout and the dump that hosts them."""

    def __init__(self, src):
        self.src = src
        self.rel = lua_common_dir(src)
        names = src.listdir(self.rel)
        self.php = [n for n in names if n.endswith(".php") and n not in NOT_ENGINE]
        tested = set()
        for n in self.php:
            tested.update(_MODULE_NAME.findall(src.read(f"{self.rel}/{n}")))
        self.lua = [n[:-4] for n in names if n.endswith(".lua")]
        # Every module a PHP class names as its $moduleName, in file order.
        self.files = [m for m in self.lua if m in tested]
        self.pages = [common.Page(f"Module:{m}", src.read(f"{self.rel}/{m}.lua"))
                      for m in self.lua]
        self.pages += fixture_pages(src, self.rel, self.php)
        with open(os.path.join(os.path.dirname(__file__), "driver.lua"), encoding="utf-8") as f:
            self.pages.append(common.Page(f"Module:{DRIVER}", f.read()))
        self.test_page_id = None

    def write_dump(self, path):
        common.write_dump(path, self.pages, SITENAME, SERVER)
        ids = {p.title: p.id for p in self.pages}
        # TitleLibraryTest passes the id of the page it made for getContent().
        self.test_page_id = ids.get("ScribuntoTestPage")

    def cldr_skips(self):
        """The tests LanguageLibraryTest skips where language names are not translated
        (`Language::fetchLanguageName('en', 'fr') === 'English'`: no CLDR extension)."""
        php = self.src.read(f"{self.rel}/LanguageLibraryTest.php")
        return set(re.findall(r"'([^']+)'\s*=>\s*\$msg", php))

    def normalization_static(self):
        """The one NormalizationTest.txt line the PHP provider uses when the file is absent."""
        php = self.src.read(f"{self.rel}/UstringLibraryNormalizationTestProvider.php")
        return re.findall(r"'((?:[0-9A-F ]+;){5})'", php)


def decode(stdout):
    """The driver's records in an expansion: (kind, [field, …]) with fields as text."""
    out = []
    for kind, fields in RECORD.findall(stdout):
        values = [bytes.fromhex(f).decode("utf-8", "replace") for f in fields.split(":")[1:]]
        out.append((kind, values))
    return out


def no_records(proc):
    """Why an expansion gave no driver record: time-out, crash, or the page's text."""
    if proc["timeout"]:
        return common.TIMEOUT, "no answer within the time-out"
    tail = (proc["stderr"].strip().splitlines() or [""])[-1]
    if proc["rc"] != 0:
        return common.CRASH, f"exit {proc['rc']}: {tail}"
    return common.ERROR, "no result in the expansion: " + proc["stdout"].strip()[:300]


def invoke(*args, **named):
    parts = [DRIVER, *map(str, args)] + [f"{k}={v}" for k, v in named.items()]
    return "{{#invoke:" + "|".join(parts) + "}}"


LIST_CHUNK = 100


def list_tests(ww, name):
    """The tests of one file as the engine under test provides them: ({index: (name,
    expect or None)}, None), or (None, why the module does not load there)."""
    tests = {}
    start, count = 1, None
    while count is None or start <= count:
        proc = ww.expand(invoke("list", name, start, start + LIST_CHUNK - 1), TITLE)
        records = decode(proc["stdout"])
        if not records:
            return None, no_records(proc)[1]
        for kind, fields in records:
            if kind == "load":
                return None, f"the module does not load: {fields[1]}"
            if kind == "count":
                if fields[0] != "number":
                    return None, f"the provider's count is a {fields[0]}"
                count = int(float(fields[1]))
            elif kind == "test":
                expect = fields[4] if fields[3] == "string" else None
                tests[int(fields[0])] = (fields[2], expect)
            elif kind == "provide":
                tests[int(fields[0])] = (f"(provide() failed: {fields[2]})", None)
        if count is None:
            return None, "the listing gave no count"
        start += LIST_CHUNK
    for index in range(1, count + 1):
        # A listing cut short (an output limit, say) must not make tests vanish.
        tests.setdefault(index, (f"(test {index}: not listed)", None))
    return tests, None


def reference_names(lua, src, rel, name):
    """Test names of a file wikiwit cannot load, from the reference Lua 5.1 with every
    `mw` value stubbed (names and count only; expectations need the real library)."""
    with tempfile.TemporaryDirectory() as tmp:
        for f in ("TestFramework", name):
            with open(os.path.join(tmp, f + ".lua"), "wb") as out:
                out.write(src.read_bytes(f"{rel}/{f}.lua"))
        lister = os.path.join(os.path.dirname(__file__), "lister.lua")
        try:
            proc = subprocess.run([lua, lister, tmp, name], capture_output=True, timeout=60)
        except (OSError, subprocess.TimeoutExpired):
            return None
    if proc.returncode != 0:
        return None
    lines = proc.stdout.decode("utf-8", "replace").splitlines()
    return {int(i): (n, None) for i, n in (line.split("\t", 1) for line in lines)}


def run_one(ww, suite, name, index):
    """Runs test `index` of file `name` on a fresh engine: (status, actual, detail)."""
    proc = ww.expand(invoke("run", name, index, pageid=suite.test_page_id or ""), TITLE)
    records = decode(proc["stdout"])
    if not records:
        status, detail = no_records(proc)
        return status, None, detail
    notes = []
    for kind, fields in records:
        if kind == "setup":
            notes.append(f"setUp failed: {fields[1]}")
        elif kind == "load":
            return common.ERROR, None, "; ".join(notes + [f"the module does not load: {fields[1]}"])
        elif kind == "skip":
            return common.SKIP, None, fields[1]
        elif kind == "error":
            return common.ERROR, None, "; ".join(notes + [f"run() raised: {fields[1]}"])
        elif kind == "ok":
            actual = fields[1] if fields[0] == "string" else f"({fields[0]}) {fields[1]}"
            return (common.PASS if fields[0] == "string" else common.FAIL), actual, "; ".join(notes)
    return common.ERROR, None, "no result record"


def file_results(ww, suite, name, lua, jobs, progress):
    tests, why = list_tests(ww, name)
    if tests is None:
        tests = reference_names(lua, suite.src, suite.rel, name) or {0: ("(whole file)", None)}
    results, todo = [], []
    for index in sorted(tests):
        test_name, expect = tests[index]
        r = {"file": name, "index": index, "name": test_name}
        reason = LEFT_OUT.get((name, test_name))
        if reason:
            r.update(status=common.LEFT_OUT, detail=reason)
        elif why:
            r.update(status=common.ERROR, detail=why)
        elif expect is None:
            r.update(status=common.ERROR, detail="the provider gave no expectation")
        else:
            r["expected"] = expect
            todo.append(r)
        results.append(r)

    def run(r):
        status, actual, detail = run_one(ww, suite, name, r["index"])
        if status == common.PASS and actual != r["expected"]:
            status = common.FAIL
        if status == common.PASS:
            del r["expected"]
        else:
            r["actual"] = actual
        r["status"] = status
        if detail:
            r["detail"] = detail
    common.parallel_map(run, todo, jobs, progress)
    return results


def normalization_lines(suite, path):
    if path:
        opener = bz2.open if path.endswith(".bz2") else open
        with opener(path, "rt", encoding="utf-8") as f:
            lines = f.read().splitlines()
    else:
        lines = suite.normalization_static()
    cases = []
    for line in lines:
        m = re.match(r"^((?:[0-9A-F ]+;){5})", line)
        if m:
            fields = m.group(1).rstrip(";")
            cols = ["".join(chr(int(c, 16)) for c in f.split()) for f in fields.split(";")]
            cases.append((fields, cols))
    return cases


def normalization_expected(cols):
    """The 20 strings LuaUstringLibraryTest expects: NFC, NFD, NFKC, NFKD of the five
    columns, as NormalizationTest.txt's invariants give them, each with its code points."""
    c1, c2, c3, c4, c5 = cols
    del c1
    want = [c2, c2, c2, c4, c4, c3, c3, c3, c5, c5] + [c4] * 5 + [c5] * 5
    return [s + "\t" + "\t".join(f"{ord(ch):x}" for ch in s) for s in want]


def normalization_results(ww, suite, path, jobs, progress):
    cases = normalization_lines(suite, path)
    batches = [cases[i:i + NORMALIZATION_BATCH] for i in range(0, len(cases), NORMALIZATION_BATCH)]

    def run(batch):
        arg = ";".join(",".join(c.encode("utf-8").hex() for c in cols) for _, cols in batch)
        proc = ww.expand(invoke("norm", arg), TITLE)
        records = decode(proc["stdout"])
        if len(records) == 1 and records[0][0] == "load":
            return [(common.ERROR, None, f"the module does not load: {records[0][1][1]}")] * len(batch)
        if len(records) != len(batch):
            status, detail = no_records(proc) if not records else (common.ERROR, "records lost")
            return [(status, None, detail)] * len(batch)
        return [(common.PASS, fields, "") if kind == "norm"
                else (common.ERROR, None, f"run() raised: {fields[1]}") for kind, fields in records]
    outcome = [o for batch in common.parallel_map(run, batches, jobs, progress) for o in batch]
    results = []
    for i, ((fields, cols), (status, got, detail)) in enumerate(zip(cases, outcome), start=1):
        r = {"file": NORMALIZATION, "index": i, "name": fields}
        want = normalization_expected(cols)
        if status == common.PASS and got != want:
            status = common.FAIL
            r["expected"] = "\n".join(want)
            r["actual"] = "\n".join(got)
        r["status"] = status
        if detail:
            r["detail"] = detail
        results.append(r)
    return results


def skip_untranslated(results, names):
    """Marks skipped what the PHP test skips on a MediaWiki without CLDR: the reference
    wiki has none, Wikimedia's (and so wikiwit's target) has."""
    for r in results:
        if r["file"] == "LanguageLibraryTests" and r["name"] in names:
            r.update(status=common.SKIP, detail="skipped by the PHP test on a wiki without "
                     "translated language names (no CLDR extension)")
            r.pop("expected", None)
            r.pop("actual", None)


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="tools/scribunto-tests",
        description="Run Scribunto's LuaCommon library tests (read from a checkout) through "
                    "`wikiwit expand` from a dump.")
    parser.add_argument("scribunto", help="a Scribunto checkout, or a git directory with --ref")
    common.add_common_args(parser)
    parser.add_argument("--normalization", metavar="FILE",
                        help="Unicode's NormalizationTest.txt (or .txt.bz2, as Debian's "
                             "unicode-data has it): run every line (default: the one line "
                             "the PHP provider falls back to)")
    parser.add_argument("--lua", default="lua5.1",
                        help="reference Lua 5.1, for the names of tests in a file wikiwit "
                             "cannot load (default: lua5.1)")
    parser.add_argument("--only", action="append", metavar="FILE",
                        help="run only this test file (e.g. TextLibraryTests); repeatable")
    args = parser.parse_args(argv)

    started = time.monotonic()
    try:
        src = common.Source(args.scribunto, args.ref)
        suite = Suite(src)
    except common.SourceError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    files = [f for f in suite.files if not args.only or f in args.only]
    do_norm = not args.only or NORMALIZATION in args.only
    work, _keep = common.work_dir(args.work)
    ww = common.engine(args, work, MEDIAWIKI_SETTINGS)
    dump = os.path.join(work, "scribunto-tests.xml")
    suite.write_dump(dump)
    try:
        ww.build(dump, SITENAME, SERVER)
    except (OSError, RuntimeError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    suite.test_page_id = ww.page_id("ScribuntoTestPage") or suite.test_page_id
    results = []
    for name in files:
        results += file_results(ww, suite, name, args.lua, args.jobs,
                                common.progress_printer(name))
    if args.mediawiki and ww.expand("{{#language:en|fr}}", TITLE)["stdout"].strip() == "English":
        skip_untranslated(results, suite.cldr_skips())
    if do_norm:
        results += normalization_results(ww, suite, args.normalization, args.jobs,
                                         common.progress_printer(NORMALIZATION))
        files.append(NORMALIZATION)
    header = {"suite": "scribunto LuaCommon", **src.describe(), **common.engine_header(args, ww)}
    ww.close()
    code = common.finish(args, header, results, files)
    print(f"\n{time.monotonic() - started:.0f} s", file=sys.stderr)
    return code
