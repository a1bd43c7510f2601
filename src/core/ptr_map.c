/* ptr_map.c: open-addressing pointer -> block map with linear probing. */
#include <stdint.h>
#include <stdlib.h>

#include "ptr_map.h"

static const char tombstone_byte;
#define TOMBSTONE ((const void *)&tombstone_byte)

static size_t slot_of(const void *key, size_t capacity)
{
    uint64_t h = (uint64_t)(uintptr_t)key;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    return (size_t)h & (capacity - 1);
}

static bool rehash(hk__ptr_map *map, size_t capacity)
{
    const void **keys = calloc(capacity, sizeof *keys);
    void **values = calloc(capacity, sizeof *values);
    if (!keys || !values) {
        free(keys);
        free(values);
        return false;
    }
    for (size_t i = 0; i < map->capacity; i++) {
        const void *key = map->keys[i];
        if (!key || key == TOMBSTONE)
            continue;
        size_t j = slot_of(key, capacity);
        while (keys[j])
            j = (j + 1) & (capacity - 1);
        keys[j] = key;
        values[j] = map->values[i];
    }
    free(map->keys);
    free(map->values);
    map->keys = keys;
    map->values = values;
    map->capacity = capacity;
    map->used = map->live;
    return true;
}

bool hk__ptr_map_put(hk__ptr_map *map, const void *key, void *value)
{
    if ((map->used + 1) * 4 >= map->capacity * 3) {
        size_t capacity = map->capacity ? map->capacity : 64;
        while ((map->live + 1) * 2 >= capacity)
            capacity *= 2;
        if (!rehash(map, capacity))
            return false;
    }
    size_t i = slot_of(key, map->capacity);
    while (map->keys[i] && map->keys[i] != TOMBSTONE)
        i = (i + 1) & (map->capacity - 1);
    if (!map->keys[i])
        map->used++;
    map->keys[i] = key;
    map->values[i] = value;
    map->live++;
    return true;
}

static size_t find(const hk__ptr_map *map, const void *key)
{
    if (!map->capacity)
        return SIZE_MAX;
    size_t i = slot_of(key, map->capacity);
    while (map->keys[i]) {
        if (map->keys[i] == key)
            return i;
        i = (i + 1) & (map->capacity - 1);
    }
    return SIZE_MAX;
}

void *hk__ptr_map_get(const hk__ptr_map *map, const void *key)
{
    size_t i = find(map, key);
    return i == SIZE_MAX ? NULL : map->values[i];
}

void *hk__ptr_map_take(hk__ptr_map *map, const void *key)
{
    size_t i = find(map, key);
    if (i == SIZE_MAX)
        return NULL;
    map->keys[i] = TOMBSTONE;
    map->live--;
    return map->values[i];
}

void hk__ptr_map_each(const hk__ptr_map *map, void (*visit)(void *value, void *context), void *context)
{
    for (size_t i = 0; i < map->capacity; i++)
        if (map->keys[i] && map->keys[i] != TOMBSTONE)
            visit(map->values[i], context);
}
