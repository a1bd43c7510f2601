/* cpu_rtc.c: the CPU device's run-time compiler: the system's C++ compiler, found at run time (CXX,
 * else c++, g++ or clang++ on PATH), builds the user's source (cpu_rtc_source.c readies it) over the
 * host prelude (hip_kernels/cpu/user_prelude.h) into a shared object, whose bytes are the program's
 * binary: the disk cache keeps them like PTX or a code object, and cpu_module.c loads them. */
#define _GNU_SOURCE
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/settings.h"
#include "kinds/cpu_internal.h"

extern char **environ;

/* The host prelude and the ABI it shares with the library (embedded by CMake). */
extern const char hk__cpu_user_prelude_source[];
extern const char hk__cpu_user_abi_source[];

#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 29))
#define HAVE_SPAWN_CHDIR 1
#endif

/* ---------------------------------------------------------- the compiler */

#define MAX_WORDS 32

static pthread_once_t compiler_once = PTHREAD_ONCE_INIT;
static struct {
    char text[1024];        /* CXX, or the name found on PATH */
    char *words[MAX_WORDS]; /* the program, then the options CXX gives it */
    int word_count;
    char program[PATH_MAX]; /* words[0] found */
    char why[2048];         /* "" when found; else why there is none */
    char *identity;         /* for the cache key */
} compiler;

/* Is `path` an executable file? Writes why not. */
static bool executable(const char *path, char *why, size_t why_size)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        snprintf(why, why_size, "%s does not exist", path);
        return false;
    }
    if (!S_ISREG(st.st_mode) || access(path, X_OK) != 0) {
        snprintf(why, why_size, "%s is not an executable file", path);
        return false;
    }
    return true;
}

/* Finds `name` (a path, or a program looked up on PATH) into compiler.program. */
static bool find_program(const char *name, char *why, size_t why_size)
{
    if (strchr(name, '/')) {
        if (!executable(name, why, why_size))
            return false;
        snprintf(compiler.program, sizeof compiler.program, "%s", name);
        return true;
    }
    const char *path = hk__settings_path();
    if (!path)
        path = "/usr/local/bin:/usr/bin:/bin";
    for (const char *dir = path; *dir;) {
        const char *colon = strchr(dir, ':');
        const size_t len = colon ? (size_t)(colon - dir) : strlen(dir);
        char candidate[PATH_MAX], ignored[PATH_MAX + 64];
        if (snprintf(candidate, sizeof candidate, "%.*s/%s", (int)(len ? len : 1), len ? dir : ".", name) <
                (int)sizeof candidate &&
            executable(candidate, ignored, sizeof ignored)) {
            snprintf(compiler.program, sizeof compiler.program, "%s", candidate);
            return true;
        }
        dir += len + (colon ? 1 : 0);
    }
    snprintf(why, why_size, "%s is not on PATH (%s)", name, path);
    return false;
}

/* The key's part for the compiler: the file it is (resolved, with its size and time, which change
 * when it is upgraded), what CXX gives it, the machine, and the prelude the code is built over. */
static void make_identity(void)
{
    char real[PATH_MAX] = "";
    struct stat st = {0};
    if (!realpath(compiler.program, real))
        snprintf(real, sizeof real, "%s", compiler.program);
    (void)stat(real, &st);
    struct utsname machine;
    if (uname(&machine) != 0)
        snprintf(machine.machine, sizeof machine.machine, "?");
    const size_t size = strlen(hk__cpu_user_prelude_source) + strlen(hk__cpu_user_abi_source) + 2 * PATH_MAX + 1024;
    if (!(compiler.identity = malloc(size)))
        return;
    int n = snprintf(compiler.identity, size, "compiler %s = %s (%lld bytes, modified %lld) on %s|", compiler.text, real,
                     (long long)st.st_size, (long long)st.st_mtime, machine.machine);
    snprintf(compiler.identity + n, size - (size_t)n, "%s|%s", hk__cpu_user_abi_source, hk__cpu_user_prelude_source);
}

