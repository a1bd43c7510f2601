/* rtc.c: run-time compilation of user kernels (hiprtc on AMD, NVRTC on
 * NVIDIA, both behind gpu/rtc.h) and the on-disk cache of what it produced. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/device.h"
#include "core/handles.h"
#include "core/settings.h"
#include "gpu/gpu.h"
#include "gpu/rtc.h"
#include "rtc/rtc_internal.h"

/* The toolkit version hipkit was built against names the compiler in cache
 * keys: asking the loaded compiler would load NVRTC (tens of milliseconds)
 * even for a cache hit, which must not need it. */
#if defined(HIPKIT_PLATFORM_NVIDIA)
#define HK_RTC_BUILD_VERSION CUDART_VERSION
#else
#define HK_RTC_BUILD_VERSION HIP_VERSION
#endif

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
    size_t size = strlen(source) + strlen(name) + strlen(target) + strlen(hk__prelude_source) + 256;
    for (int i = 0; i < num_options; i++)
        size += strlen(options[i]) + 24;
    char *key = malloc(size);
    if (!key)
        return NULL;
    int n = snprintf(key, size, "hipkit %d.%d.%d|%s %d|%s|%s|%d|", HK_VERSION_MAJOR, HK_VERSION_MINOR, HK_VERSION_PATCH,
                     HK_RTC_NAME, (int)HK_RTC_BUILD_VERSION, target, name, num_options);
    for (int i = 0; i < num_options; i++)
        n += snprintf(key + n, size - (size_t)n, "%zu:%s|", strlen(options[i]), options[i]);
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
 * entry. Failure to write only costs the next process a compile. */
static void cache_write(const char *path, const char *key, size_t key_length, const void *binary, size_t size)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
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

static int target_is_valid(const char *target)
{
#if defined(HIPKIT_PLATFORM_NVIDIA)
    const char *digits = !strncmp(target, "sm_", 3) ? target + 3 : !strncmp(target, "compute_", 8) ? target + 8 : NULL;
    if (!digits || !*digits)
        return 0;
    for (const char *p = digits; *p; p++)
        if (!(*p >= '0' && *p <= '9') && !(p[1] == '\0' && (*p == 'a' || *p == 'f') && p != digits))
            return 0;
    return 1;
#else
    if (strncmp(target, "gfx", 3) != 0 || !target[3])
        return 0;
    for (const char *p = target + 3; *p && *p != ':'; p++)
        if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
            return 0;
    return 1;
#endif
}

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

/* hiprtc (HIP 5.2) names the source ".../comgr-XXXX/input/CompileSource" in
 * its messages; put the user's name back so the log points at their file. */
static char *rename_source_in_log(char *log, const char *name)
{
    static const char marker[] = "CompileSource";
    size_t count = 0;
    for (const char *p = strstr(log, marker); p; p = strstr(p + 1, marker))
        count++;
    if (!count)
        return log;
    char *out = malloc(strlen(log) + count * (strlen(name) + 1) + 1);
    if (!out)
        return log;
    char *w = out;
    const char *r = log;
    for (const char *p = strstr(r, marker); p; p = strstr(r, marker)) {
        const char *start = p;
        while (start > r && start[-1] != ' ' && start[-1] != '\n' && start[-1] != '\'' && start[-1] != '"')
            start--;
        memcpy(w, r, (size_t)(start - r));
        w += start - r;
        w += sprintf(w, "%s", name);
        r = p + sizeof marker - 1;
    }
    strcpy(w, r);
    free(log);
    return out;
}

