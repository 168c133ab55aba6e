"""What both conformance harnesses share: reading a GPL test suite from a checkout at run
time, writing a dump, building an index and expanding text with a wikiwit binary, running
many expansions in parallel with a timeout each, and the per-test results file with its
ratchet (`--baseline`).

Nothing of the suites is stored here: every test, fixture and expected value is read
from the checkout given on the command line when the harness runs.
"""

import concurrent.futures
import json
import os
import queue
import re
import select
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from xml.sax.saxutils import escape, quoteattr

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class SourceError(Exception):
    """The checkout does not hold what the harness reads."""


class Source:
    """A checkout of an extension: a working tree read as files, or any git directory
    (bare or not) read at `ref` with `git show`, so a mirror needs no work tree."""

    def __init__(self, path, ref=None):
        self.path = path
        self.ref = ref
        if ref is None and not os.path.isdir(path):
            raise SourceError(f"{path}: no such directory")
        if ref is not None:
            self._git("rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")

    def _git(self, *args):
        proc = subprocess.run(["git", "-C", self.path, *args], capture_output=True)
        if proc.returncode != 0:
            msg = proc.stderr.decode("utf-8", "replace").strip() or "no such object"
            raise SourceError(f"git {' '.join(args)} in {self.path}: {msg}")
        return proc.stdout

    def describe(self):
        """Where the suite came from, for the results file (path and commit)."""
        if self.ref is not None:
            commit = self._git("rev-parse", f"{self.ref}^{{commit}}").decode().strip()
            return {"source": self.path, "ref": self.ref, "commit": commit}
        try:
            commit = self._git("rev-parse", "HEAD").decode().strip()
        except SourceError:
            commit = None
        return {"source": self.path, "commit": commit}

    def exists(self, rel):
        if self.ref is None:
            return os.path.exists(os.path.join(self.path, rel))
        proc = subprocess.run(["git", "-C", self.path, "cat-file", "-e", f"{self.ref}:{rel}"],
                              capture_output=True)
        return proc.returncode == 0

    def read_bytes(self, rel):
        if self.ref is None:
            try:
                with open(os.path.join(self.path, rel), "rb") as f:
                    return f.read()
            except OSError as e:
                raise SourceError(f"{rel}: {e.strerror}") from e
        return self._git("show", f"{self.ref}:{rel}")

    def read(self, rel):
        return self.read_bytes(rel).decode("utf-8")

    def listdir(self, rel):
        """The file names (not subdirectories) directly in `rel`, sorted."""
        if self.ref is None:
            base = os.path.join(self.path, rel)
            try:
                return sorted(n for n in os.listdir(base) if os.path.isfile(os.path.join(base, n)))
            except OSError as e:
                raise SourceError(f"{rel}: {e.strerror}") from e
        out = self._git("ls-tree", f"{self.ref}:{rel}").decode("utf-8")
        names = []
        for line in out.splitlines():
            meta, name = line.split("\t", 1)
            if meta.split()[1] == "blob":
                names.append(name)
        return sorted(names)


# The namespaces of a MediaWiki 1.39 wiki with Scribunto (828/829), as a dump's siteinfo
# lists them; the project namespace takes the site name, as `$wgMetaNamespace` does.
NAMESPACES = [
    (-2, "Media"), (-1, "Special"), (0, ""), (1, "Talk"), (2, "User"), (3, "User talk"),
    (4, None), (5, None), (6, "File"), (7, "File talk"), (8, "MediaWiki"),
    (9, "MediaWiki talk"), (10, "Template"), (11, "Template talk"), (12, "Help"),
    (13, "Help talk"), (14, "Category"), (15, "Category talk"), (828, "Module"),
    (829, "Module talk"),
]
NS_BY_NAME = {name: key for key, name in NAMESPACES if name}

# Content models and formats of the pages a harness writes.
MODELS = {"wikitext": "text/x-wiki", "Scribunto": "text/plain", "json": "application/json"}


