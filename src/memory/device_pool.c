/* device_pool.c: the caching, stream-ordered device memory pool: one per device, each behind its own
 * lock. A hit is a cache operation under that lock (a block last used on another stream is ordered
 * after it there too). The vendor allocates and synchronizes with no lock held: on a miss the bytes
 * are reserved against the limit, then allocated; on out-of-memory the cache is taken out of the
 * pool, the device synchronized and the blocks given back before the one retry. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/device.h"
#include "core/handles.h"
#include "core/ptr_map.h"
#include "kinds/kind.h"
#include "memory/block_list.h"
#include "memory/pool.h"

typedef struct device_pool {
    pthread_mutex_t lock;
    hk__block_list cached;
    hk__ptr_map in_use; /* device pointer -> block: per device, so a free takes one lock */
    hk_pool_stats stats;
    size_t reserving; /* bytes the vendor is allocating for this pool now, counted against the limit */
} device_pool;

static pthread_mutex_t pools_lock = PTHREAD_MUTEX_INITIALIZER; /* creating the pools, once */
static device_pool *pools;                                     /* published with release ordering */
static int pool_count;

/* The pools of every device, created on first use; NULL without host memory for them. */
static device_pool *all_pools(void)
{
    device_pool *all = __atomic_load_n(&pools, __ATOMIC_ACQUIRE);
    if (all)
        return all;
    pthread_mutex_lock(&pools_lock);
    if (!(all = pools)) {
        int count = hk__device_count() > 0 ? hk__device_count() : 1;
        if ((all = calloc((size_t)count, sizeof *all))) {
            for (int d = 0; d < count; d++)
                pthread_mutex_init(&all[d].lock, NULL);
            pool_count = count;
            __atomic_store_n(&pools, all, __ATOMIC_RELEASE);
        }
    }
    pthread_mutex_unlock(&pools_lock);
    return all;
}

static hk_status no_bookkeeping(const char *fn)
{
    return hk__fail(HK_ERROR_OUT_OF_MEMORY, fn, "out of host memory for the pool's bookkeeping");
}

static hk_status out_of_memory(const char *fn, size_t bytes, const hk_pool_stats *stats, const char *reason)
{
    char asked[32], free_text[32], limit_text[32];
    size_t free_bytes = 0;
    int device = hk__current_device();
    if (hk__kind_current()->free_memory(fn, &free_bytes) != HK_SUCCESS)
        free_bytes = 0;
    hk__format_bytes(bytes, asked, sizeof asked);
    hk__format_bytes(free_bytes, free_text, sizeof free_text);
    if (stats->limit)
        return hk__fail(HK_ERROR_OUT_OF_MEMORY, fn,
                        "%s requested on device %d (%s), pool limit %s with %zu bytes in use, %s free on the "
                        "device: %s",
                        asked, device, hk__device_name(device),
                        hk__format_bytes(stats->limit, limit_text, sizeof limit_text), stats->bytes_in_use, free_text,
                        reason);
    return hk__fail(HK_ERROR_OUT_OF_MEMORY, fn, "%s requested on device %d (%s), %s free: %s", asked, device,
                    hk__device_name(device), free_text, reason);
}

/* Reserves `size` bytes for a vendor allocation unless that would pass the limit (true then);
 * *seen gets the statistics it judged by. */
static bool reserve(device_pool *pool, size_t size, hk_pool_stats *seen)
{
    pthread_mutex_lock(&pool->lock);
    const size_t limit = pool->stats.limit;
    const size_t held = pool->stats.bytes_in_use + pool->stats.bytes_cached + pool->reserving;
    const bool over = limit && size > limit - (held < limit ? held : limit);
    if (!over)
        pool->reserving += size;
    *seen = pool->stats;
    pthread_mutex_unlock(&pool->lock);
    return over;
}

