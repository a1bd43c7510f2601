/* rtc.c: run-time compilation of user kernels (the kind's compiler: hiprtc on AMD, NVRTC on
 * NVIDIA) and the on-disk cache of what it produced. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/device.h"
#include "core/handles.h"
#include "core/settings.h"
#include "kinds/kind.h"
#include "rtc/rtc_internal.h"

/* ------------------------------------------------------------ the cache */

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static int cache_configured;
static char *cache_dir; /* NULL: off */

static const char cache_magic[8] = {'H', 'K', 'C', 'A', 'C', 'H', 'E', '1'};

/* mkdir -p */
static int make_dirs(const char *path)
{
    char buffer[4096];
    if (snprintf(buffer, sizeof buffer, "%s", path) >= (int)sizeof buffer)
        return -1;
    for (char *p = buffer + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(buffer, 0755) != 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    return mkdir(buffer, 0755) != 0 && errno != EEXIST ? -1 : 0;
}

static void configure_default_cache(void)
{
    const char *dir = hk__settings_cache_dir();
    cache_dir = dir ? strdup(dir) : NULL;
}

/* The cache folder in use (created on demand), or NULL. Holds cache_lock. */
static const char *current_cache_dir(void)
{
    if (!cache_configured) {
        configure_default_cache();
        cache_configured = 1;
    }
    return cache_dir;
}

hk_status hk_cache_set_dir(const char *dir)
{
    static const char fn[] = "hk_cache_set_dir";
    char *copy = NULL;
    if (dir) {
        if (!*dir)
            return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "dir is empty; pass NULL to turn the cache off");
        if (make_dirs(dir) != 0)
            return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "cannot create the cache folder %s: %s", dir,
                            strerror(errno));
        if (!(copy = strdup(dir)))
            return hk__fail(HK_ERROR_OUT_OF_MEMORY, fn, "out of host memory");
    }
    pthread_mutex_lock(&cache_lock);
    free(cache_dir);
    cache_dir = copy;
    cache_configured = 1;
    pthread_mutex_unlock(&cache_lock);
    return hk__ok();
}

hk_status hk_cache_get_dir(const char **dir)
{
    if (!dir)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, "hk_cache_get_dir", "dir must not be NULL");
    pthread_mutex_lock(&cache_lock);
    /* The string stays valid until the next hk_cache_set_dir. */
    *dir = current_cache_dir();
    pthread_mutex_unlock(&cache_lock);
    return hk__ok();
}

static uint64_t fnv1a(const void *data, size_t size, uint64_t hash)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < size; i++) {
        hash ^= p[i];
        hash *= 0x100000001b3ULL;
    }
    return hash;
}

/* Key material: everything that changes the compiled code. Stored whole in
 * the entry and compared byte for byte, so a hash collision cannot load the
 * wrong code; the hashes only name the file. */
static char *cache_key(const char *source, const char *name, const char *const *options, int num_options,
                       const char *target, size_t *length)
{
    const hk__kind *kind = hk__kind_for_target(target);
    const char *identity = kind->rtc_cache_identity ? kind->rtc_cache_identity() : NULL;
    size_t size = strlen(source) + strlen(name) + strlen(target) + strlen(hk__prelude_source) + 256 +
                  (identity ? strlen(identity) + 8 : 0);
    for (int i = 0; i < num_options; i++)
        size += strlen(options[i]) + 24;
    char *key = malloc(size);
    if (!key)
        return NULL;
    int n = snprintf(key, size, "hipkit %d.%d.%d|%s %d|%s|%s|%d|", HK_VERSION_MAJOR, HK_VERSION_MINOR, HK_VERSION_PATCH,
                     kind->rtc_name, kind->rtc_build_version, target, name, num_options);
    for (int i = 0; i < num_options; i++)
        n += snprintf(key + n, size - (size_t)n, "%zu:%s|", strlen(options[i]), options[i]);
    if (identity) /* absent for the GPU kinds, whose keys stay as they were */
        n += snprintf(key + n, size - (size_t)n, "%zu:%s|", strlen(identity), identity);
    n += snprintf(key + n, size - (size_t)n, "%s|%s", hk__prelude_source, source);
    *length = (size_t)n;
    return key;
}

