// matmul.cpp: the CPU device's own GEMM over matmul.hip's arguments (any strides, broadcast batches,
// k == 0 writes zeros; float32 and float64), in the GotoBLAS/BLIS shape: out is cut into tiles,
// one task each; a task walks k in slices of KC, packs its slice of b (KC x tile width) into
// column panels NR wide and its slice of a (tile height x KC) into row panels MR high, both
// contiguous and zero-padded, then runs an MR x NR register-tiled micro-kernel over every pair of
// panels (b's panel stays in L1 while a's stream from L2). The micro-kernel is written once with
// the compiler's vector extensions and compiled three times: SSE2 (the x86-64 baseline, no FMA),
// AVX2 with FMA, and AVX-512F, the best the CPU has chosen at run time (__builtin_cpu_supports).
// Its a * b + acc becomes one fused multiply-add where the target has one (GCC contracts under its
// default -ffp-contract=fast); each element sums its k products in order, KC at a time, so the
// result does not depend on the thread count. Tasks are spread over the cores in contiguous runs.
// Matrix-vector products (n or m 1) take a loop of their own (gemv).
#include <stdlib.h>
#include <string.h>

#include <atomic>

#include "common/dispatch.h"
#include "common/dtype_traits.h"
#include "cpu/cpu.h"
#include "cpu/parallel.h"

