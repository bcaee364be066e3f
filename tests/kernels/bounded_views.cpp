// SPDX-License-Identifier: MIT
// Views know their buffer: every HeadsView carries the number of elements it may address, and
// the checked entries prove that its first element (data[0]) and its last one
// ((tokens - 1) token_stride + (heads - 1) head_stride + head_dim - 1) lie inside it
// (include/posenc/kernels/views.hpp, detail/checks.hpp). Expected indices are worked out by
// hand next to each check; results of accepted edge cases are compared bit for bit with the
// same call on an ordinary view (an identity: the unused stride must not matter).
#include <doctest/doctest.h>

#include <climits>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "kernel_test_support.hpp"
#include "support/error_messages.hpp"

namespace kernels_bounded_views_tests {  // per-file namespace: a folder builds as one unit (CMAKE_UNITY_BUILD)

namespace {

using namespace posenc::kernels;
using test_support::message_of;

const posenc::RopeSpec spec(64, 64, 1e4);
const CosSinCache cache(posenc::FrequencyTable::from_spec(spec), 16);
const PositionIds at_three = PositionIds::contiguous(3);

template <class T>
std::string error_of(const QKViews<T>& views)
{
    return message_of([&] { apply_rope(spec, cache, at_three, views); });
}

std::vector<float> ramp(std::size_t n)
{
    std::vector<float> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = 0.25f * static_cast<float>(i % 97) - 3.0f;
    return v;
}

bool ends_with(const std::string& s, const std::string& tail)
{
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

}  // namespace

TEST_CASE("[bounds] slice_packed_qkv takes the buffer's size and refuses a shape that does not fit it")
{
    // A buffer packed as 3 tokens of Hq = 4, Hk = 2, D = 64 holds 3 * (4 + 2 * 2) * 64 = 1536
    // elements. Swapping the head counts asks for 3 * (2 + 2 * 4) * 64 = 1920: refused.
    std::vector<float> qkv(1536, 1.0f);
    CHECK(message_of([&] {
              return slice_packed_qkv(qkv, {3, 2, 4, 64});
          }) == "qkv.size 1536 must be >= tokens * (q_heads + 2 kv_heads) * head_dim = 1920 (3 x (2 + 2 x 4) x 64)");
    CHECK(message_of([&] { return slice_packed_qkv(qkv, {3, 4, 2, 64}); }) == "(no error)");
    CHECK(message_of([&] {
              return slice_packed_qkv(qkv.data(), 1535, {3, 4, 2, 64});
          }) == "qkv.size 1535 must be >= tokens * (q_heads + 2 kv_heads) * head_dim = 1536 (3 x (4 + 2 x 2) x 64)");
    CHECK(message_of([&] { return slice_packed_qkv(qkv, {3, 0, 2, 64}); }) == "qkv.q_heads 0 must be >= 1");
    CHECK(message_of([&] { return slice_packed_qkv(qkv, {3, 4, 0, 64}); }) == "qkv.kv_heads 0 must be >= 1");
    CHECK(message_of([&] { return slice_packed_qkv(qkv, {-1, 4, 2, 64}); }) == "qkv.tokens -1 must be >= 0");
    CHECK(message_of([&] { return slice_packed_qkv(qkv, {3, 4, 2, 0}); }) == "qkv.head_dim 0 must be >= 1");
    CHECK(message_of([&] {
              return slice_packed_qkv(static_cast<float*>(nullptr), 0, {0, 1, 1, 64});
          }) == "qkv.data null must point to the packed buffer");
    // Products that overflow 64 bits are refused before they are formed: 2^62 heads of 4 dims.
    CHECK(message_of([&] {
              return slice_packed_qkv(qkv, {1, std::ptrdiff_t {1} << 62, 1, 4});
          }) == "qkv.size 1536 must be >= tokens * (q_heads + 2 kv_heads) * head_dim = 1.8446744073709552e+19 "
                "(1 x (4611686018427387904 + 2 x 1) x 4)");
    // The slices' sizes are what remains of the buffer from their first element.
    const PackedQkv<float> p = slice_packed_qkv(qkv, {3, 4, 2, 64});
    CHECK(p.q.size == 1536);
    CHECK(p.k.size == 1536 - 4 * 64);
    CHECK(p.v.size == 1536 - 6 * 64);
    CHECK(p.k.token_stride == 512);
    CHECK(error_of(QKViews<float>::in_place(p.q, p.k)) == "(no error)");
}

TEST_CASE("[bounds] the last element of every view must lie inside its buffer; the message names view and element")
{
    std::vector<float> x(4096, 1.0f), y(4096, 0.0f);
    // 2 tokens x 1 head x 64: last index (2 - 1) * 64 + 63 = 127.
    CHECK(error_of(QKViews<float>::in_place(HeadsView<float>(x.data(), 127, {2, 1, 64}))) ==
          "q_in.size 127 must be > 127, the index of q_in's last element (token 1, head 0, dim 63): the view would "
          "address memory past its buffer");
    CHECK(error_of(QKViews<float>::in_place(HeadsView<float>(x.data(), 128, {2, 1, 64}))) == "(no error)");
    // Strided: 3 tokens, 2 heads, token_stride 300, head_stride 100: 2 * 300 + 100 + 63 = 763.
    CHECK(error_of(QKViews<float>::in_place(HeadsView<float>(x.data(), 763, {3, 2, 64}, {300, 100}))) ==
          "q_in.size 763 must be > 763, the index of q_in's last element (token 2, head 1, dim 63): the view would "
          "address memory past its buffer");
    CHECK(error_of(QKViews<float>::in_place(HeadsView<float>(x.data(), 764, {3, 2, 64}, {300, 100}))) == "(no error)");
    // Out of place: the output's buffer is checked on its own.
    CHECK(error_of(QKViews<float>::out_of_place(HeadsView<const float>(x, {2, 1, 64}),
                                                HeadsView<float>(y.data(), 100, {2, 1, 64}))) ==
          "q_out.size 100 must be > 127, the index of q_out's last element (token 1, head 0, dim 63): the view would "
          "address memory past its buffer");
    // K too.
    CHECK(error_of(
              QKViews<float>::in_place(HeadsView<float>(x, {1, 1, 64}), HeadsView<float>(y.data(), 63, {1, 1, 64}))) ==
          "k_in.size 63 must be > 63, the index of k_in's last element (token 0, head 0, dim 63): the view would "
          "address memory past its buffer");
    // Negative sizes and sizes beyond any memory are refused by name.
    CHECK(error_of(QKViews<float>::in_place(HeadsView<float>(x.data(), -1, {1, 1, 64}))) ==
          "q_in.size -1 must be in [0, " + std::to_string(PTRDIFF_MAX / 4 / 16) + "] (elements the view may address)");
    // A negative stride on an axis longer than 1 would address memory before data.
    CHECK(error_of(QKViews<float>::in_place(HeadsView<float>(x.data() + 1024, 2048, {1, 2, 64}, {0, -64}))) ==
          "q_in.head_stride -64 must be >= head_dim 64 when heads > 1 (element 1 of that axis would lie before "
          "q_in.data)");
    // Zero tokens address nothing: any size is enough.
    CHECK(error_of(QKViews<float>::in_place(HeadsView<float>(x.data(), 0, {0, 4, 64}))) == "(no error)");
}

TEST_CASE("[bounds] a stride is unused on an axis of extent 1: any value is accepted and gives the ordinary result")
{
    for (const kernel_test::ArchPath& path : kernel_test::arch_paths()) {
        CAPTURE(path.name);
        const std::vector<float> original = ramp(64);
        // One head, head_stride INT64_MIN (PTRDIFF_MIN): nothing may multiply or step by it.
        std::vector<float> odd = original, plain = original;
        kernel_test::apply_on(path, spec, cache, at_three,
                              QKViews<float>::in_place(HeadsView<float>(odd, {1, 1, 64}, {PTRDIFF_MIN, PTRDIFF_MIN})));
        kernel_test::apply_on(path, spec, cache, at_three,
                              QKViews<float>::in_place(HeadsView<float>(plain, {1, 1, 64})));
        CHECK(odd == plain);
        // Several tokens, one head with head_stride INT64_MIN (the prefetch path runs for > 1 token).
        const std::vector<float> two = ramp(128);
        std::vector<float> odd2 = two, plain2 = two;
        kernel_test::apply_on(path, spec, cache, at_three,
                              QKViews<float>::in_place(HeadsView<float>(odd2, {2, 1, 64}, {64, PTRDIFF_MIN})));
        kernel_test::apply_on(path, spec, cache, at_three,
                              QKViews<float>::in_place(HeadsView<float>(plain2, {2, 1, 64})));
        CHECK(odd2 == plain2);
    }
}

TEST_CASE("[bounds] in place with one token: the output's unused token stride may differ from the input's")
{
    std::vector<float> x = ramp(64), expected = ramp(64);
    const HeadsView<float> in(x, {1, 1, 64}, {64, 64});
    const HeadsView<float> out(x, {1, 1, 64}, {4096, 64});  // same elements: the token stride is never used
    CHECK(error_of(QKViews<float> {in, out, {}, {}}) == "(no error)");
    apply_rope(spec, cache, at_three, QKViews<float>::in_place(HeadsView<float>(expected, {1, 1, 64})));
    CHECK(x == expected);
}

TEST_CASE("[bounds] in place, the output's own size must cover every element written through it")
{
    // q_in covers 2 heads of 64 (128 elements); q_out is the same view (same data, shape and
    // strides) but its caller gave it 100 elements: head 1's last element, index 64 + 63 = 127,
    // lies past it. The in-place kernel writes through q_out, so the call must be refused.
    std::vector<float> x = ramp(128);
    const std::vector<float> before = x;
    const HeadsView<const float> in(x.data(), 128, {1, 2, 64});
    const HeadsView<float> out(x.data(), 100, {1, 2, 64});
    CHECK(error_of(QKViews<float> {in, out, {}, {}}) ==
          "q_out.size 100 must be > 127, the index of q_out's last element (token 0, head 1, dim 63): the view would "
          "address memory past its buffer");
    CHECK(x == before);
    // the same for K, and with the sizes the other way round (the input short) as well
    std::vector<float> q = ramp(128), kx = ramp(128);
    const HeadsView<float> q_view(q, {1, 2, 64});
    const HeadsView<const float> k_in(kx.data(), 128, {1, 2, 64});
    const HeadsView<float> k_out(kx.data(), 127, {1, 2, 64});
    CHECK(error_of(QKViews<float> {q_view, q_view, k_in, k_out}) ==
          "k_out.size 127 must be > 127, the index of k_out's last element (token 0, head 1, dim 63): the view would "
          "address memory past its buffer");
    const HeadsView<const float> short_in(x.data(), 127, {1, 2, 64});
    const HeadsView<float> full_out(x.data(), 128, {1, 2, 64});
    CHECK(ends_with(error_of(QKViews<float> {short_in, full_out, {}, {}}),
                    "the view would address memory past its buffer"));
    CHECK(x == before);
    // the fused QK-norm + RoPE checks Q through the same rules
    const std::vector<float> weight(64, 1.0f);
    const QkNorm norm {NormWeighting::weight, 1e-6f, weight, weight};
    CHECK(message_of([&] {
              qk_norm_rope(spec, norm, cache, at_three, QKViews<float> {in, out, {}, {}});
          }) ==
          "q_out.size 100 must be > 127, the index of q_out's last element (token 0, head 1, dim 63): the view would "
          "address memory past its buffer");
    CHECK(x == before);
}

TEST_CASE("[bounds] one K head inside packed QKV may have head_stride 0 (unused)")
{
    // tokens 2, Hq = 2, Hk = 1, D = 64: row 4 * 64 = 256 elements; K at 128, V at 192.
    const std::vector<float> original = ramp(512);
    std::vector<float> a = original, b = original;
    const PackedQkv<float> pa = slice_packed_qkv(a, {2, 2, 1, 64});
    const HeadsView<float> k_zero(a.data() + 128, 512 - 128, {2, 1, 64}, {256, 0});
    CHECK(error_of(QKViews<float>::in_place(pa.q, k_zero)) == "(no error)");
    const PackedQkv<float> pb = slice_packed_qkv(b, {2, 2, 1, 64});
    apply_rope(spec, cache, at_three, QKViews<float>::in_place(pb.q, pb.k));
    CHECK(a == b);
    // a K head that really overlaps a Q head is still refused, whatever its unused stride
    const HeadsView<float> k_on_q(a.data() + 64, 512 - 64, {2, 1, 64}, {256, 0});
    CHECK(error_of(QKViews<float>::in_place(pa.q, k_on_q)) ==
          "q_out 2x2x64 must not overlap k_out (views sharing memory need equal strides and disjoint rows)");
}

TEST_CASE("[alignment] each storage type's alignment is checked: double 8, float 4, bfloat16 and float16 2 bytes")
{
    // One byte buffer, views placed at offsets that break the element type's alignment.
    alignas(16) static unsigned char bytes[4096] = {};
    auto* d = reinterpret_cast<double*>(bytes + 4);  // 4 bytes off: misaligned for double
    const std::string message = error_of(QKViews<double>::in_place(HeadsView<double>(d, 64, {1, 1, 64})));
    CHECK(message.rfind("q_in.data ", 0) == 0);
    CHECK(ends_with(message, " must be a multiple of 8 (the alignment of its 8-byte element type)"));
    auto* f = reinterpret_cast<float*>(bytes + 2);
    CHECK(ends_with(error_of(QKViews<float>::in_place(HeadsView<float>(f, 64, {1, 1, 64}))),
                    " must be a multiple of 4 (the alignment of its 4-byte element type)"));
    auto* h = reinterpret_cast<posenc::bfloat16*>(bytes + 1);
    CHECK(ends_with(error_of(QKViews<posenc::bfloat16>::in_place(HeadsView<posenc::bfloat16>(h, 64, {1, 1, 64}))),
                    " must be a multiple of 2 (the alignment of its 2-byte element type)"));
    // Aligned but not to a vector register: accepted (the kernels load unaligned).
    auto* f4 = reinterpret_cast<float*>(bytes + 4);
    CHECK(error_of(QKViews<float>::in_place(HeadsView<float>(f4, 64, {1, 1, 64}))) == "(no error)");
}

TEST_CASE("[errors] a spec whose head_dim disagrees with the buffer is named as head_dim, before the angle source")
{
    // The buffer holds heads of 128; the spec says 64 and the angles were built for 128 (64 pairs).
    const posenc::RopeSpec wide(128, 128, 1e4);
    const CosSinCache wide_cache(posenc::FrequencyTable::from_spec(wide), 16);
    std::vector<float> x(128, 1.0f);
    CHECK(message_of([&] {
              apply_rope(spec, wide_cache, at_three, QKViews<float>::in_place(HeadsView<float>(x, {1, 1, 128})));
          }) == "q_in.head_dim 128 must equal spec.head_dim 64 (the buffer's heads are that long)");
}

TEST_CASE("[overflow audit] the view bound and the row rule are exact on both sides of 2^31-sized factors")
{
    // The checks multiply count x stride when both are below 2^31 and divide otherwise; the
    // verdicts must not depend on which. Only the numbers are checked (view_is_valid reads the
    // geometry, never the buffer), so the data pointer may point at one float.
    float one = 0.0f;
    auto valid = [&](std::ptrdiff_t size, HeadsShape shape, HeadsStrides strides) {
        return detail::view_is_valid(detail::geometry(HeadsView<float>(&one, size, shape, strides)), 64);
    };
    const std::ptrdiff_t two31 = std::ptrdiff_t {1} << 31, two37 = std::ptrdiff_t {1} << 37;
    // tokens 2^31: last index (2^31 - 1) 64 + 63 = 2^37 - 1 (factors below 2^31: multiplied)
    CHECK(valid(two37, {two31, 1, 64}, {64, 64}));
    CHECK_FALSE(valid(two37 - 1, {two31, 1, 64}, {64, 64}));
    // tokens 2^31 + 1: last index 2^31 x 64 + 63 = 2^37 + 63 (a factor of 2^31: divided)
    CHECK(valid(two37 + 64, {two31 + 1, 1, 64}, {64, 64}));
    CHECK_FALSE(valid(two37 + 63, {two31 + 1, 1, 64}, {64, 64}));
    // a stride of 2^31 over 3 tokens: last index 2 x 2^31 + 63
    CHECK(valid(2 * two31 + 64, {3, 1, 64}, {two31, 64}));
    CHECK_FALSE(valid(2 * two31 + 63, {3, 1, 64}, {two31, 64}));
    // 2^31 + 1 heads of stride 64 inside each token: token_stride must be >= 64 x 2^31 + 64
    const std::ptrdiff_t rows = two31 * 64 + 64, size = 2 * rows + two31 * 64 + 64;
    CHECK(valid(size, {3, two31 + 1, 64}, {rows, 64}));
    CHECK_FALSE(valid(size, {3, two31 + 1, 64}, {rows - 1, 64}));
    // 2^31 heads: token_stride >= 64 x (2^31 - 1) + 64 = 2^37
    CHECK(valid(3 * two37, {3, two31, 64}, {two37, 64}));
    CHECK_FALSE(valid(3 * two37, {3, two31, 64}, {two37 - 1, 64}));
}

TEST_CASE("[overflow audit] suggested_parts and CosSinCache's range checks cannot overflow")
{
    // 2^62 tokens x 4 elements: the product 2^64 does not fit; the answer is still max_threads.
    CHECK(suggested_parts(std::ptrdiff_t {1} << 62, 4, 8) == 8);
    CHECK(suggested_parts(PTRDIFF_MAX, PTRDIFF_MAX, 3) == 3);
    CHECK(suggested_parts(3, PTRDIFF_MAX, 16) == 3);  // one part per token at most
    // The first position is the culprit when it alone is beyond the kernel's positions.
    const posenc::FrequencyTable table = posenc::FrequencyTable::from_spec(spec);
    CHECK(message_of([&] { CosSinCache(table, 1, INT64_MAX); }) ==
          "first_position 9223372036854775807 must be <= 2147483647 (max_kernel_position)");
    CHECK(message_of([&] { CosSinCache(table, INT64_MAX, 1); }) ==
          "num_positions 9223372036854775807 must be <= 2147483647 so that the last position stays <= 2^31 - 1");
}

}  // namespace kernels_bounded_views_tests
