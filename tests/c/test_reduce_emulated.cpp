// test_reduce_emulated.cpp: the hk_reduce kernels themselves (the same
// hip_kernels/reduce/skeleton.h the library builds for the GPU), run on the
// host by a small emulator, so their index arithmetic, splits, barriers and
// shuffles are checked on any machine: every GPU thread of a block is a
// cooperative fiber; __syncthreads and warp shuffles are real barriers (a
// thread that skips one, or a barrier reached by part of a block, is reported
// as a deadlock); warpSize is 32 or 64 per test; grids follow the planner with
// a small multiprocessor count, so grid-stride loops go round several times.
// Layouts come from src/ops/reduce_internal.h and plans from
// hip_kernels/reduce/plan.c, as in the library.
#include <algorithm>
#include <cstdlib>
#include <functional>
#include <math.h>
#include <memory>
#include <stdint.h>
#include <string.h>
#include <string>
#include <vector>

#include <hipkit/hipkit.h>

#include "../../hip_kernels/reduce/reduce.h"

// ---------------------------------------------------------------- the emulator

struct dim3 {
    unsigned x, y, z;
    dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};

// Fibers switch stacks with a few instructions on x86-64 (swapcontext makes
// a system call per switch, and a launch switches millions of times), with
// ucontext elsewhere.
#if defined(__x86_64__)
extern "C" void hkemu_switch(void **save_sp, void *load_sp);
asm(R"(
    .text
    .globl hkemu_switch
    .type hkemu_switch, @function
hkemu_switch:
    pushq %rbp
    pushq %rbx
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    movq %rsp, (%rdi)
    movq %rsi, %rsp
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbx
    popq %rbp
    ret
    .size hkemu_switch, .-hkemu_switch
)");
#else
#include <ucontext.h>
#endif

