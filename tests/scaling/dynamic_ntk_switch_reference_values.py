#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Independent evaluation of the cached lengths pasted into tests/scaling/dynamic_ntk_switch.cpp.

Restates, in plain Python and NOT from posenc's code, the rule transformers applies before every
forward pass of a "dynamic" rotary module (modeling_rope_utils.py, dynamic_rope_update ->
dynamic_frequency_update; the module's max_seq_len_cached and original_max_seq_len both start at
config.max_position_embeddings L):

    seq_len = max(position_ids) + 1
    if seq_len > cached:                      recompute inv_freq at seq_len; cached = seq_len
    if seq_len < L and cached_before > L:     restore the init inv_freq;     cached = L

(cached_before: the value read before the growth branch, as transformers reads it into a local.)
The table in effect is the one computed at `cached` when cached > L, else the init table ("init").

Run:  python3 tests/scaling/dynamic_ntk_switch_reference_values.py   (standard library only)
"""

L = 4096
LENGTHS = [100, 4096, 4097, 5000, 4500, 4096, 4095, 8192, 10, 3000, 9000, 9000, 4096, 2147483647, 1]

cached = L
table = "init"
for n in LENGTHS:
    before = cached
    if n > before:
        cached, table = n, n
    if n < L and before > L:
        cached, table = L, "init"
    print("n %10d -> cached %10d, table %s" % (n, cached, table))
