// user_kernel.cpp: runs a launch of a user kernel on the CPU device (user_kernel.h). Blocks are
// spread over the cores (parallel.h); a block runs on one core, its threads one after another in
// the shared object's run_block, at the cost of a function call each.
//
// Until one waits for the others. The first thread of a block to reach __syncthreads or a warp
// collective converts the block: it keeps running where it is (on the core's own stack: it is
// the block's "main" fiber), the threads after it become fibers with stacks of their own (each runs
// run_thread), the threads before it have returned (they count as exited, as on the GPUs), and the
// scheduler gets a stack of its own. From then on a thread runs until it waits; the last of the
// block (or of the warp) to arrive releases the others and goes on, and the scheduler resumes the
// released ones in thread order. Where the threads a collective waits for cannot all come (a
// shuffle some lanes of a warp skip while the others wait at __syncthreads), it completes with the
// lanes that came, as a _sync mask naming them would. So a kernel pays for fibers only when, and
// from where, it waits.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <csetjmp>
#include <mutex>
#include <vector>

#include "parallel.h"
#include "user_kernel.h"

#if defined(__SANITIZE_ADDRESS__)
#define HKC_FIBER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HKC_FIBER_ASAN 1
#endif
#endif
#if defined(HKC_FIBER_ASAN)
#include <sanitizer/common_interface_defs.h>
#endif

// ------------------------------------------------------------------ contexts
// A context is a saved stack to switch to. On x86-64 a switch is a few instructions (swapcontext
// makes a system call per switch, and a block of 256 threads meeting at a barrier switches 512
// times), ending in a jump rather than a return: a return to another stack's address always misses
// the return predictor (measured: 7 ns a switch pair against 35); ucontext elsewhere (or with
// HKC_FIBER_UCONTEXT, to test it).

#if defined(__x86_64__) && !defined(HKC_FIBER_UCONTEXT)
#define HKC_FIBER_ASM 1
extern "C" void hkc_fiber_switch(void **save_sp, void *load_sp);
extern "C" void hkc_context_start();
asm(R"(
    .text
    .globl hkc_fiber_switch
    .hidden hkc_fiber_switch
    .type hkc_fiber_switch, @function
hkc_fiber_switch:
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
    popq %rcx
    jmp *%rcx
    .size hkc_fiber_switch, .-hkc_fiber_switch

    # A new context's first switch jumps here with its entry in r12 and argument in rbx.
    .globl hkc_context_start
    .hidden hkc_context_start
    .type hkc_context_start, @function
hkc_context_start:
    movq %rbx, %rdi
    andq $-16, %rsp
    call *%r12
    ud2
    .size hkc_context_start, .-hkc_context_start
)");
#else
#include <ucontext.h>
#endif

