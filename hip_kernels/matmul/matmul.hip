// matmul.hip: hipkit's own GEMM engine, written once for AMD and NVIDIA.
//
// A register-tiled kernel in the classic shape: a block of 256 threads computes a BM x BN tile of
// out, each thread a TM x TN sub-tile held in registers; the K extent is walked BK at a time
// through two shared-memory buffers (the next tile's global loads are issued into registers
// before the current tile is multiplied, then stored into the other buffer: one barrier per
// step). Shared tiles are stored k-major (As[k][m], Bs[k][n]) so every thread reads its
// fragments with 16-byte shared loads; the fragment rows of a thread are spread over the tile
// (groups of 4 floats, 64 apart for a 128 tile) so a warp's reads do not conflict.
//
// Any strides: every operand is read straight from its view. The loader walks the tile along the
// operand's contiguous dimension (along k for a row-major a, along m for a column-major a, and so
// on) so consecutive threads read consecutive addresses; with stride 1 there and aligned rows it
// issues 16-byte vector loads (or 8-byte for small tiles), otherwise checked scalar loads. Every
// load and store is bounds-checked, so any M, N, K (K == 0 writes zeros). Batches (broadcast
// batch strides of 0 included) run along the grid's z dimension; tiles are ordered in groups of
// 8 tile rows so that blocks running together share a and b in L2.
#include "common/dispatch.h"
#include "common/dtype_traits.h"
#include "common/hipkit_device.h"
#include "common/launch.h"
#include "gpu/device.h"
#include "gpu/gpu.h"
#include "matmul/matmul.h"