static void cache_path(char *path, size_t size, const char *dir, const char *key, size_t key_length)
{
    uint64_t a = fnv1a(key, key_length, 0xcbf29ce484222325ULL);
    uint64_t b = fnv1a(key, key_length, 0x84222325cbf29ce4ULL);
    snprintf(path, size, "%s/%016llx%016llx.hkbin", dir, (unsigned long long)a, (unsigned long long)b);
}

typedef struct entry_header {
    char magic[8];
    uint64_t key_length;
    uint64_t binary_size;
    uint64_t checksum; /* of key and binary */
} entry_header;

/* Reads an entry; any mismatch (truncated, damaged, other key) is a miss. */
static void *cache_read(const char *path, const char *key, size_t key_length, size_t *binary_size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    entry_header h;
    void *binary = NULL;
    char *stored_key = NULL;
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || fread(&h, sizeof h, 1, f) != 1 || memcmp(h.magic, cache_magic, 8) != 0 ||
        h.key_length != key_length || h.binary_size == 0 ||
        (uint64_t)st.st_size != sizeof h + h.key_length + h.binary_size)
        goto miss;
    stored_key = malloc(key_length);
    binary = malloc(h.binary_size);
    if (!stored_key || !binary || fread(stored_key, 1, key_length, f) != key_length ||
        memcmp(stored_key, key, key_length) != 0 || fread(binary, 1, h.binary_size, f) != h.binary_size)
        goto miss;
    if (fnv1a(binary, h.binary_size, fnv1a(key, key_length, 0xcbf29ce484222325ULL)) != h.checksum)
        goto miss;
    free(stored_key);
    fclose(f);
    *binary_size = h.binary_size;
    return binary;
miss:
    free(stored_key);
    free(binary);
    fclose(f);
    return NULL;
}

/* Writes through a temporary file and a rename, so readers never see half an
 * entry. The temporary's name is unique per process and per write (the pid and a
 * process-wide serial), so threads writing the same entry at once never share one.
 * Failure to write only costs the next process a compile. */
static void cache_write(const char *path, const char *key, size_t key_length, const void *binary, size_t size)
{
    static atomic_ulong serial;
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.%ld.%lu.tmp", path, (long)getpid(), atomic_fetch_add(&serial, 1));
    FILE *f = fopen(tmp, "wb");
    if (!f)
        return;
    entry_header h;
    memcpy(h.magic, cache_magic, 8);
    h.key_length = key_length;
    h.binary_size = size;
    h.checksum = fnv1a(binary, size, fnv1a(key, key_length, 0xcbf29ce484222325ULL));
    int ok = fwrite(&h, sizeof h, 1, f) == 1 && fwrite(key, 1, key_length, f) == key_length &&
             fwrite(binary, 1, size, f) == size;
    ok = (fclose(f) == 0) && ok;
    if (!ok || rename(tmp, path) != 0)
        unlink(tmp);
}

/* ------------------------------------------------------------ compiling */

static void program_free(hk__program *p)
{
    if (!p)
        return;
    free(p->source);
    free(p->name);
    free(p->target);
    free(p->log);
    free(p->binary);
    free(p);
}