static void unreserve(device_pool *pool, size_t size)
{
    pthread_mutex_lock(&pool->lock);
    pool->reserving -= size;
    pthread_mutex_unlock(&pool->lock);
}

/* Gives cached blocks back to the vendor, largest first, until at most keep_bytes stay. They are
 * taken out before the device is synchronized, so every one of them has finished its work; blocks
 * freed meanwhile, perhaps still in use on their streams, stay cached. */
static hk_status release_cached(const char *fn, device_pool *pool, const hk__kind *kind, size_t keep_bytes)
{
    pthread_mutex_lock(&pool->lock);
    hk__block *taken = hk__block_list_take_largest(&pool->cached, &pool->stats.bytes_cached, keep_bytes);
    pthread_mutex_unlock(&pool->lock);
    hk_status s = kind->synchronize(fn);
    if (s == HK_SUCCESS)
        return hk__block_chain_release(fn, taken, kind->device_release);
    /* Not synchronized: the blocks stay cached (any that find no room go back to the vendor). */
    hk__block *homeless = NULL;
    pthread_mutex_lock(&pool->lock);
    while (taken) {
        hk__block *b = taken;
        taken = b->next;
        if (hk__block_list_insert(&pool->cached, b)) {
            pool->stats.bytes_cached += b->size;
        } else {
            b->next = homeless;
            homeless = b;
        }
    }
    pthread_mutex_unlock(&pool->lock);
    (void)hk__block_chain_release(fn, homeless, kind->device_release);
    return s;
}

/* A new block of `size` from the vendor, with the cache given back and one retry when the device
 * is out of memory or the pool over its limit. Called and returning with no lock held. */
static hk_status allocate(const char *fn, device_pool *pool, const hk__kind *kind, int device, size_t size,
                          size_t bytes, hk__block **out)
{
    hk__block *b = malloc(sizeof *b);
    if (!b)
        return no_bookkeeping(fn);
    void *p = NULL;
    hk_pool_stats seen;
    bool over = reserve(pool, size, &seen);
    hk_status s = HK_SUCCESS;
    if (!over && (s = kind->device_alloc(fn, &p, size)) != HK_SUCCESS)
        unreserve(pool, size);
    if (over || s == HK_ERROR_OUT_OF_MEMORY) {
        /* Free the cache (after pending work) and retry once. */
        s = release_cached(fn, pool, kind, 0);
        if (s == HK_SUCCESS) {
            over = reserve(pool, size, &seen);
            if (over)
                s = HK_ERROR_OUT_OF_MEMORY;
            else if ((s = kind->device_alloc(fn, &p, size)) != HK_SUCCESS)
                unreserve(pool, size);
        }
        if (s == HK_ERROR_OUT_OF_MEMORY)
            s = out_of_memory(fn, bytes, &seen,
                              over ? "over the pool limit (raise it with hk_pool_set_limit)"
                                   : "out of memory (the pool's cache was already released)");
    }
    if (s != HK_SUCCESS) {
        free(b);
        return s;
    }
    *b = (hk__block){p, size, device, NULL, NULL};
    *out = b;
    return HK_SUCCESS;
}

