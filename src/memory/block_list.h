/* block_list.h: what the device and pinned pools share: the blocks they hand out, sizes rounded so
 * freed blocks fit later requests, and the size-sorted list of cached blocks. Not thread-safe: each
 * pool calls it under its own lock. */
#ifndef HIPKIT_MEMORY_BLOCK_LIST_H
#define HIPKIT_MEMORY_BLOCK_LIST_H

#include <stdbool.h>
#include <stddef.h>

#include "core/status.h"

/* A cached block whose last stream has been synchronized and destroyed: any stream may take it
 * without ordering. */
extern const char hk__any_stream_tag;
#define HK__ANY_STREAM ((void *)&hk__any_stream_tag)

typedef struct hk__block {
    void *ptr;
    size_t size;            /* rounded size actually held */
    int device;             /* -1: pinned host memory */
    void *stream;           /* in use: stream it was allocated on; cached: stream it was freed on */
    struct hk__block *next; /* taken out of a list to be given back to the vendor: the next one */
} hk__block;

typedef struct hk__block_list {
    hk__block **items; /* sorted by size */
    size_t count, capacity;
} hk__block_list;

/* `bytes` rounded up to `small_unit` below 1 MiB, 128 KiB below 32 MiB, 2 MiB above; 0 if it does not
 * fit a size_t. */
size_t hk__round_size(size_t bytes, size_t small_unit);
/* Keeps the list sorted; false when there is no host memory to grow it. */
bool hk__block_list_insert(hk__block_list *list, hk__block *b);
hk__block *hk__block_list_remove_at(hk__block_list *list, size_t i);
/* Index of the best cached block for `size`: the smallest that fits without wasting more than a
 * quarter, preferring one last used on `stream` (or on any stream: *same_stream true). SIZE_MAX if
 * none. */
size_t hk__block_list_find(const hk__block_list *list, size_t size, void *stream, bool *same_stream);
/* Takes the largest blocks out of `list`, chained through `next`, until at most keep_bytes of the
 * *cached_bytes it holds stay (lowering *cached_bytes); cached_bytes NULL takes them all. So a pool
 * can give blocks back to the vendor after unlocking. */
hk__block *hk__block_list_take_largest(hk__block_list *list, size_t *cached_bytes, size_t keep_bytes);
/* Gives a chain of taken blocks back to the vendor through `release` and frees their records;
 * returns the last failure (all are tried). */
hk_status hk__block_chain_release(const char *fn, hk__block *chain, hk_status (*release)(const char *fn, void *ptr));

#endif