namespace emu
{

enum State { RUNNING, AT_BLOCK_BARRIER, AT_WARP_BARRIER, DONE };

struct Fiber {
    std::unique_ptr<char[]> stack;
    State state = RUNNING;
#if defined(__x86_64__)
    void *sp = nullptr;
#else
    ucontext_t context;
#endif
};

constexpr size_t kStack = 128 * 1024;

static std::vector<Fiber> fibers;
static std::vector<int> exchange; // one word per thread for shuffles
static int current = -1;
static std::function<void()> body;
static std::string failure; // first failure of the current launch
static dim3 thread_index, block_index, block_dim, grid_dim;
static int warp_size = 32;
#if defined(__x86_64__)
static void *scheduler_sp = nullptr;
#else
static ucontext_t scheduler;
#endif

static void to_scheduler()
{
#if defined(__x86_64__)
    hkemu_switch(&fibers[(size_t)current].sp, scheduler_sp);
#else
    swapcontext(&fibers[(size_t)current].context, &scheduler);
#endif
}

static void to_fiber(int i)
{
#if defined(__x86_64__)
    hkemu_switch(&scheduler_sp, fibers[(size_t)i].sp);
#else
    swapcontext(&scheduler, &fibers[(size_t)i].context);
#endif
}

static void fiber_entry()
{
    body();
    fibers[(size_t)current].state = DONE;
    to_scheduler(); // never resumed
    abort();
}

static void start_fiber(Fiber &f)
{
    if (!f.stack)
        f.stack.reset(new char[kStack]);
    f.state = RUNNING;
#if defined(__x86_64__)
    // Six saved registers, then fiber_entry as the return address, then a
    // dummy return slot, so fiber_entry starts with rsp = 8 (mod 16) as after a call.
    uintptr_t top = ((uintptr_t)f.stack.get() + kStack) & ~(uintptr_t)15;
    void **sp = reinterpret_cast<void **>(top - 16);
    sp[0] = reinterpret_cast<void *>(&fiber_entry);
    sp[1] = nullptr;
    sp -= 6;
    for (int k = 0; k < 6; k++)
        sp[k] = nullptr;
    f.sp = sp;
#else
    getcontext(&f.context);
    f.context.uc_stack.ss_sp = f.stack.get();
    f.context.uc_stack.ss_size = kStack;
    f.context.uc_link = nullptr;
    makecontext(&f.context, fiber_entry, 0);
#endif
}

static void yield_to_scheduler(State state)
{
    fibers[(size_t)current].state = state;
    to_scheduler();
}

static int linear_thread()
{
    return (int)(thread_index.x + thread_index.y * block_dim.x);
}

// Run one block to completion.
static void run_block()
{
    const int n = (int)(block_dim.x * block_dim.y * block_dim.z);
    if (fibers.size() < (size_t)n)
        fibers.resize((size_t)n);
    exchange.assign((size_t)n, 0);
    for (int i = 0; i < n; i++)
        start_fiber(fibers[(size_t)i]);
    const int warps = (n + warp_size - 1) / warp_size;
    for (;;) {
        for (int i = 0; i < n; i++) {
            if (fibers[(size_t)i].state != RUNNING)
                continue;
            current = i;
            thread_index = dim3((unsigned)i % block_dim.x, (unsigned)i / block_dim.x, 0);
            to_fiber(i);
        }
        // Nobody runs now: everyone is done or waits at a barrier.
        int done = 0, at_block = 0;
        for (int i = 0; i < n; i++) {
            done += fibers[(size_t)i].state == DONE;
            at_block += fibers[(size_t)i].state == AT_BLOCK_BARRIER;
        }
        if (done == n)
            return;
        bool released = false;
        if (at_block == n) {
            for (int i = 0; i < n; i++)
                fibers[(size_t)i].state = RUNNING;
            released = true;
        }
        for (int w = 0; w < warps; w++) {
            const int first = w * warp_size, last = std::min(n, first + warp_size);
            bool all = true;
            for (int i = first; i < last; i++)
                all = all && fibers[(size_t)i].state == AT_WARP_BARRIER;
            if (all) {
                for (int i = first; i < last; i++)
                    fibers[(size_t)i].state = RUNNING;
                released = true;
            }
        }
        if (!released) {
            if (failure.empty()) {
                failure = "deadlock in block (" + std::to_string(block_index.x) + ", " + std::to_string(block_index.y) +
                          "): " + std::to_string(done) + " threads finished, " + std::to_string(at_block) +
                          " at __syncthreads, the rest at a warp shuffle";
            }
            return; // the stuck fibers are abandoned (restarted for the next block)
        }
    }
}

static void launch(dim3 grid, dim3 block, std::function<void()> kernel)
{
    if (block.x * block.y * block.z == 0 || block.x * block.y * block.z > 1024 || grid.x == 0 || grid.y == 0 ||
        grid.y > 65535) {
        if (failure.empty())
            failure = "invalid launch configuration";
        return;
    }
    body = std::move(kernel);
    block_dim = block;
    grid_dim = grid;
    for (unsigned y = 0; y < grid.y && failure.empty(); y++)
        for (unsigned x = 0; x < grid.x && failure.empty(); x++) {
            block_index = dim3(x, y, 0);
            run_block();
        }
}

static void sync_block()
{
    yield_to_scheduler(AT_BLOCK_BARRIER);
}

static void check_aligned(const void *p)
{
    if ((uintptr_t)p % 16 != 0 && failure.empty())
        failure = "a 16-byte vector load from an address that is not 16-byte aligned";
}

static int shuffle_down(int value, int delta)
{
    const int t = linear_thread();
    const int lane = t % warp_size;
    exchange[(size_t)t] = value;
    yield_to_scheduler(AT_WARP_BARRIER);
    const int src = lane + delta;
    const int result = src < warp_size ? exchange[(size_t)(t + delta)] : value;
    yield_to_scheduler(AT_WARP_BARRIER);
    return result;
}

} // namespace emu

// ----------------------------------------- the device names the skeleton uses
// The emulator stands in for the device prelude (common/hipkit_device.h, whose
// guard it defines) and for src/gpu/device.h (hk_dev, below).

