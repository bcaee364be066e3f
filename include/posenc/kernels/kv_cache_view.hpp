// SPDX-License-Identifier: MIT
// posenc/kernels/kv_cache_view.hpp: a view of one KV cache tensor (keys or values), the slot of
// every token in it, and the scale of an 8-bit cache.
//
// A cache is dense and holds blocks * block_size slots of heads x head_dim elements. Slot s
// sits in block s / block_size at offset o = s % block_size:
//
//   layout         within a block                 element (slot s, head h, dim d) at
//   token_major    [block_size][heads][head_dim]  b * (block_size H D) + o * (H D) + h * D + d
//   heads_major    [heads][block_size][head_dim]  b * (H block_size D) + h * (block_size D) + o * D + d
//
//   contiguous(data, size, slots, ...)   one block of `slots` slots: [slots][heads][dim]
//                            (token_major) or [heads][slots][dim] (heads_major)
//   paged(data, size, blocks, block_size, ...)   vLLM's paged cache [blocks][block_size][heads][dim]
//                            (token_major) or [blocks][heads][block_size][dim] (heads_major)
// `size` is the number of elements the buffer holds: the checked entry points refuse a geometry
// that would address more, so every cache write lies inside the caller's buffer.
//
// Rows wider than the view (in_rows(row_width, column)): the buffer's (slot, head) rows are
// row_width elements long and the view covers columns [column, column + head_dim) of each, so
// element (slot s, head h, dim d) is at  row(s, h) * row_width + column + d,  with row(s, h) the
// row index above ((b * block_size + o) * H + h, or (b * H + h) * block_size + o). A DeepSeek-V3 /
// Kimi K2 / GLM-4.7-Flash MLA cache holds per token one row [c_kv 512 | k_pe 64]:
//     key_cache   = paged(data, size, blocks, block_size, 1, 64).in_rows(576, 512)   k_pe, rotated
//     value_cache = paged(data, size, blocks, block_size, 1, 512).in_rows(576, 0)    c_kv, copied
// Two views of the same rows whose columns do not meet may be written by one call (the key and
// the value cache of kv_cache_write.hpp); size then counts the whole rows
// (blocks x block_size x heads x row_width). Rules: 0 <= column, column + head_dim <= row_width.
//
// The element type is carried at run time (CacheStorage): float, bfloat16, float16 (the value
// rounded to nearest even), float8_e4m3, float8_e5m2 or int8 (quantize.hpp: code =
// convert(fl(x / scale)), saturating; a scale per tensor or one per head is required and must be
// finite and > 0).
//
// SlotMapping: the cache slot of every token of a call, int32 or int64 (vLLM's slot_mapping);
// -1 means "skip this token" (padding). Any other value must lie in [0, slots), which the
// checked entry points verify for every token of the range (an error names the token index and
// the slot), so a bad slot is never a write outside the cache.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "posenc/kernels/dtypes.hpp"
#include "posenc/kernels/quantize.hpp"
#include "posenc/kernels/views.hpp"

namespace posenc::kernels {

/// Element type of a cache.
enum class CacheStorage { float32, bfloat16, float16, float8_e4m3, int8, float8_e5m2 };

/// "float32", "bfloat16", "float16", "float8_e4m3", "int8" or "float8_e5m2".
inline const char* to_string(CacheStorage storage) noexcept
{
    constexpr const char* names[] = {"float32", "bfloat16", "float16", "float8_e4m3", "int8", "float8_e5m2"};
    const auto i = static_cast<unsigned>(storage);
    return i < sizeof(names) / sizeof(names[0]) ? names[i] : "unknown";
}

/// Bytes per element.
constexpr std::size_t element_bytes(CacheStorage storage) noexcept
{
    return storage == CacheStorage::float32                                          ? 4
           : (storage == CacheStorage::bfloat16 || storage == CacheStorage::float16) ? 2
                                                                                     : 1;
}

/// True for float8_e4m3, float8_e5m2 and int8, the storages that need a scale.
constexpr bool is_quantized(CacheStorage storage) noexcept
{
    return storage == CacheStorage::float8_e4m3 || storage == CacheStorage::int8 ||
           storage == CacheStorage::float8_e5m2;
}

/// cache_storage_of<C> for C = float, bfloat16, float16, float8_e4m3, float8_e5m2, std::int8_t.
template <class C>
inline constexpr CacheStorage cache_storage_of = std::is_same_v<C, float>         ? CacheStorage::float32
                                                 : std::is_same_v<C, bfloat16>    ? CacheStorage::bfloat16
                                                 : std::is_same_v<C, float16>     ? CacheStorage::float16
                                                 : std::is_same_v<C, float8_e4m3> ? CacheStorage::float8_e4m3
                                                 : std::is_same_v<C, float8_e5m2> ? CacheStorage::float8_e5m2
                                                                                  : CacheStorage::int8;

template <class C>
inline constexpr bool is_cache_element =
    std::is_same_v<C, float> || std::is_same_v<C, bfloat16> || std::is_same_v<C, float16> ||
    std::is_same_v<C, float8_e4m3> || std::is_same_v<C, float8_e5m2> || std::is_same_v<C, std::int8_t>;

/// Slots within a block: [block_size][heads][dim] or [heads][block_size][dim].
enum class CacheLayout { token_major, heads_major };

/// The scale of an 8-bit cache: none (float types), one per tensor, or one per head.
struct CacheScale {
    enum class Kind { none, per_tensor, per_head };
    Kind kind = Kind::none;
    float value = 1.0f;  ///< per_tensor
    FloatSpan per_head;  ///< per_head: at least `heads` values (checked), outliving the call

