#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Independent values for tests/reference/rerotation.cpp: the angle difference
m * theta_to - m * theta_from folded into [-pi, pi], with the doubles theta given below read
exactly (float.hex) and the product taken in mpmath at 400 bits (not posenc's reduction).

Run:  python3 tests/reference/rerotation_reference_values.py   (needs only mpmath)
"""
import mpmath

mpmath.mp.prec = 400

cases = [
    (2147483647, 1.0, 0.5),
    (2147483647, 0.75036744115274396276, 0.73696801942310809375),
    (4097, 0.75036744115274396276, 0.73696801942310809375),
    (1000000, 0.000039722218315691461486, 1.8707961992959697788e-6),
]
for m, f, t in cases:
    fd, td = float(f), float(t)
    d = mpmath.mpf(m) * (mpmath.mpf(td) - mpmath.mpf(fd))
    two_pi = 2 * mpmath.pi
    r = d - two_pi * mpmath.nint(d / two_pi)
    print("{%d, %s, %s, %s}," % (m, fd.hex(), td.hex(), mpmath.nstr(r, 25)))