#define HKR_EMULATION 1
#define HIPKIT_DEVICE_H 1
#define HK_DEVICE inline
#define __global__
#define __launch_bounds__(n)
#define __shared__ static
#define threadIdx (emu::thread_index)
#define blockIdx (emu::block_index)
#define blockDim (emu::block_dim)
#define gridDim (emu::grid_dim)
#define warpSize (emu::warp_size)
#define HKR_LAUNCH(kernel, grid, block, stream, ...)                                                                   \
    (void)(stream), emu::launch(grid, block, [=] { kernel(__VA_ARGS__); })

typedef void *hipStream_t;
enum { hipSuccess = 0, hipErrorInvalidValue = 1, hipErrorLaunchFailure = 2 };
static inline hipStream_t hk_vendor_stream(const hkk_launch *l)
{
    return l->stream;
}
static inline int hk_launch_error()
{
    return emu::failure.empty() ? (int)hipSuccess : (int)hipErrorLaunchFailure;
}
static inline int hipGetDevice(int *device)
{
    *device = 0;
    return hipSuccess;
}
static inline int hipGetLastError()
{
    return hipSuccess;
}
// Every kernel: 4 resident blocks per multiprocessor.
static inline int hipOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, const void *, int, size_t)
{
    *blocks = 4;
    return hipSuccess;
}
static inline void __syncthreads()
{
    emu::sync_block();
}
static inline float __int_as_float(int v)
{
    float f;
    memcpy(&f, &v, 4);
    return f;
}
static inline double __longlong_as_double(long long v)
{
    double f;
    memcpy(&f, &v, 8);
    return f;
}
static inline unsigned int __float_as_uint(float f)
{
    unsigned int v;
    memcpy(&v, &f, 4);
    return v;
}
static inline long long __double_as_longlong(double f)
{
    long long v;
    memcpy(&v, &f, 8);
    return v;
}
namespace hk_dev
{
static inline int shfl_down(int value, int delta)
{
    return emu::shuffle_down(value, delta);
}
static inline float half_bits_to_float(uint16_t bits)
{
    _Float16 h;
    memcpy(&h, &bits, 2);
    return (float)h;
}
static inline uint16_t float_to_half_bits(float v)
{
    const _Float16 h = (_Float16)v; // round to nearest even, as the device's
    uint16_t bits;
    memcpy(&bits, &h, 2);
    return bits;
}
} // namespace hk_dev

#define HKR_UNROLL
#define HKR_CHECK_ALIGNED(p) emu::check_aligned(p)
#include "../../hip_kernels/reduce/skeleton.h"
#include "../../src/ops/reduce_internal.h"

#undef threadIdx
#undef blockIdx
#undef blockDim
#undef gridDim
#undef warpSize
#undef __shared__
#undef __global__

#include "reduce_reference.h"

namespace
{

using hkred::Case;

template <hk_dtype D> int emulated_op(hk_reduce_op op, const hkr::Call &call)
{
    switch (op) {
    case HK_REDUCE_SUM: return call(hkr::SumOp<D>{});
    case HK_REDUCE_PROD: return call(hkr::ProdOp<D>{});
    case HK_REDUCE_MIN: return call(hkr::ExtremeOp<D, false>{});
    case HK_REDUCE_MAX: return call(hkr::ExtremeOp<D, true>{});
    case HK_REDUCE_ARGMIN: return call(hkr::ArgOp<D, false>{});
    case HK_REDUCE_ARGMAX: return call(hkr::ArgOp<D, true>{});
    case HK_REDUCE_ANY:
    case HK_REDUCE_ALL: {
        hkr::AnyAllOp<D> o;
        o.all = op == HK_REDUCE_ALL;
        return call(o);
    }
    case HK_REDUCE_MEAN: {
        hkr::MeanOp<D> o;
        o.count = call.L->count;
        return call(o);
    }
    case HK_REDUCE_VAR:
    case HK_REDUCE_STD: {
        hkr::VarOp<D> o;
        o.ddof = call.ddof;
        o.take_sqrt = op == HK_REDUCE_STD;
        return call(o);
    }
    default: return (int)hipErrorInvalidValue;
    }
}

int emulated_dispatch(hk_dtype dtype, hk_reduce_op op, const hkr::Call &call)
{
    return hk_dispatch::dispatch<HK_DTYPES_REAL>(dtype,
                                                 [&](auto tag) { return emulated_op<decltype(tag)::value>(op, call); });
}

// The library's path after validation, on host memory: the same layout, the
// same planner, the kernels under the emulator. The refusals the library
// makes before any kernel (argmin over some axes, empty min) are mirrored.
struct Emulated {
    int multiprocessors;
    std::string last_plan;

