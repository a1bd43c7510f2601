// parallel.h: how the CPU device's skeletons spread one op over the cores,
// in one place: OpenMP when the build has it (HKC_OPENMP), else one thread.
// parallel_for(n, grain, body) calls body(begin, end) on contiguous chunks
// that cover [0, n) once, in parallel when there are at least two grains of
// work; a chunk is never smaller than `grain` items (except the last), so
// small ops run on the calling thread with no fork. Bodies must not throw.
#ifndef HIPKIT_CPU_PARALLEL_H
#define HIPKIT_CPU_PARALLEL_H

#include <stdint.h>

#if defined(HKC_OPENMP)
#include <omp.h>
#endif

extern "C" int hk__settings_cpu_threads(void); // src/core/settings.c: HIPKIT_CPU_THREADS

namespace hkc
{

// Threads one op may use.
inline int threads()
{
#if defined(HKC_OPENMP)
    return hk__settings_cpu_threads();
#else
    return 1;
#endif
}

// Chunks of work worth one thread each for n items of `grain` each at least.
inline int workers_for(int64_t n, int64_t grain)
{
    if (grain < 1)
        grain = 1;
    const int64_t most = n / grain;
    const int t = threads();
    return most < 2 ? 1 : (most < t ? (int)most : t);
}

template <typename F> void parallel_for(int64_t n, int64_t grain, F &&body)
{
    if (n <= 0)
        return;
    const int workers = workers_for(n, grain);
    if (workers == 1) {
        body((int64_t)0, n);
        return;
    }
#if defined(HKC_OPENMP)
#pragma omp parallel num_threads(workers)
    {
        const int w = omp_get_thread_num(), count = omp_get_num_threads();
        const int64_t begin = n * w / count, end = n * (w + 1) / count;
        if (begin < end)
            body(begin, end);
    }
#else
    body((int64_t)0, n);
#endif
}

// Runs body(w, workers) once on each of `workers` threads (w = 0 .. workers-1),
// for skeletons that split work themselves (two-pass scans, sorts).
template <typename F> void parallel_workers(int workers, F &&body)
{
    if (workers <= 1) {
        body(0, 1);
        return;
    }
#if defined(HKC_OPENMP)
#pragma omp parallel num_threads(workers)
    body(omp_get_thread_num(), omp_get_num_threads());
#else
    body(0, 1);
#endif
}

} // namespace hkc

#endif
