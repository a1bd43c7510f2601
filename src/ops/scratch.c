/* scratch.c: op scratch from the caching pool, stream-ordered. */
#include "ops/scratch.h"
#include "memory/pool.h"

hk_status hk__scratch_alloc(const char *fn, void **ptr, size_t bytes, void *stream)
{
    *ptr = NULL;
    return bytes ? hk__pool_alloc(fn, ptr, bytes, stream) : HK_SUCCESS;
}

hk_status hk__scratch_free(const char *fn, void *ptr, void *stream, hk_status status)
{
    if (!ptr)
        return status;
    /* Stream-ordered: the block is reused only after the work queued on this stream. */
    hk_status s = hk__pool_free(fn, ptr, stream, false);
    return status == HK_SUCCESS ? s : status;
}

hk_status hk__scratch_list_alloc(const char *fn, hk__scratch_list *list, void *stream)
{
    for (int i = 0; i < HK__SCRATCH_MAX; i++)
        list->ptr[i] = NULL;
    for (int i = 0; i < HK__SCRATCH_MAX; i++) {
        hk_status s = hk__scratch_alloc(fn, &list->ptr[i], list->bytes[i], stream);
        if (s != HK_SUCCESS && list->optional[i])
            list->ptr[i] = NULL; /* the kind does without it */
        else if (s != HK_SUCCESS)
            return hk__scratch_list_free(fn, list, stream, s);
    }
    return HK_SUCCESS;
}

hk_status hk__scratch_list_free(const char *fn, hk__scratch_list *list, void *stream, hk_status status)
{
    for (int i = 0; i < HK__SCRATCH_MAX; i++) {
        status = hk__scratch_free(fn, list->ptr[i], stream, status);
        list->ptr[i] = NULL;
    }
    return status;
}