    hk_status operator()(hk_reduce_op op, const std::vector<unsigned char> &in_pool, const hk_array &in_view,
                         uint32_t axes, std::vector<unsigned char> &out_pool, const hk_array &out_view, int ddof,
                         std::string &error)
    {
        int reduced = 0;
        int64_t count = 1, outputs = 1;
        for (int k = 0; k < in_view.ndim; k++) {
            if (axes >> k & 1u) {
                reduced++;
                count *= in_view.shape[k];
            }
        }
        for (int k = 0; k < out_view.ndim; k++)
            outputs *= out_view.shape[k];
        const bool indexed = hkred::is_indexed(op);
        if (indexed && reduced != 1 && reduced != in_view.ndim)
            return HK_ERROR_INVALID_ARGUMENT;
        if (outputs == 0)
            return HK_SUCCESS;
        if (hkred::needs_identity(op) && count == 0)
            return HK_ERROR_INVALID_ARGUMENT;
        hk_array in = in_view, out = out_view;
        const size_t in_size = hkred::dsize(in.dtype), out_size = hkred::dsize(out.dtype);
        // Copies aligned to 256 bytes, as device allocations are.
        std::unique_ptr<unsigned char[]> in_mem(new unsigned char[in_pool.size() + 512]);
        std::unique_ptr<unsigned char[]> out_mem(new unsigned char[out_pool.size() + 512]);
        unsigned char *in_base = in_mem.get() + (256 - (uintptr_t)in_mem.get() % 256);
        unsigned char *out_base = out_mem.get() + (256 - (uintptr_t)out_mem.get() % 256);
        memcpy(in_base, in_pool.data(), in_pool.size());
        memcpy(out_base, out_pool.data(), out_pool.size());
        in.data = in_base + (uintptr_t)in_view.data * in_size;
        out.data = out_base + (uintptr_t)out_view.data * out_size;
        const int keepdims = out.ndim == in.ndim && reduced > 0;
        hkk_reduce_layout layout;
        int64_t in_off, out_off;
        reduce_build_layout(&in, axes, &out, keepdims, indexed, &layout, &in_off, &out_off);
        const void *in_origin = count > 0 ? (const char *)in.data + in_off * (int64_t)in_size : in.data;
        void *out_origin = (char *)out.data + out_off * (int64_t)out_size;
        hkk_launch launch = {nullptr, multiprocessors, 0, nullptr};
        hkk_reduce_plan p;
        size_t bytes = 0;
        hkr::Call query = {&launch, in_origin, out_origin, nullptr, &layout, ddof, &bytes, &p};
        if (emulated_dispatch(in.dtype, op, query) != 0) {
            error = "scratch query failed";
            return HK_ERROR_INTERNAL;
        }
        last_plan = describe(p);
        std::vector<unsigned char> scratch(bytes + 16);
        emu::failure.clear();
        hkr::Call call = {&launch, in_origin, out_origin, bytes ? scratch.data() : nullptr,
                          &layout, ddof,      nullptr,    nullptr};
        if (emulated_dispatch(in.dtype, op, call) != 0) {
            error = "emulated kernels failed: " + emu::failure + " (" + last_plan + ")";
            return HK_ERROR_LAUNCH_FAILED;
        }
        memcpy(out_pool.data(), out_base, out_pool.size());
        return HK_SUCCESS;
    }

