/* host_pool.c: the pool of pinned (page-locked) host memory, for hk_host_malloc and the staging
 * buffers. One lock for it all (host memory is no device's); the vendor is called with it released. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "core/device.h"
#include "core/ptr_map.h"
#include "kinds/kind.h"
#include "memory/block_list.h"
#include "memory/pool.h"

static pthread_mutex_t host_lock = PTHREAD_MUTEX_INITIALIZER;
static hk__block_list host_cached;
static hk__ptr_map host_in_use;

static hk_status no_bookkeeping(const char *fn)
{
    return hk__fail(HK_ERROR_OUT_OF_MEMORY, fn, "out of host memory for the pool's bookkeeping");
}

/* Every cached block back to the vendor, taken out under the lock and released after it. */
static hk_status release_cached(const char *fn, const hk__kind *kind)
{
    pthread_mutex_lock(&host_lock);
    hk__block *taken = hk__block_list_take_largest(&host_cached, NULL, 0);
    pthread_mutex_unlock(&host_lock);
    return hk__block_chain_release(fn, taken, kind->host_release);
}

/* Records `b` as in use and hands it out; called with host_lock held, returns with it released. */
static hk_status hand_out(const char *fn, hk__block *b, void **ptr)
{
    if (!hk__ptr_map_put(&host_in_use, b->ptr, b)) {
        hk__block_list_insert(&host_cached, b);
        pthread_mutex_unlock(&host_lock);
        return no_bookkeeping(fn);
    }
    pthread_mutex_unlock(&host_lock);
    *ptr = b->ptr;
    return HK_SUCCESS;
}

hk_status hk__host_alloc(const char *fn, void **ptr, size_t bytes)
{
    size_t size = hk__round_size(bytes, 4096);
    if (size == 0)
        return hk__fail(HK_ERROR_OUT_OF_MEMORY, fn, "%zu bytes of pinned host memory cannot be represented", bytes);
    const hk__kind *kind = hk__kind_host_memory();
    pthread_mutex_lock(&host_lock);
    bool unused;
    size_t index = hk__block_list_find(&host_cached, size, NULL, &unused);
    if (index != SIZE_MAX)
        return hand_out(fn, hk__block_list_remove_at(&host_cached, index), ptr);
    pthread_mutex_unlock(&host_lock);
    hk__block *b = malloc(sizeof *b);
    if (!b)
        return no_bookkeeping(fn);
    void *p = NULL;
    hk_status s = kind->host_alloc(fn, &p, size);
    if (s == HK_ERROR_OUT_OF_MEMORY) {
        (void)release_cached(fn, kind);
        s = kind->host_alloc(fn, &p, size);
    }
    if (s != HK_SUCCESS) {
        free(b);
        if (s == HK_ERROR_OUT_OF_MEMORY) {
            char asked[32];
            s = hk__fail(s, fn, "%s of pinned host memory requested: out of memory (cache already released)",
                         hk__format_bytes(bytes, asked, sizeof asked));
        }
        return s;
    }
    *b = (hk__block){p, size, -1, NULL, NULL};
    pthread_mutex_lock(&host_lock);
    return hand_out(fn, b, ptr);
}

hk_status hk__host_free(const char *fn, void *ptr)
{
    pthread_mutex_lock(&host_lock);
    hk__block *b = hk__ptr_map_take(&host_in_use, ptr);
    bool cached = b && hk__block_list_insert(&host_cached, b);
    pthread_mutex_unlock(&host_lock);
    if (!b)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "%p was not allocated by hk_host_malloc, or was already freed",
                        ptr);
    if (!cached) { /* no room to cache it: give it straight back */
        hk_status s = hk__kind_host_memory()->host_release(fn, b->ptr);
        free(b);
        return s;
    }
    return HK_SUCCESS;
}

/* --------------------------------------------------------------- public */

hk_status hk_host_malloc(void **ptr, size_t bytes)
{
    static const char fn[] = "hk_host_malloc";
    if (!ptr)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "ptr must not be NULL");
    *ptr = NULL;
    if (bytes == 0)
        return hk__ok();
    hk_status s = hk__require_device(fn);
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
    hk_status s = release_cached("hk_host_pool_trim", hk__kind_host_memory());
    return s == HK_SUCCESS ? hk__ok() : s;
}
