/* block_list.c: size rounding and the size-sorted list of cached blocks, for both pools. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "memory/block_list.h"

const char hk__any_stream_tag;

size_t hk__round_size(size_t bytes, size_t small_unit)
{
    size_t unit = bytes < ((size_t)1 << 20)    ? small_unit
                  : bytes < ((size_t)32 << 20) ? (size_t)128 << 10
                                               : (size_t)2 << 20;
    if (bytes > SIZE_MAX - unit)
        return 0;
    return (bytes + unit - 1) / unit * unit;
}

bool hk__block_list_insert(hk__block_list *list, hk__block *b)
{
    if (list->count == list->capacity) {
        size_t capacity = list->capacity ? list->capacity * 2 : 64;
        hk__block **items = realloc(list->items, capacity * sizeof *items);
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

hk__block *hk__block_list_remove_at(hk__block_list *list, size_t i)
{
    hk__block *b = list->items[i];
    memmove(&list->items[i], &list->items[i + 1], (list->count - i - 1) * sizeof *list->items);
    list->count--;
    return b;
}

size_t hk__block_list_find(const hk__block_list *list, size_t size, void *stream, bool *same_stream)
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
        if (s == stream || s == HK__ANY_STREAM) {
            *same_stream = true;
            return i;
        }
        if (fallback == SIZE_MAX)
            fallback = i;
    }
    *same_stream = false;
    return fallback;
}

hk__block *hk__block_list_take_largest(hk__block_list *list, size_t *cached_bytes, size_t keep_bytes)
{
    hk__block *taken = NULL, **end = &taken; /* largest first */
    while (list->count > 0 && (!cached_bytes || *cached_bytes > keep_bytes)) {
        hk__block *b = hk__block_list_remove_at(list, list->count - 1);
        if (cached_bytes)
            *cached_bytes -= b->size;
        b->next = NULL;
        *end = b;
        end = &b->next;
    }
    return taken;
}

hk_status hk__block_chain_release(const char *fn, hk__block *chain, hk_status (*release)(const char *fn, void *ptr))
{
    hk_status result = HK_SUCCESS;
    while (chain) {
        hk__block *b = chain;
        chain = b->next;
        hk_status s = release(fn, b->ptr);
        if (s != HK_SUCCESS)
            result = s;
        free(b);
    }
    return result;
}
