"""Garbage collector settings for an engine process.

A large stack keeps hundreds of thousands of objects alive for the length of an action (records,
writes, tasks). With the default thresholds the collector re-scans them over and over: on a
10,000-resource stack that was a third of the engine's time. Everything loaded before the engine
starts (plugins, schemas, configuration) is moved out of the collector's sight, and young
collections run after more allocations. Cycles are still collected.
"""

from __future__ import annotations

import gc

# Allocations (net) before a young collection; then the defaults' ratios for older generations
# (more lenient for the oldest, whose scans cost the most).
YOUNG_THRESHOLD = 50_000
MIDDLE_THRESHOLD = 20
OLD_THRESHOLD = 100


_tuned = False


def tune_for_engine() -> None:
    """Apply the settings above to this process (once; later calls do nothing)."""
    global _tuned
    if _tuned:
        return
    _tuned = True
    gc.collect()
    gc.freeze()
    gc.set_threshold(YOUNG_THRESHOLD, MIDDLE_THRESHOLD, OLD_THRESHOLD)