class Page:
    """One page of a generated dump."""

    def __init__(self, title, text, model=None, redirect=None):
        self.title = title
        self.text = text
        ns_name, _, rest = title.partition(":")
        self.ns = NS_BY_NAME.get(ns_name, 0) if rest else 0
        self.model = model or ("Scribunto" if self.ns == 828 else "wikitext")
        self.redirect = redirect
        self.id = None


def redirect_target(text):
    """The target of a `#REDIRECT [[…]]` page text, for the dump's <redirect> element."""
    m = re.match(r"^#REDIRECT\s*\[\[([^\]|#]+)", text, re.I)
    return m.group(1).strip() if m else None


def write_dump(path, pages, sitename, server, lang="en", timestamp="2022-11-30T00:00:00Z"):
    """Writes `pages` as a MediaWiki XML export (schema 0.10); page ids count from 1 in
    order, and each page's id is set on it."""
    with open(path, "w", encoding="utf-8") as f:
        f.write('<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.10/" '
                f'version="0.10" xml:lang={quoteattr(lang)}>\n  <siteinfo>\n')
        f.write(f"    <sitename>{escape(sitename)}</sitename>\n    <dbname>wikiwittest</dbname>\n")
        f.write(f"    <base>{escape(server)}/wiki/Main_Page</base>\n")
        f.write("    <generator>MediaWiki 1.39.0</generator>\n    <case>first-letter</case>\n")
        f.write("    <namespaces>\n")
        for key, name in NAMESPACES:
            if key == 4:
                name = sitename
            elif key == 5:
                name = f"{sitename} talk"
            f.write(f'      <namespace key="{key}" case="first-letter">{escape(name)}</namespace>\n')
        f.write("    </namespaces>\n  </siteinfo>\n")
        for n, page in enumerate(pages, start=1):
            page.id = n
            redirect = f"    <redirect title={quoteattr(page.redirect)} />\n" if page.redirect else ""
            f.write(f"  <page>\n    <title>{escape(page.title)}</title>\n    <ns>{page.ns}</ns>\n"
                    f"    <id>{n}</id>\n{redirect}    <revision>\n      <id>{n}</id>\n"
                    f"      <timestamp>{timestamp}</timestamp>\n"
                    f"      <model>{page.model}</model>\n      <format>{MODELS[page.model]}</format>\n"
                    f'      <text bytes="{len(page.text.encode("utf-8"))}" xml:space="preserve">'
                    f"{escape(page.text)}</text>\n    </revision>\n  </page>\n")
        f.write("</mediawiki>\n")


class Wikiwit:
    """A wikiwit binary and the index it expands against."""

    def __init__(self, binary, timeout, index):
        self.binary = binary
        self.timeout = timeout
        self.index = index

    def version(self):
        out = subprocess.run([self.binary, "--version"], capture_output=True, text=True)
        return out.stdout.strip()

    def build(self, dump, sitename, server):
        """Indexes the dump (`sitename` and `server` are in its siteinfo already)."""
        del sitename, server
        proc = subprocess.run([self.binary, "build", dump, "--index", self.index, "--quiet",
                               "--no-text"], capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"wikiwit build failed ({proc.returncode}):\n{proc.stderr}")

    def page_id(self, title):
        """wikiwit keeps the dump's page ids: the harness knows them already."""
        del title
        return None

    def close(self):
        pass

    def expand(self, text, title):
        """Expands `text` as the page `title` in a process of its own. Returns a dict with
        `rc`, `stdout`, `stderr` and `timeout` (True when the process was killed)."""
        cmd = [self.binary, "expand", "--index", self.index, "--title", title, "-"]
        try:
            proc = subprocess.run(cmd, input=text.encode("utf-8"), capture_output=True,
                                  timeout=self.timeout)
        except subprocess.TimeoutExpired as e:
            return {"rc": None, "stdout": (e.stdout or b"").decode("utf-8", "replace"),
                    "stderr": (e.stderr or b"").decode("utf-8", "replace"), "timeout": True}
        return {"rc": proc.returncode, "stdout": proc.stdout.decode("utf-8", "replace"),
                "stderr": proc.stderr.decode("utf-8", "replace"), "timeout": False}


