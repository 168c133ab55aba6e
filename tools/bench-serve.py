#!/usr/bin/env python3
"""Load bench for `wikiwit serve` (not a test): title resolution over the Action API at N
concurrent keep-alive connections for T seconds, then search; reports requests/s, p50/p99
latency, errors, and the server's resident memory before, during and after.

  tools/bench-serve.py --index DIR [--wikiwit target/release/wikiwit] [-c 64] [-t 20]

Titles are every page title of the index (`wikiwit export pages`), asked in a fixed
shuffled order; the generator is bounded (one request in flight per connection).
"""

import argparse
import http.client
import os
import random
import subprocess
import threading
import time
import urllib.parse


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def load():
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def run(port, paths, conns, seconds):
    lat, errors, lock = [], [0], threading.Lock()
    stop = time.monotonic() + seconds

    def worker(k):
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        mine, i = [], k
        while time.monotonic() < stop:
            p = paths[i % len(paths)]
            i += conns
            t0 = time.perf_counter()
            try:
                c.request("GET", p)
                r = c.getresponse()
                body = r.read()
                if r.status != 200 or b'"error"' in body:
                    with lock:
                        errors[0] += 1
            except Exception:
                with lock:
                    errors[0] += 1
                c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
                continue
            mine.append(time.perf_counter() - t0)
        with lock:
            lat.extend(mine)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(conns)]
    t0 = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.monotonic() - t0
    lat.sort()
    q = lambda x: lat[min(len(lat) - 1, int(x * len(lat)))] * 1000 if lat else 0
    return len(lat), wall, q(0.5), q(0.99), errors[0]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--index", required=True)
    ap.add_argument("--wikiwit", default="target/release/wikiwit")
    ap.add_argument("-c", type=int, default=64)
    ap.add_argument("-t", type=float, default=20)
    a = ap.parse_args()
    print(f"machine: {os.cpu_count()} cores, load average {load()} before the run "
          "(shared with other work: the generator and the server compete for the same cores)")
    pages = subprocess.run([a.wikiwit, "export", "pages", "--index", a.index],
                           capture_output=True, text=True, check=True).stdout
    titles = [l.split("\t")[2].replace("_", " ") for l in pages.splitlines() if l.split("\t")[1] == "0"]
    random.Random(17).shuffle(titles)
    server = subprocess.Popen([a.wikiwit, "serve", "--index", a.index, "--addr", "127.0.0.1:0"],
                              stdout=subprocess.PIPE, text=True)
    try:
        line = server.stdout.readline()
        port = int(line.split("http://")[1].split("/")[0].rsplit(":", 1)[1])
        q = urllib.parse.quote
        resolve = [f"/w/api.php?action=query&format=json&redirects&prop=info&titles={q(t)}" for t in titles]
        words = [w for t in titles for w in t.split() if len(w) > 3][:500]
        search = [f"/w/api.php?action=query&format=json&list=search&srlimit=10&srsearch={q(w)}" for w in words]
        before = rss_kib(server.pid)
        print(f"server RSS before: {before} KiB")
        # Resolution runs twice: memory is flat if the second round ends where the first did.
        for phase, paths in [("title resolution", resolve), ("title resolution again", resolve),
                             ("search", search)]:
            samples, stop = [], threading.Event()

            def sample():
                while not stop.wait(1.0):
                    samples.append(rss_kib(server.pid))

            s = threading.Thread(target=sample)
            s.start()
            n, wall, p50, p99, err = run(port, paths, a.c, a.t)
            stop.set()
            s.join()
            print(f"{phase}: {a.c} connections, {wall:.1f} s: {n} requests, {n / wall:.0f} req/s, "
                  f"p50 {p50:.2f} ms, p99 {p99:.2f} ms, {err} errors; server RSS sampled each "
                  f"second min {min(samples or [0])} max {max(samples or [0])} KiB, "
                  f"{rss_kib(server.pid)} KiB after")
        print(f"load average {load()} after the run")
    finally:
        server.kill()
        server.wait()


if __name__ == "__main__":
    main()
