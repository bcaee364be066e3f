#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Expected values for tests/multi_axis/multimodal_layouts.cpp, restating Hugging Face transformers'
code with Python lists and mpmath (60 digits), independently of posenc:

  HunYuan-VL, transformers 5.x (models/hunyuan_vl/modeling_hunyuan_vl.py,
    apply_multimodal_rotary_pos_emb): emb = cat(freqs, freqs) per axis; sections doubled element-wise
    ([2 s_j]); chunk i of the split takes axis i % len(sections); q * cos + rotate_half(q) * sin.
  HunYuan XD-RoPE, Tencent's code (apply_rotary_pos_emb_xdrope): the same with the section list
    REPEATED (xdrope_section * 2).
  ERNIE-4.5-VL (models/ernie4_5_vl_moe/modeling_ernie4_5_vl_moe.py): inv_freq_3d = cat(inv[:-t][0::2],
    inv[:-t][1::2]) + inv[-t:]; freqs per axis (t, h, w); recomposition_to_3d: split [s_h, s_w, s_t],
    chunk i takes axis (i + 1) % 3, stack(h, w).flatten, cat t, repeat_interleave(2);
    q * cos + rotate_half_text(q) * sin (interleaved).
  get_rope_index of both models for a small prompt (get_vision_position_ids as written there).

Run:  python3 tests/multi_axis/multimodal_reference.py   (needs only mpmath)
"""
import mpmath

mpmath.mp.dps = 60


def inv_freq(base, H):
    return [mpmath.power(mpmath.mpf(base), mpmath.mpf(-2 * i) / H) for i in range(H // 2)]


def rotate_half(q):
    h = len(q) // 2
    return [-x for x in q[h:]] + q[:h]


def rotate_half_interleaved(q):
    out = []
    for i in range(0, len(q), 2):
        out += [-q[i + 1], q[i]]
    return out


def split(v, sizes):
    out, k = [], 0
    for s in sizes:
        out.append(v[k:k + s])
        k += s
    return out


def hunyuan(q, positions, sections, base, doubled_elementwise):
    H = len(q)
    inv = inv_freq(base, H)
    emb = [[p * f for f in inv] * 2 for p in positions]  # cat(freqs, freqs) per axis
    sizes = [2 * s for s in sections] if doubled_elementwise else list(sections) * 2
    n = len(sections)
    angle = []
    for i, _ in enumerate(sizes):
        angle += split(emb[i % n], sizes)[i]
    cos = [mpmath.cos(a) for a in angle]
    sin = [mpmath.sin(a) for a in angle]
    r = rotate_half(q)
    return [q[c] * cos[c] + r[c] * sin[c] for c in range(H)]


def ernie(q, positions_thw, section, base):
    H = len(q)
    inv = inv_freq(base, H)
    t_dim = section[2]
    head = inv[:-t_dim]
    inv3d = head[0::2] + head[1::2] + inv[-t_dim:]
    freqs = [[p * f for f in inv3d] for p in positions_thw]  # axis 0 t, 1 h, 2 w
    chunks = [split(freqs[(i + 1) % 3], section)[i] for i in range(3)]
    fh, fw, ft = chunks
    hw = []
    for a, b in zip(fh, fw):
        hw += [a, b]
    angle = []
    for a in hw + ft:
        angle += [a, a]
    r = rotate_half_interleaved(q)
    return [q[c] * mpmath.cos(angle[c]) + r[c] * mpmath.sin(angle[c]) for c in range(H)]


def ernie_positions(segments, sm, tm):
    axes = [[], [], []]
    c = 0
    for seg in segments:
        if seg[0] == "text":
            for k in range(seg[1]):
                for a in axes:
                    a.append(c + k)
            c += seg[1]
        else:
            kind, t, h, w = seg
            tmerge = 1 if kind == "image" else tm
            T, Hh, W = t // tmerge, h // sm, w // sm
            for i in range(T):
                for j in range(Hh):
                    for k in range(W):
                        axes[0].append(i * 1 + c)
                        axes[1].append(j + c)
                        axes[2].append(k + c)
            c += max(h, w) // sm
    return axes


def hunyuan_positions(segments, num_axes, sm):
    kinds = []
    grids = []
    for seg in segments:
        if seg[0] == "text":
            kinds += [0] * seg[1]
        else:
            _, t, h, w, delimited = seg
            Hh, W = h // sm, w // sm
            kinds += [1] * (Hh * (W + 1) + (2 if delimited else 0))
            grids.append((t, h, w))
    L = len(kinds)
    pos = [list(range(L)) for _ in range(num_axes)]
    image_index = 0
    k = 0
    gi = 0
    while k < L:
        if kinds[k] != 1:
            k += 1
            continue
        start = k
        while k < L and kinds[k] == 1:
            k += 1
        end = k
        t, h, w = grids[gi]
        gi += 1
        Hh, W = h // sm, w // sm
        width = [q for r in range(Hh) for q in range(W + 1)]
        height = [r for r in range(Hh) for q in range(W + 1)]
        n = len(width)
        gstart = start + 1 if end - start == n + 2 else start
        off = num_axes - 3
        for j in range(n):
            pos[off][gstart + j] = width[j]
            pos[off + 1][gstart + j] = height[j]
            pos[off + 2][gstart + j] = image_index
        image_index += 1
    return pos


def show(name, values):
    print("// " + name)
    print("{" + ", ".join(mpmath.nstr(v, 20) for v in values) + "},")


q16 = [mpmath.mpf(x) / 8 for x in (3, -5, 7, 2, -1, 4, 6, -8, 5, 1, -3, 2, 7, -6, 4, 3)]
show("HunYuan-VL transformers 5: H 16, sections [2, 2, 2, 2], positions (10, 3, 5, 1), base 1e4",
     hunyuan(q16, [10, 3, 5, 1], [2, 2, 2, 2], 10000, True))
show("HunYuan XD-RoPE Tencent: same, sections repeated",
     hunyuan(q16, [10, 3, 5, 1], [2, 2, 2, 2], 10000, False))
show("ERNIE-4.5-VL: H 16, mrope_section [3, 3, 2], positions (t, h, w) = (7, 2, 4), base 5e5",
     ernie(q16, [7, 2, 4], [3, 3, 2], 500000))
e = ernie_positions([("text", 3), ("image", 1, 4, 6), ("text", 2), ("video", 4, 4, 4), ("text", 1)], 2, 2)
print("// ERNIE positions: text 3, image (1, 4, 6), text 2, video (4, 4, 4), text 1; sm 2, tm 2")
for a in e:
    print("{" + ", ".join(str(v) for v in a) + "},")
for n in (4, 3):
    p = hunyuan_positions([("text", 2), ("image", 1, 4, 2, True), ("text", 1), ("image", 1, 2, 2, False), ("text", 1)], n, 2)
    print("// HunYuan-VL positions, %d axes: text 2, image (1, 4, 2) delimited, text 1, image (1, 2, 2), text 1; sm 2" % n)
    for a in p:
        print("{" + ", ".join(str(v) for v in a) + "},")
