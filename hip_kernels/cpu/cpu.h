/* cpu.h: the C entry points of the CPU device's skeletons (the .cpp files of this folder), called by
 * the CPU kind (src/kinds/cpu_ops.c) on a stream's worker thread, with the same validated and laid-out
 * arguments the GPU kernels get (each family's header describes them; the hkk_launch is left out).
 * Every pointer is host memory. Each call runs to completion on the calling thread, spreading the
 * work over the cores (cpu/parallel.h), and returns 0, or 1 for an internal error (a dtype or op the
 * skeleton does not instantiate: the ops layer validated it, so it cannot happen), or
 * HKC_NOT_SUPPORTED for a case a skeleton does not serve (the CPU kind turns it into
 * HK_ERROR_NOT_SUPPORTED with a sentence). Every family has its skeleton: a missing one is a link error.
 *
 * The skeletons are compiled by the system C++ compiler with HKC_HOST defined: the shared headers
 * (common/ops.h, common/dtype_traits.h, common/dispatch.h) then take the host seam cpu/host.h for
 * the device compiler's one, so each op means the same code on every kind of device. */
#ifndef HIPKIT_CPU_CPU_H
#define HIPKIT_CPU_CPU_H

#include "../common/kernels.h"
#include "../copy/copy.h"
#include "../elementwise/elementwise.h"
#include "../index/compact.h"
#include "../index/index.h"
#include "../matmul/matmul.h"
#include "../random/random.h"
#include "../reduce/reduce.h"
#include "../scan/scan.h"
#include "../sort/sort.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a skeleton returns for a case it does not serve. */
#define HKC_NOT_SUPPORTED 801

/* memory (cpu/memory.cpp): memcpy and memset spread over the cores for large sizes. */
void hkc_copy_bytes(void *dst, const void *src, size_t bytes);
void hkc_set_bytes(void *dst, int value, size_t bytes);
/* elementwise/ and iota (cpu/elementwise.cpp) */
int hkc_elementwise(const hkk_ew_call *call);
int hkc_iota(hk_dtype dtype, void *out, int64_t stride, size_t n, const void *start, const void *step);
/* copy/ (cpu/copy.cpp) */
int hkc_copy_array(hk_dtype src_dtype, hk_dtype dst_dtype, const void *src, void *dst, size_t n,
                   const hkk_layout *layout);
/* random/ (cpu/random.cpp): the same Philox numbers as the GPU kernels, bit for bit for uniforms. */
int hkc_random(hk_dtype dtype, int normal, void *dst, size_t n, uint64_t seed, uint64_t offset, double a, double b);
/* reduce/ (cpu/reduce.cpp) */
size_t hkc_reduce_scratch_bytes(hk_reduce_op op, hk_dtype in_dtype, const void *in, const hkk_reduce_layout *layout);
int hkc_reduce(hk_reduce_op op, hk_dtype in_dtype, const void *in, void *out, void *scratch,
               const hkk_reduce_layout *layout, int ddof);
/* scan/ and sort/ (cpu/scan.cpp, cpu/sort.cpp) */
size_t hkc_scan_scratch_bytes(const hkk_scan_args *args);
int hkc_scan(const hkk_scan_args *args, void *scratch);
size_t hkc_sort_scratch_bytes(const hkk_sort_args *args);
int hkc_sort(const hkk_sort_args *args, void *scratch);
/* matmul/ (cpu/matmul.cpp): the own blocked kernel. */
int hkc_matmul(const hkk_matmul_args *args);
/* index/ (cpu/index.cpp); hkc_take_check sets *first_bad (a host value, UINT64_MAX when every index
 * is in range) as hkk_take_check does. */
int hkc_take(const hkk_take_args *args);
int hkc_take_check(const hkk_take_args *args, unsigned long long *first_bad);
int hkc_put(const hkk_put_args *args);
/* index/compact.h (cpu/compact.cpp): nonzero's positions and in[mask]'s values; no scratch. */
size_t hkc_compact_scratch_bytes(const hkk_compact_args *args);
int hkc_compact(const hkk_compact_args *args, void *scratch);

#ifdef __cplusplus
}
#endif
#endif
