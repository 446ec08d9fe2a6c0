"""Sum the per-file compile times a test run recorded with JTORCH_COMPILE_STATS (conftest.py).

    JTORCH_COMPILE_STATS=/tmp/cs python -m pytest -n 2 tests --junitxml=/tmp/junit.xml
    python scripts/compile_stats.py /tmp/cs --junit /tmp/junit.xml

Prints, over all worker processes, JAX's tracing, lowering (jaxpr to MLIR) and XLA compile
seconds and counts, the persistent cache's hits, and the files that compile most; with
``--junit``, each file's test time beside them.
"""

from __future__ import annotations

import argparse
import collections
import glob
import json
import xml.etree.ElementTree as ET

PHASES = ("jaxpr_trace_duration", "jaxpr_to_mlir_module_duration", "backend_compile_duration")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("stats", help="the JTORCH_COMPILE_STATS path given to the test run")
    p.add_argument("--junit", help="pytest's --junitxml file, for each file's test time")
    p.add_argument("--top", type=int, default=15)
    a = p.parse_args()
    per_file = collections.defaultdict(collections.Counter)
    for path in glob.glob(a.stats + ".*"):
        with open(path) as f:
            for test_file, entry in json.load(f).items():
                per_file[test_file].update(entry)
    total = collections.Counter()
    for entry in per_file.values():
        total.update(entry)
    test_time = collections.Counter()
    if a.junit:
        for case in ET.parse(a.junit).iter("testcase"):
            name = "tests/" + case.get("classname").rsplit(".", 1)[-1] + ".py"
            test_time[name] += float(case.get("time"))
    seconds = sum(total[ph] for ph in PHASES)
    print(f"JAX trace + lowering + XLA compile: {seconds:.0f} s over "
          f"{total['backend_compile_duration count']} compilations "
          f"(trace {total[PHASES[0]]:.0f} s, lowering {total[PHASES[1]]:.0f} s, "
          f"compile {total[PHASES[2]]:.0f} s); persistent-cache hits: "
          f"{total['cache_retrieval_time_sec count']}")
    if a.junit:
        print(f"test time (all workers): {sum(test_time.values()):.0f} s")
    rows = sorted(per_file.items(), key=lambda kv: -sum(kv[1][ph] for ph in PHASES))
    for name, entry in rows[:a.top]:
        spent = sum(entry[ph] for ph in PHASES)
        beside = f"  test time {test_time[name]:6.1f} s" if a.junit else ""
        print(f"{name:48s} compile {spent:6.1f} s  n {entry['backend_compile_duration count']:5d}"
              f"{beside}")


if __name__ == "__main__":
    main()
