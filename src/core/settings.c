/* settings.c: every HIPKIT_* environment variable the library reads, and the only place that reads
 * one. The table names each with its default and meaning; each group below is read once, at its
 * first use, so a variable still takes effect when it is set before the feature is first used. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../hip_kernels/common/kernels.h"
#include "core/settings.h"

typedef enum setting {
    DEVICE,
    CPU_THREADS,
    CACHE_DIR,
    CACHE_DISABLE,
    VENDOR_BLAS,
    LAUNCH_API,
    STAGING_THREADS,
    STAGING_CHUNK_MB,
    SCAN_VARIANT,
    LOOKBACK_NS,
    REDUCE_COLUMN_BX,
    REDUCE_COLUMN_WAVES,
    SORT_HIST,
    SORT_MIN_BLOCKS,
} setting;

/* The README's list of settings is this table. */
static const struct {
    const char *name;
    const char *default_value;
    const char *meaning;
    bool benchmark_only;
} table[] = {
    [DEVICE] = {"HIPKIT_DEVICE", "the first GPU, else the CPU device",
                "each thread's first device: cpu, gpu (the first GPU, which must exist) or an ordinal", false},
    [CPU_THREADS] = {"HIPKIT_CPU_THREADS", "the online cores",
                     "threads the CPU device spreads one op over (1..1024)", false},
    [CACHE_DIR] = {"HIPKIT_CACHE_DIR", "$XDG_CACHE_HOME/hipkit, else $HOME/.cache/hipkit",
                   "the folder of the on-disk cache of run-time-compiled kernels", false},
    [CACHE_DISABLE] = {"HIPKIT_CACHE_DISABLE", "unset", "any value but 0 (or empty) turns the on-disk cache off",
                       false},
    [VENDOR_BLAS] = {"HIPKIT_VENDOR_BLAS", "on",
                     "0, off or OFF: hk_matmul never loads cuBLAS / rocBLAS (HK_MATMUL_AUTO uses the own kernel)",
                     false},
    [LAUNCH_API] = {"HIPKIT_LAUNCH_API", "the driver's cuLaunchKernel (NVIDIA)",
                    "runtime: launch through the CUDA runtime instead (NVIDIA; AMD has one path)", false},
    [STAGING_THREADS] = {"HIPKIT_STAGING_THREADS", "all cores but two, at most 14",
                         "host threads that copy beside the caller in a staged pageable copy (0..64)", false},
    [STAGING_CHUNK_MB] = {"HIPKIT_STAGING_CHUNK_MB", "16", "size of each pinned staging buffer in MiB (1..256)", false},
    [SCAN_VARIANT] = {"HIPKIT_SCAN_VARIANT", "capped for 4-byte accumulators, else uncapped",
                      "capped or uncapped: the register budget of the scan's look-back kernel", true},
    [LOOKBACK_NS] = {"HIPKIT_LOOKBACK_NS", "700,1100 for large scans, none for small ones and sorts",
                     "poll[,first]: look-back pauses in ns between polls and before the first (each < 65536)", true},
    [REDUCE_COLUMN_BX] = {"HIPKIT_REDUCE_COLUMN_BX", "32",
                          "block threads across columns of the column reduction (a power of two, 1..256)", true},
    [REDUCE_COLUMN_WAVES] = {"HIPKIT_REDUCE_COLUMN_WAVES", "1",
                             "resident blocks' worth of splits the column reduction aims for, in waves (1..16)", true},
    [SORT_HIST] = {"HIPKIT_SORT_HIST", "direct (one shared atomic per digit)",
                   "runs: the radix histogram counts runs of one digit once", true},
    [SORT_MIN_BLOCKS] = {"HIPKIT_SORT_MIN_BLOCKS", "4 (the radix pass of 4-byte keys without indices)",
                         "0: that pass uncapped; 5: capped for 5 blocks per multiprocessor", true},
};

static const char *text_of(setting s)
{
    return getenv(table[s].name);
}

/* A whole number within [lo, hi] (the whole text), or `fallback`. */
static long whole_number(setting s, long lo, long hi, long fallback)
{
    const char *text = text_of(s);
    if (!text || !*text)
        return fallback;
    char *end = NULL;
    long v = strtol(text, &end, 10);
    return *end == '\0' && v >= lo && v <= hi ? v : fallback;
}

/* ------------------------------------------------------------------ devices */

static pthread_once_t device_once = PTHREAD_ONCE_INIT;
static char device_text[64];
static bool device_given;

static void read_device(void)
{
    const char *text = text_of(DEVICE);
    device_given = text && *text;
    if (device_given)
        snprintf(device_text, sizeof device_text, "%s", text);
}

const char *hk__settings_device(void)
{
    pthread_once(&device_once, read_device);
    return device_given ? device_text : NULL;
}

static pthread_once_t cpu_threads_once = PTHREAD_ONCE_INIT;
static int cpu_threads;

static void read_cpu_threads(void)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    cpu_threads = (int)whole_number(CPU_THREADS, 1, 1024, cores > 0 ? cores : 1);
}

int hk__settings_cpu_threads(void)
{
    pthread_once(&cpu_threads_once, read_cpu_threads);
    return cpu_threads;
}

/* ---------------------------------------------------------------- the cache */

static pthread_once_t cache_once = PTHREAD_ONCE_INIT;
static char cache_dir[4096]; /* "" when there is none */

static void read_cache(void)
{
    const char *off = text_of(CACHE_DISABLE);
    if (off && *off && strcmp(off, "0") != 0)
        return;
    const char *dir = text_of(CACHE_DIR), *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if (dir && *dir)
        snprintf(cache_dir, sizeof cache_dir, "%s", dir);
    else if (xdg && *xdg)
        snprintf(cache_dir, sizeof cache_dir, "%s/hipkit", xdg);
    else if (home && *home)
        snprintf(cache_dir, sizeof cache_dir, "%s/.cache/hipkit", home);
}

