/* memory_pool.c: the caching, stream-ordered device memory pool (one per
 * device) and the pinned host memory pool. Allocation and free are cache
 * operations under one lock; the vendor allocator is called only on a miss. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/device.h"
#include "core/handles.h"
#include "core/ptr_map.h"
#include "kinds/kind.h"
#include "memory/pool.h"

/* Cached blocks whose last stream has been synchronized and destroyed can be
 * taken by any stream without ordering. */
#define ANY_STREAM ((void *)&any_stream_tag)
static const char any_stream_tag;

typedef struct block {
    void *ptr;
    size_t size; /* rounded size actually held */
    int device;
    void *stream; /* in use: stream it was allocated on; cached: stream it was freed on */
} block;

typedef struct free_list {
    block **items; /* sorted by size */
    size_t count, capacity;
} free_list;

typedef struct device_pool {
    free_list cached;
    hk_pool_stats stats;
} device_pool;

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static device_pool *pools; /* one per device, created on first use */
static hk__ptr_map in_use; /* device pointer -> block */

static pthread_mutex_t host_lock = PTHREAD_MUTEX_INITIALIZER;
static free_list host_cached;
static hk__ptr_map host_in_use;

/* ------------------------------------------------------------ helpers */

/* Sizes round up to a few granularities so freed blocks fit later requests of
 * similar size: `small_unit` below 1 MiB, 128 KiB below 32 MiB, 2 MiB above. */
static size_t round_size(size_t bytes, size_t small_unit)
{
    size_t unit = bytes < ((size_t)1 << 20)    ? small_unit
                  : bytes < ((size_t)32 << 20) ? (size_t)128 << 10
                                               : (size_t)2 << 20;
    if (bytes > SIZE_MAX - unit)
        return 0;
    return (bytes + unit - 1) / unit * unit;
}

static bool list_insert(free_list *list, block *b)
{
    if (list->count == list->capacity) {
        size_t capacity = list->capacity ? list->capacity * 2 : 64;
        block **items = realloc(list->items, capacity * sizeof *items);
        if (!items)
            return false;
        list->items = items;
        list->capacity = capacity;
    }
    size_t lo = 0, hi = list->count;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (list->items[mid]->size < b->size)
            lo = mid + 1;
        else
            hi = mid;
    }
    memmove(&list->items[lo + 1], &list->items[lo], (list->count - lo) * sizeof *list->items);
    list->items[lo] = b;
    list->count++;
    return true;
}

static block *list_remove_at(free_list *list, size_t i)
{
    block *b = list->items[i];
    memmove(&list->items[i], &list->items[i + 1], (list->count - i - 1) * sizeof *list->items);
    list->count--;
    return b;
}

/* Index of the best cached block for `size`: the smallest that fits without
 * wasting more than a quarter, preferring one last used on `stream`.
 * SIZE_MAX if none. */
static size_t list_find(const free_list *list, size_t size, void *stream, bool *same_stream)
{
    size_t lo = 0, hi = list->count;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (list->items[mid]->size < size)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t max_size = size + size / 4;
    size_t fallback = SIZE_MAX;
    for (size_t i = lo; i < list->count && list->items[i]->size <= max_size; i++) {
        void *s = list->items[i]->stream;
        if (s == stream || s == ANY_STREAM) {
            *same_stream = true;
            return i;
        }
        if (fallback == SIZE_MAX)
            fallback = i;
    }
    *same_stream = false;
    return fallback;
}

static device_pool *pool_for(int device)
{
    if (!pools) {
        int count = hk__device_count();
        pools = calloc((size_t)(count > 0 ? count : 1), sizeof *pools);
    }
    return pools ? &pools[device] : NULL;
}

/* Gives every cached block of `pool` back to the vendor, largest first, until
 * at most keep_bytes stay. The caller has synchronized the device. */
static hk_status release_cached(const char *fn, device_pool *pool, size_t keep_bytes)
{
    const hk__kind *backend = hk__kind_current();
    hk_status result = HK_SUCCESS;
    while (pool->cached.count > 0 && pool->stats.bytes_cached > keep_bytes) {
        block *b = list_remove_at(&pool->cached, pool->cached.count - 1);
        pool->stats.bytes_cached -= b->size;
        hk_status s = backend->device_release(fn, b->ptr);
        if (s != HK_SUCCESS)
            result = s;
        free(b);
    }
    return result;
}