static void find_compiler(void)
{
    const char *cxx = hk__settings_host_compiler();
    char why[PATH_MAX + 512] = "";
    if (cxx) {
        snprintf(compiler.text, sizeof compiler.text, "%s", cxx);
        for (char *word = strtok(compiler.text, " \t"); word && compiler.word_count < MAX_WORDS;
             word = strtok(NULL, " \t"))
            compiler.words[compiler.word_count++] = word;
    }
    if (compiler.word_count > 0) {
        if (!find_program(compiler.words[0], why, sizeof why)) {
            snprintf(compiler.why, sizeof compiler.why,
                     "the CPU device has no C++ compiler to build kernels with: CXX is \"%.900s\", and %.900s; set CXX to a "
                     "C++ compiler (g++ or clang++), or unset it to use c++, g++ or clang++ from PATH",
                     cxx, why);
            return;
        }
    } else {
        static const char *const names[] = {"c++", "g++", "clang++"};
        for (size_t i = 0; i < sizeof names / sizeof names[0] && !compiler.word_count; i++)
            if (find_program(names[i], why, sizeof why)) {
                snprintf(compiler.text, sizeof compiler.text, "%s", names[i]);
                compiler.words[compiler.word_count++] = compiler.text;
            }
        if (!compiler.word_count) {
            const char *path = hk__settings_path();
            snprintf(compiler.why, sizeof compiler.why,
                     "the CPU device has no C++ compiler to build kernels with: CXX is not set, and none of c++, g++, "
                     "clang++ is on PATH (%s); install g++ or clang++, or set CXX to one",
                     path ? path : "unset");
            return;
        }
    }
    make_identity();
}

static void find_compiler_once(void)
{
    pthread_once(&compiler_once, find_compiler);
}

const char *hk__cpu_rtc_unavailable(void)
{
    find_compiler_once();
    return compiler.why[0] ? compiler.why : NULL;
}

const char *hk__cpu_rtc_cache_identity(void)
{
    find_compiler_once();
    return compiler.identity ? compiler.identity : "no host compiler";
}

hk_status hk__cpu_rtc_check_target(const char *fn, const char *target)
{
    if (strcmp(target, "host") == 0)
        return HK_SUCCESS;
    return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "target \"%s\" is not the CPU device's (\"host\")", target);
}

/* ---------------------------------------------------------------- running */

/* Runs the compiler with `args` after CXX's words, in folder `dir`, its output into `log_path`.
 * Returns its exit status (128 + n: killed by signal n), or -1 with errno when it could not run. */
static int run_compiler(const char *const *args, int arg_count, const char *dir, const char *log_path)
{
    char *argv[MAX_WORDS + 64];
    int n = 0;
    for (int i = 0; i < compiler.word_count; i++)
        argv[n++] = compiler.words[i];
    for (int i = 0; i < arg_count && n < (int)(sizeof argv / sizeof argv[0]) - 1; i++)
        argv[n++] = (char *)args[i];
    argv[n] = NULL;
    pid_t pid;
#if defined(HAVE_SPAWN_CHDIR)
    posix_spawn_file_actions_t actions;
    if ((errno = posix_spawn_file_actions_init(&actions)) != 0)
        return -1;
    int e = posix_spawn_file_actions_addchdir_np(&actions, dir);
    if (!e)
        e = posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    if (!e)
        e = posix_spawn_file_actions_addopen(&actions, 1, log_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (!e)
        e = posix_spawn_file_actions_adddup2(&actions, 1, 2);
    if (!e)
        e = posix_spawn(&pid, compiler.program, &actions, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    if (e) {
        errno = e;
        return -1;
    }
#else
    pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) { /* only async-signal-safe calls until exec */
        int in = open("/dev/null", O_RDONLY), out = open(log_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (in < 0 || out < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(out, 2) < 0 || chdir(dir) != 0)
            _exit(127);
        execve(compiler.program, argv, environ);
        _exit(127);
    }
#endif
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno == EINTR)
            continue;
        if (errno == ECHILD) /* SIGCHLD ignored: the child was reaped for us; its output tells */
            return 0;
        return -1;
    }
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

/* The whole of a file (at most `limit` bytes, NUL-terminated), or NULL. */
static char *read_file(const char *path, size_t limit, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *data = NULL;
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && (data = malloc((size_t)st.st_size < limit ? (size_t)st.st_size + 1 : limit + 1))) {
        size_t n = fread(data, 1, (size_t)st.st_size < limit ? (size_t)st.st_size : limit, f);
        data[n] = '\0';
        if (size)
            *size = n;
    }
    fclose(f);
    return data;
}