class MediaWiki:
    """MediaWiki 1.39 (Debian's package) with a wiki of its own for a harness's dump: the
    reference that shows the harness itself right (what a dump can host passes there).
    Expansions go to `mw-expand.php` workers, one parser each request."""

    PHP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mw-expand.php")
    INSTALL = "/usr/share/mediawiki"

    def __init__(self, directory, timeout, jobs, settings):
        self.dir = directory
        self.timeout = timeout
        self.jobs = jobs
        self.settings = settings
        self.conf = os.path.join(directory, "LocalSettings.php")
        self.workers = None

    def version(self):
        out = subprocess.run(["php", os.path.join(self.INSTALL, "maintenance", "version.php"),
                              "--conf", self.conf], capture_output=True, text=True)
        return out.stdout.strip()

    def _php(self, *args):
        proc = subprocess.run(["php", *args], cwd=self.INSTALL, capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"php {args[0]} failed:\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}")

    def build(self, dump, sitename, server):
        """A fresh wiki in the directory: install, the harness's settings, the dump. Only
        a directory that is empty or holds an earlier harness wiki is replaced."""
        if os.path.isdir(self.dir) and os.listdir(self.dir):
            if not os.path.exists(os.path.join(self.dir, "wikiwittest.sqlite")):
                raise RuntimeError(f"{self.dir} is not empty and holds no harness wiki: "
                                   "give a new directory to --mediawiki")
            shutil.rmtree(self.dir)
        os.makedirs(self.dir)
        host = server.split("://", 1)[-1]
        self._php("maintenance/install.php", "--dbtype", "sqlite", "--dbpath", self.dir,
                  "--dbname", "wikiwittest", "--confpath", self.dir, "--lang", "en",
                  "--pass", "Wikiwit-admin-1", "--server", f"//{host}", "--scriptpath", "/w",
                  sitename, "Admin")
        with open(self.conf, "a", encoding="utf-8") as f:
            f.write(f"\n$wgServer = '//{host}';\n$wgCanonicalServer = '{server}';\n"
                    "$wgArticlePath = '/wiki/$1';\n$wgLocaltimezone = 'UTC';\n"
                    "$wgShowExceptionDetails = true;\n$wgParserCacheType = CACHE_NONE;\n")
            f.write(self.settings)
        self._php("maintenance/update.php", "--conf", self.conf, "--quick")
        self._php("maintenance/importDump.php", "--conf", self.conf, dump)
        self.workers = queue.Queue()
        for _ in range(max(1, self.jobs)):
            self.workers.put(self._start())

    def page_id(self, title):
        """The id MediaWiki gave a page on import (it does not keep the dump's)."""
        ns_name, _, rest = title.partition(":")
        ns = NS_BY_NAME.get(ns_name, 0) if rest else 0
        key = (rest if ns else title).replace(" ", "_")
        db = sqlite3.connect(os.path.join(self.dir, "wikiwittest.sqlite"))
        try:
            row = db.execute("SELECT page_id FROM page WHERE page_namespace = ? AND page_title = ?",
                             (ns, key)).fetchone()
        finally:
            db.close()
        return row[0] if row else None

    def _start(self):
        log = open(os.path.join(self.dir, "php-errors.log"), "ab")
        return subprocess.Popen(["php", self.PHP, "--conf", self.conf], cwd=self.INSTALL,
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log)

    def expand(self, text, title):
        worker = self.workers.get()
        result = {"rc": 0, "stdout": "", "stderr": "", "timeout": False}
        try:
            worker.stdin.write(json.dumps({"title": title, "text": text}).encode() + b"\n")
            worker.stdin.flush()
            ready, _, _ = select.select([worker.stdout], [], [], self.timeout)
            line = worker.stdout.readline() if ready else b""
        except OSError:
            line = b""
            ready = True
        if line:
            result["stdout"] = json.loads(line)["text"]
            self.workers.put(worker)
            return result
        worker.kill()
        worker.wait()
        result["timeout"] = not ready
        result["rc"] = None if not ready else worker.returncode
        self.workers.put(self._start())
        return result

    def close(self):
        while self.workers is not None and not self.workers.empty():
            worker = self.workers.get()
            worker.stdin.close()
            worker.wait()