namespace
{

// Register tiles (MR rows x NV vectors of W elements) and cache blocks of one instruction set.
// MC (task height) is a multiple of MR, NC (task width) of NR; KC is the k slice.
template <typename T, int W_, int MR_, int NV_, int KC_> struct shape {
    static constexpr int W = W_, MR = MR_, NV = NV_, NR = W_ * NV_, KC = KC_;
    static constexpr int MC = 192, NC = 1024;
    static_assert(MC % MR == 0 && NC % NR == 0, "blocks must hold whole register tiles");
};
template <typename T> using sse2_shape = shape<T, 16 / sizeof(T), 6, 2, 256>;    // 16 xmm: 12 accumulators
template <typename T> using avx2_shape = shape<T, 32 / sizeof(T), 6, 2, 256>;    // 16 ymm: 12 accumulators
template <typename T> using avx512_shape = shape<T, 64 / sizeof(T), 12, 2, 192>; // 32 zmm: 24 accumulators

// The micro-kernel: c[i * rs_c + j * cs_c] (=, or += when `add`) sum over p < kc of a[p * MR + i]
// * b[p * NR + j] for i < m_left, j < n_left; a and b are packed panels (b aligned to a vector).
template <typename T, typename S>
__attribute__((always_inline)) inline void micro_kernel(int64_t kc, const T *__restrict a, const T *__restrict b,
                                                        T *__restrict c, int64_t rs_c, int64_t cs_c, int m_left,
                                                        int n_left, bool add)
{
    constexpr int W = S::W, MR = S::MR, NV = S::NV, NR = S::NR;
    typedef T vec __attribute__((vector_size(W * sizeof(T))));
    vec acc[MR][NV];
#pragma GCC unroll 16
    for (int i = 0; i < MR; i++)
#pragma GCC unroll 4
        for (int v = 0; v < NV; v++)
            acc[i][v] = vec{};
    for (int64_t p = 0; p < kc; p++) {
        vec bv[NV];
#pragma GCC unroll 4
        for (int v = 0; v < NV; v++)
            bv[v] = *reinterpret_cast<const vec *>(b + p * NR + v * W);
#pragma GCC unroll 16
        for (int i = 0; i < MR; i++) {
            const T ai = a[p * MR + i];
#pragma GCC unroll 4
            for (int v = 0; v < NV; v++)
                acc[i][v] += ai * bv[v];
        }
    }
    if (m_left == MR && n_left == NR && cs_c == 1) {
#pragma GCC unroll 16
        for (int i = 0; i < MR; i++)
#pragma GCC unroll 4
            for (int v = 0; v < NV; v++) {
                T *at = c + i * rs_c + v * W;
                vec out = acc[i][v];
                if (add) {
                    vec old;
                    memcpy(&old, at, sizeof old);
                    out += old;
                }
                memcpy(at, &out, sizeof out);
            }
        return;
    }
    alignas(64) T tile[MR][NR];
#pragma GCC unroll 16
    for (int i = 0; i < MR; i++)
#pragma GCC unroll 4
        for (int v = 0; v < NV; v++)
            memcpy(&tile[i][v * W], &acc[i][v], sizeof(vec));
    for (int i = 0; i < m_left; i++)
        for (int j = 0; j < n_left; j++) {
            T *at = c + i * rs_c + j * cs_c;
            *at = add ? *at + tile[i][j] : tile[i][j];
        }
}

// The micro-kernels themselves, one function per instruction set and dtype (the template above is
// inlined into each, so each compiles for its target). Other processors than x86-64 get the
// baseline's 16-byte vectors only.
#define HKC_MICRO(NAME, TARGET, SHAPE, T)                                                                              \
    TARGET void NAME(int64_t kc, const T *a, const T *b, T *c, int64_t rs_c, int64_t cs_c, int m_left, int n_left,     \
                     bool add)                                                                                         \
    {                                                                                                                  \
        micro_kernel<T, SHAPE<T>>(kc, a, b, c, rs_c, cs_c, m_left, n_left, add);                                       \
    }
#define HKC_BASELINE
HKC_MICRO(micro_sse2_f32, HKC_BASELINE, sse2_shape, float)
HKC_MICRO(micro_sse2_f64, HKC_BASELINE, sse2_shape, double)
#if defined(__x86_64__)
#define HKC_AVX2 __attribute__((target("avx2,fma")))
#define HKC_AVX512 __attribute__((target("avx512f")))
HKC_MICRO(micro_avx2_f32, HKC_AVX2, avx2_shape, float)
HKC_MICRO(micro_avx2_f64, HKC_AVX2, avx2_shape, double)
HKC_MICRO(micro_avx512_f32, HKC_AVX512, avx512_shape, float)
HKC_MICRO(micro_avx512_f64, HKC_AVX512, avx512_shape, double)
#endif

// Packs `count` rows of an operand (a's rows, or b's columns) by k [0, kc), element (o, p) at
// src[o * so + p * sk], into panels of R rows: panel r holds rows r * R .., element (o, p) at
// p * R + o, rows past count zero. Walking k outermost reads the panel's rows side by side, as
// many streams from memory as the panel has rows (one row at a time would wait on memory at the
// start of each short stretch).
template <typename T, int R> void pack(const T *src, int64_t so, int64_t sk, int64_t count, int64_t kc, T *dst)
{
    for (int64_t r0 = 0; r0 < count; r0 += R, dst += R * kc) {
        const int rows = count - r0 < R ? (int)(count - r0) : R;
        const T *from = src + r0 * so;
        for (int64_t p = 0; p < kc; p++) {
            for (int o = 0; o < rows; o++)
                dst[p * R + o] = from[o * so + p * sk];
            for (int o = rows; o < R; o++)
                dst[p * R + o] = T(0);
        }
    }
}

// One product's layout (out's rows the contiguous way where it has one: gemm_typed) and its
// tiling into tasks (gemm_with).
template <typename T> struct problem {
    const T *a, *b;
    T *out;
    int64_t m, n, k;
    int64_t a_rs, a_cs, b_rs, b_cs, o_rs, o_cs;
    const hkk_matmul_args *args; // the batch layout
    int64_t tile_m, tile_n, tiles_m, tiles_n;
};

// Batch z's offsets into a, b and out (C order over batch_shape).
inline void batch_offsets(const hkk_matmul_args *p, int64_t z, int64_t *oa, int64_t *ob, int64_t *oo)
{
    *oa = *ob = *oo = 0;
    for (int d = p->batch_ndim - 1; d >= 0; d--) {
        const int64_t c = z % p->batch_shape[d];
        z /= p->batch_shape[d];
        *oa += c * p->a_bs[d];
        *ob += c * p->b_bs[d];
        *oo += c * p->o_bs[d];
    }
}

// Tasks [begin, end) of the product (task = batch, tile column, tile row; rows fastest) with the
// micro-kernel `micro` of shape S; a_pack and b_pack hold one slice's panels. Consecutive tasks of
// one tile column share each slice of b, packed once for all of them (the GotoBLAS loop order).
template <typename T, typename S, typename Micro>
void run_tasks(const problem<T> &q, Micro micro, int64_t begin, int64_t end, T *a_pack, T *b_pack)
{
    constexpr int MR = S::MR, NR = S::NR, KC = S::KC;
    const int64_t per_batch = q.tiles_m * q.tiles_n;
    for (int64_t first = begin, last; first < end; first = last) {
        last = (first / q.tiles_m + 1) * q.tiles_m; // the end of this tile column
        last = last < end ? last : end;
        const int64_t z = first / per_batch, column = first % per_batch / q.tiles_m;
        const int64_t j0 = column * q.tile_n, nc = q.n - j0 < q.tile_n ? q.n - j0 : q.tile_n;
        int64_t oa, ob, oo;
        batch_offsets(q.args, z, &oa, &ob, &oo);
        const T *b = q.b + ob + j0 * q.b_cs;
        for (int64_t p0 = 0; p0 < q.k; p0 += KC) {
            const int64_t kc = q.k - p0 < KC ? q.k - p0 : KC;
            pack<T, NR>(b + p0 * q.b_rs, q.b_cs, q.b_rs, nc, kc, b_pack);
            for (int64_t t = first; t < last; t++) {
                const int64_t i0 = t % q.tiles_m * q.tile_m, mc = q.m - i0 < q.tile_m ? q.m - i0 : q.tile_m;
                pack<T, MR>(q.a + oa + i0 * q.a_rs + p0 * q.a_cs, q.a_rs, q.a_cs, mc, kc, a_pack);
                T *out = q.out + oo + i0 * q.o_rs + j0 * q.o_cs;
                for (int64_t jr = 0; jr < nc; jr += NR) {
                    const int n_left = nc - jr < NR ? (int)(nc - jr) : NR;
                    for (int64_t ir = 0; ir < mc; ir += MR) {
                        const int m_left = mc - ir < MR ? (int)(mc - ir) : MR;
                        micro(kc, a_pack + ir * kc, b_pack + jr * kc, out + ir * q.o_rs + jr * q.o_cs, q.o_rs, q.o_cs,
                              m_left, n_left, p0 > 0);
                    }
                }
            }
        }
    }
}

inline int64_t round_up(int64_t v, int64_t to)
{
    return (v + to - 1) / to * to;
}

template <typename T, typename S, typename Micro> int gemm_with(problem<T> q, Micro micro)
{
    constexpr int MR = S::MR, NR = S::NR, KC = S::KC;
    // Tiles as large as the blocks allow; smaller (down to 4 register tiles a side) when that is
    // what it takes to give every thread a few tasks.
    q.tile_m = q.m < S::MC ? round_up(q.m, MR) : S::MC;
    q.tile_n = q.n < S::NC ? round_up(q.n, NR) : S::NC;
    const int64_t flops = 2 * q.m * q.n * q.k * q.args->batch_count;
    const int64_t want = flops < (int64_t)1 << 22 ? 1 : 4 * (int64_t)hkc::threads();
    auto tasks = [&] {
        return q.args->batch_count * ((q.m + q.tile_m - 1) / q.tile_m) * ((q.n + q.tile_n - 1) / q.tile_n);
    };
    while (tasks() < want && (q.tile_n > 4 * NR || q.tile_m > 4 * MR)) {
        if (q.tile_n >= q.tile_m && q.tile_n > 4 * NR)
            q.tile_n = round_up(q.tile_n / 2, NR);
        else
            q.tile_m = round_up(q.tile_m / 2, MR);
    }
    q.tiles_m = (q.m + q.tile_m - 1) / q.tile_m;
    q.tiles_n = (q.n + q.tile_n - 1) / q.tile_n;
    const int64_t count = tasks();
    const int64_t task_flops = 2 * q.tile_m * q.tile_n * q.k;
    const int64_t grain = task_flops >= ((int64_t)1 << 21) ? 1 : ((int64_t)1 << 21) / task_flops;
    const int64_t kc = q.k < KC ? q.k : KC;
    const size_t a_bytes = (size_t)round_up(q.tile_m * kc * (int64_t)sizeof(T), 64);
    const size_t b_bytes = (size_t)round_up(q.tile_n * kc * (int64_t)sizeof(T), 64);
    std::atomic<int> failed(0);
    hkc::parallel_for(count, grain, [&](int64_t begin, int64_t end) {
        // Per thread, for its run of tasks: the panels of one k slice.
        char *buffer = static_cast<char *>(aligned_alloc(64, a_bytes + b_bytes));
        if (!buffer) {
            failed.store(1);
            return;
        }
        run_tasks<T, S>(q, micro, begin, end, reinterpret_cast<T *>(buffer), reinterpret_cast<T *>(buffer + a_bytes));
        free(buffer);
    });
    return failed.load();
}

// Each dtype's micro-kernels.
template <typename T> struct micro_set;
template <> struct micro_set<float> {
    static constexpr auto sse2 = micro_sse2_f32;
#if defined(__x86_64__)
    static constexpr auto avx512 = micro_avx512_f32, avx2 = micro_avx2_f32;
#endif
};
template <> struct micro_set<double> {
    static constexpr auto sse2 = micro_sse2_f64;
#if defined(__x86_64__)
    static constexpr auto avx512 = micro_avx512_f64, avx2 = micro_avx2_f64;
#endif
};

// The micro-kernel for this CPU: AVX-512F, else AVX2 with FMA, else the SSE2 baseline.
template <typename T> int gemm_chosen(const problem<T> &q)
{
#if defined(__x86_64__)
    if (__builtin_cpu_supports("avx512f"))
        return gemm_with<T, avx512_shape<T>>(q, micro_set<T>::avx512);
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        return gemm_with<T, avx2_shape<T>>(q, micro_set<T>::avx2);
#endif
    return gemm_with<T, sse2_shape<T>>(q, micro_set<T>::sse2);
}

// Matrix-vector products (n == 1), where register tiles would mostly multiply padding: each
// task takes a run of out's rows of one batch. Rows contiguous along k (or nearly): a dot product
// each, in kLanes partial sums combined in a fixed order; otherwise a's columns are added in
// turn (out's rows accumulate side by side, k in order).
template <typename T> int gemv(const problem<T> &q)
{
    constexpr int64_t kRows = 256; // rows per task
    constexpr int kLanes = 8;
    const int64_t per_batch = (q.m + kRows - 1) / kRows, k = q.k;
    const int64_t grain = 2 * kRows * k >= ((int64_t)1 << 20) ? 1 : ((int64_t)1 << 20) / (2 * kRows * k) + 1;
    const bool dots = (q.a_cs < 0 ? -q.a_cs : q.a_cs) <= (q.a_rs < 0 ? -q.a_rs : q.a_rs);
    hkc::parallel_for(q.args->batch_count * per_batch, grain, [&](int64_t begin, int64_t end) {
        for (int64_t t = begin; t < end; t++) {
            int64_t oa, ob, oo;
            batch_offsets(q.args, t / per_batch, &oa, &ob, &oo);
            const int64_t i0 = t % per_batch * kRows, rows = q.m - i0 < kRows ? q.m - i0 : kRows;
            const T *a = q.a + oa + i0 * q.a_rs, *b = q.b + ob;
            T *out = q.out + oo + i0 * q.o_rs;
            const int64_t a_rs = q.a_rs, a_cs = q.a_cs, b_rs = q.b_rs;
            if (dots) {
                for (int64_t i = 0; i < rows; i++) {
                    const T *row = a + i * a_rs;
                    T part[kLanes] = {};
                    int64_t p = 0;
                    for (; p + kLanes <= k; p += kLanes)
                        for (int u = 0; u < kLanes; u++)
                            part[u] += row[(p + u) * a_cs] * b[(p + u) * b_rs];
                    for (int u = 0; p < k; p++, u++)
                        part[u] += row[p * a_cs] * b[p * b_rs];
                    T sum = T(0);
                    for (int u = 0; u < kLanes; u++)
                        sum += part[u];
                    out[i * q.o_rs] = sum;
                }
            } else {
                T acc[kRows];
                for (int64_t i = 0; i < rows; i++)
                    acc[i] = T(0);
                for (int64_t p = 0; p < k; p++) {
                    const T bp = b[p * b_rs], *column = a + p * a_cs;
                    for (int64_t i = 0; i < rows; i++)
                        acc[i] += column[i * a_rs] * bp;
                }
                for (int64_t i = 0; i < rows; i++)
                    out[i * q.o_rs] = acc[i];
            }
        }
    });
    return 0;
}

// out^T = b^T a^T: the same product with a and b (and their batch strides, into `swapped`)
// exchanged and transposed.
template <typename T> problem<T> transposed(const problem<T> &q, hkk_matmul_args *swapped)
{
    problem<T> t = q;
    t.a = q.b, t.b = q.a;
    t.m = q.n, t.n = q.m;
    t.a_rs = q.b_cs, t.a_cs = q.b_rs, t.b_rs = q.a_cs, t.b_cs = q.a_rs;
    t.o_rs = q.o_cs, t.o_cs = q.o_rs;
    *swapped = *q.args;
    for (int d = 0; d < q.args->batch_ndim; d++) {
        swapped->a_bs[d] = q.args->b_bs[d];
        swapped->b_bs[d] = q.args->a_bs[d];
    }
    t.args = swapped;
    return t;
}

template <typename T> int gemm_typed(const hkk_matmul_args *p)
{
    problem<T> q;
    q.a = static_cast<const T *>(p->a);
    q.b = static_cast<const T *>(p->b);
    q.out = static_cast<T *>(p->out);
    q.args = p;
    q.m = p->m, q.n = p->n, q.k = p->k;
    q.a_rs = p->a_rs, q.a_cs = p->a_cs, q.b_rs = p->b_rs, q.b_cs = p->b_cs, q.o_rs = p->o_rs, q.o_cs = p->o_cs;
    if (q.k == 0) { // zeros, row by row
        const int64_t per_batch = q.m;
        hkc::parallel_for(p->batch_count * per_batch, ((int64_t)1 << 15) / q.n + 1, [&](int64_t begin, int64_t end) {
            for (int64_t r = begin; r < end; r++) {
                int64_t oa, ob, oo;
                batch_offsets(p, r / per_batch, &oa, &ob, &oo);
                T *row = q.out + oo + r % per_batch * q.o_rs;
                for (int64_t j = 0; j < q.n; j++)
                    row[j * q.o_cs] = T(0);
            }
        });
        return 0;
    }
    hkk_matmul_args swapped;
    if (q.n == 1)
        return gemv(q);
    if (q.m == 1) // a row vector times b: b^T times a column vector
        return gemv(transposed(q, &swapped));
    // A column-major out is the transposed product's row-major one, so the micro-kernel's rows of
    // out are contiguous (its full tiles store whole vectors).
    const auto magnitude = [](int64_t v) { return v < 0 ? -v : v; };
    if (magnitude(q.o_rs) < magnitude(q.o_cs))
        return gemm_chosen(transposed(q, &swapped));
    return gemm_chosen(q);
}

} // namespace

extern "C" int hkc_matmul(const hkk_matmul_args *args)
{
    if (args->m <= 0 || args->n <= 0 || args->batch_count <= 0)
        return 0;
    return hk_dispatch::dispatch<HK_DTYPE_BIT(HK_FLOAT32) | HK_DTYPE_BIT(HK_FLOAT64)>(
        args->dtype, [&](auto tag) { return gemm_typed<typename hk_dt::traits<decltype(tag)::value>::compute>(args); });
}
