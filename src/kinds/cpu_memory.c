/* cpu_memory.c: the CPU device's memory below the pools (aligned host memory), its copies and memset
 * (all memory is the host's: every copy is a memcpy, queued in order like any other work), and the
 * staging entries (none needed). */
#include <stdlib.h>
#include <string.h>

#include "../../hip_kernels/cpu/cpu.h"
#include "kinds/cpu_internal.h"

/* Blocks start on a page for large sizes (the GPUs give 256-byte alignment; pages keep large arrays
 * off shared cache lines and let the kernel map them lazily). */
static size_t alignment_for(size_t bytes)
{
    return bytes >= ((size_t)1 << 20) ? 4096 : 256;
}

hk_status hk__cpu_device_alloc(const char *fn, void **ptr, size_t bytes)
{
    (void)fn;
    void *p = NULL;
    if (posix_memalign(&p, alignment_for(bytes), bytes ? bytes : 1) != 0)
        return HK_ERROR_OUT_OF_MEMORY;
    *ptr = p;
    return HK_SUCCESS;
}

hk_status hk__cpu_device_release(const char *fn, void *ptr)
{
    (void)fn;
    free(ptr);
    return HK_SUCCESS;
}

/* Without a GPU, "pinned" host memory is plain host memory: the CPU device's copies need no more. */
hk_status hk__cpu_host_alloc(const char *fn, void **ptr, size_t bytes)
{
    return hk__cpu_device_alloc(fn, ptr, bytes);
}

hk_status hk__cpu_host_release(const char *fn, void *ptr)
{
    return hk__cpu_device_release(fn, ptr);
}

typedef struct copy_args {
    void *dst;
    const void *src;
    size_t bytes;
    int value; /* memset's byte; -1 for a copy */
} copy_args;

static int run_copy(void *args, char *why)
{
    (void)why;
    const copy_args *c = args;
    if (c->value < 0)
        hkc_copy_bytes(c->dst, c->src, c->bytes);
    else
        hkc_set_bytes(c->dst, c->value, c->bytes);
    return 0;
}

/* A synchronous call is the same work on the default stream, waited for. */
static hk_status queue_copy(const char *fn, const copy_args *c, void *stream, bool async)
{
    HK_TRY(hk__cpu_enqueue(fn, async ? stream : NULL, run_copy, c, sizeof *c, c->bytes / 8));
    return async ? HK_SUCCESS : hk__cpu_wait_stream(fn, NULL);
}

hk_status hk__cpu_copy(const char *fn, void *dst, const void *src, size_t bytes, hk__copy_kind kind, void *stream,
                       bool async)
{
    (void)kind;
    copy_args c = {dst, src, bytes, -1};
    return queue_copy(fn, &c, stream, async);
}

hk_status hk__cpu_memset(const char *fn, void *dst, int value, size_t bytes, void *stream, bool async)
{
    copy_args c = {dst, NULL, bytes, value & 0xff};
    return queue_copy(fn, &c, stream, async);
}

/* ---------------------------------------------------------------- staging */

/* Every host pointer is as good as pinned: staging never starts. */
bool hk__cpu_host_is_pinned(const void *ptr)
{
    (void)ptr;
    return true;
}

bool hk__cpu_staging_markers_create(void **markers, int count)
{
    (void)markers, (void)count;
    return false;
}

void hk__cpu_staging_markers_destroy(void **markers, int count)
{
    (void)markers, (void)count;
}

hk_status hk__cpu_staging_copy(const char *fn, const char *what, void *dst, const void *src, size_t bytes,
                               bool to_device, void *marker)
{
    (void)what, (void)to_device, (void)marker;
    return hk__cpu_copy(fn, dst, src, bytes, HK__DEVICE_TO_DEVICE, NULL, false);
}

hk_status hk__cpu_staging_wait(const char *fn, const char *what, void *marker)
{
    (void)what, (void)marker;
    return hk__cpu_wait_stream(fn, NULL);
}

hk_status hk__cpu_staging_finish(const char *fn, const char *what)
{
    (void)what;
    return hk__cpu_wait_stream(fn, NULL);
}