def engine(args, work, settings):
    """The engine a harness runs on: wikiwit (`--wikiwit`), or MediaWiki (`--mediawiki`)
    with `settings` appended to its LocalSettings.php."""
    if args.mediawiki:
        return MediaWiki(os.path.abspath(args.mediawiki), args.timeout, args.jobs, settings)
    return Wikiwit(args.wikiwit, args.timeout, os.path.join(work, "index"))


def engine_header(args, ww):
    if args.mediawiki:
        return {"engine": "mediawiki", "mediawiki": ww.version()}
    binary = os.path.abspath(args.wikiwit) if os.path.exists(args.wikiwit) else args.wikiwit
    return {"engine": "wikiwit", "wikiwit": ww.version(), "binary": binary}


def default_binary():
    """The release build of this worktree, else `wikiwit` on the PATH."""
    built = os.path.join(ROOT, "target", "release", "wikiwit")
    return built if os.path.exists(built) else "wikiwit"


def parallel_map(func, items, jobs, progress=None):
    """`func` over `items` on `jobs` threads (each call runs a process), results in the
    order of `items` whatever the scheduling."""
    results = [None] * len(items)
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = {pool.submit(func, item): i for i, item in enumerate(items)}
        for done, fut in enumerate(concurrent.futures.as_completed(futures), start=1):
            results[futures[fut]] = fut.result()
            if progress:
                progress(done, len(items))
    return results


def progress_printer(label):
    """A progress callback writing `label: done/total` over itself on a terminal."""
    if not sys.stderr.isatty():
        return None

    def show(done, total):
        end = "\n" if done == total else ""
        sys.stderr.write(f"\r{label}: {done}/{total}{end}")
        sys.stderr.flush()
    return show


def work_dir(path):
    """The directory for the dump and the index: `path` (created), else a temporary one
    removed when the harness ends."""
    if path:
        os.makedirs(path, exist_ok=True)
        return path, None
    tmp = tempfile.TemporaryDirectory(prefix="wikiwit-conformance-")
    return tmp.name, tmp


# Statuses a test ends in; only `pass` passes, `left-out` is not counted as run.
PASS, FAIL, ERROR, CRASH, TIMEOUT, SKIP, LEFT_OUT = (
    "pass", "fail", "error", "crash", "timeout", "skip", "left-out")


def test_key(result):
    return (result["file"], result["index"], result["name"])