static bool write_file(const char *dir, const char *name, const char *text)
{
    char path[PATH_MAX + 64];
    if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path)
        return false;
    FILE *f = fopen(path, "wb");
    if (!f)
        return false;
    const size_t len = strlen(text);
    bool ok = fwrite(text, 1, len, f) == len;
    return (fclose(f) == 0) && ok;
}

/* ---------------------------------------------------------------- options */

static bool starts(const char *text, const char *prefix)
{
    return strncmp(text, prefix, strlen(prefix)) == 0;
}

/* The host compiler's form of one user option into out: true with out[0] = '\0' when it is a GPU-only
 * option with no meaning here; false (sentence recorded) when it is refused. */
static bool host_option(const char *fn, const char *option, char *out, size_t out_size)
{
    static const char *const gpu_only[] = {
        "--gpu-architecture", "-arch", "--offload-arch", "--relocatable-device-code", "-rdc", "-fgpu-rdc",
        "-fno-gpu-rdc", "-lineinfo", "--generate-line-info", "--device-debug", "-fmad", "--fmad", "-ftz", "--ftz",
        "-prec-div", "--prec-div", "-prec-sqrt", "--prec-sqrt", "-maxrregcount", "--maxrregcount", "-default-device",
        "--device-as-default-execution-space", "-ewp", "--extensible-whole-program", "-dlto", "--dlink-time-opt",
        "-dopt", "--dopt", "-extra-device-vectorization", "--extra-device-vectorization", "-restrict", "--restrict",
        "-mcumode", "-mno-cumode", "-mwavefrontsize64", "-mno-wavefrontsize64", "-split-compile", "--split-compile",
        "-minimal", "--minimal"};
    out[0] = '\0';
    if (strcmp(option, "-G") == 0)
        return true;
    for (size_t i = 0; i < sizeof gpu_only / sizeof gpu_only[0]; i++)
        if (starts(option, gpu_only[i]))
            return true;
    if (strcmp(option, "--use_fast_math") == 0 || strcmp(option, "-use_fast_math") == 0) {
        snprintf(out, out_size, "-ffast-math");
        return true;
    }
    if (strcmp(option, "--disable-warnings") == 0 || strcmp(option, "-w") == 0) {
        snprintf(out, out_size, "-w");
        return true;
    }
    const char *std = starts(option, "--std=") ? option + 6 : starts(option, "-std=") ? option + 5 : NULL;
    if (std) {
        if (!strcmp(std, "c++98") || !strcmp(std, "c++03") || !strcmp(std, "c++0x") || !strcmp(std, "c++11")) {
            hk__fail(HK_ERROR_INVALID_ARGUMENT, fn,
                     "option \"%s\": kernels on the CPU device need C++14 or later (the default is -std=c++17)",
                     option);
            return false;
        }
        snprintf(out, out_size, "-std=%s", std);
        return true;
    }
    if (starts(option, "-I") && option[2] && option[2] != '/') { /* the compiler runs in its own folder */
        char cwd[PATH_MAX];
        if (getcwd(cwd, sizeof cwd) && snprintf(out, out_size, "-I%s/%s", cwd, option + 2) < (int)out_size)
            return true;
    }
    static const char *const passed[] = {"-D", "-U", "-I", "-O", "-f", "-m", "-W", "-g"};
    for (size_t i = 0; i < sizeof passed / sizeof passed[0]; i++)
        if (starts(option, passed[i]) && snprintf(out, out_size, "%s", option) < (int)out_size)
            return true;
    hk__fail(HK_ERROR_INVALID_ARGUMENT, fn,
             "option \"%s\" has no meaning for the CPU device's C++ compiler; it takes -D, -U, -I, -std=, -O, -f, -m, "
             "-W, -w and -g options (GPU-only ones such as --gpu-architecture, -lineinfo or --fmad are ignored)",
             option);
    return false;
}

/* ---------------------------------------------------------------- compiling */

static const char assert_header[] = "/* hipkit: a failed assert stops the kernel with a sentence (user_prelude.h) */\n";
static const char empty_header[] = "/* hipkit: the CPU device's prelude already gives what this header would */\n";

