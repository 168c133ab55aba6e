"""Fixtures: indexes of the 206-page enwiki dump and the rivers sample, built once per
session with the bindings, and the `wikiwit` executable to compare them with."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import wikiwit

REPO = Path(__file__).resolve().parents[2]
# Spark's Python workers must import this same wikiwit.
os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)

DATA = Path(os.environ.get("WIKIWIT_SHARED", REPO / "tests/data/shared")) / "data"


def cli_binary() -> str:
    """The CLI to compare with: $WIKIWIT_BIN, else `wikiwit` on PATH."""
    b = os.environ.get("WIKIWIT_BIN") or shutil.which("wikiwit")
    if not b:
        pytest.fail("set WIKIWIT_BIN to the wikiwit executable (cargo build)")
    return b


class Cli:
    def __init__(self, index: Path):
        self.bin = cli_binary()
        self.index = index

    def run(self, *args, ok=(0, 1)):
        p = subprocess.run(
            [self.bin, *args, "--index", str(self.index)],
            capture_output=True,
            text=True,
        )
        assert p.returncode in ok, f"{args}: exit {p.returncode}: {p.stderr}"
        return p

    def json(self, *args):
        """The single JSON value printed by `wikiwit ARGS --json`."""
        return json.loads(self.run(*args, "--json").stdout)

    def json_lines(self, *args):
        return [json.loads(l) for l in self.run(*args, "--json").stdout.splitlines() if l]


@pytest.fixture(scope="session")
def enwiki(tmp_path_factory):
    d = tmp_path_factory.mktemp("enwiki") / "ix"
    seen = []
    wikiwit.build(DATA / "enwiki-2016-206pages.xml.bz2", d, progress=lambda *a: seen.append(a))
    assert seen, "no progress reported"
    return wikiwit.Index(d), Cli(d)


@pytest.fixture(scope="session")
def rivers(tmp_path_factory):
    d = tmp_path_factory.mktemp("rivers") / "ix"
    wikiwit.build(REPO / "tests/data/rivers/rivers-wiki.xml", d)
    return wikiwit.Index(d), Cli(d)
