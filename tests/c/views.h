// views.h: how the C tests describe strided views: hk_array descriptors, shapes as text, and memory
// layouts of several kinds (contiguous, transposed, reversed, spread) with a C-order walk over a shape.
#ifndef HIPKIT_TESTS_VIEWS_H
#define HIPKIT_TESTS_VIEWS_H

#include <hipkit/hipkit.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace hktest
{

inline hk_array view(void *data, hk_dtype dtype, std::vector<int64_t> shape, std::vector<int64_t> strides = {})
{
    hk_array a{};
    a.data = data;
    a.dtype = dtype;
    a.ndim = static_cast<int>(shape.size());
    if (strides.empty()) { // C-contiguous
        strides.resize(shape.size());
        int64_t step = 1;
        for (size_t k = shape.size(); k-- > 0;) {
            strides[k] = step;
            step *= shape[k];
        }
    }
    for (size_t k = 0; k < shape.size(); k++) {
        a.shape[k] = shape[k];
        a.strides[k] = strides[k];
    }
    return a;
}

inline std::string shape_string(const std::vector<int64_t> &shape)
{
    std::string s = "(";
    for (size_t k = 0; k < shape.size(); k++)
        s += (k ? ", " : "") + std::to_string(shape[k]);
    return s + (shape.size() == 1 ? ",)" : ")");
}

// How a test lays a view out in memory.
enum Kind {
    C_ORDER,             // contiguous
    TRANSPOSED,          // the matrix column-major (last two dimensions swapped in memory)
    REVERSED_ROWS,       // contiguous, rows walked backwards (negative stride)
    SPREAD,              // every other element, 3 elements of padding after each row and matrix
    REVERSED_TRANSPOSED, // column-major and both matrix strides negative
    REVERSED_BATCH,      // contiguous, batch dimensions walked backwards
    KIND_COUNT
};
inline const char *const kind_names[] = {"contiguous", "transposed", "reversed rows", "spread", "reversed transposed",
                                  "reversed batch"};

struct Layout {
    std::vector<int64_t> shape, strides;
    int64_t offset = 0; // of element (0, ..., 0) in the buffer
    size_t span = 1;    // elements the buffer needs
};

inline Layout make_layout(const std::vector<int64_t> &shape, Kind kind)
{
    Layout l;
    const size_t nd = shape.size();
    l.shape = shape;
    l.strides.assign(nd, 0);
    std::vector<size_t> order(nd); // memory order, outermost first
    for (size_t d = 0; d < nd; d++)
        order[d] = d;
    if ((kind == TRANSPOSED || kind == REVERSED_TRANSPOSED) && nd >= 2)
        std::swap(order[nd - 2], order[nd - 1]);
    int64_t step = kind == SPREAD ? 2 : 1;
    for (size_t i = nd; i-- > 0;) {
        const size_t d = order[i];
        l.strides[d] = step;
        step = step * std::max<int64_t>(shape[d], 1) + (kind == SPREAD ? 3 : 0);
    }
    if (kind == REVERSED_ROWS && nd >= 2)
        l.strides[nd - 2] = -l.strides[nd - 2];
    if (kind == REVERSED_TRANSPOSED && nd >= 2) {
        l.strides[nd - 2] = -l.strides[nd - 2];
        l.strides[nd - 1] = -l.strides[nd - 1];
    }
    if (kind == REVERSED_BATCH)
        for (size_t d = 0; d + 2 < nd; d++)
            l.strides[d] = -l.strides[d];
    int64_t high = 0;
    for (size_t d = 0; d < nd; d++) {
        if (shape[d] <= 1)
            continue;
        if (l.strides[d] < 0)
            l.offset += -l.strides[d] * (shape[d] - 1);
        else
            high += l.strides[d] * (shape[d] - 1);
    }
    l.span = static_cast<size_t>(l.offset + high + 1);
    return l;
}

// Calls visit(index) for every index of `shape`, in C order.
inline void walk(const std::vector<int64_t> &shape, const std::function<void(const std::vector<int64_t> &)> &visit)
{
    for (int64_t e : shape)
        if (e == 0)
            return;
    std::vector<int64_t> index(shape.size(), 0);
    while (true) {
        visit(index);
        size_t d = shape.size();
        while (d > 0) {
            d--;
            if (++index[d] < shape[d])
                break;
            index[d] = 0;
            if (d == 0)
                return;
        }
        if (shape.empty())
            return;
    }
}

inline int64_t offset_of(const Layout &l, const std::vector<int64_t> &index)
{
    int64_t off = l.offset;
    for (size_t d = 0; d < index.size(); d++)
        off += index[d] * l.strides[d];
    return off;
}

// Element bytes of a dtype.
inline size_t item_size(hk_dtype d)
{
    size_t bytes = 0;
    hk_dtype_size(d, &bytes);
    return bytes;
}

inline const hk_dtype kAllDtypes[] = {HK_BOOL,  HK_INT8,   HK_UINT8,   HK_INT32,   HK_UINT32,
                                      HK_INT64, HK_UINT64, HK_FLOAT16, HK_FLOAT32, HK_FLOAT64};

// hk_take_mode as NumPy spells it, and the position NumPy's take / put reach for index j of an axis of n.
inline const char *const mode_names[] = {"raise", "wrap", "clip"};

inline int64_t numpy_index(int64_t j, int64_t n, hk_take_mode mode)
{
    if (mode == HK_TAKE_WRAP) {
        j %= n;
        return j < 0 ? j + n : j;
    }
    if (mode == HK_TAKE_CLIP)
        return j < 0 ? 0 : j >= n ? n - 1 : j;
    return j < 0 ? j + n : j; // RAISE: valid indices only
}

} // namespace hktest

#endif