static hk_status out_of_memory(const char *fn, size_t bytes, const device_pool *pool, const char *reason)
{
    char asked[32], free_text[32], limit_text[32];
    size_t free_bytes = 0;
    int device = hk__current_device();
    if (hk__kind_current()->free_memory(fn, &free_bytes) != HK_SUCCESS)
        free_bytes = 0;
    hk__format_bytes(bytes, asked, sizeof asked);
    hk__format_bytes(free_bytes, free_text, sizeof free_text);
    if (pool->stats.limit)
        return hk__fail(HK_ERROR_OUT_OF_MEMORY, fn,
                        "%s requested on device %d (%s), pool limit %s with %zu bytes in use, %s free on the "
                        "device: %s",
                        asked, device, hk__device_name(device),
                        hk__format_bytes(pool->stats.limit, limit_text, sizeof limit_text), pool->stats.bytes_in_use,
                        free_text, reason);
    return hk__fail(HK_ERROR_OUT_OF_MEMORY, fn, "%s requested on device %d (%s), %s free: %s", asked, device,
                    hk__device_name(device), free_text, reason);
}

/* ------------------------------------------------------------- device pool */

hk_status hk__pool_alloc(const char *fn, void **ptr, size_t bytes, void *stream)
{
    int device = hk__current_device();
    size_t size = round_size(bytes, 512);
    if (size == 0)
        return out_of_memory(fn, bytes, &(device_pool){0}, "size too large to represent");
    const hk__kind *backend = hk__kind_current();

    pthread_mutex_lock(&pool_lock);
    device_pool *pool = pool_for(device);
    hk_status s = HK_SUCCESS;
    if (!pool) {
        pthread_mutex_unlock(&pool_lock);
        return hk__fail(HK_ERROR_OUT_OF_MEMORY, fn, "out of host memory for the pool's bookkeeping");
    }
    bool same_stream = false;
    size_t index = list_find(&pool->cached, size, stream, &same_stream);
    block *b = NULL;
    if (index != SIZE_MAX) {
        b = list_remove_at(&pool->cached, index);
        if (!same_stream && (s = backend->stream_order(fn, b->stream, stream)) != HK_SUCCESS) {
            list_insert(&pool->cached, b);
            pthread_mutex_unlock(&pool_lock);
            return s;
        }
        pool->stats.bytes_cached -= b->size;
        pool->stats.cache_hits++;
    } else {
        b = malloc(sizeof *b);
        if (!b) {
            pthread_mutex_unlock(&pool_lock);
            return hk__fail(HK_ERROR_OUT_OF_MEMORY, fn, "out of host memory for the pool's bookkeeping");
        }
        size_t reserved = pool->stats.bytes_in_use + pool->stats.bytes_cached;
        bool over_limit = pool->stats.limit &&
                          size > pool->stats.limit - (reserved < pool->stats.limit ? reserved : pool->stats.limit);
        void *p = NULL;
        if (!over_limit)
            s = backend->device_alloc(fn, &p, size);
        if (over_limit || s == HK_ERROR_OUT_OF_MEMORY) {
            /* Free the cache (after pending work) and retry once. */
            if ((s = backend->synchronize(fn)) == HK_SUCCESS)
                s = release_cached(fn, pool, 0);
            if (s == HK_SUCCESS) {
                reserved = pool->stats.bytes_in_use;
                over_limit = pool->stats.limit &&
                             size > pool->stats.limit - (reserved < pool->stats.limit ? reserved : pool->stats.limit);
                s = over_limit ? HK_ERROR_OUT_OF_MEMORY : backend->device_alloc(fn, &p, size);
            }
            if (s == HK_ERROR_OUT_OF_MEMORY)
                s = out_of_memory(fn, bytes, pool,
                                  over_limit ? "over the pool limit (raise it with hk_pool_set_limit)"
                                             : "out of memory (the pool's cache was already released)");
        }
        if (s != HK_SUCCESS) {
            free(b);
            pthread_mutex_unlock(&pool_lock);
            return s;
        }
        *b = (block){p, size, device, stream};
        pool->stats.vendor_allocations++;
    }
    b->stream = stream;
    if (!hk__ptr_map_put(&in_use, b->ptr, b)) {
        pool->stats.bytes_cached += b->size;
        list_insert(&pool->cached, b);
        pthread_mutex_unlock(&pool_lock);
        return hk__fail(HK_ERROR_OUT_OF_MEMORY, fn, "out of host memory for the pool's bookkeeping");
    }
    pool->stats.bytes_in_use += b->size;
    if (pool->stats.bytes_in_use > pool->stats.peak_bytes_in_use)
        pool->stats.peak_bytes_in_use = pool->stats.bytes_in_use;
    pool->stats.allocations++;
    *ptr = b->ptr;
    pthread_mutex_unlock(&pool_lock);
    return HK_SUCCESS;
}

