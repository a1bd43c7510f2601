/* user_kernel.h: the C entry of cpu/user_kernel.cpp, which runs one launch of a user kernel compiled
 * for the CPU device (cpu/user_abi.h) to completion: its blocks spread over the cores, each block's
 * threads one after another, as fibers from the first barrier or warp collective on. Called by the
 * CPU kind (src/kinds/cpu_module.c) on the device's worker thread. */
#ifndef HIPKIT_CPU_USER_KERNEL_H
#define HIPKIT_CPU_USER_KERNEL_H

#include <stddef.h>

#include "user_abi.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hkc_user_launch {
    const hkcpu_kernel_info *info;
    unsigned int grid[3], block[3];
    void *const *params; /* each argument's bytes */
    const char *name;    /* the kernel's, for the sentence */
} hkc_user_launch;

/* 0, or 1 with why the kernel stopped written into why (why_size bytes): "kernel k, block (3, 0, 0),
 * thread (5, 0, 0): assertion `i < n' failed at k.hip:12". */
int hkc_user_launch_run(const hkc_user_launch *launch, char *why, size_t why_size);

#ifdef __cplusplus
}
#endif
#endif