hk_status hk__pool_alloc(const char *fn, void **ptr, size_t bytes, void *stream)
{
    int device = hk__current_device();
    size_t size = hk__round_size(bytes, 512);
    if (size == 0)
        return out_of_memory(fn, bytes, &(hk_pool_stats){0}, "size too large to represent");
    device_pool *all = all_pools();
    if (!all)
        return no_bookkeeping(fn);
    device_pool *pool = &all[device];
    const hk__kind *kind = hk__kind_current();

    pthread_mutex_lock(&pool->lock);
    bool same_stream = false;
    size_t index = hk__block_list_find(&pool->cached, size, stream, &same_stream);
    hk__block *b = NULL;
    if (index != SIZE_MAX) {
        b = hk__block_list_remove_at(&pool->cached, index);
        pool->stats.bytes_cached -= b->size;
        if (!same_stream) {
            /* Ordering after the block's last stream (an event recorded there, waited for here) stays
             * under the lock: that stream may be being destroyed by another thread, and
             * hk__pool_forget_stream, which its destroy calls before the vendor's, waits for this lock,
             * so the stream outlives the ordering. It is no allocation and no synchronize. */
            hk_status s = kind->stream_order(fn, b->stream, stream);
            if (s != HK_SUCCESS) {
                hk__block_list_insert(&pool->cached, b);
                pool->stats.bytes_cached += b->size;
                pthread_mutex_unlock(&pool->lock);
                return s;
            }
        }
        pool->stats.cache_hits++;
    } else {
        pthread_mutex_unlock(&pool->lock);
        HK_TRY(allocate(fn, pool, kind, device, size, bytes, &b));
        pthread_mutex_lock(&pool->lock);
        pool->reserving -= size;
        pool->stats.vendor_allocations++;
    }
    b->stream = stream;
    if (!hk__ptr_map_put(&pool->in_use, b->ptr, b)) {
        pool->stats.bytes_cached += b->size;
        hk__block_list_insert(&pool->cached, b);
        pthread_mutex_unlock(&pool->lock);
        return no_bookkeeping(fn);
    }
    pool->stats.bytes_in_use += b->size;
    if (pool->stats.bytes_in_use > pool->stats.peak_bytes_in_use)
        pool->stats.peak_bytes_in_use = pool->stats.bytes_in_use;
    pool->stats.allocations++;
    *ptr = b->ptr;
    pthread_mutex_unlock(&pool->lock);
    return HK_SUCCESS;
}

hk_status hk__pool_free(const char *fn, void *ptr, void *stream, bool use_own_stream)
{
    const int current = hk__current_device();
    device_pool *all = __atomic_load_n(&pools, __ATOMIC_ACQUIRE);
    device_pool *pool = NULL;
    hk__block *b = NULL;
    /* The current device's pool first: nearly every free is there. The pool found stays locked. */
    for (int i = -1; all && !b && i < pool_count; i++) {
        const int d = i < 0 ? current : i;
        if (d >= pool_count || (i >= 0 && d == current))
            continue;
        pool = &all[d];
        pthread_mutex_lock(&pool->lock);
        if (!(b = hk__ptr_map_get(&pool->in_use, ptr)))
            pthread_mutex_unlock(&pool->lock);
    }
    if (!b)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "%p was not allocated by hk_malloc, or was already freed", ptr);
    if (!use_own_stream && b->device != current) {
        pthread_mutex_unlock(&pool->lock);
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "%p lives on device %d but the stream is on device %d", ptr,
                        b->device, current);
    }
    if (!use_own_stream)
        b->stream = stream;
    if (!hk__block_list_insert(&pool->cached, b)) {
        pthread_mutex_unlock(&pool->lock);
        return no_bookkeeping(fn);
    }
    hk__ptr_map_take(&pool->in_use, ptr);
    pool->stats.bytes_in_use -= b->size;
    pool->stats.bytes_cached += b->size;
    pthread_mutex_unlock(&pool->lock);
    return HK_SUCCESS;
}

static void forget_in_use(void *value, void *context)
{
    hk__block *b = value;
    /* Its stream is gone; later frees order against the default stream. */
    if (b->stream == context)
        b->stream = NULL;
}

void hk__pool_forget_stream(void *stream)
{
    device_pool *all = __atomic_load_n(&pools, __ATOMIC_ACQUIRE);
    for (int d = 0; all && d < pool_count; d++) {
        device_pool *pool = &all[d];
        pthread_mutex_lock(&pool->lock);
        for (size_t i = 0; i < pool->cached.count; i++)
            if (pool->cached.items[i]->stream == stream)
                pool->cached.items[i]->stream = HK__ANY_STREAM;
        hk__ptr_map_each(&pool->in_use, forget_in_use, stream);
        pthread_mutex_unlock(&pool->lock);
    }
}