hk_status hk__pool_free(const char *fn, void *ptr, void *stream, bool use_own_stream)
{
    pthread_mutex_lock(&pool_lock);
    block *b = hk__ptr_map_get(&in_use, ptr);
    if (!b) {
        pthread_mutex_unlock(&pool_lock);
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "%p was not allocated by hk_malloc, or was already freed", ptr);
    }
    if (!use_own_stream && b->device != hk__current_device()) {
        pthread_mutex_unlock(&pool_lock);
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "%p lives on device %d but the stream is on device %d", ptr,
                        b->device, hk__current_device());
    }
    device_pool *pool = &pools[b->device];
    if (!use_own_stream)
        b->stream = stream;
    if (!list_insert(&pool->cached, b)) {
        pthread_mutex_unlock(&pool_lock);
        return hk__fail(HK_ERROR_OUT_OF_MEMORY, fn, "out of host memory for the pool's bookkeeping");
    }
    hk__ptr_map_take(&in_use, ptr);
    pool->stats.bytes_in_use -= b->size;
    pool->stats.bytes_cached += b->size;
    pthread_mutex_unlock(&pool_lock);
    return HK_SUCCESS;
}

static void forget_in_use(void *value, void *context)
{
    block *b = value;
    /* Its stream is gone; later frees order against the default stream. */
    if (b->stream == context)
        b->stream = NULL;
}

void hk__pool_forget_stream(void *stream)
{
    pthread_mutex_lock(&pool_lock);
    if (pools) {
        for (int d = 0; d < hk__device_count(); d++)
            for (size_t i = 0; i < pools[d].cached.count; i++)
                if (pools[d].cached.items[i]->stream == stream)
                    pools[d].cached.items[i]->stream = ANY_STREAM;
        hk__ptr_map_each(&in_use, forget_in_use, stream);
    }
    pthread_mutex_unlock(&pool_lock);
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
    if ((s = hk__require_gpu(fn)) != HK_SUCCESS)
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
    hk_status s = hk__require_gpu(fn);
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
    pthread_mutex_lock(&pool_lock);
    device_pool *pool = pool_for(device);
    if (pool)
        *stats = pool->stats;
    pthread_mutex_unlock(&pool_lock);
    if (!pool)
        return hk__fail(HK_ERROR_OUT_OF_MEMORY, fn, "out of host memory for the pool's bookkeeping");
    return hk__ok();
}

hk_status hk_pool_set_limit(int device, size_t bytes)
{
    static const char fn[] = "hk_pool_set_limit";
    hk_status s = hk__check_device(fn, device);
    if (s != HK_SUCCESS)
        return s;
    pthread_mutex_lock(&pool_lock);
    device_pool *pool = pool_for(device);
    if (pool)
        pool->stats.limit = bytes;
    pthread_mutex_unlock(&pool_lock);
    if (!pool)
        return hk__fail(HK_ERROR_OUT_OF_MEMORY, fn, "out of host memory for the pool's bookkeeping");
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
    pthread_mutex_lock(&pool_lock);
    device_pool *pool = pool_for(device);
    if (!pool)
        s = hk__fail(HK_ERROR_OUT_OF_MEMORY, fn, "out of host memory for the pool's bookkeeping");
    else if ((s = hk__kind_current()->synchronize(fn)) == HK_SUCCESS)
        s = release_cached(fn, pool, keep_bytes);
    pthread_mutex_unlock(&pool_lock);
    if (device != previous) {
        hk_status restore = hk__activate_device(fn, previous);
        if (s == HK_SUCCESS)
            s = restore;
    }
    return s == HK_SUCCESS ? hk__ok() : s;
}

