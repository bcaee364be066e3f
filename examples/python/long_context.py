# SPDX-License-Identifier: MIT
"""The long-context lesson's charts, from posenc's numbers, as PNG files.

    PYTHONPATH=<build>/python /usr/bin/python3 examples/python/long_context.py [output_dir]

  turns.png        turns per pair of Qwen3-8B within its 32,768-token training length (log scale);
                   the pairs direct extrapolation to 131,072 drives past any angle seen in training
                   in red (24 of 64: pairs 40-63), the one-turn line dashed
  compression.png  theta'_i / theta_i per pair at 4x for PI, NTK-aware and YaRN (1 = untouched)
  decay.png        RoFormer's relative decay bound U(r) for 64 rotary dims at bases 1e4, 1e6, 1e7

Needs matplotlib (Debian python3-matplotlib); without it, says so and exits 0.
"""
import os
import sys

import posenc


def main(output_dir):
    try:
        import matplotlib
    except ImportError:
        print("long_context.py: matplotlib is not installed; no charts drawn")
        return 0
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    os.makedirs(output_dir, exist_ok=True)
    preset = posenc.presets.qwen3_8b()
    spec = preset.rope_spec()
    trained, target = preset.native_length, 4 * preset.native_length

    # 1. turns per pair, out-of-range pairs in red
    direct = posenc.extension_diagnostics(spec, posenc.NoScaling(), trained, target).columns()
    colors = ["#d62728" if out else "#1f77b4" for out in direct["out_of_range"]]
    fig, ax = plt.subplots(figsize=(10, 4))
    ax.bar(direct["index"], direct["turns_original"], color=colors)
    ax.axhline(1.0, color="black", linestyle="--", linewidth=1, label="one full turn")
    ax.set_yscale("log")
    ax.set_xlabel("pair i")
    ax.set_ylabel("turns within %d tokens" % trained)
    ax.set_title("%s: %d of %d pairs never turn within %d; red = out of range at %d"
                 % (preset.display_name, int(direct["out_of_range"].sum()), spec.num_pairs, trained, target))
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(output_dir, "turns.png"), dpi=120)
    plt.close(fig)

    # 2. compression per pair under each method
    methods = [("PI (linear x4)", posenc.LinearScaling(4.0)),
               ("NTK-aware x4", posenc.NtkAwareScaling(4.0)),
               ("YaRN x4", preset.scaling())]
    fig, ax = plt.subplots(figsize=(10, 4))
    for label, scaling in methods:
        d = posenc.extension_diagnostics(spec, scaling, trained, target)
        ax.plot(d.columns()["index"], d.columns()["compression"],
                label="%s: %d pairs out of range" % (label, d.summary.out_of_range_pairs))
    ax.set_xlabel("pair i")
    ax.set_ylabel("compression theta'_i / theta_i")
    ax.set_title("%s extended %d -> %d" % (preset.display_name, trained, target))
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(output_dir, "compression.png"), dpi=120)
    plt.close(fig)

    # 3. RoFormer's decay bound
    fig, ax = plt.subplots(figsize=(10, 4))
    for base in (1e4, 1e6, 1e7):
        table = posenc.FrequencyTable.from_spec(posenc.RopeSpec.full(64, base))
        r, u = posenc.roformer_bound_curve(table, 0.0, 1000.0, 1001)
        half = posenc.first_distance_below(table, u[0] / 2, 1000)
        ax.plot(r, u, label="base %g: below half at r = %s" % (base, half))
    ax.set_xlabel("relative distance r")
    ax.set_ylabel("U(r) (RoFormer eq. 37)")
    ax.set_title("Long-term decay of RoPE's relative upper bound, 64 rotary dims")
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(output_dir, "decay.png"), dpi=120)
    plt.close(fig)

    for name in ("turns.png", "compression.png", "decay.png"):
        print(os.path.join(output_dir, name))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "long_context_charts"))