def write_results(path, header, results):
    """The results as JSON lines: a header object, then one object per test in suite
    order, keys sorted, so two runs diff line by line."""
    with open(path, "w", encoding="utf-8") as f:
        f.write(json.dumps({"header": header}, ensure_ascii=False, sort_keys=True) + "\n")
        for r in results:
            f.write(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n")


def read_results(path):
    with open(path, encoding="utf-8") as f:
        rows = [json.loads(line) for line in f if line.strip()]
    return [r for r in rows if "header" not in r]


def regressions(baseline, results, files):
    """Tests of `files` (those this run ran) that passed in `baseline` and do not pass
    now (or are gone), as lines."""
    now = {test_key(r): r for r in results}
    lines = []
    for old in baseline:
        if old["status"] != PASS or old["file"] not in files:
            continue
        new = now.get(test_key(old))
        if new is None:
            lines.append(f"{old['file']}[{old['index']}] {old['name']}: passed, now missing")
        elif new["status"] != PASS:
            lines.append(f"{old['file']}[{old['index']}] {old['name']}: passed, now {new['status']}")
    return lines


def summary_table(results, files):
    """Per file: passed / run / left out, and the total; `run` counts every test the
    harness ran (passed, failed, errors, crashes, time-outs), not those left out or
    skipped by the suite itself."""
    rows = []
    total = [0, 0, 0, 0]
    for name in files:
        mine = [r for r in results if r["file"] == name]
        passed = sum(r["status"] == PASS for r in mine)
        left = sum(r["status"] == LEFT_OUT for r in mine)
        skipped = sum(r["status"] == SKIP for r in mine)
        run = len(mine) - left - skipped
        rows.append((name, passed, run, left, skipped))
        for i, v in enumerate((passed, run, left, skipped)):
            total[i] += v
    rows.append(("total", *total))
    width = max(len(r[0]) for r in rows)
    lines = [f"{'file':<{width}}  passed /    run    %   left out  skipped"]
    for name, passed, run, left, skipped in rows:
        pct = f"{100.0 * passed / run:5.1f}" if run else "    -"
        lines.append(f"{name:<{width}}  {passed:6} / {run:6}  {pct}  {left:8}  {skipped:7}")
    return "\n".join(lines)


def show_failures(results):
    for r in results:
        if r["status"] in (PASS, LEFT_OUT):
            continue
        print(f"\n--- {r['file']}[{r['index']}] {r['name']}: {r['status']}")
        if r.get("detail"):
            print(f"    {r['detail']}")
        if "expected" in r:
            print(f"    expected: {r['expected']!r}\n    actual:   {r.get('actual')!r}")
    print()


def left_out_lines(results):
    """One line per reason a test was left out, with how many."""
    reasons = {}
    for r in results:
        if r["status"] == LEFT_OUT:
            reasons[r["detail"]] = reasons.get(r["detail"], 0) + 1
    return [f"{count:4}  {reason}" for reason, count in reasons.items()]


def finish(args, header, results, files):
    """Writes the results file, prints the failures (`--show`), the table and the reasons
    for what was left out, and returns the exit code: 1 when a test that passed in
    `--baseline` no longer does, else 0."""
    if args.out:
        write_results(args.out, header, results)
    if args.show:
        show_failures(results)
    print(summary_table(results, files))
    left = left_out_lines(results)
    if left:
        print("\nleft out (not counted):\n" + "\n".join(left))
    if not args.baseline:
        return 0
    lost = regressions(read_results(args.baseline), results, set(files))
    if lost:
        print(f"\n{len(lost)} regression(s) against {args.baseline}:")
        for line in lost:
            print("  " + line)
        return 1
    print(f"\nno regression against {args.baseline}")
    return 0


def add_common_args(parser):
    parser.add_argument("--ref", help="read the checkout at this git ref (a bare mirror "
                        "needs one), e.g. refs/heads/REL1_39")
    parser.add_argument("--wikiwit", default=default_binary(),
                        help="the wikiwit binary to test (default: target/release/wikiwit)")
    parser.add_argument("--work", help="keep the dump and index in this directory "
                        "(default: a temporary one)")
    parser.add_argument("--out", help="write per-test results here as JSON lines")
    parser.add_argument("--baseline", help="a results file of an earlier run: exit 1 if a "
                        "test that passed there does not pass now")
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1,
                        help="expansions run at once (default: one per core)")
    parser.add_argument("--timeout", type=float, default=60.0,
                        help="seconds one wikiwit process may take (default 60)")
    parser.add_argument("--mediawiki", metavar="DIR",
                        help="run on MediaWiki 1.39 (Debian's package) instead of wikiwit, "
                             "with a wiki created in DIR: the harness's own check")
    parser.add_argument("--show", action="store_true",
                        help="print every test that does not pass, with what it gave")
