/* ptr_map.h: an open-addressing hash map from pointer to block, used by the
 * memory pools to find the block of a pointer being freed. Not thread-safe:
 * the pools call it under their lock. */
#ifndef HIPKIT_PTR_MAP_H
#define HIPKIT_PTR_MAP_H

#include <stdbool.h>
#include <stddef.h>

typedef struct hk__ptr_map {
    const void **keys; /* NULL: empty; TOMBSTONE: deleted */
    void **values;
    size_t capacity; /* power of two */
    size_t used;     /* live + tombstones */
    size_t live;
} hk__ptr_map;

bool hk__ptr_map_put(hk__ptr_map *map, const void *key, void *value);
void *hk__ptr_map_get(const hk__ptr_map *map, const void *key);
void *hk__ptr_map_take(hk__ptr_map *map, const void *key);
/* Calls visit(value, context) for each live entry. */
void hk__ptr_map_each(const hk__ptr_map *map, void (*visit)(void *value, void *context), void *context);

#endif