/* Runs the compiler. On HK_ERROR_COMPILE the sentence holds its log. */
static hk_status compile(const char *fn, hk__program *p, const char *const *user_options, int num_user_options)
{
    hiprtcProgram program;
    const char *header_names[] = {"hipkit_device.h"};
    const char *headers[] = {hk__prelude_source};
    hiprtcResult r =
        hiprtcCreateProgram(&program, p->source, p->name, 1, (hk_rtc_strings)headers, (hk_rtc_strings)header_names);
    if (r != HIPRTC_SUCCESS)
        return hk__fail(HK_ERROR_RUNTIME, fn, "%s could not create a program for %s: %s", HK_RTC_NAME, p->name,
                        hiprtcGetErrorString(r));
    int has_std = 0;
    for (int i = 0; i < num_user_options; i++)
        has_std |= !strncmp(user_options[i], "-std=", 5) || !strncmp(user_options[i], "--std", 5);
    const char **options = malloc(((size_t)num_user_options + 3) * sizeof *options);
    char arch_option[96];
    snprintf(arch_option, sizeof arch_option, "--gpu-architecture=%s", p->target);
    if (!options) {
        hiprtcDestroyProgram(&program);
        return hk__fail(HK_ERROR_OUT_OF_MEMORY, fn, "out of host memory");
    }
    int n = 0;
    options[n++] = arch_option;
    options[n++] = "-DHIPKIT_RTC=1";
    if (!has_std)
        options[n++] = "-std=c++17";
    for (int i = 0; i < num_user_options; i++)
        options[n++] = user_options[i];
    r = hiprtcCompileProgram(program, n, (hk_rtc_strings)options);
    free(options);

    size_t log_size = 0;
    char *log = NULL;
    if (hiprtcGetProgramLogSize(program, &log_size) == HIPRTC_SUCCESS && log_size > 0 && (log = malloc(log_size + 1))) {
        if (hiprtcGetProgramLog(program, log) != HIPRTC_SUCCESS)
            log[0] = '\0';
        log[log_size] = '\0';
        log = rename_source_in_log(log, p->name);
    }
    hk_status s = HK_SUCCESS;
    if (r != HIPRTC_SUCCESS) {
        s = hk__fail(r == HIPRTC_ERROR_COMPILATION ? HK_ERROR_COMPILE : HK_ERROR_RUNTIME, fn,
                     "compiling %s for %s with %s failed (%s):\n%s", p->name, p->target, HK_RTC_NAME,
                     hiprtcGetErrorString(r), log && *log ? log : "(the compiler gave no log)");
    } else if (hiprtcGetCodeSize(program, &p->binary_size) != HIPRTC_SUCCESS || p->binary_size == 0 ||
               !(p->binary = malloc(p->binary_size)) || hiprtcGetCode(program, p->binary) != HIPRTC_SUCCESS) {
        s = hk__fail(HK_ERROR_RUNTIME, fn, "%s compiled %s for %s but gave no code", HK_RTC_NAME, p->name, p->target);
    }
    hiprtcDestroyProgram(&program);
    p->log = log ? log : strdup("");
    return s;
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
    if (target) {
        if (!target_is_valid(target))
            return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn,
#if defined(HIPKIT_PLATFORM_NVIDIA)
                            "target \"%s\" is not an NVIDIA architecture such as sm_90 or compute_90 "
                            "(this is the NVIDIA build; gfx targets need the AMD build)",
#else
                            "target \"%s\" is not an AMD architecture such as gfx90a "
                            "(this is the AMD build; sm targets need the NVIDIA build)",
#endif
                            target);
    } else {
        hk_status s = hk__require_gpu(fn);
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
        const char *why = hk_rtc_unavailable();
        hk_status s = why ? hk__fail(HK_ERROR_NOT_SUPPORTED, fn, "%s", why) : compile(fn, p, options, num_options);
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
    const char *why = hk_rtc_unavailable();
    if (why)
        return hk__fail(HK_ERROR_NOT_SUPPORTED, fn, "%s", why);
    hiprtcResult r = hiprtcVersion(major, minor);
    if (r != HIPRTC_SUCCESS)
        return hk__fail(HK_ERROR_RUNTIME, fn, "%s: %s", HK_RTC_NAME, hiprtcGetErrorString(r));
    return hk__ok();
}
