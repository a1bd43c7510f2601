/* staging.c: large copies between pageable host memory and the device, made
 * close to pinned speed. The DMA engines can only read page-locked memory, so
 * the vendor copies pageable data through one small bounce buffer at a time
 * (about 7-10 GB/s on an H200 host). Here several host threads copy chunks
 * into pooled pinned buffers while the DMA engine moves the previous chunk,
 * so the bus stays busy.
 *
 * Tuning (src/core/settings.c, read once per process): HIPKIT_STAGING_CHUNK_MB,
 * the size of each pinned buffer, and HIPKIT_STAGING_THREADS, the host threads
 * that copy besides the caller. bench/transfer_bench sweeps them. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "core/settings.h"
#include "kinds/kind.h"
#include "memory/pool.h"
#include "memory/staging.h"

#define BUFFERS 4

static size_t chunk_size; /* set by start_workers */

/* ---- a small pool of host threads for parallel memcpy */

typedef struct copy_job {
    char *dst;
    const char *src;
    size_t bytes, slice;
    int slices, next, done;
    uint64_t done64; /* 1 once done == slices (read by polling) */
} copy_job;

static pthread_mutex_t job_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t job_ready = PTHREAD_COND_INITIALIZER, job_done = PTHREAD_COND_INITIALIZER;
static copy_job *job; /* the current job, or NULL */
static uint64_t job_id;
static int workers = -1; /* started lazily; 0 when threads are unavailable */
static pthread_once_t workers_once = PTHREAD_ONCE_INIT;
/* One staged copy at a time: the workers and the job slot are shared. */
static pthread_mutex_t staging_lock = PTHREAD_MUTEX_INITIALIZER;

/* memcpy with non-temporal stores where the CPU has them: the staged data is
 * not read again by this CPU soon (the DMA engine or the user reads it), and
 * streaming stores skip the read-for-ownership of every destination line,
 * which is a third of the memory traffic of an ordinary copy. glibc streams
 * only copies larger than a share of the L3, more than one worker's slice. */
static void copy_streaming(char *dst, const char *src, size_t len)
{
#if defined(__SSE2__)
    size_t head = (16 - ((uintptr_t)dst & 15)) & 15;
    if (len < 4096 || head >= len) {
        memcpy(dst, src, len);
        return;
    }
    memcpy(dst, src, head);
    dst += head;
    src += head;
    len -= head;
    size_t body = len & ~(size_t)63;
    for (size_t i = 0; i < body; i += 64) {
        __m128i a = _mm_loadu_si128((const __m128i *)(src + i));
        __m128i b = _mm_loadu_si128((const __m128i *)(src + i + 16));
        __m128i c = _mm_loadu_si128((const __m128i *)(src + i + 32));
        __m128i d = _mm_loadu_si128((const __m128i *)(src + i + 48));
        _mm_stream_si128((__m128i *)(dst + i), a);
        _mm_stream_si128((__m128i *)(dst + i + 16), b);
        _mm_stream_si128((__m128i *)(dst + i + 32), c);
        _mm_stream_si128((__m128i *)(dst + i + 48), d);
    }
    _mm_sfence(); /* the streamed lines are visible before the copy is reported done */
    memcpy(dst + body, src + body, len - body);
#else
    memcpy(dst, src, len);
#endif
}

/* Takes slices of the current job until none are left; holds job_lock on entry and exit. */
static void run_slices(copy_job *j)
{
    while (j->next < j->slices) {
        int s = j->next++;
        pthread_mutex_unlock(&job_lock);
        size_t offset = (size_t)s * j->slice;
        size_t len = offset + j->slice > j->bytes ? j->bytes - offset : j->slice;
        copy_streaming(j->dst + offset, j->src + offset, len);
        pthread_mutex_lock(&job_lock);
        if (++j->done == j->slices) {
            __atomic_store_n(&j->done64, 1, __ATOMIC_RELEASE); /* for the caller's polling */
            pthread_cond_broadcast(&job_done);
        }
    }
}

/* Spinning a little before sleeping: a staged copy hands out one job per
 * chunk (a few hundred microseconds apart), and waking a sleeping thread
 * can take tens of microseconds (more in a virtual machine): one late
 * worker holds up the whole chunk. About SPIN_NS of polling first. */
#define SPIN_NS 200000

static inline void cpu_relax(void)
{
#if defined(__SSE2__)
    _mm_pause();
#endif
}

static uint64_t monotonic_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* Polls *word until it differs from `from` or about SPIN_NS have passed. */
static void spin_while_equal(const uint64_t *word, uint64_t from)
{
    uint64_t deadline = 0;
    for (unsigned i = 1; __atomic_load_n(word, __ATOMIC_ACQUIRE) == from; i++) {
        cpu_relax();
        if (i % 256 == 0) {
            uint64_t now = monotonic_ns();
            if (!deadline)
                deadline = now + SPIN_NS;
            else if (now > deadline)
                return;
        }
    }
}

