# SPDX-License-Identifier: MIT
# Independent reference for examples/ten_degrees.cpp (ctest example_ten_degrees): prints the text
# the program must print, with every number computed here in mpmath at 40 digits from the side
# lesson's setup (one pair turning 10 degrees per position; q = (1, 0.5) at m, k = (0.8, -0.3) at
# n; R(phi) = [[cos, -sin], [sin, cos]]). The layout mirrors the program's printf formats.
#   /usr/bin/python3 tests/encodings/ten_degrees_reference.py
# Its output (below the '#' provenance lines) is tests/encodings/ten_degrees.expected.
import mpmath

mpmath.mp.dps = 40
step = mpmath.pi / 18  # 10 degrees


def rotate(v, phi):
    c, s = mpmath.cos(phi), mpmath.sin(phi)
    return (c * v[0] - s * v[1], s * v[0] + c * v[1])


def degrees_turned(position):
    return (position * 10) % 360


q, k = (mpmath.mpf(1), mpmath.mpf("0.5")), (mpmath.mpf("0.8"), mpmath.mpf("-0.3"))
placements = [("start", 5, 2), ("shift +18", 23, 20)]
print("RoPE with one pair turning 10 degrees per position;")
print("q = (1, 0.5) at position m, k = (0.8, -0.3) at position n.")
print()
print("%-10s %3s %3s  %8s  %8s  %10s" % ("placement", "m", "n", "q turns", "k turns", "difference"))
for name, m, n in placements:
    qd, kd = degrees_turned(m), degrees_turned(n)
    print("%-10s %3d %3d  %8.3f  %8.3f  %10.3f" % (name, m, n, qd, kd, qd - kd))
print()
print("%-10s  %-22s   %-22s  %9s" % ("placement", "R(m t) q", "R(n t) k", "dot"))
rotated = []
for name, m, n in placements:
    qm, kn = rotate(q, m * step), rotate(k, n * step)
    rotated.append(qm)
    dot = qm[0] * kn[0] + qm[1] * kn[1]
    print("%-10s  (%9.6f, %9.6f)   (%9.6f, %9.6f)  %9.6f" % (name, qm[0], qm[1], kn[0], kn[1], dot))
rk = rotate(k, -3 * step)
relative = q[0] * rk[0] + q[1] * rk[1]
print()
print("q^T R((n - m) t) k with n - m = -3 (-30 degrees): %9.6f," % relative)
print("the same for both placements.")
distance = mpmath.sqrt((rotated[1][0] - rotated[0][0]) ** 2 + (rotated[1][1] - rotated[0][1]) ** 2)
print("Yet R(5 t) q and R(23 t) q are different vectors:")
print("|R(23 t) q - R(5 t) q| = %8.6f (18 positions = 180 degrees apart: 2 |q|)." % distance)