/* --------------------------------------------------------------- public */

hk_status hk_malloc_async(void **ptr, size_t bytes, hk_stream stream)
{
    static const char fn[] = "hk_malloc_async";
    if (!ptr)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "ptr must not be NULL");
    *ptr = NULL;
    void *vendor_stream = NULL;
    hk_status s = stream ? hk__resolve_stream(fn, stream, &vendor_stream) : HK_SUCCESS;
    if (s != HK_SUCCESS)
        return s;
    if (bytes == 0)
        return hk__ok();
    if ((s = hk__require_device(fn)) != HK_SUCCESS)
        return s;
    s = hk__pool_alloc(fn, ptr, bytes, vendor_stream);
    return s == HK_SUCCESS ? hk__ok() : s;
}

hk_status hk_malloc(void **ptr, size_t bytes)
{
    static const char fn[] = "hk_malloc";
    if (!ptr)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "ptr must not be NULL");
    *ptr = NULL;
    if (bytes == 0)
        return hk__ok();
    hk_status s = hk__require_device(fn);
    if (s != HK_SUCCESS)
        return s;
    s = hk__pool_alloc(fn, ptr, bytes, NULL);
    return s == HK_SUCCESS ? hk__ok() : s;
}

hk_status hk_free(void *ptr)
{
    if (!ptr)
        return hk__ok();
    hk_status s = hk__pool_free("hk_free", ptr, NULL, true);
    return s == HK_SUCCESS ? hk__ok() : s;
}

hk_status hk_free_async(void *ptr, hk_stream stream)
{
    static const char fn[] = "hk_free_async";
    void *vendor_stream = NULL;
    hk_status s = stream ? hk__resolve_stream(fn, stream, &vendor_stream) : HK_SUCCESS;
    if (s != HK_SUCCESS)
        return s;
    if (!ptr)
        return hk__ok();
    s = hk__pool_free(fn, ptr, vendor_stream, false);
    return s == HK_SUCCESS ? hk__ok() : s;
}

hk_status hk_pool_get_stats(int device, hk_pool_stats *stats)
{
    static const char fn[] = "hk_pool_get_stats";
    if (!stats)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "stats must not be NULL");
    hk_status s = hk__check_device(fn, device);
    if (s != HK_SUCCESS)
        return s;
    device_pool *all = all_pools();
    if (!all)
        return no_bookkeeping(fn);
    pthread_mutex_lock(&all[device].lock);
    *stats = all[device].stats;
    pthread_mutex_unlock(&all[device].lock);
    return hk__ok();
}

hk_status hk_pool_set_limit(int device, size_t bytes)
{
    static const char fn[] = "hk_pool_set_limit";
    hk_status s = hk__check_device(fn, device);
    if (s != HK_SUCCESS)
        return s;
    device_pool *all = all_pools();
    if (!all)
        return no_bookkeeping(fn);
    pthread_mutex_lock(&all[device].lock);
    all[device].stats.limit = bytes;
    pthread_mutex_unlock(&all[device].lock);
    return hk__ok();
}

hk_status hk_pool_trim(int device, size_t keep_bytes)
{
    static const char fn[] = "hk_pool_trim";
    hk_status s = hk__check_device(fn, device);
    if (s != HK_SUCCESS)
        return s;
    int previous = hk__current_device();
    if (device != previous && (s = hk__activate_device(fn, device)) != HK_SUCCESS)
        return s;
    device_pool *all = all_pools();
    s = all ? release_cached(fn, &all[device], hk__kind_of(device), keep_bytes) : no_bookkeeping(fn);
    if (device != previous) {
        hk_status restore = hk__activate_device(fn, previous);
        if (s == HK_SUCCESS)
            s = restore;
    }
    return s == HK_SUCCESS ? hk__ok() : s;
}