const char *hk__settings_cache_dir(void)
{
    pthread_once(&cache_once, read_cache);
    return cache_dir[0] ? cache_dir : NULL;
}

/* ---------------------------------------------------- the CPU device's compiler */

static pthread_once_t host_compiler_once = PTHREAD_ONCE_INIT;
static char host_compiler[1024], search_path[8192], temp_dir[4096];
static bool host_compiler_given, search_path_given;

static void read_host_compiler(void)
{
    const char *cxx = getenv("CXX"), *path = getenv("PATH"), *tmp = getenv("TMPDIR");
    host_compiler_given = cxx && *cxx;
    if (host_compiler_given)
        snprintf(host_compiler, sizeof host_compiler, "%s", cxx);
    search_path_given = path != NULL;
    if (search_path_given)
        snprintf(search_path, sizeof search_path, "%s", path);
    snprintf(temp_dir, sizeof temp_dir, "%s", tmp && *tmp ? tmp : "/tmp");
}

const char *hk__settings_host_compiler(void)
{
    pthread_once(&host_compiler_once, read_host_compiler);
    return host_compiler_given ? host_compiler : NULL;
}

const char *hk__settings_path(void)
{
    pthread_once(&host_compiler_once, read_host_compiler);
    return search_path_given ? search_path : NULL;
}

const char *hk__settings_temp_dir(void)
{
    pthread_once(&host_compiler_once, read_host_compiler);
    return temp_dir;
}

/* ------------------------------------------------------- vendor BLAS, launches */

static pthread_once_t vendor_blas_once = PTHREAD_ONCE_INIT;
static const char *vendor_blas_off;

static void read_vendor_blas(void)
{
    static const char *const offs[] = {"0", "off", "OFF"};
    const char *text = text_of(VENDOR_BLAS);
    for (size_t i = 0; text && i < sizeof offs / sizeof offs[0]; i++)
        if (strcmp(text, offs[i]) == 0)
            vendor_blas_off = offs[i];
}

const char *hk__settings_vendor_blas_off(void)
{
    pthread_once(&vendor_blas_once, read_vendor_blas);
    return vendor_blas_off;
}

static pthread_once_t launch_api_once = PTHREAD_ONCE_INIT;
static bool launch_api_runtime;

static void read_launch_api(void)
{
    const char *text = text_of(LAUNCH_API);
    launch_api_runtime = text && strcmp(text, "runtime") == 0;
}

bool hk__settings_launch_api_runtime(void)
{
    pthread_once(&launch_api_once, read_launch_api);
    return launch_api_runtime;
}

/* ------------------------------------------------------------------- staging */

#define DEFAULT_STAGING_THREADS_MAX 14
#define DEFAULT_STAGING_CHUNK_MB 16

static pthread_once_t staging_once = PTHREAD_ONCE_INIT;
static int staging_threads;
static size_t staging_chunk_bytes;

static void read_staging(void)
{
    /* Two cores stay free for the caller and the driver's own threads. */
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int wanted =
        cores > 2 ? (int)(cores - 2 < DEFAULT_STAGING_THREADS_MAX ? cores - 2 : DEFAULT_STAGING_THREADS_MAX) : 0;
    staging_threads = (int)whole_number(STAGING_THREADS, 0, 64, wanted);
    staging_chunk_bytes = (size_t)whole_number(STAGING_CHUNK_MB, 1, 256, DEFAULT_STAGING_CHUNK_MB) << 20;
}

int hk__settings_staging_threads(void)
{
    pthread_once(&staging_once, read_staging);
    return staging_threads;
}

size_t hk__settings_staging_chunk_bytes(void)
{
    pthread_once(&staging_once, read_staging);
    return staging_chunk_bytes;
}

/* ------------------------------------------------------------- kernel knobs */

static pthread_once_t tuning_once = PTHREAD_ONCE_INIT;
static hkk_tuning tuning;

/* "poll[,first]" packed as poll | first << 16; 0 when either is outside 0..65535. */
static unsigned lookback_pauses(const char *text)
{
    char *end = NULL;
    const long poll = strtol(text, &end, 10);
    const long first = end && *end == ',' ? strtol(end + 1, NULL, 10) : 0;
    if (poll < 0 || poll > 0xffff || first < 0 || first > 0xffff)
        return 0u;
    return (unsigned)poll | (unsigned)first << 16;
}

static void read_tuning(void)
{
    const char *variant = text_of(SCAN_VARIANT);
    tuning.scan_variant = variant && strcmp(variant, "capped") == 0     ? 0
                          : variant && strcmp(variant, "uncapped") == 0 ? 1
                                                                        : -1;
    const char *pauses = text_of(LOOKBACK_NS);
    tuning.lookback_ns_given = pauses != NULL;
    tuning.lookback_ns = pauses ? lookback_pauses(pauses) : 0u;
    const char *bx = text_of(REDUCE_COLUMN_BX), *waves = text_of(REDUCE_COLUMN_WAVES);
    tuning.reduce_column_bx = bx ? strtol(bx, NULL, 10) : 0;
    tuning.reduce_column_waves = waves ? strtol(waves, NULL, 10) : 0;
    const char *hist = text_of(SORT_HIST);
    tuning.sort_hist_runs = hist && strcmp(hist, "runs") == 0;
    const char *blocks = text_of(SORT_MIN_BLOCKS);
    tuning.sort_min_blocks = blocks ? atoi(blocks) : -1;
}

const hkk_tuning *hk__settings_kernel_tuning(void)
{
    pthread_once(&tuning_once, read_tuning);
    return &tuning;
}
