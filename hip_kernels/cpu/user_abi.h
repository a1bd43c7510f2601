/* user_abi.h: what a user kernel compiled for the CPU device (a shared object built by the system
 * C++ compiler from the user's source and cpu/user_prelude.h) and the library that runs it
 * (cpu/user_kernel.cpp, src/kinds/cpu_module.c) agree on. Plain C, included by both sides; the
 * compiler gets a copy of this text next to the prelude, so the two can never differ.
 *
 * The shared object exports, for each extern "C" __global__ kernel K, a hkcpu_kernel_info named
 * __hkcpu_kernel_K, and __hkcpu_abi_version (HKCPU_ABI_VERSION). The library runs a block with one
 * call of run_block (the threads one after another); when a thread waits for the others
 * (__syncthreads, a warp collective, through hkcpu_services), the block's other unfinished threads
 * become fibers, each running run_thread, and run_block returns after the thread it is running
 * (rest_on_fibers). */
#ifndef HIPKIT_CPU_USER_ABI_H
#define HIPKIT_CPU_USER_ABI_H

#include <stdint.h>

#define HKCPU_ABI_VERSION 1
#define HKCPU_WARP_SIZE 32
#define HKCPU_MAX_PARAMS 64
/* Each `extern __shared__` array holds this many bytes (the CPU device's shared memory per block). */
#define HKCPU_SHARED_BYTES (64 * 1024)

typedef struct hkcpu_dim3 {
    unsigned int x, y, z;
} hkcpu_dim3;

/* The warp collectives, as hkcpu_warp_request.op. */
enum hkcpu_warp_op {
    HKCPU_SHFL_IDX,
    HKCPU_SHFL_UP,
    HKCPU_SHFL_DOWN,
    HKCPU_SHFL_XOR,
    HKCPU_BALLOT,
    HKCPU_ANY,
    HKCPU_ALL,
    HKCPU_ACTIVEMASK,
    HKCPU_SYNCWARP,
    HKCPU_MATCH_ANY,
    HKCPU_MATCH_ALL,
    HKCPU_REDUCE_ADD,
    HKCPU_REDUCE_MIN_SIGNED,
    HKCPU_REDUCE_MAX_SIGNED,
    HKCPU_REDUCE_MIN_UNSIGNED,
    HKCPU_REDUCE_MAX_UNSIGNED,
    HKCPU_REDUCE_AND,
    HKCPU_REDUCE_OR,
    HKCPU_REDUCE_XOR,
};

/* One lane's part in a warp collective: its value (the bits of a shuffled value, a predicate, an
 * operand of a match or reduction), the lane / delta / lane mask of a shuffle, the width of its
 * segments (1..32), and the lanes named by a _sync mask. */
typedef struct hkcpu_warp_request {
    int op;
    int width;
    unsigned int operand;
    unsigned int mask;
    uint64_t value;
} hkcpu_warp_request;

struct hkcpu_thread;

/* The library's side of a block: each call may switch to other threads of the block. */
typedef struct hkcpu_services {
    /* __syncthreads: returns how many of the threads that met there passed a non-zero predicate,
     * and in *participants how many met there (the threads of the block that have not returned). */
    int (*barrier)(struct hkcpu_thread *thread, int predicate, int *participants);
    /* A warp collective; returns the calling lane's result (a match_all's predicate in *flag). */
    uint64_t (*warp)(struct hkcpu_thread *thread, const hkcpu_warp_request *request, int *flag);
    /* Records why the kernel stopped (a failed assert, __trap, an exception); the caller then leaves
     * the thread through thread->abort_jump. */
    void (*fail)(struct hkcpu_thread *thread, const char *what);
} hkcpu_services;

/* One thread of a block as the kernel sees it (threadIdx ... gridDim read from here). */
typedef struct hkcpu_thread {
    hkcpu_dim3 thread_idx, block_idx, block_dim, grid_dim;
    void *const *params; /* each argument's bytes */
    const hkcpu_services *services;
    void *abort_jump;   /* a sigjmp_buf of the shared object's entry, for fail */
    void *scheduler;    /* the library's */
    int rest_on_fibers; /* set by the library: run_block returns after the thread it is running */
} hkcpu_thread;

typedef struct hkcpu_kernel_info {
    int abi_version;
    int param_count;
    unsigned int param_sizes[HKCPU_MAX_PARAMS];
    /* Each returns 0, or 1 when the kernel stopped (services->fail said why). */
    int (*run_block)(hkcpu_thread *thread);  /* every thread of the block, one after another */
    int (*run_thread)(hkcpu_thread *thread); /* the one thread `thread` describes */
} hkcpu_kernel_info;

#endif
