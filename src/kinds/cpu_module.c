/* cpu_module.c: the CPU kind's modules of run-time-compiled code: the shared object cpu_rtc.c built,
 * loaded with dlopen from a private copy of its bytes, its kernels (each an hkcpu_kernel_info it
 * exports), and their launches, queued on the device's work queue and run by
 * hip_kernels/cpu/user_kernel.cpp. A module stays loaded until it is unloaded and its last queued
 * launch has run. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../../hip_kernels/cpu/user_kernel.h"
#include "core/settings.h"
#include "kinds/cpu_internal.h"

typedef struct cpu_function cpu_function;

typedef struct cpu_module {
    void *library;
    atomic_int refs;   /* the module's own, and one per queued launch */
    cpu_function *functions;
    pthread_mutex_t lock; /* functions */
} cpu_module;

struct cpu_function {
    cpu_function *next;
    cpu_module *module;
    const hkcpu_kernel_info *info;
};

static void release(cpu_module *m)
{
    if (atomic_fetch_sub(&m->refs, 1) != 1)
        return;
    dlclose(m->library);
    for (cpu_function *f = m->functions, *next; f; f = next) {
        next = f->next;
        free(f);
    }
    pthread_mutex_destroy(&m->lock);
    free(m);
}

/* ------------------------------------------------------------------ loading */

/* Is the binary a shared object for this machine (and not a GPU's code object)? */
static bool host_shared_object(const unsigned char *b, size_t size)
{
    if (size < 64 || memcmp(b, "\x7f" "ELF", 4) != 0)
        return false;
    const unsigned type = b[16] | (unsigned)b[17] << 8, machine = b[18] | (unsigned)b[19] << 8;
#if defined(__x86_64__)
    const unsigned expected = 62;
#elif defined(__aarch64__)
    const unsigned expected = 183;
#elif defined(__powerpc64__)
    const unsigned expected = 21;
#else
    const unsigned expected = machine;
#endif
    return type == 3 /* ET_DYN */ && machine == expected;
}

static bool write_all(int fd, const void *data, size_t size)
{
    const char *p = data;
    while (size > 0) {
        ssize_t n = write(fd, p, size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        p += n;
        size -= (size_t)n;
    }
    return true;
}

static atomic_ullong loads;

/* dlopen of a private copy of the bytes: an anonymous memory file, else a temporary file removed
 * once loaded (each load is its own module, with its own globals and __shared__ storage). dlopen
 * returns an object already loaded under the same path without opening the file, and the memory
 * file's path, /proc/self/fd/N, comes back with N, so each load's path is made unique: the load's
 * number is written into it as "./" (0) and ".//" (1) components, which the path resolves away. */
static void *open_copy(const void *binary, size_t size, char *why, size_t why_size)
{
    char path[4200];
    why[0] = '\0';
    const unsigned long long number = atomic_fetch_add(&loads, 1) + 1;
#if defined(MFD_CLOEXEC)
    int fd = memfd_create("hipkit-cpu-kernel", MFD_CLOEXEC);
    if (fd >= 0) {
        void *library = NULL;
        int n = snprintf(path, sizeof path, "/proc/self/fd/");
        for (int bit = 63 - __builtin_clzll(number); bit >= 0; bit--)
            n += snprintf(path + n, sizeof path - (size_t)n, "%s", (number >> bit & 1u) ? ".//" : "./");
        snprintf(path + n, sizeof path - (size_t)n, "%d", fd);
        if (write_all(fd, binary, size))
            library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (!library) {
            const char *e = dlerror();
            snprintf(why, why_size, "%s", e ? e : "dlopen failed");
        }
        close(fd);
        if (library)
            return library;
    }
#endif
    snprintf(path, sizeof path, "%s/hipkit-cpu-kernel-%ld-%llu-XXXXXX", hk__settings_temp_dir(), (long)getpid(),
             number);
    int tmp = mkstemp(path);
    if (tmp < 0) {
        snprintf(why + strlen(why), why_size - strlen(why), "%scannot make a file in %s: %s", why[0] ? "; " : "",
                 hk__settings_temp_dir(), strerror(errno));
        return NULL;
    }
    void *library = NULL;
    if (write_all(tmp, binary, size) && close(tmp) == 0) {
        library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (!library) {
            const char *e = dlerror();
            snprintf(why, why_size, "%s (if %s does not allow running code, set TMPDIR to a folder that does)",
                     e ? e : "dlopen failed", hk__settings_temp_dir());
        }
    } else {
        snprintf(why, why_size, "cannot write %.900s: %s", path, strerror(errno));
        close(tmp);
    }
    unlink(path);
    return library;
}

hk_status hk__cpu_module_load(const char *fn, const char *what, void **module, const void *binary,
                              size_t binary_size)
{
    if (!host_shared_object(binary, binary_size))
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn,
                        "%s: the program was not compiled for the CPU device (compile it with target \"host\", or "
                        "NULL while the CPU device is current)",
                        what);
    char why[1024];
    void *library = open_copy(binary, binary_size, why, sizeof why);
    if (!library)
        return hk__fail(HK_ERROR_RUNTIME, fn, "%s: %s", what, why);
    const int *abi = dlsym(library, "__hkcpu_abi_version");
    cpu_module *m = abi && *abi == HKCPU_ABI_VERSION ? calloc(1, sizeof *m) : NULL;
    if (!m) {
        dlclose(library);
        if (!abi || *abi != HKCPU_ABI_VERSION)
            return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn,
                            "%s: the shared object was not built by this hipkit for the CPU device (no or another "
                            "kernel interface)",
                            what);
        return hk__fail(HK_ERROR_OUT_OF_MEMORY, fn, "out of host memory");
    }
    m->library = library;
    atomic_init(&m->refs, 1);
    pthread_mutex_init(&m->lock, NULL);
    *module = m;
    return HK_SUCCESS;
}

