# SPDX-License-Identifier: MIT
# posenc.torch.apply_rope, the differentiable RoPE: gradcheck in double and float, and the
# gradient against the transposed rotation restated here in NumPy float64 (R^T g: a' = a c + b s,
# b' = b c - a s for half-split pairs (i, i + R/2), RoFormer eq. 34 transposed).
# Skipped with the reason when torch is absent.
import numpy as np
import pytest

import posenc


@pytest.fixture(scope="module")
def pt(torch):
    import posenc.torch

    return posenc.torch


def rotate_numpy(x, positions, base, inverse=False):
    """Half-split RoPE of x [seq, heads, d] in float64; inverse: the transposed rotation."""
    d = x.shape[-1]
    theta = base ** (-np.arange(0, d, 2) / d)
    angle = np.asarray(positions, dtype=np.float64)[:, None] * theta[None, :]
    c, s = np.cos(angle)[:, None, :], np.sin(angle)[:, None, :]
    if inverse:
        s = -s
    a, b = x[..., : d // 2], x[..., d // 2 :]
    return np.concatenate((a * c - b * s, b * c + a * s), axis=-1)


def make_case(torch, dtype, shape=(2, 5, 3, 16)):
    spec = posenc.RopeSpec.full(shape[-1], 10000.0)
    table = posenc.FrequencyTable.from_spec(spec)
    x = torch.randn(*shape, dtype=torch.float64, generator=torch.Generator().manual_seed(3)).to(dtype)
    return spec, table, x.requires_grad_()


def test_gradcheck_double(torch, pt):
    spec, table, x = make_case(torch, torch.float64)
    assert torch.autograd.gradcheck(lambda t: pt.apply_rope(t, spec, table, 7), (x,))
    ids = torch.tensor([[0, 9, 2, 100, 5], [1, 1, 1, 1, 1]])
    assert torch.autograd.gradcheck(lambda t: pt.apply_rope(t, spec, table, ids), (x,))


@pytest.mark.filterwarnings("ignore:Input #0 requires gradient and is not a double")
def test_gradcheck_float32_with_float_tolerances(torch, pt):
    spec, table, x = make_case(torch, torch.float32)
    assert torch.autograd.gradcheck(lambda t: pt.apply_rope(t, spec, table, 1000), (x,), eps=1e-2, atol=1e-3,
                                    rtol=1e-3)


def test_gradcheck_hf_head_major_layout(torch, pt):
    spec, table, x = make_case(torch, torch.float64, shape=(2, 3, 5, 16))  # [batch, heads, seq, dim]
    assert torch.autograd.gradcheck(lambda t: pt.apply_rope(t, spec, table, 40, layout="htd"), (x,))


def test_forward_and_gradient_equal_the_rotation_and_its_transpose(torch, pt):
    spec, table, x = make_case(torch, torch.float64, shape=(6, 2, 32))
    y = pt.apply_rope(x, spec, table, 50)
    positions = np.arange(50, 56)
    assert np.max(np.abs(y.detach().numpy() - rotate_numpy(x.detach().numpy(), positions, 10000.0))) <= 1e-13
    g = torch.randn(6, 2, 32, dtype=torch.float64)
    y.backward(g)
    want = rotate_numpy(g.numpy(), positions, 10000.0, inverse=True)
    assert np.max(np.abs(x.grad.numpy() - want)) <= 1e-13


def test_bfloat16_trains_and_x_is_untouched(torch, pt):
    spec, table, x = make_case(torch, torch.bfloat16, shape=(4, 2, 16))
    before = x.detach().clone()
    y = pt.apply_rope(x, spec, table, 3)
    y.float().pow(2).sum().backward()
    assert torch.equal(x.detach(), before)
    assert x.grad.dtype == torch.bfloat16 and x.grad.shape == x.shape


def test_bad_input_is_a_posenc_error_naming_the_argument(torch, pt):
    spec, table, x = make_case(torch, torch.float32)
    with pytest.raises(posenc.Error, match="x.dtype int64 must be float32"):
        pt.apply_rope(torch.zeros(2, 1, 16, dtype=torch.int64), spec, table)
    with pytest.raises(posenc.Error, match="x.shape\\[-1\\] 8 must equal spec.head_dim 16"):
        pt.apply_rope(torch.zeros(2, 1, 8), spec, table)
    with pytest.raises(posenc.Error, match="x.ndim 2 must be 3"):
        pt.apply_rope(torch.zeros(2, 16), spec, table)
    with pytest.raises(posenc.Error, match="positions.dtype float32 must be int32 or int64"):
        pt.apply_rope(x, spec, table, torch.zeros(5))