    static std::string describe(const hkk_reduce_plan &p)
    {
        std::ostringstream s;
        if (p.kind == HKK_REDUCE_COLUMNS)
            s << "columns W=" << p.W << " block " << p.bx << "x" << p.by << " grid " << p.gx << "x" << p.S;
        else
            s << (p.kind == HKK_REDUCE_ROW_CONTIG ? "rows" : "strided rows") << " G=" << p.G << " grid " << p.grid
              << " S=" << p.S;
        if (p.S > 1)
            s << " chunk " << p.chunk << ", finalize G=" << p.fG << " grid " << p.fgrid;
        return s.str();
    }
};

// Cases chosen to reach every kernel and planner branch with a small
// multiprocessor count (4 resident blocks per multiprocessor, see above).
struct EmuCase {
    Case c;
    int multiprocessors;
    const char *expect; // a word the plan must contain: "rows", "strided", "columns W=1", "finalize"...
};

std::vector<EmuCase> emulated_cases()
{
    std::vector<EmuCase> v;
    auto add = [&](Case c, int sms, const char *expect) { v.push_back({c, sms, expect}); };
    add({"0-d", {}, {}, 0}, 2, "rows");
    add({"1 element", {1}, {}, 1}, 2, "rows");
    add({"prime, all", {13}, {}, 1}, 2, "rows G=4");
    add({"axes 0: per element", {5, 3}, {}, 0}, 2, "rows G=1");
    add({"short rows, misaligned", {33, 11}, {}, 2, false, 0, 1}, 2, "rows G=");
    add({"warp rows", {70, 1000}, {}, 2}, 2, "rows G=32");
    add({"block rows", {9, 2500}, {}, 2, true, 1}, 2, "rows G=256");
    add({"one long row, split", {40011}, {}, 1, false, 0, 3}, 2, "finalize G=1");
    add({"one long row, split wide", {150001}, {}, 1}, 5, "finalize G=32");
    add({"two long rows, split", {2, 70001}, {}, 2}, 3, "finalize");
    add({"reversed, all", {5003}, {-1}, 1}, 2, "rows");
    add({"strided, all", {3001}, {3}, 1}, 2, "strided rows");
    add({"columns aligned", {300, 64}, {}, 1}, 2, "columns W=");
    add({"columns aligned, split", {4000, 40}, {}, 1, true, 1}, 2, "finalize");
    add({"columns unaligned", {301, 7}, {}, 1}, 2, "columns W=1");
    add({"few columns, long, split", {20000, 3}, {}, 1}, 2, "columns W=1");
    add({"columns with outer dims", {6, 50, 20}, {}, 2}, 2, "columns");
    add({"columns, reduced pair", {7, 5, 36}, {}, 3}, 2, "columns");
    add({"columns reversed rows", {257, 33}, {-33, 1}, 1}, 2, "columns");
    add({"transposed rows", {53, 37}, {1, 53}, 1}, 2, "rows");
    add({"transposed columns", {53, 37}, {1, 53}, 2}, 2, "columns");
    add({"transposed all", {53, 37}, {1, 53}, 3}, 2, "rows");
    add({"3-d middle", {5, 6, 7}, {}, 2, true}, 2, "columns");
    add({"3-d outer+inner", {5, 6, 7}, {}, 5}, 2, "strided rows");
    add({"3-d all keepdims", {5, 6, 7}, {}, 7, true, 1}, 2, "rows");
    add({"4-d permuted, pair", {3, 4, 5, 6}, {1, 90, 3, 15}, 6}, 2, "");
    add({"4-d permuted, pair 0,3", {3, 4, 5, 6}, {1, 90, 3, 15}, 9, false, 1}, 2, "");
    add({"broadcast rows", {64, 100}, {0, 1}, 1}, 2, "strided rows");
    add({"broadcast reduced", {64, 100}, {0, 1}, 2}, 2, "rows");
    add({"broadcast columns", {100, 64}, {1, 0}, 1}, 2, "rows");
    add({"empty reduced, rows", {5, 0}, {}, 2}, 2, "rows");
    add({"empty reduced, columns", {0, 5}, {}, 1}, 2, "");
    add({"empty output", {0, 5}, {}, 2}, 2, "");
    add({"8-d", {2, 3, 2, 3, 2, 3, 2, 2}, {}, 0x55}, 2, "");
    return v;
}

class ReduceEmulated : public ::testing::TestWithParam<int>
{
};

// Every op, every dtype, every case; warp size 32 and 64.
TEST_P(ReduceEmulated, KernelsMatchTheReference)
{
    emu::warp_size = GetParam();
    HKTEST_SEEDED_RNG(rng);
    int variant = 0;
    for (const EmuCase &ec : emulated_cases()) {
        Emulated run{ec.multiprocessors, ""};
        hkred::Executor exec = std::ref(run);
        for (hk_dtype dtype : hkred::kDtypes) {
            for (hk_reduce_op op : hkred::kOps) {
                const std::string failure = hkred::check_case(exec, op, dtype, ec.c, rng, variant++);
                ASSERT_TRUE(failure.empty()) << "warp size " << emu::warp_size << ", plan: " << run.last_plan << "\n"
                                             << failure;
            }
        }
        EXPECT_NE(run.last_plan.find(ec.expect), std::string::npos)
            << "case \"" << ec.c.name << "\" was meant to reach \"" << ec.expect << "\" but the plan was "
            << run.last_plan;
    }
}

INSTANTIATE_TEST_SUITE_P(WarpSizes, ReduceEmulated, ::testing::Values(32, 64));

// The emulator itself: it must catch what a GPU would punish.
TEST(ReduceEmulator, ReportsABarrierNotEveryThreadReaches)
{
    emu::warp_size = 32;
    emu::failure.clear();
    emu::launch(dim3(2), dim3(64), [] {
        if (emu::thread_index.x != 5)
            __syncthreads();
    });
    EXPECT_NE(emu::failure.find("deadlock"), std::string::npos) << emu::failure;
    emu::failure.clear();
    emu::launch(dim3(1), dim3(64), [] {
        if (emu::thread_index.x < 40) // part of the second warp skips the shuffle
            (void)hk_dev::shfl_down(1, 1);
    });
    EXPECT_NE(emu::failure.find("deadlock"), std::string::npos) << emu::failure;
    emu::failure.clear();
}

TEST(ReduceEmulator, ReportsMisalignedVectorLoads)
{
    alignas(16) static float data[8];
    emu::failure.clear();
    (void)hkr::load16(data + 4);
    EXPECT_TRUE(emu::failure.empty()) << emu::failure;
    (void)hkr::load16(data + 1);
    EXPECT_NE(emu::failure.find("aligned"), std::string::npos);
    emu::failure.clear();
}

TEST(ReduceEmulator, ShufflesAndBlockCombineFollowTheWarpSize)
{
    for (int ws : {32, 64}) {
        emu::warp_size = ws;
        emu::failure.clear();
        std::vector<int> got(256, -1);
        int64_t total = -1;
        emu::launch(dim3(1), dim3(256), [&] {
            const int t = (int)emu::thread_index.x;
            got[(size_t)t] = hk_dev::shfl_down(t, 1); // lane ws-1 keeps its own value
            hkr::SumOp<HK_INT64> op;
            static uint64_t smem[32];
            const uint64_t sum = hkr::block_combine(op, (uint64_t)t, smem);
            if (t == 0)
                total = (int64_t)sum;
        });
        ASSERT_TRUE(emu::failure.empty()) << emu::failure;
        for (int t = 0; t < 256; t++)
            EXPECT_EQ(got[(size_t)t], t % ws == ws - 1 ? t : t + 1) << "thread " << t << ", warp size " << ws;
        EXPECT_EQ(total, 255 * 256 / 2) << "warp size " << ws;
    }
    emu::warp_size = 32;
}

} // namespace