hk_status hk__cpu_module_unload(const char *fn, void *module)
{
    (void)fn;
    release(module);
    return HK_SUCCESS;
}

hk_status hk__cpu_module_function(const char *fn, void *module, const char *name, void **function, void **fast)
{
    cpu_module *m = module;
    *function = NULL;
    *fast = NULL;
    char symbol[512];
    if (snprintf(symbol, sizeof symbol, "__hkcpu_kernel_%s", name) >= (int)sizeof symbol)
        return HK_SUCCESS; /* no kernel has such a name */
    const hkcpu_kernel_info *info = dlsym(m->library, symbol);
    if (!info)
        return HK_SUCCESS;
    if (info->abi_version != HKCPU_ABI_VERSION || info->param_count < 0 || info->param_count > HKCPU_MAX_PARAMS)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "kernel %s: its entry was not built by this hipkit", name);
    cpu_function *f = calloc(1, sizeof *f);
    if (!f)
        return hk__fail(HK_ERROR_OUT_OF_MEMORY, fn, "out of host memory");
    f->module = m;
    f->info = info;
    pthread_mutex_lock(&m->lock);
    f->next = m->functions;
    m->functions = f;
    pthread_mutex_unlock(&m->lock);
    *function = f;
    return HK_SUCCESS;
}

/* One core runs one block at a time: the limits are those of the device (cpu_device.c). */
hk_status hk__cpu_function_attributes(const char *fn, void *function, int *max_threads_per_block,
                                      size_t *static_shared_bytes, int *registers_per_thread)
{
    (void)fn, (void)function;
    *max_threads_per_block = 1024;
    *static_shared_bytes = 0;
    *registers_per_thread = 0;
    return HK_SUCCESS;
}

int hk__cpu_function_param_count(void *function)
{
    return ((const cpu_function *)function)->info->param_count;
}

/* Every `extern __shared__` array holds HKCPU_SHARED_BYTES, the device's limit already checked. */
hk_status hk__cpu_function_allow_shared(const char *fn, void *function, size_t bytes)
{
    (void)fn, (void)function, (void)bytes;
    return HK_SUCCESS;
}

hk_status hk__cpu_function_occupancy(const char *fn, void *function, int block_size, size_t shared_bytes, int *blocks)
{
    (void)fn, (void)function, (void)block_size, (void)shared_bytes;
    *blocks = 1;
    return HK_SUCCESS;
}

/* ---------------------------------------------------------------- launches */

/* A queued launch: the header, then each argument's bytes at 8-byte-aligned offsets. */
typedef struct launch_args {
    cpu_function *function;
    char name[128]; /* the kernel's, for the sentence (module.c's copy may go before the launch runs) */
    unsigned int grid[3], block[3];
    int count;
    uint32_t offsets[HKCPU_MAX_PARAMS];
    _Alignas(16) unsigned char bytes[];
} launch_args;

static int run_launch(void *args, char *why)
{
    launch_args *a = args;
    void *params[HKCPU_MAX_PARAMS];
    for (int i = 0; i < a->count; i++)
        params[i] = a->bytes + a->offsets[i];
    const hkc_user_launch launch = {a->function->info,
                                    {a->grid[0], a->grid[1], a->grid[2]},
                                    {a->block[0], a->block[1], a->block[2]},
                                    params, a->name};
    const int failed = hkc_user_launch_run(&launch, why, HK__CPU_WHY_MAX);
    release(a->function->module);
    return failed ? HK_ERROR_LAUNCH_FAILED : 0;
}

hk_status hk__cpu_launch_function(const char *fn, const char *name, void *function, void *fast,
                                  const unsigned int grid[3], const unsigned int block[3], size_t shared_bytes,
                                  void *stream, void **params)
{
    (void)fast, (void)shared_bytes;
    cpu_function *f = function;
    const hkcpu_kernel_info *info = f->info;
    size_t bytes = 0;
    for (int i = 0; i < info->param_count; i++)
        bytes += (info->param_sizes[i] + 7u) & ~(size_t)7u;
    const size_t size = sizeof(launch_args) + bytes;
    _Alignas(16) unsigned char small[sizeof(launch_args) + 1024];
    launch_args *a = size <= sizeof small ? (launch_args *)small : malloc(size);
    if (!a)
        return hk__fail(HK_ERROR_OUT_OF_MEMORY, fn, "out of host memory for the arguments of %s", name);
    memset(a, 0, sizeof *a);
    a->function = f;
    snprintf(a->name, sizeof a->name, "%s", name);
    a->count = info->param_count;
    for (int d = 0; d < 3; d++) {
        a->grid[d] = grid[d];
        a->block[d] = block[d];
    }
    size_t offset = 0;
    for (int i = 0; i < info->param_count; i++) {
        a->offsets[i] = (uint32_t)offset;
        memcpy(a->bytes + offset, params[i], info->param_sizes[i]);
        offset += (info->param_sizes[i] + 7u) & ~(size_t)7u;
    }
    const unsigned long long threads = (unsigned long long)grid[0] * grid[1] * grid[2] * block[0] * block[1] * block[2];
    atomic_fetch_add(&f->module->refs, 1);
    hk_status s = hk__cpu_enqueue(fn, stream, run_launch, a, size, (size_t)threads);
    if (s != HK_SUCCESS && s != HK_ERROR_LAUNCH_FAILED)
        release(f->module); /* not queued; a launch that ran here and failed released it itself */
    if (a != (launch_args *)small)
        free(a);
    return s;
}