namespace
{

struct Context {
#if defined(HKC_FIBER_ASM)
    void *sp;
#else
    ucontext_t uc;
    void (*entry)(void *);
    void *arg;
    bool started;
#endif
};

#if !defined(HKC_FIBER_ASM)
thread_local Context *starting; // makecontext's entry takes no pointer
void context_trampoline()
{
    Context *c = starting;
    c->entry(c->arg);
    abort(); // entries never return
}
#endif

// `c` starts with entry(arg) on [stack, stack + size) at its first switch.
void make_context(Context *c, char *stack, size_t size, void (*entry)(void *), void *arg)
{
#if defined(HKC_FIBER_ASM)
    // What hkc_fiber_switch pops (r15, r14, r13, r12 = entry, rbx = arg, rbp), then the address it
    // jumps to, and a dummy slot: hkc_context_start runs with rsp = 8 (mod 16), as after a call.
    uintptr_t top = ((uintptr_t)stack + size) & ~(uintptr_t)15;
    void **sp = reinterpret_cast<void **>(top - 16);
    sp[0] = reinterpret_cast<void *>(&hkc_context_start);
    sp[1] = nullptr;
    sp -= 6;
    for (int k = 0; k < 6; k++)
        sp[k] = nullptr;
    sp[3] = reinterpret_cast<void *>(entry);
    sp[4] = arg;
    c->sp = sp;
#else
    getcontext(&c->uc);
    c->uc.uc_stack.ss_sp = stack;
    c->uc.uc_stack.ss_size = size;
    c->uc.uc_link = nullptr;
    c->entry = entry;
    c->arg = arg;
    c->started = false;
    makecontext(&c->uc, context_trampoline, 0);
#endif
}

void switch_context(Context *save, Context *load)
{
#if defined(HKC_FIBER_ASM)
    hkc_fiber_switch(&save->sp, load->sp);
#else
    if (!load->started) {
        load->started = true;
        starting = load;
    }
    swapcontext(&save->uc, &load->uc);
#endif
}

// Someone to switch to: its context, and its stack for the address sanitizer.
struct Party {
    Context context;
    const void *stack_bottom;
    size_t stack_size;
    void *fake_stack;
};

// From `from` to `to`; returns when something switches back to `from` (never, if `from_ends`).
void transfer(Party *from, Party *to, bool from_ends)
{
#if defined(HKC_FIBER_ASAN)
    __sanitizer_start_switch_fiber(from_ends ? nullptr : &from->fake_stack, to->stack_bottom, to->stack_size);
#else
    (void)from_ends;
#endif
    switch_context(&from->context, &to->context);
#if defined(HKC_FIBER_ASAN)
    __sanitizer_finish_switch_fiber(from->fake_stack, nullptr, nullptr);
#endif
}

// A new party's first words: learns the stack it came from (for the main fiber's).
void entered(const void **came_from_bottom, size_t *came_from_size)
{
#if defined(HKC_FIBER_ASAN)
    __sanitizer_finish_switch_fiber(nullptr, came_from_bottom, came_from_size);
#else
    (void)came_from_bottom, (void)came_from_size;
#endif
}

// -------------------------------------------------------------------- state

const size_t kStackBytes = 256 * 1024; // a thread's locals; the GPUs' default is far smaller
const int kMaxWarps = 1024 / HKCPU_WARP_SIZE;

struct Launch {
    const hkc_user_launch *launch;
    std::atomic<int> failed{0};
    std::mutex lock;
    char why[256] = "";