/* ---------------------------------------------------------- pinned host */

/* Frees every cached pinned block; the caller holds host_lock. */
static hk_status release_host_cache(const char *fn)
{
    hk_status result = HK_SUCCESS;
    while (host_cached.count > 0) {
        block *b = list_remove_at(&host_cached, host_cached.count - 1);
        hk_status s = hk__kind_current()->host_release(fn, b->ptr);
        if (s != HK_SUCCESS)
            result = s;
        free(b);
    }
    return result;
}

hk_status hk__host_alloc(const char *fn, void **ptr, size_t bytes)
{
    size_t size = round_size(bytes, 4096);
    if (size == 0)
        return hk__fail(HK_ERROR_OUT_OF_MEMORY, fn, "%zu bytes of pinned host memory cannot be represented", bytes);
    const hk__kind *backend = hk__kind_current();
    hk_status s = HK_SUCCESS;
    pthread_mutex_lock(&host_lock);
    bool unused;
    size_t index = list_find(&host_cached, size, NULL, &unused);
    block *b;
    if (index != SIZE_MAX) {
        b = list_remove_at(&host_cached, index);
    } else if (!(b = malloc(sizeof *b))) {
        s = hk__fail(HK_ERROR_OUT_OF_MEMORY, fn, "out of host memory for the pool's bookkeeping");
    } else {
        void *p = NULL;
        s = backend->host_alloc(fn, &p, size);
        if (s == HK_ERROR_OUT_OF_MEMORY) {
            release_host_cache(fn);
            s = backend->host_alloc(fn, &p, size);
        }
        if (s != HK_SUCCESS) {
            free(b);
            b = NULL;
            if (s == HK_ERROR_OUT_OF_MEMORY) {
                char asked[32];
                s = hk__fail(s, fn, "%s of pinned host memory requested: out of memory (cache already released)",
                             hk__format_bytes(bytes, asked, sizeof asked));
            }
        } else {
            *b = (block){p, size, -1, NULL};
        }
    }
    if (b && !hk__ptr_map_put(&host_in_use, b->ptr, b)) {
        list_insert(&host_cached, b);
        s = hk__fail(HK_ERROR_OUT_OF_MEMORY, fn, "out of host memory for the pool's bookkeeping");
        b = NULL;
    }
    pthread_mutex_unlock(&host_lock);
    if (!b)
        return s;
    *ptr = b->ptr;
    return HK_SUCCESS;
}

hk_status hk__host_free(const char *fn, void *ptr)
{
    pthread_mutex_lock(&host_lock);
    block *b = hk__ptr_map_take(&host_in_use, ptr);
    bool cached = b && list_insert(&host_cached, b);
    pthread_mutex_unlock(&host_lock);
    if (!b)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "%p was not allocated by hk_host_malloc, or was already freed",
                        ptr);
    if (!cached) { /* no room to cache it: give it straight back */
        hk_status s = hk__kind_current()->host_release(fn, b->ptr);
        free(b);
        return s;
    }
    return HK_SUCCESS;
}

hk_status hk_host_malloc(void **ptr, size_t bytes)
{
    static const char fn[] = "hk_host_malloc";
    if (!ptr)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "ptr must not be NULL");
    *ptr = NULL;
    if (bytes == 0)
        return hk__ok();
    hk_status s = hk__require_gpu(fn);
    if (s != HK_SUCCESS)
        return s;
    s = hk__host_alloc(fn, ptr, bytes);
    return s == HK_SUCCESS ? hk__ok() : s;
}

hk_status hk_host_free(void *ptr)
{
    if (!ptr)
        return hk__ok();
    hk_status s = hk__host_free("hk_host_free", ptr);
    return s == HK_SUCCESS ? hk__ok() : s;
}

hk_status hk_host_pool_trim(void)
{
    pthread_mutex_lock(&host_lock);
    hk_status s = release_host_cache("hk_host_pool_trim");
    pthread_mutex_unlock(&host_lock);
    return s == HK_SUCCESS ? hk__ok() : s;
}