namespace
{

// Tile shapes. Big: the throughput configuration. Small: when the big tiles would not give every
// multiprocessor a block, a 64 x 64 tile quadruples the number of blocks.
template <typename T> struct big_config;
template <> struct big_config<float> {
    static constexpr int BM = 128, BN = 128, BK = 8, TM = 8, TN = 8;
};
template <> struct big_config<double> { // 8 x 4 doubles per thread keeps the registers within budget
    static constexpr int BM = 128, BN = 64, BK = 8, TM = 8, TN = 4;
};
template <typename T> struct small_config {
    static constexpr int BM = 64, BN = 64, BK = 8, TM = 4, TN = 4;
};

constexpr int min_int(int a, int b)
{
    return a < b ? a : b;
}

template <typename T, int N> struct alignas(sizeof(T) * N) packet {
    T v[N];
};

HK_DEVICE float hk_fma(float a, float b, float c)
{
    return fmaf(a, b, c);
}
HK_DEVICE double hk_fma(double a, double b, double c)
{
    return fma(a, b, c);
}

// Loads one BK x BO tile of an operand (BO = the tile's m or n extent, "outer") into registers and
// stores it k-major into shared memory. The operand's element (o, k) is at base[o * so + k * sk].
// WALK_K: consecutive threads (and vector lanes) walk k, for operands contiguous along k; else they
// walk o. Each thread keeps a pointer to its first element and how many of its rows exist, so a
// k-step costs one pointer increment and a few integer compares.
template <typename T, int BO, int BK, int NT, bool WALK_K> struct tile_loader {
    static constexpr int PAD = 16 / (int)sizeof(T); // keeps rows 16-byte aligned, breaks bank conflicts
    static constexpr int PER_THREAD = BO * BK / NT;
    static constexpr int VL = min_int(PER_THREAD, 16 / (int)sizeof(T)); // elements per vector load
    static constexpr int R = PER_THREAD / VL;                           // vector loads per thread
    static_assert(PER_THREAD * NT == BO * BK && R * VL == PER_THREAD, "tile does not split evenly");
    static_assert((WALK_K ? BK : BO) % VL == 0, "vector loads must tile the walked extent");

    const T *ptr[R]; // this thread's element (o, k) of the current k-step
    int o[R], k[R];  // its position in the tile
    int o_left[R];   // rows that exist from o on (clamped to BO)
    T reg[R][VL];

    // base: element (0, 0) of the tile; o_limit: rows of the operand from the tile's first one.
    HK_DEVICE tile_loader(int thread, const T *base, int64_t so, int64_t sk, int64_t o_limit)
    {
#pragma unroll
        for (int r = 0; r < R; r++) {
            const int chunk = thread + r * NT;
            if (WALK_K) {
                o[r] = chunk / (BK / VL);
                k[r] = (chunk % (BK / VL)) * VL;
            } else {
                k[r] = chunk / (BO / VL);
                o[r] = (chunk % (BO / VL)) * VL;
            }
            const int64_t left = o_limit - o[r];
            o_left[r] = left < 0 ? 0 : left > BO ? BO : (int)left;
            ptr[r] = base + o[r] * so + k[r] * sk;
        }
    }

    // The current k-step's tile; k_left = K minus the step's first k, clamped to BK.
    // vec: the walked stride is 1 and every vector is aligned.
    HK_DEVICE void load(int k_left, bool vec, int64_t so, int64_t sk)
    {
#pragma unroll
        for (int r = 0; r < R; r++) {
            const int k_here = k_left - k[r]; // elements of k that exist from k[r] on
            const bool whole = WALK_K ? (o_left[r] > 0 && k_here >= VL) : (o_left[r] >= VL && k_here > 0);
            if (vec && whole) {
                const packet<T, VL> v = *reinterpret_cast<const packet<T, VL> *>(ptr[r]);
#pragma unroll
                for (int i = 0; i < VL; i++)
                    reg[r][i] = v.v[i];
            } else {
                const int64_t walk = WALK_K ? sk : so;
#pragma unroll
                for (int i = 0; i < VL; i++) {
                    const bool exists = WALK_K ? (o_left[r] > 0 && k_here > i) : (o_left[r] > i && k_here > 0);
                    reg[r][i] = exists ? ptr[r][i * walk] : T(0);
                }
            }
        }
    }

    HK_DEVICE void advance(int64_t step)
    {
#pragma unroll
        for (int r = 0; r < R; r++)
            ptr[r] += step;
    }

    HK_DEVICE void store(T (*tile)[BO + PAD]) const
    {
#pragma unroll
        for (int r = 0; r < R; r++) {
            if (WALK_K) {
#pragma unroll
                for (int i = 0; i < VL; i++)
                    tile[k[r] + i][o[r]] = reg[r][i];
            } else {
                packet<T, VL> v;
#pragma unroll
                for (int i = 0; i < VL; i++)
                    v.v[i] = reg[r][i];
                *reinterpret_cast<packet<T, VL> *>(&tile[k[r]][o[r]]) = v;
            }
        }
    }
};

template <typename T, typename C> struct gemm_shape {
    static constexpr int BM = C::BM, BN = C::BN, BK = C::BK, TM = C::TM, TN = C::TN;
    static constexpr int THREADS_N = BN / TN, THREADS_M = BM / TM;
    static constexpr int NT = THREADS_M * THREADS_N;
    static constexpr int PAD = 16 / (int)sizeof(T);
    // A thread's TM rows: TM / VWM groups of VWM consecutive rows, SPM apart (likewise for columns).
    static constexpr int VWM = min_int(TM, 16 / (int)sizeof(T)), GM = TM / VWM, SPM = BM / GM;
    static constexpr int VWN = min_int(TN, 16 / (int)sizeof(T)), GN = TN / VWN, SPN = BN / GN;
    static_assert(THREADS_M * VWM <= SPM && THREADS_N * VWN <= SPN, "fragment groups overlap");
    static_assert(BM % TM == 0 && BN % TN == 0 && TM % VWM == 0 && TN % VWN == 0, "bad tile shape");
};

struct tile_grid {
    int64_t tiles_m, tiles_n;
};

// Where tile `tile` of batch `z` starts: its first row and column, and the batch's offsets into
// a, b and out. Tiles go in groups of 8 tile rows, column by column within a group, so blocks that
// run together share rows of a and columns of b in L2.
HK_DEVICE void tile_origin(const hkk_matmul_args &p, tile_grid grid, int bm, int bn, int64_t z, int64_t tile,
                           int64_t *m0, int64_t *n0, int64_t *off_a, int64_t *off_b, int64_t *off_out)
{
    const int64_t group_width = 8 * grid.tiles_n;
    const int64_t first_m = tile / group_width * 8;
    const int64_t group_rows = grid.tiles_m - first_m < 8 ? grid.tiles_m - first_m : 8;
    const int64_t in_group = tile % group_width;
    *m0 = (first_m + in_group % group_rows) * bm;
    *n0 = in_group / group_rows * bn;
    int64_t oa = 0, ob = 0, oo = 0, rest = z;
    for (int d = p.batch_ndim - 1; d >= 0; d--) {
        const int64_t c = rest % p.batch_shape[d];
        rest /= p.batch_shape[d];
        oa += c * p.a_bs[d];
        ob += c * p.b_bs[d];
        oo += c * p.o_bs[d];
    }
    *off_a = oa;
    *off_b = ob;
    *off_out = oo;
}

template <typename T, typename C, bool A_WALK_K, bool B_WALK_K>
__global__ void HK_LAUNCH_BOUNDS_MIN_BLOCKS((gemm_shape<T, C>::NT), 2)
    gemm_kernel(hkk_matmul_args p, tile_grid grid, int vec_a, int vec_b, int vec_out)
{
    typedef gemm_shape<T, C> S;
    constexpr int BM = S::BM, BN = S::BN, BK = S::BK, TM = S::TM, TN = S::TN, PAD = S::PAD;
    struct alignas(16) shared_tiles {
        T a[2][BK][BM + PAD];
        T b[2][BK][BN + PAD];
    };
    __shared__ shared_tiles smem;

    const T *__restrict__ a = static_cast<const T *>(p.a);
    const T *__restrict__ b = static_cast<const T *>(p.b);
    T *__restrict__ out = static_cast<T *>(p.out);
    const int thread = (int)threadIdx.x;
    const int tx = thread % S::THREADS_N, ty = thread / S::THREADS_N;
    const int64_t tiles = grid.tiles_m * grid.tiles_n;
    const int64_t k_steps = (p.k + BK - 1) / BK;

    for (int64_t z = blockIdx.z; z < p.batch_count; z += gridDim.z) {
        for (int64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
            int64_t m0, n0, off_a, off_b, off_out;
            tile_origin(p, grid, BM, BN, z, tile, &m0, &n0, &off_a, &off_b, &off_out);
            // a's tile walks m (outer) and k; b's walks n (outer) and k.
            tile_loader<T, BM, BK, S::NT, A_WALK_K> load_a(thread, a + off_a + m0 * p.a_rs, p.a_rs, p.a_cs, p.m - m0);
            tile_loader<T, BN, BK, S::NT, B_WALK_K> load_b(thread, b + off_b + n0 * p.b_cs, p.b_cs, p.b_rs, p.n - n0);

            T acc[TM][TN];
#pragma unroll
            for (int i = 0; i < TM; i++)
#pragma unroll
                for (int j = 0; j < TN; j++)
                    acc[i][j] = T(0);

            if (k_steps > 0) {
                const int64_t a_step = BK * p.a_cs, b_step = BK * p.b_rs;
                load_a.load(p.k < BK ? (int)p.k : BK, vec_a, p.a_rs, p.a_cs);
                load_b.load(p.k < BK ? (int)p.k : BK, vec_b, p.b_cs, p.b_rs);
                load_a.store(smem.a[0]);
                load_b.store(smem.b[0]);
                __syncthreads();
                for (int64_t step = 0; step < k_steps; step++) {
                    const int cur = (int)(step & 1);
                    const bool more = step + 1 < k_steps;
                    if (more) { // next tile into registers while this one is multiplied
                        const int64_t k_left = p.k - (step + 1) * BK;
                        const int k_clamped = k_left < BK ? (int)k_left : BK;
                        load_a.advance(a_step);
                        load_b.advance(b_step);
                        load_a.load(k_clamped, vec_a, p.a_rs, p.a_cs);
                        load_b.load(k_clamped, vec_b, p.b_cs, p.b_rs);
                    }
#pragma unroll
                    for (int kk = 0; kk < BK; kk++) {
                        T fa[TM], fb[TN];
#pragma unroll
                        for (int g = 0; g < S::GM; g++) {
                            const packet<T, S::VWM> v = *reinterpret_cast<const packet<T, S::VWM> *>(
                                &smem.a[cur][kk][g * S::SPM + ty * S::VWM]);
#pragma unroll
                            for (int i = 0; i < S::VWM; i++)
                                fa[g * S::VWM + i] = v.v[i];
                        }
#pragma unroll
                        for (int g = 0; g < S::GN; g++) {
                            const packet<T, S::VWN> v = *reinterpret_cast<const packet<T, S::VWN> *>(
                                &smem.b[cur][kk][g * S::SPN + tx * S::VWN]);
#pragma unroll
                            for (int j = 0; j < S::VWN; j++)
                                fb[g * S::VWN + j] = v.v[j];
                        }
#pragma unroll
                        for (int i = 0; i < TM; i++)
#pragma unroll
                            for (int j = 0; j < TN; j++)
                                acc[i][j] = hk_fma(fa[i], fb[j], acc[i][j]);
                    }
                    // The other buffer was last read in the previous step, which every thread
                    // finished before the barrier that ended it.
                    if (more) {
                        load_a.store(smem.a[cur ^ 1]);
                        load_b.store(smem.b[cur ^ 1]);
                    }
                    __syncthreads();
                }
            }

            // Epilogue: out[m][n] = acc, vector stores where a whole aligned group fits. The origin is
            // recomputed rather than kept live through the K loop.
            tile_origin(p, grid, BM, BN, z, tile, &m0, &n0, &off_a, &off_b, &off_out);
            const int64_t m_left = p.m - m0;
#pragma unroll
            for (int g = 0; g < S::GM; g++) {
#pragma unroll
                for (int i = 0; i < S::VWM; i++) {
                    const int row = g * S::SPM + ty * S::VWM + i;
                    if (row >= m_left)
                        continue;
                    T *out_row = out + off_out + (m0 + row) * p.o_rs;
#pragma unroll
                    for (int h = 0; h < S::GN; h++) {
                        const int64_t col = n0 + h * S::SPN + tx * S::VWN;
                        if (vec_out && col + S::VWN <= p.n) {
                            packet<T, S::VWN> v;
#pragma unroll
                            for (int j = 0; j < S::VWN; j++)
                                v.v[j] = acc[g * S::VWM + i][h * S::VWN + j];
                            *reinterpret_cast<packet<T, S::VWN> *>(out_row + col) = v;
                        } else {
#pragma unroll
                            for (int j = 0; j < S::VWN; j++)
                                if (col + j < p.n)
                                    out_row[(col + j) * p.o_cs] = acc[g * S::VWM + i][h * S::VWN + j];
                        }
                    }
                }
            }
        }
    }
}

// Whether every vector of `lanes` elements an operand's loader reads is aligned: stride 1 along
// the walked dimension, and the pointer and every other stride multiples of the vector.
bool vectorizable(const void *ptr, size_t item, int lanes, int64_t walked_stride, int64_t other_stride,
                  const int64_t *batch_strides, int batch_ndim)
{
    if (walked_stride != 1)
        return false;
    if (lanes == 1)
        return true;
    if ((uintptr_t)ptr % (item * (size_t)lanes) != 0 || other_stride % lanes != 0)
        return false;
    for (int d = 0; d < batch_ndim; d++)
        if (batch_strides[d] % lanes != 0)
            return false;
    return true;
}

int64_t magnitude(int64_t v)
{
    return v < 0 ? -v : v;
}

// Walk k when a is contiguous along k (a_cs == 1), walk the outer dimension when that one is,
// otherwise the smaller stride.
bool walks_k(int64_t outer_stride, int64_t k_stride)
{
    if (k_stride == 1)
        return true;
    if (outer_stride == 1)
        return false;
    return magnitude(k_stride) <= magnitude(outer_stride);
}

template <typename T, typename C, bool A_WALK_K, bool B_WALK_K>
int launch_gemm(const hkk_launch *l, const hkk_matmul_args *p)
{
    typedef gemm_shape<T, C> S;
    typedef tile_loader<T, S::BM, S::BK, S::NT, A_WALK_K> loader_a;
    typedef tile_loader<T, S::BN, S::BK, S::NT, B_WALK_K> loader_b;
    tile_grid grid = {(p->m + S::BM - 1) / S::BM, (p->n + S::BN - 1) / S::BN};
    const int vec_a = vectorizable(p->a, sizeof(T), loader_a::VL, A_WALK_K ? p->a_cs : p->a_rs,
                                   A_WALK_K ? p->a_rs : p->a_cs, p->a_bs, p->batch_ndim);
    const int vec_b = vectorizable(p->b, sizeof(T), loader_b::VL, B_WALK_K ? p->b_rs : p->b_cs,
                                   B_WALK_K ? p->b_cs : p->b_rs, p->b_bs, p->batch_ndim);
    const int vec_out = vectorizable(p->out, sizeof(T), S::VWN, p->o_cs, p->o_rs, p->o_bs, p->batch_ndim);
    const int64_t tiles = grid.tiles_m * grid.tiles_n;
    // Blocks beyond these caps loop (tiles along x, batches along z).
    const unsigned gx = (unsigned)(tiles < (1 << 20) ? tiles : (1 << 20));
    const unsigned gz = (unsigned)(p->batch_count < 65535 ? p->batch_count : 65535);
    gemm_kernel<T, C, A_WALK_K, B_WALK_K>
        <<<dim3(gx, 1, gz), dim3(S::NT), 0, hk_vendor_stream(l)>>>(*p, grid, vec_a, vec_b, vec_out);
    return hk_launch_error();
}

template <typename T, typename C> int gemm_with(const hkk_launch *l, const hkk_matmul_args *p)
{
    const bool a_k = walks_k(p->a_rs, p->a_cs), b_k = walks_k(p->b_cs, p->b_rs);
    if (a_k)
        return b_k ? launch_gemm<T, C, true, true>(l, p) : launch_gemm<T, C, true, false>(l, p);
    return b_k ? launch_gemm<T, C, false, true>(l, p) : launch_gemm<T, C, false, false>(l, p);
}

template <typename T> int gemm_typed(const hkk_launch *l, const hkk_matmul_args *p)
{
    typedef big_config<T> B;
    const int64_t big_tiles = ((p->m + B::BM - 1) / B::BM) * ((p->n + B::BN - 1) / B::BN);
    // Fewer big tiles (over all batches) than multiprocessors: smaller tiles keep more of the GPU busy.
    if (big_tiles * p->batch_count < l->multiprocessor_count)
        return gemm_with<T, small_config<T>>(l, p);
    return gemm_with<T, B>(l, p);
}

} // namespace

extern "C" int hkk_matmul(const hkk_launch *l, const hkk_matmul_args *p)
{
    return hk_dispatch::dispatch<HK_DTYPE_BIT(HK_FLOAT32) | HK_DTYPE_BIT(HK_FLOAT64)>(
        p->dtype, [&](auto tag) { return gemm_typed<typename hk_dt::traits<decltype(tag)::value>::compute>(l, p); });
}