    void fail(const hkcpu_thread *t, const char *what)
    {
        std::lock_guard<std::mutex> hold(lock);
        if (failed.load())
            return;
        snprintf(why, sizeof why, "kernel %s, block (%u, %u, %u), thread (%u, %u, %u): %s", launch->name,
                 t->block_idx.x, t->block_idx.y, t->block_idx.z, t->thread_idx.x, t->thread_idx.y, t->thread_idx.z,
                 what);
        failed.store(1);
    }
};

enum State : unsigned char { NEW, RUNNABLE, AT_BARRIER, AT_WARP, DONE };

struct Block;

struct Fiber {
    hkcpu_thread thread; // first: a fiber's run_thread hands back &thread
    Block *block;
    Party party;
    char *stack; // NULL for the main fiber, which runs on the core's own stack
    State state;
    int lane, warp;
    hkcpu_warp_request request;
    uint64_t result;
    int flag;
};

// Per core: fibers and stacks, kept from block to block.
struct Worker {
    std::vector<Fiber> fibers;
    std::vector<char *> free_stacks;
    std::vector<char *> all_stacks;
    ~Worker()
    {
        for (char *s : all_stacks)
            munmap(s - getpagesize(), kStackBytes + (size_t)getpagesize());
    }
    // A stack with a guard page below it; NULL without memory.
    char *take_stack()
    {
        if (!free_stacks.empty()) {
            char *s = free_stacks.back();
            free_stacks.pop_back();
            return s;
        }
        const size_t page = (size_t)getpagesize();
        void *p = mmap(nullptr, kStackBytes + page, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
        if (p == MAP_FAILED)
            return nullptr;
        (void)mprotect(p, page, PROT_NONE);
        char *s = static_cast<char *>(p) + page;
        all_stacks.push_back(s);
        return s;
    }
};
thread_local Worker worker; // looked up once per block (a thread_local with a destructor costs a call)

struct Block {
    Launch *launch;
    const hkcpu_kernel_info *info;
    Worker *worker;
    hkcpu_thread plain; // the thread run_block runs; after conversion, the main fiber's
    bool converted, scheduler_started, finished, stopped;
    Fiber *fiber; // the block's threads, once converted
    Fiber *main;
    int n, live;
    int at_barrier, barrier_sum, barrier_result, barrier_participants;
    int warp_live[kMaxWarps], warp_arrived[kMaxWarps];
    int rerun; // the first thread of a warp whose collective just completed, else -1
    Party scheduler;
    char *scheduler_stack;
};

Block *block_of(hkcpu_thread *t)
{
    return static_cast<Block *>(t->scheduler);
}

Fiber *fiber_of(Block *b, hkcpu_thread *t)
{
    return t == &b->plain ? b->main : reinterpret_cast<Fiber *>(t);
}

// ---------------------------------------------------------------- collectives

void release_barrier(Block *b)
{
    b->barrier_result = b->barrier_sum;
    b->barrier_participants = b->at_barrier;
    b->barrier_sum = 0;
    b->at_barrier = 0;
    for (int i = 0; i < b->n; i++)
        if (b->fiber[i].state == AT_BARRIER)
            b->fiber[i].state = RUNNABLE;
}

// The result for lane f of the collective the lanes in `present` of its warp (`lanes`) arrived at.
void warp_result(const Fiber *lanes, unsigned present, Fiber *f)
{
    const hkcpu_warp_request &r = f->request;
    const int lane = f->lane;
    const unsigned width = r.width >= 1 && r.width <= HKCPU_WARP_SIZE ? (unsigned)r.width : HKCPU_WARP_SIZE;
    const unsigned start = (unsigned)lane / width * width, offset = (unsigned)lane - start;
    const unsigned in = present & r.mask;
    auto value_of = [&](long long src) -> uint64_t {
        if (src < 0 || src >= HKCPU_WARP_SIZE || !(present >> src & 1u))
            return r.value; // a lane that is not there: the caller's own value
        return lanes[src].request.value;
    };
    uint64_t result = 0;
    f->flag = 0;
    switch (r.op) {
    case HKCPU_SHFL_IDX: result = value_of((long long)(start + r.operand % width)); break;
    case HKCPU_SHFL_UP: result = offset >= r.operand ? value_of((long long)lane - r.operand) : r.value; break;
    case HKCPU_SHFL_DOWN:
        result = (unsigned long long)offset + r.operand < width ? value_of((long long)lane + r.operand) : r.value;
        break;
    case HKCPU_SHFL_XOR: {
        const unsigned src = (unsigned)lane ^ r.operand;
        result = src >= HKCPU_WARP_SIZE || src / width > (unsigned)lane / width ? r.value : value_of(src);
        break;
    }
    case HKCPU_BALLOT:
    case HKCPU_ANY:
    case HKCPU_ALL: {
        unsigned votes = 0;
        for (int j = 0; j < HKCPU_WARP_SIZE; j++)
            if ((in >> j & 1u) && lanes[j].request.value != 0)
                votes |= 1u << j;
        result = r.op == HKCPU_BALLOT ? votes : r.op == HKCPU_ANY ? votes != 0 : votes == in;
        break;
    }
    case HKCPU_ACTIVEMASK: result = present; break;
    case HKCPU_SYNCWARP: break;
    case HKCPU_MATCH_ANY:
    case HKCPU_MATCH_ALL: {
        unsigned same = 0;
        for (int j = 0; j < HKCPU_WARP_SIZE; j++)
            if ((in >> j & 1u) && lanes[j].request.value == r.value)
                same |= 1u << j;
        if (r.op == HKCPU_MATCH_ANY) {
            result = same;
        } else {
            f->flag = same == in;
            result = same == in ? in : 0u;
        }
        break;
    }
    default: { // the 32-bit reductions
        uint32_t acc = r.op == HKCPU_REDUCE_AND || r.op == HKCPU_REDUCE_MIN_UNSIGNED ? 0xffffffffu
                       : r.op == HKCPU_REDUCE_MIN_SIGNED                             ? 0x7fffffffu
                       : r.op == HKCPU_REDUCE_MAX_SIGNED                             ? 0x80000000u
                                                                                     : 0u;
        for (int j = 0; j < HKCPU_WARP_SIZE; j++) {
            if (!(in >> j & 1u))
                continue;
            const uint32_t v = (uint32_t)lanes[j].request.value;
            switch (r.op) {
            case HKCPU_REDUCE_ADD: acc += v; break;
            case HKCPU_REDUCE_MIN_SIGNED: acc = (int32_t)v < (int32_t)acc ? v : acc; break;
            case HKCPU_REDUCE_MAX_SIGNED: acc = (int32_t)v > (int32_t)acc ? v : acc; break;
            case HKCPU_REDUCE_MIN_UNSIGNED: acc = v < acc ? v : acc; break;
            case HKCPU_REDUCE_MAX_UNSIGNED: acc = v > acc ? v : acc; break;
            case HKCPU_REDUCE_AND: acc &= v; break;
            case HKCPU_REDUCE_OR: acc |= v; break;
            default: acc ^= v; break;
            }
        }
        result = acc;
        break;
    }
    }
    f->result = result;
}

// Completes the collective the arrived lanes of warp w wait at.
void complete_warp(Block *b, int w)
{
    Fiber *lanes = b->fiber + w * HKCPU_WARP_SIZE;
    const int count = b->n - w * HKCPU_WARP_SIZE < HKCPU_WARP_SIZE ? b->n - w * HKCPU_WARP_SIZE : HKCPU_WARP_SIZE;
    unsigned present = 0;
    for (int j = 0; j < count; j++)
        if (lanes[j].state == AT_WARP)
            present |= 1u << j;
    for (int j = 0; j < count; j++)
        if (present >> j & 1u)
            warp_result(lanes, present, &lanes[j]);
    for (int j = 0; j < count; j++)
        if (present >> j & 1u)
            lanes[j].state = RUNNABLE;
    b->warp_arrived[w] = 0;
    b->rerun = w * HKCPU_WARP_SIZE;
}

// Fiber f has returned: it no longer counts, so what waited for it may complete.
void fiber_done(Block *b, Fiber *f)
{
    if (f->stack) {
        b->worker->free_stacks.push_back(f->stack);
        f->stack = nullptr;
    }
    b->live--;
    if (--b->warp_live[f->warp] > 0 && b->warp_arrived[f->warp] == b->warp_live[f->warp])
        complete_warp(b, f->warp);
    if (b->at_barrier > 0 && b->at_barrier == b->live)
        release_barrier(b);
}

// ------------------------------------------------------------------ fibers

void fiber_entry(void *arg)
{
    Fiber *f = static_cast<Fiber *>(arg);
    Block *b = f->block;
    entered(nullptr, nullptr);
    if (b->info->run_thread(&f->thread) != 0)
        b->stopped = true;
    f->state = DONE;
    transfer(&f->party, &b->scheduler, true);
    __builtin_unreachable();
}

// Runs the block's fibers until every one has returned, or the block stopped.
void schedule(Block *b)
{
    const int n = b->n;
    while (b->live > 0 && !b->stopped) {
        bool ran = false;
        for (int i = 0; i < n && !b->stopped; i++) {
            Fiber *f = &b->fiber[i];
            if (f->state == NEW) {
                if (!(f->stack = b->worker->take_stack())) {
                    b->launch->fail(&f->thread,
                                    "no memory for the stacks of its threads (from its first __syncthreads or warp "
                                    "collective on, each thread of a block needs one; use smaller blocks)");
                    b->stopped = true;
                    break;
                }
                make_context(&f->party.context, f->stack, kStackBytes, fiber_entry, f);
                f->party.stack_bottom = f->stack;
                f->party.stack_size = kStackBytes;
                f->state = RUNNABLE;
            } else if (f->state != RUNNABLE) {
                continue;
            }
            ran = true;
            transfer(&b->scheduler, &f->party, false);
            if (f->state == DONE)
                fiber_done(b, f);
            // A warp whose collective completed goes on at once, so the lanes that run in turn are
            // one warp's (their stacks stay in the cache), not the whole block's.
            if (b->rerun >= 0) {
                if (b->rerun <= i)
                    i = b->rerun - 1;
                b->rerun = -1;
            }
        }
        if (ran || b->stopped || b->live == 0)
            continue;
        // Nobody can run: lanes wait at a collective that some of their warp never reach (they wait
        // at __syncthreads). It completes with the lanes that came.
        bool released = false;
        for (int w = 0; w * HKCPU_WARP_SIZE < n; w++)
            if (b->warp_arrived[w] > 0) {
                complete_warp(b, w);
                released = true;
            }
        if (!released && b->at_barrier > 0) {
            release_barrier(b);
            released = true;
        }
        if (!released) {
            b->launch->fail(&b->plain, "the CPU device's scheduler found no thread to run (please report this)");
            b->stopped = true;
        }
    }
}

void scheduler_entry(void *arg)
{
    Block *b = static_cast<Block *>(arg);
    entered(&b->main->party.stack_bottom, &b->main->party.stack_size);
    b->scheduler_started = true;
    schedule(b);
    b->finished = true;
    transfer(&b->scheduler, &b->main->party, true); // back to the core's own stack, for good
    __builtin_unreachable();
}

// The first wait of a block: thread t (run by run_block) becomes the main fiber, the threads after
// it new fibers; false without memory for the scheduler's stack.
bool convert(Block *b, hkcpu_thread *t)
{
    Worker &w = *b->worker;
    const int n = b->n;
    if (w.fibers.size() < (size_t)n)
        w.fibers.resize((size_t)n);
    if (!(b->scheduler_stack = w.take_stack()))
        return false;
    const hkcpu_dim3 dim = t->block_dim;
    const int index = (int)(t->thread_idx.x + dim.x * (t->thread_idx.y + dim.y * t->thread_idx.z));
    b->fiber = w.fibers.data();
    for (int i = 0; i < n; i++) {
        Fiber &f = b->fiber[i];
        f.thread = *t;
        const unsigned x = (unsigned)i % dim.x, rest = (unsigned)i / dim.x;
        f.thread.thread_idx = hkcpu_dim3{x, rest % dim.y, rest / dim.y};
        f.thread.rest_on_fibers = 0;
        f.block = b;
        f.party = Party{};
        f.stack = nullptr;
        f.state = i < index ? DONE : NEW;
        f.lane = i % HKCPU_WARP_SIZE;
        f.warp = i / HKCPU_WARP_SIZE;
        if (i >= index)
            b->warp_live[f.warp]++;
    }
    b->live = n - index;
    b->rerun = -1;
    b->main = &b->fiber[index];
    b->main->state = RUNNABLE;
    make_context(&b->scheduler.context, b->scheduler_stack, kStackBytes, scheduler_entry, b);
    b->scheduler.stack_bottom = b->scheduler_stack;
    b->scheduler.stack_size = kStackBytes;
    b->converted = true;
    t->rest_on_fibers = 1;
    return true;
}

// Fiber f waits for the scheduler to resume it. A main fiber resumed because its block stopped
// leaves its thread (the others of a stopped block are simply never resumed).
void wait(Block *b, Fiber *f)
{
    transfer(&f->party, &b->scheduler, false);
    if (b->finished)
        siglongjmp(*static_cast<sigjmp_buf *>(b->plain.abort_jump), 1);
}

// -------------------------------------------------------------- the services

Fiber *waiting_fiber(Block *b, hkcpu_thread *t)
{
    if (!b->converted && !convert(b, t)) {
        b->launch->fail(t, "no memory for the stack of the scheduler its threads need from their first "
                           "__syncthreads or warp collective on");
        b->stopped = true;
        siglongjmp(*static_cast<sigjmp_buf *>(t->abort_jump), 1);
    }
    return fiber_of(b, t);
}

int service_barrier(hkcpu_thread *t, int predicate, int *participants)
{
    Block *b = block_of(t);
    Fiber *f = waiting_fiber(b, t);
    b->barrier_sum += predicate != 0;
    b->at_barrier++;
    f->state = AT_BARRIER;
    if (b->at_barrier == b->live) {
        release_barrier(b);
        f->state = RUNNABLE;
    } else {
        wait(b, f);
    }
    *participants = b->barrier_participants;
    return b->barrier_result;
}

uint64_t service_warp(hkcpu_thread *t, const hkcpu_warp_request *request, int *flag)
{
    Block *b = block_of(t);
    Fiber *f = waiting_fiber(b, t);
    f->request = *request;
    f->state = AT_WARP;
    if (++b->warp_arrived[f->warp] == b->warp_live[f->warp])
        complete_warp(b, f->warp);
    else
        wait(b, f);
    if (flag)
        *flag = f->flag;
    return f->result;
}

void service_fail(hkcpu_thread *t, const char *what)
{
    Block *b = block_of(t);
    b->launch->fail(t, what);
    b->stopped = true;
}

const hkcpu_services services = {service_barrier, service_warp, service_fail};

// ----------------------------------------------------------------- a block

void run_block(Launch *launch, Worker &w, const hkcpu_dim3 &block_idx)
{
    const hkc_user_launch *l = launch->launch;
    Block b{};
    b.launch = launch;
    b.info = l->info;
    b.worker = &w;
    b.n = (int)(l->block[0] * l->block[1] * l->block[2]);
    b.plain.block_idx = block_idx;
    b.plain.block_dim = hkcpu_dim3{l->block[0], l->block[1], l->block[2]};
    b.plain.grid_dim = hkcpu_dim3{l->grid[0], l->grid[1], l->grid[2]};
    b.plain.params = l->params;
    b.plain.services = &services;
    b.plain.scheduler = &b;
    const int failed = b.info->run_block(&b.plain);
    if (!b.converted)
        return;
    if (!b.finished) { // the main fiber has returned: the scheduler runs the rest
        Fiber *m = b.main;
        if (failed)
            b.stopped = true;
        m->state = DONE;
        if (!b.scheduler_started)
            fiber_done(&b, m);
        transfer(&m->party, &b.scheduler, false);
    }
    // A stopped block leaves its fibers where they are; their stacks are reused.
    for (int i = 0; i < b.n; i++)
        if (b.fiber[i].stack)
            w.free_stacks.push_back(b.fiber[i].stack);
    w.free_stacks.push_back(b.scheduler_stack);
}

} // namespace

extern "C" int hkc_user_launch_run(const hkc_user_launch *l, char *why, size_t why_size)
{
    Launch launch;
    launch.launch = l;
    const uint64_t gx = l->grid[0], gy = l->grid[1];
    const int64_t blocks = (int64_t)(gx * gy * l->grid[2]);
    hkc::parallel_for(blocks, 1, [&](int64_t begin, int64_t end) {
        Worker &w = worker;
        for (int64_t i = begin; i < end && !launch.failed.load(std::memory_order_relaxed); i++) {
            const uint64_t u = (uint64_t)i;
            run_block(&launch, w, hkcpu_dim3{(unsigned)(u % gx), (unsigned)(u / gx % gy), (unsigned)(u / (gx * gy))});
        }
    });
    if (!launch.failed.load())
        return 0;
    snprintf(why, why_size, "%s", launch.why);
    return 1;
}