/* Removes the compiler's folder and what is in it (the files written here, and any the compiler
 * left, as options such as -save-temps make it), one level of folders deep (hip/). */
static void remove_folder(const char *dir, int depth)
{
    DIR *d = opendir(dir);
    if (d) {
        for (struct dirent *e; (e = readdir(d));) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                continue;
            char path[PATH_MAX];
            if (snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= (int)sizeof path)
                continue;
            struct stat st;
            if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
                if (depth > 0)
                    remove_folder(path, depth - 1);
            } else {
                unlink(path);
            }
        }
        closedir(d);
    }
    rmdir(dir);
}

/* The part of a failed compile's sentence that names what the CPU device does not have. */
static void hints(const hk__cpu_source *s, char *out, size_t size)
{
    out[0] = '\0';
    size_t n = 0;
#define HINT(flag, text)                                                                                               \
    if (s->flag && n < size)                                                                                           \
    n += (size_t)snprintf(out + n, size - n, "\n%s", text)
    HINT(uses_asm, "The source has inline assembly (asm): GPU instructions, which the CPU device cannot run; give the "
                   "CPU device C++ under #ifdef __HIPKIT_CPU__.");
    HINT(uses_nested_launch, "The source launches a kernel from a kernel (<<<...>>>, dynamic parallelism), which the "
                             "CPU device does not have.");
    HINT(uses_half, "Half-precision types (__half, bfloat16 and their headers) are not available in kernels on the "
                    "CPU device.");
    HINT(uses_textures, "Textures and surfaces (tex1Dfetch, tex2D, surf2Dwrite, texture objects) are not available on "
                        "the CPU device; read the arrays directly.");
    HINT(uses_cooperative_groups, "Cooperative groups are not available on the CPU device; use __syncthreads and the "
                                  "warp intrinsics (__shfl_sync, __ballot_sync, ...).");
#undef HINT
}

