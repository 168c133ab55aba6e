#!/usr/bin/env python3
"""Peak memory of a command and its child processes, sampled from /proc (Linux).

What: runs CMD, reads /proc/<pid>/status of it and of every descendant every 10 ms and
keeps the peaks of the sums over the process tree of RssAnon (resident anonymous memory:
what issue 15 calls "resident minus shared"), VmRSS and RssFile (resident file-backed
pages, e.g. mmapped index files and the binary, which the kernel can drop and re-read).
Peak VmRSS from the kernel's own counter (VmHWM, and ru_maxrss of the waited child) is
reported too, since a 10 ms sampler can miss a short spike.

Why: /usr/bin/time's maximum RSS counts file pages, which grow with the index written
and read back through mmap; anonymous memory is what must stay bounded.

How:
    tools/peak-mem.py [--json FILE] [--trace FILE] [--interval SECONDS] -- CMD ARGS...

Prints one JSON line {cmd, exit, wall_s, peak_anon_bytes, peak_rss_bytes,
peak_file_bytes, peak_hwm_bytes, ru_maxrss_bytes, samples} to stderr, or to FILE with
--json, and exits with CMD's exit code (128 + N if CMD died of signal N). CMD's own
stdin, stdout and stderr are passed through. --trace FILE also writes every sample
as a line "seconds anon_bytes rss_bytes file_bytes" (to see when the peak happens).
Standard library only.
"""

import argparse
import json
import os
import signal
import subprocess
import sys
import time


def read_status(pid):
    """(RssAnon, VmRSS, RssFile, VmHWM) in bytes, or None if the process is gone."""
    try:
        with open(f"/proc/{pid}/status", "rb") as f:
            data = f.read()
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return None
    vals = {}
    for line in data.split(b"\n"):
        if line[:3] in (b"Rss", b"VmR", b"VmH"):
            k, _, v = line.partition(b":")
            parts = v.split()
            if parts:
                vals[k] = int(parts[0]) * 1024
    if b"VmRSS" not in vals:  # a zombie: no memory left to count
        return None
    return (vals.get(b"RssAnon", 0), vals.get(b"VmRSS", 0), vals.get(b"RssFile", 0),
            vals.get(b"VmHWM", 0))


def children_map():
    """ppid -> [pid] over all processes (/proc/<pid>/task/*/children is not always
    available, so the process table is scanned)."""
    kids = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        # comm may hold spaces and parentheses: fields start after the last ')'.
        rest = stat[stat.rfind(b")") + 2:].split()
        if len(rest) > 1:
            kids.setdefault(int(rest[1]), []).append(int(name))
    return kids


def descendants(root, kids):
    out, todo = [], [root]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(kids.get(p, ()))
    return out


def main():
    ap = argparse.ArgumentParser(
        description="Run a command and report its peak anonymous/resident/file memory.",
        usage="%(prog)s [--json FILE] [--trace FILE] [--interval S] -- CMD ARGS...")
    ap.add_argument("--json", metavar="FILE", help="write the JSON line here, not to stderr")
    ap.add_argument("--trace", metavar="FILE", help="write every sample here")
    ap.add_argument("--interval", type=float, default=0.01, help="sampling period (0.01 s)")
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd[:1] == ["--"] else a.cmd
    if not cmd:
        ap.error("no command given (tools/peak-mem.py -- CMD ARGS...)")
    if not os.path.exists("/proc/self/status"):
        ap.error("/proc is needed (Linux)")

    trace = open(a.trace, "w") if a.trace else None
    t0 = time.monotonic()
    try:
        proc = subprocess.Popen(cmd)
    except OSError as e:
        print(f"peak-mem: cannot run {cmd[0]}: {e}", file=sys.stderr)
        return 127

    def forward(sig, _frame):
        try:
            proc.send_signal(sig)
        except ProcessLookupError:
            pass
    for s in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, forward)
    # Ctrl-C reaches the child through the terminal's process group; keep sampling.
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    peak_anon = peak_rss = peak_file = peak_hwm = 0
    samples = 0
    tree = [proc.pid]
    rusage = None
    status = None
    n = 0
    while True:
        # Rescan the process table for new descendants every 10th sample (100 ms).
        if n % 10 == 0:
            tree = descendants(proc.pid, children_map())
        n += 1
        anon = rss = fil = 0
        seen = False
        for pid in tree:
            st = read_status(pid)
            if st is None:
                continue
            seen = True
            anon += st[0]
            rss += st[1]
            fil += st[2]
            if pid == proc.pid:
                peak_hwm = max(peak_hwm, st[3])
        if seen:
            samples += 1
            peak_anon = max(peak_anon, anon)
            peak_rss = max(peak_rss, rss)
            peak_file = max(peak_file, fil)
            if trace:
                trace.write(f"{time.monotonic() - t0:.3f} {anon} {rss} {fil}\n")
        pid, status, rusage = os.wait4(proc.pid, os.WNOHANG)
        if pid == proc.pid:
            break
        time.sleep(a.interval)
    wall = time.monotonic() - t0
    if trace:
        trace.close()
    proc.returncode = status  # reaped here; keep Popen from waiting again
    if os.WIFEXITED(status):
        code = os.WEXITSTATUS(status)
    elif os.WIFSIGNALED(status):
        code = 128 + os.WTERMSIG(status)
    else:
        code = 1
    rec = {
        "cmd": cmd,
        "exit": code,
        "wall_s": round(wall, 3),
        "peak_anon_bytes": peak_anon,
        "peak_rss_bytes": peak_rss,
        "peak_file_bytes": peak_file,
        "peak_hwm_bytes": peak_hwm,
        "ru_maxrss_bytes": rusage.ru_maxrss * 1024 if rusage else 0,
        "user_s": round(rusage.ru_utime, 3) if rusage else 0,
        "sys_s": round(rusage.ru_stime, 3) if rusage else 0,
        "samples": samples,
    }
    line = json.dumps(rec) + "\n"
    if a.json:
        with open(a.json, "w") as f:
            f.write(line)
    else:
        sys.stderr.write(line)
    return code


if __name__ == "__main__":
    sys.exit(main())