    static constexpr CacheScale none() noexcept { return {}; }
    static constexpr CacheScale tensor(float scale) noexcept { return {Kind::per_tensor, scale, {}}; }
    /// One scale per head: a std::vector of them, or FloatSpan(data, size).
    static constexpr CacheScale heads(FloatSpan scales) noexcept { return {Kind::per_head, 1.0f, scales}; }

    /// The scale of head h. Precondition: kind != none (or the result is 1).
    constexpr float of_head(std::ptrdiff_t h) const noexcept
    {
        return kind == Kind::per_head ? per_head.data[h] : value;
    }
};

/// Non-owning view of a dense KV cache tensor; see the file comment.
struct KvCacheView {
    void* data = nullptr;
    CacheStorage storage = CacheStorage::float32;
    CacheLayout layout = CacheLayout::token_major;
    std::ptrdiff_t blocks = 0;
    std::ptrdiff_t block_size = 0;
    std::ptrdiff_t heads = 0;
    std::ptrdiff_t head_dim = 0;
    CacheScale scale;
    /// Elements of type `storage` the buffer at `data` holds; the checked entry points refuse a
    /// geometry that needs more (blocks * block_size * heads * row_elements()).
    std::ptrdiff_t size = 0;
    /// Elements of one (slot, head) row of the buffer; 0 (the default): head_dim, rows packed.
    std::ptrdiff_t row_width = 0;
    /// The view's first element within its row: it covers [column, column + head_dim).
    std::ptrdiff_t column = 0;

    /// One block of `slots` slots: [slots][heads][head_dim] or, heads_major, [heads][slots][head_dim],
    /// in a buffer of `size` elements.
    template <class C>
    static KvCacheView contiguous(C* data, std::ptrdiff_t size, std::ptrdiff_t slots, std::ptrdiff_t heads,
                                  std::ptrdiff_t head_dim, CacheLayout layout = CacheLayout::token_major,
                                  CacheScale scale = {}) noexcept
    {
        return paged(data, size, 1, slots, heads, head_dim, layout, scale);
    }

    /// `blocks` blocks of `block_size` slots: [blocks][block_size][heads][head_dim] or, heads_major,
    /// [blocks][heads][block_size][head_dim], in a buffer of `size` elements.
    template <class C>
    static KvCacheView paged(C* data, std::ptrdiff_t size, std::ptrdiff_t blocks, std::ptrdiff_t block_size,
                             std::ptrdiff_t heads, std::ptrdiff_t head_dim,
                             CacheLayout layout = CacheLayout::token_major, CacheScale scale = {}) noexcept
    {
        static_assert(is_cache_element<C>,
                      "A cache stores float, bfloat16, float16, float8_e4m3, float8_e5m2 or int8.");
        return {data, cache_storage_of<C>, layout, blocks, block_size, heads, head_dim, scale, size};
    }

    /// This view over columns [first_column, first_column + head_dim) of rows `width` elements
    /// wide (see the file comment); the checked entry points verify that the columns fit.
    constexpr KvCacheView in_rows(std::ptrdiff_t width, std::ptrdiff_t first_column) const noexcept
    {
        KvCacheView v = *this;
        v.row_width = width;
        v.column = first_column;
        return v;
    }