hk_status hk_program_compile(hk_program *program, const char *source, const char *name, const char *const *options,
                             int num_options, const char *target)
{
    static const char fn[] = "hk_program_compile";
    if (!program || !source)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "%s must not be NULL", !program ? "program" : "source");
    *program = NULL;
    if (num_options < 0 || (num_options > 0 && !options))
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "options is NULL but num_options is %d", num_options);
    for (int i = 0; i < num_options; i++)
        if (!options[i])
            return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "options[%d] is NULL", i);
    if (!name || !*name)
        name = "kernel.hip";
    char device_target[HK_DEVICE_ARCH_MAX];
    const hk__kind *kind = target ? hk__kind_for_target(target) : hk__kind_current();
    if (target) {
        HK_TRY(kind->rtc_check_target(fn, target));
    } else {
        hk_status s = hk__require_device(fn);
        if (s != HK_SUCCESS)
            return s;
        snprintf(device_target, sizeof device_target, "%s", hk__device_properties(hk__current_device())->arch);
        target = device_target;
    }
    hk__program *p = calloc(1, sizeof *p);
    if (!p || !(p->source = strdup(source)) || !(p->name = strdup(name)) || !(p->target = strdup(target))) {
        program_free(p);
        return hk__fail(HK_ERROR_OUT_OF_MEMORY, fn, "out of host memory");
    }
    size_t key_length = 0;
    char *key = cache_key(source, name, options, num_options, target, &key_length);
    char path[4200] = "";
    pthread_mutex_lock(&cache_lock);
    const char *dir = current_cache_dir();
    if (dir && key && make_dirs(dir) == 0)
        cache_path(path, sizeof path, dir, key, key_length);
    pthread_mutex_unlock(&cache_lock);

    if (path[0] && (p->binary = cache_read(path, key, key_length, &p->binary_size))) {
        p->cached = 1;
        p->log = strdup("");
    } else {
        const char *why = kind->rtc_unavailable();
        hk_status s = why ? hk__fail(HK_ERROR_NOT_SUPPORTED, fn, "%s", why)
                          : kind->rtc_compile(fn, p->source, p->name, p->target, hk__prelude_source, options,
                                              num_options, &p->binary, &p->binary_size, &p->log);
        if (s != HK_SUCCESS) {
            free(key);
            program_free(p);
            return s;
        }
        if (path[0])
            cache_write(path, key, key_length, p->binary, p->binary_size);
    }
    free(key);
    if (!p->log) {
        program_free(p);
        return hk__fail(HK_ERROR_OUT_OF_MEMORY, fn, "out of host memory");
    }
    uintptr_t handle = hk__handle_insert(HK__HANDLE_PROGRAM, p, -1);
    if (!handle) {
        program_free(p);
        return hk__fail(HK_ERROR_OUT_OF_MEMORY, fn, "no room for another program handle (host memory)");
    }
    *program = (hk_program)handle;
    return hk__ok();
}

/* The program behind a handle, or NULL with the error recorded. */
hk__program *hk__program_lookup(const char *fn, hk_program program)
{
    void *object = NULL;
    int device;
    if (!program || !hk__handle_lookup(HK__HANDLE_PROGRAM, (uintptr_t)program, &object, &device)) {
        hk__fail(HK_ERROR_INVALID_HANDLE, fn, "program %p is not live (already destroyed, or never created)",
                 (void *)program);
        return NULL;
    }
    return object;
}

hk_status hk_program_destroy(hk_program program)
{
    void *object = NULL;
    int device;
    if (!program || !hk__handle_remove(HK__HANDLE_PROGRAM, (uintptr_t)program, &object, &device))
        return hk__fail(HK_ERROR_INVALID_HANDLE, "hk_program_destroy",
                        "program %p is not live (already destroyed, or never created)", (void *)program);
    program_free(object);
    return hk__ok();
}

hk_status hk_program_get_binary(hk_program program, const void **binary, size_t *bytes)
{
    static const char fn[] = "hk_program_get_binary";
    if (!binary || !bytes)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "binary and bytes must not be NULL");
    hk__program *p = hk__program_lookup(fn, program);
    if (!p)
        return HK_ERROR_INVALID_HANDLE;
    *binary = p->binary;
    *bytes = p->binary_size;
    return hk__ok();
}

hk_status hk_program_get_log(hk_program program, const char **log)
{
    static const char fn[] = "hk_program_get_log";
    if (!log)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "log must not be NULL");
    hk__program *p = hk__program_lookup(fn, program);
    if (!p)
        return HK_ERROR_INVALID_HANDLE;
    *log = p->log;
    return hk__ok();
}

hk_status hk_program_get_target(hk_program program, const char **target)
{
    static const char fn[] = "hk_program_get_target";
    if (!target)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "target must not be NULL");
    hk__program *p = hk__program_lookup(fn, program);
    if (!p)
        return HK_ERROR_INVALID_HANDLE;
    *target = p->target;
    return hk__ok();
}

hk_status hk_program_is_cached(hk_program program, int *cached)
{
    static const char fn[] = "hk_program_is_cached";
    if (!cached)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "cached must not be NULL");
    hk__program *p = hk__program_lookup(fn, program);
    if (!p)
        return HK_ERROR_INVALID_HANDLE;
    *cached = p->cached;
    return hk__ok();
}

hk_status hk_rtc_version(int *major, int *minor)
{
    static const char fn[] = "hk_rtc_version";
    if (!major || !minor)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "major and minor must not be NULL");
    const hk__kind *kind = hk__kind_vendor();
    const char *why = kind->rtc_unavailable();
    if (why)
        return hk__fail(HK_ERROR_NOT_SUPPORTED, fn, "%s", why);
    hk_status s = kind->rtc_version(fn, major, minor);
    return s == HK_SUCCESS ? hk__ok() : s;
}