hk_status hk__cpu_rtc_compile(const char *fn, const char *source, const char *name, const char *target,
                              const char *prelude, const char *const *options, int num_options, void **binary,
                              size_t *binary_size, char **log_out)
{
    (void)target;
    *binary = NULL;
    *log_out = NULL;
    find_compiler_once();
    if (compiler.why[0])
        return hk__fail(HK_ERROR_NOT_SUPPORTED, fn, "%s", compiler.why);

    /* The options first: a refused one costs no compile. */
    enum { OPTION_MAX = 4096 };
    char(*host)[OPTION_MAX] = num_options > 0 ? calloc((size_t)num_options, OPTION_MAX) : NULL;
    if (num_options > 0 && !host)
        return hk__fail(HK_ERROR_OUT_OF_MEMORY, fn, "out of host memory");
    bool has_std = false;
    for (int i = 0; i < num_options; i++) {
        if (!host_option(fn, options[i], host[i], OPTION_MAX)) {
            free(host);
            return HK_ERROR_INVALID_ARGUMENT;
        }
        has_std |= starts(host[i], "-std=");
    }

    hk__cpu_source prepared;
    if (!hk__cpu_prepare_source(source, name, &prepared)) {
        free(host);
        return hk__fail(HK_ERROR_OUT_OF_MEMORY, fn, "out of host memory");
    }
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s/hipkit-cpu-XXXXXX", hk__settings_temp_dir());
    if (!mkdtemp(dir)) {
        const int e = errno;
        hk__cpu_source_free(&prepared);
        free(host);
        return hk__fail(HK_ERROR_RUNTIME, fn,
                        "compiling %s for the CPU device: cannot make a folder for the compiler in %s: %s (set TMPDIR "
                        "to a writable folder)",
                        name, hk__settings_temp_dir(), strerror(e));
    }
    char hip_dir[PATH_MAX + 8];
    snprintf(hip_dir, sizeof hip_dir, "%s/hip", dir);
    bool written = write_file(dir, "user_abi.h", hk__cpu_user_abi_source) &&
                   write_file(dir, "user_prelude.h", hk__cpu_user_prelude_source) &&
                   write_file(dir, "hipkit_device.h", prelude) && write_file(dir, "assert.h", assert_header) &&
                   write_file(dir, "cassert", assert_header) && mkdir(hip_dir, 0700) == 0 &&
                   write_file(dir, "hip/hip_runtime.h", empty_header) && write_file(dir, "kernel.cpp", prepared.text);
    if (!written) {
        const int e = errno;
        remove_folder(dir, 1);
        hk__cpu_source_free(&prepared);
        free(host);
        return hk__fail(HK_ERROR_RUNTIME, fn, "compiling %s for the CPU device: cannot write the compiler's files in %s: %s",
                        name, dir, strerror(e));
    }

    const char *args[64 + 1024];
    int n = 0;
    if (!has_std)
        args[n++] = "-std=c++17";
    static const char *const fixed[] = {"-O2", "-fPIC", "-shared", "-fvisibility=hidden", "-fno-strict-aliasing",
                                        "-fno-math-errno", "-Wl,-z,defs", "-DHIPKIT_RTC=1", "-I.", "-include",
                                        "user_prelude.h"};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        args[n++] = fixed[i];
    for (int i = 0; i < num_options && n < 1000; i++)
        if (host[i][0])
            args[n++] = host[i];
    args[n++] = "-o";
    args[n++] = "kernel.so";
    args[n++] = "kernel.cpp";
    char log_path[PATH_MAX + 16];
    snprintf(log_path, sizeof log_path, "%s/log.txt", dir);
    const int status = run_compiler(args, n, dir, log_path);
    const int run_errno = errno;
    free(host);

    size_t log_size = 0, code_size = 0;
    char *log = read_file(log_path, 20000, &log_size);
    char so_path[PATH_MAX + 16];
    snprintf(so_path, sizeof so_path, "%s/kernel.so", dir);
    void *code = status == 0 ? read_file(so_path, (size_t)1 << 30, &code_size) : NULL;
    hk_status s = HK_SUCCESS;
    if (status < 0) {
        s = hk__fail(HK_ERROR_RUNTIME, fn, "compiling %s for the CPU device: could not run %s (%s): %s", name,
                     compiler.program, compiler.text, strerror(run_errno));
    } else if (status != 0 || !code || code_size == 0) {
        char hint[1024];
        hints(&prepared, hint, sizeof hint);
        char how[64];
        if (status > 128)
            snprintf(how, sizeof how, "killed by signal %d", status - 128);
        else
            snprintf(how, sizeof how, "exit status %d", status);
        s = hk__fail(status == 0 ? HK_ERROR_RUNTIME : HK_ERROR_COMPILE, fn,
                     "compiling %s for the CPU device with %s (%s) failed (%s):\n%s%s%s", name, compiler.text,
                     compiler.program, status == 0 ? "no shared object was written" : how,
                     log && *log ? log : "(the compiler gave no log)", log_size >= 20000 ? "\n[log cut]" : "", hint);
    }
    remove_folder(dir, 1);
    hk__cpu_source_free(&prepared);
    if (s != HK_SUCCESS) {
        free(code);
        free(log);
        return s;
    }
    *binary = code;
    *binary_size = code_size;
    *log_out = log ? log : strdup("");
    return HK_SUCCESS;
}

/* ---------------------------------------------------------------- version */

static pthread_once_t version_once = PTHREAD_ONCE_INIT;
static int version_major = -1, version_minor = -1;

static void read_version(void)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s/hipkit-cpu-XXXXXX", hk__settings_temp_dir());
    if (!mkdtemp(dir))
        return;
    char log_path[PATH_MAX + 16];
    snprintf(log_path, sizeof log_path, "%s/log.txt", dir);
    const char *args[] = {"-dumpversion"};
    if (run_compiler(args, 1, dir, log_path) == 0) {
        char *text = read_file(log_path, 256, NULL);
        if (text && sscanf(text, "%d.%d", &version_major, &version_minor) < 2)
            version_minor = 0;
        free(text);
    }
    remove_folder(dir, 1);
}

hk_status hk__cpu_rtc_version(const char *fn, int *major, int *minor)
{
    const char *why = hk__cpu_rtc_unavailable();
    if (why)
        return hk__fail(HK_ERROR_NOT_SUPPORTED, fn, "%s", why);
    pthread_once(&version_once, read_version);
    if (version_major < 0)
        return hk__fail(HK_ERROR_RUNTIME, fn, "%s (%s) -dumpversion gave no version", compiler.text, compiler.program);
    *major = version_major;
    *minor = version_minor;
    return HK_SUCCESS;
}