static void *worker(void *unused)
{
    (void)unused;
    uint64_t seen = 0;
    for (;;) {
        spin_while_equal(&job_id, seen); /* then the lock and, if need be, the condition variable */
        pthread_mutex_lock(&job_lock);
        while (!job || job_id == seen)
            pthread_cond_wait(&job_ready, &job_lock);
        seen = job_id;
        run_slices(job);
        pthread_mutex_unlock(&job_lock);
    }
    return NULL;
}

static void start_workers(void)
{
    int wanted = hk__settings_staging_threads();
    chunk_size = hk__settings_staging_chunk_bytes();
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    int started = 0;
    for (; started < wanted; started++) {
        pthread_t t;
        if (pthread_create(&t, &attr, worker, NULL) != 0)
            break;
    }
    pthread_attr_destroy(&attr);
    workers = started;
}

/* memcpy spread over the worker threads and the caller. */
static void parallel_memcpy(void *dst, const void *src, size_t bytes)
{
    if (workers <= 0 || bytes < ((size_t)1 << 20)) {
        copy_streaming(dst, src, bytes);
        return;
    }
    copy_job j = {dst, src, bytes, 0, workers + 1, 0, 0, 0};
    j.slice = (bytes + (size_t)j.slices - 1) / (size_t)j.slices;
    j.slice = (j.slice + 4095) & ~(size_t)4095;
    j.slices = (int)((bytes + j.slice - 1) / j.slice);
    pthread_mutex_lock(&job_lock);
    job = &j;
    __atomic_store_n(&job_id, job_id + 1, __ATOMIC_RELEASE); /* spinning workers read it without the lock */
    pthread_cond_broadcast(&job_ready);
    run_slices(&j);
    if (j.done < j.slices) { /* the last slices are still being copied: poll, then sleep */
        pthread_mutex_unlock(&job_lock);
        spin_while_equal(&j.done64, 0);
        pthread_mutex_lock(&job_lock);
    }
    while (j.done < j.slices)
        pthread_cond_wait(&job_done, &job_lock);
    job = NULL;
    pthread_mutex_unlock(&job_lock);
}

/* ---- the pipeline */

hk_status hk__staged_copy(const char *fn, void *dst, const void *src, size_t bytes, int to_device, bool *done)
{
    *done = false;
    const hk__kind *kind = hk__kind_current();
    if (bytes < ((size_t)32 << 20) || kind->host_is_pinned(to_device ? src : dst))
        return HK_SUCCESS;
    pthread_once(&workers_once, start_workers);
    const size_t chunk = chunk_size;
    void *buffers[BUFFERS] = {NULL};
    void *markers[BUFFERS] = {NULL};
    hk_status s = HK_SUCCESS;
    for (int b = 0; b < BUFFERS && s == HK_SUCCESS; b++)
        s = hk__host_alloc(fn, &buffers[b], chunk);
    bool marked = s == HK_SUCCESS && kind->staging_markers_create(markers, BUFFERS);
    if (!marked) { /* no pinned memory to stage through: let the vendor copy */
        for (int b = 0; b < BUFFERS; b++)
            if (buffers[b])
                (void)hk__host_free(fn, buffers[b]);
        return HK_SUCCESS;
    }
    const char *what = to_device ? "staging a pageable host-to-device copy" : "staging a pageable device-to-host copy";
    pthread_mutex_lock(&staging_lock);
    size_t chunks = (bytes + chunk - 1) / chunk;
    char *host = to_device ? (char *)src : dst;
    char *device = to_device ? dst : (char *)src;
    if (to_device) {
        for (size_t c = 0; c < chunks && s == HK_SUCCESS; c++) {
            int b = (int)(c % BUFFERS);
            size_t offset = c * chunk, len = bytes - offset < chunk ? bytes - offset : chunk;
            if (c >= BUFFERS && (s = kind->staging_wait(fn, what, markers[b])) != HK_SUCCESS)
                break;
            parallel_memcpy(buffers[b], host + offset, len);
            s = kind->staging_copy(fn, what, device + offset, buffers[b], len, true, markers[b]);
        }
    } else {
        /* Keep BUFFERS chunks in flight; copy each out once its DMA is done. */
        size_t issued = 0;
        for (size_t c = 0; c < chunks && s == HK_SUCCESS; c++) {
            while (issued < chunks && issued < c + BUFFERS && s == HK_SUCCESS) {
                int b = (int)(issued % BUFFERS);
                size_t offset = issued * chunk, len = bytes - offset < chunk ? bytes - offset : chunk;
                s = kind->staging_copy(fn, what, buffers[b], device + offset, len, false, markers[b]);
                issued++;
            }
            int b = (int)(c % BUFFERS);
            size_t offset = c * chunk, len = bytes - offset < chunk ? bytes - offset : chunk;
            if (s == HK_SUCCESS && (s = kind->staging_wait(fn, what, markers[b])) == HK_SUCCESS)
                parallel_memcpy(host + offset, buffers[b], len);
        }
    }
    if (s == HK_SUCCESS)
        s = kind->staging_finish(fn, what);
    pthread_mutex_unlock(&staging_lock);
    for (int b = 0; b < BUFFERS; b++)
        (void)hk__host_free(fn, buffers[b]);
    kind->staging_markers_destroy(markers, BUFFERS);
    if (s != HK_SUCCESS)
        return s;
    *done = true;
    return HK_SUCCESS;
}