    constexpr bool present() const noexcept { return data != nullptr; }
    /// Elements from one (slot, head) row to the next: row_width, or head_dim for packed rows.
    constexpr std::ptrdiff_t row_elements() const noexcept { return row_width != 0 ? row_width : head_dim; }
    /// blocks * block_size. Precondition (checked by the entry points): the product fits.
    constexpr std::ptrdiff_t slots() const noexcept { return blocks * block_size; }
    /// Elements of the whole tensor, its rows whole (blocks * block_size * heads * row_elements()).
    constexpr std::ptrdiff_t elements() const noexcept { return slots() * heads * row_elements(); }

    /// Element offset of (slot, head, 0). Precondition: 0 <= slot < slots(), 0 <= h < heads.
    constexpr std::ptrdiff_t offset(std::ptrdiff_t slot, std::ptrdiff_t h) const noexcept
    {
        // token_major: (b * block_size + o) * heads + h, and b * block_size + o = slot (no division)
        if (layout == CacheLayout::token_major) return (slot * heads + h) * row_elements() + column;
        const std::ptrdiff_t b = slot / block_size, o = slot % block_size;
        return ((b * heads + h) * block_size + o) * row_elements() + column;
    }

    /// Address of (slot, head, 0) as bytes.
    std::byte* head(std::ptrdiff_t slot, std::ptrdiff_t h) const noexcept
    {
        return static_cast<std::byte*>(data) + static_cast<std::size_t>(offset(slot, h)) * element_bytes(storage);
    }
};

/// How a cache call writes its slots. The values stored are the same bit for bit; only the way
/// they reach memory differs.
///   cached     ordinary stores: each written cache line is first read into the core's caches
///              and stays there (what a decode step wants: attention reads the new slot next).
///   streaming  non-temporal stores: whole rows go to memory without reading the destination
///              lines first and without evicting other data (what a long prefill wants: its
///              cache rows exceed the core's caches anyway). Rows whose address or byte length
///              is not a multiple of 16 are written with ordinary stores; on archs without such
///              stores (not x86) every row is. The call ends with a store fence (sfence).
///   automatic  streaming when the call writes at least streaming_stores_from bytes of cache
///              rows (key and value, every token of the range counted), cached otherwise.
enum class CacheStores { automatic, cached, streaming };

/// The write size from which CacheStores::automatic streams: 4 MiB, twice the 2 MiB L2 of one
/// core on current server parts (rows cache_f32/rope_cache against cache_f32/rope_cache_cached
/// of docs/benchmarks.md).
inline constexpr std::size_t streaming_stores_from = std::size_t {1} << 22;

/// The cache slot of every token: int32 or int64 ids, -1 = skip; see the file comment.
class SlotMapping
{
public:
    constexpr SlotMapping() noexcept = default;
    constexpr SlotMapping(const std::int32_t* slots, std::ptrdiff_t count) noexcept : slots32_(slots), count_(count) {}
    constexpr SlotMapping(const std::int64_t* slots, std::ptrdiff_t count) noexcept : slots64_(slots), count_(count) {}
    explicit SlotMapping(const std::vector<std::int32_t>& slots) noexcept
        : SlotMapping(slots.data(), static_cast<std::ptrdiff_t>(slots.size()))
    {}
    explicit SlotMapping(const std::vector<std::int64_t>& slots) noexcept
        : SlotMapping(slots.data(), static_cast<std::ptrdiff_t>(slots.size()))
    {}

    /// Slot of token t (-1 = skip). Precondition: 0 <= t < count().
    constexpr std::int64_t operator[](std::ptrdiff_t t) const noexcept { return slots32_ ? slots32_[t] : slots64_[t]; }
    constexpr std::ptrdiff_t count() const noexcept { return count_; }
    constexpr bool present() const noexcept { return slots32_ != nullptr || slots64_ != nullptr; }
    /// The slots as given: int32 (data32) or int64 (data64), the other nullptr.
    constexpr const std::int32_t* data32() const noexcept { return slots32_; }
    constexpr const std::int64_t* data64() const noexcept { return slots64_; }

private:
    const std::int32_t* slots32_ = nullptr;
    const std::int64_t* slots64_ = nullptr;
    std::ptrdiff_t count_ = 0;
};

}  // namespace posenc::kernels
