# SPDX-License-Identifier: MIT
"""The benchmarks' one timer: median wall time of a step, after one warm-up call (tables built,
page faults taken, caches warm). Medians, because these machines are noisy."""
import statistics
import time


def median_seconds(run, repeats):
    run()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)
