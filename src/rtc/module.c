/* module.c: loading run-time-compiled programs on a device, finding kernels,
 * checking and packing their arguments, and launching them. Launch mistakes
 * are refused here with a sentence, before the vendor sees them. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/device.h"
#include "core/handles.h"
#include "kinds/kind.h"
#include "rtc/rtc_internal.h"

typedef struct module {
    void *vendor; /* the kind's module */
    int device;
    char *source; /* for reading kernel signatures */
    uintptr_t *kernels;
    size_t kernel_count, kernel_capacity;
} module;

typedef struct kernel {
    void *function; /* the kind's function */
    int device;
    char *name;
    int param_count; /* -1: unknown */
    hk_arg_type params[HK_KERNEL_MAX_PARAMS];
    size_t offsets[HK_KERNEL_MAX_PARAMS];
    size_t packed_size;
    size_t struct_size; /* packed_size with a C struct's tail padding */
    hk_kernel_attributes attributes;
    size_t shared_opted_in; /* dynamic shared memory the vendor has been told to allow */
    int suggested_block;    /* occupancy choice for launches without dynamic shared memory */
    void *fast_function;    /* the kind's handle for a quicker launch, or NULL */
} kernel;

static pthread_mutex_t module_lock = PTHREAD_MUTEX_INITIALIZER;

static size_t arg_size(hk_arg_type t)
{
    switch (t) {
    case HK_ARG_INT8:
    case HK_ARG_UINT8:
    case HK_ARG_BOOL: return 1;
    case HK_ARG_INT16:
    case HK_ARG_UINT16: return 2;
    case HK_ARG_INT32:
    case HK_ARG_UINT32:
    case HK_ARG_FLOAT32: return 4;
    default: return 8;
    }
}

static const char *arg_name(hk_arg_type t)
{
    static const char *const names[] = {"pointer", "int8",  "uint8",  "int16",   "uint16",  "int32",
                                        "uint32",  "int64", "uint64", "float32", "float64", "bool"};
    return (unsigned)t <= HK_ARG_BOOL ? names[t] : "invalid";
}

/* Natural-alignment layout of the parameters, as in a C struct of them. */
static void lay_out(kernel *k)
{
    size_t offset = 0;
    for (int i = 0; i < k->param_count; i++) {
        size_t size = arg_size(k->params[i]);
        offset = (offset + size - 1) / size * size;
        k->offsets[i] = offset;
        offset += size;
    }
    /* A binding's packed buffer ends right after the last parameter; a C
     * struct of the parameters may also carry tail padding. */
    k->packed_size = offset;
    size_t align = 1;
    for (int i = 0; i < k->param_count; i++)
        if (arg_size(k->params[i]) > align)
            align = arg_size(k->params[i]);
    k->struct_size = (offset + align - 1) / align * align;
}

static kernel *kernel_lookup(const char *fn, hk_kernel handle)
{
    void *object = NULL;
    int device;
    if (!handle || !hk__handle_lookup(HK__HANDLE_KERNEL, (uintptr_t)handle, &object, &device)) {
        hk__fail(HK_ERROR_INVALID_HANDLE, fn, "kernel %p is not live (its module was unloaded, or it never existed)",
                 (void *)handle);
        return NULL;
    }
    return object;
}

static hk_status on_current_device(const char *fn, const char *what, int device)
{
    if (device == hk__current_device())
        return HK_SUCCESS;
    return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn,
                    "the %s was loaded on device %d but this thread's current device is %d; call hk_device_set(%d) "
                    "first",
                    what, device, hk__current_device(), device);
}

/* ------------------------------------------------------------- modules */

hk_status hk_module_load(hk_module *out, hk_program program)
{
    static const char fn[] = "hk_module_load";
    if (!out)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "module must not be NULL");
    *out = NULL;
    hk__program *p = hk__program_lookup(fn, program);
    if (!p)
        return HK_ERROR_INVALID_HANDLE;
    hk_status s = hk__require_device(fn);
    if (s != HK_SUCCESS)
        return s;
    int device = hk__current_device();
    if (hk__kind_for_target(p->target) != hk__kind_current())
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn,
                        "%s was compiled for %s, a %s device's code, but the current device %d (%s) is a %s device: "
                        "compile it again for this device (target NULL) or switch devices first",
                        p->name, p->target, hk_device_kind_name(hk__kind_for_target(p->target)->device_kind), device,
                        hk__device_name(device), hk_device_kind_name(hk__kind_current()->device_kind));
    module *m = calloc(1, sizeof *m);
    if (!m || !(m->source = strdup(p->source))) {
        free(m);
        return hk__fail(HK_ERROR_OUT_OF_MEMORY, fn, "out of host memory");
    }
    m->device = device;
    const hk__kind *kind = hk__kind_current();
    char what[256];
    snprintf(what, sizeof what, "loading %s (compiled for %s; the device is %s)", p->name, p->target,
             hk__device_properties(device)->arch);
    if ((s = kind->module_load(fn, what, &m->vendor, p->binary, p->binary_size)) != HK_SUCCESS) {
        free(m->source);
        free(m);
        return s;
    }
    uintptr_t handle = hk__handle_insert(HK__HANDLE_MODULE, m, device);
    if (!handle) {
        (void)kind->module_unload(fn, m->vendor);
        free(m->source);
        free(m);
        return hk__fail(HK_ERROR_OUT_OF_MEMORY, fn, "no room for another module handle (host memory)");
    }
    *out = (hk_module)handle;
    return hk__ok();
}

hk_status hk_module_unload(hk_module handle)
{
    static const char fn[] = "hk_module_unload";
    void *object = NULL;
    int device;
    if (!handle || !hk__handle_remove(HK__HANDLE_MODULE, (uintptr_t)handle, &object, &device))
        return hk__fail(HK_ERROR_INVALID_HANDLE, fn, "module %p is not live (already unloaded, or never loaded)",
                        (void *)handle);
    module *m = object;
    pthread_mutex_lock(&module_lock);
    for (size_t i = 0; i < m->kernel_count; i++) {
        void *k = NULL;
        int d;
        if (hk__handle_remove(HK__HANDLE_KERNEL, m->kernels[i], &k, &d)) {
            free(((kernel *)k)->name);
            free(k);
        }
    }
    pthread_mutex_unlock(&module_lock);
    int previous = hk__current_device();
    hk_status s = HK_SUCCESS;
    if (m->device != previous && (s = hk__activate_device(fn, m->device)) != HK_SUCCESS)
        return s;
    hk__first_failure_begin();
    hk_status unloaded = hk__kind_of(m->device)->module_unload(fn, m->vendor);
    if (m->device != previous)
        s = hk__activate_device(fn, previous);
    hk__first_failure_end();
    free(m->kernels);
    free(m->source);
    free(m);
    if (unloaded != HK_SUCCESS)
        return unloaded;
    return s == HK_SUCCESS ? hk__ok() : s;
}

static hk_status read_attributes(const char *fn, kernel *k)
{
    int max_threads = 0, registers = 0;
    size_t static_shared = 0;
    HK_TRY(hk__kind_current()->function_attributes(fn, k->function, &max_threads, &static_shared, &registers));
    const hk__device_props *props = hk__device_properties(k->device);
    k->attributes.max_threads_per_block = max_threads > 0 ? max_threads : props->max_threads_per_block;
    k->attributes.static_shared_bytes = static_shared;
    k->attributes.registers_per_thread = registers;
    k->attributes.max_dynamic_shared_bytes =
        props->max_shared_per_block > static_shared ? props->max_shared_per_block - static_shared : 0;
    return HK_SUCCESS;
}

hk_status hk_module_get_kernel(hk_kernel *out, hk_module handle, const char *name)
{
    static const char fn[] = "hk_module_get_kernel";
    if (!out || !name || !*name)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "%s must not be NULL or empty", !out ? "kernel" : "name");
    *out = NULL;
    void *object = NULL;
    int device;
    if (!handle || !hk__handle_lookup(HK__HANDLE_MODULE, (uintptr_t)handle, &object, &device))
        return hk__fail(HK_ERROR_INVALID_HANDLE, fn, "module %p is not live (already unloaded, or never loaded)",
                        (void *)handle);
    module *m = object;
    hk_status s = on_current_device(fn, "module", m->device);
    if (s != HK_SUCCESS)
        return s;
    kernel *k = calloc(1, sizeof *k);
    if (!k || !(k->name = strdup(name))) {
        free(k);
        return hk__fail(HK_ERROR_OUT_OF_MEMORY, fn, "out of host memory");
    }
    k->device = m->device;
    const hk__kind *kind = hk__kind_current();
    if ((s = kind->module_function(fn, m->vendor, name, &k->function, &k->fast_function)) == HK_SUCCESS && !k->function)
        s = hk__fail(HK_ERROR_INVALID_ARGUMENT, fn,
                     "the module has no kernel named \"%s\" (declare it extern \"C\" __global__: C++ "
                     "names are mangled)",
                     name);
    if (s != HK_SUCCESS || (s = read_attributes(fn, k)) != HK_SUCCESS) {
        free(k->name);
        free(k);
        return s;
    }
    k->param_count = hk__parse_kernel_params(m->source, name, k->params, HK_KERNEL_MAX_PARAMS);
    int loaded_count = kind->function_param_count(k->function);
    if (k->param_count >= 0 && loaded_count >= 0 && loaded_count != k->param_count)
        k->param_count = -1; /* the source reading was wrong (macros?): trust nothing */
    lay_out(k);

    pthread_mutex_lock(&module_lock);
    if (m->kernel_count == m->kernel_capacity) {
        size_t capacity = m->kernel_capacity ? 2 * m->kernel_capacity : 8;
        uintptr_t *grown = realloc(m->kernels, capacity * sizeof *grown);
        if (grown) {
            m->kernels = grown;
            m->kernel_capacity = capacity;
        }
    }
    uintptr_t kh = m->kernel_count < m->kernel_capacity ? hk__handle_insert(HK__HANDLE_KERNEL, k, k->device) : 0;
    if (kh)
        m->kernels[m->kernel_count++] = kh;
    pthread_mutex_unlock(&module_lock);
    if (!kh) {
        free(k->name);
        free(k);
        return hk__fail(HK_ERROR_OUT_OF_MEMORY, fn, "no room for another kernel handle (host memory)");
    }
    *out = (hk_kernel)kh;
    return hk__ok();
}

/* -------------------------------------------------------------- kernels */

hk_status hk_kernel_get_params(hk_kernel handle, int *count, hk_arg_type *types, int capacity)
{
    static const char fn[] = "hk_kernel_get_params";
    if (!count)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "count must not be NULL");
    if (types && capacity < 0)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "capacity is negative");
    kernel *k = kernel_lookup(fn, handle);
    if (!k)
        return HK_ERROR_INVALID_HANDLE;
    *count = k->param_count;
    for (int i = 0; types && i < k->param_count && i < capacity; i++)
        types[i] = k->params[i];
    return hk__ok();
}

hk_status hk_kernel_set_params(hk_kernel handle, const hk_arg_type *types, int count)
{
    static const char fn[] = "hk_kernel_set_params";
    if (count < 0 || count > HK_KERNEL_MAX_PARAMS || (count > 0 && !types))
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "count must be 0..%d with types given (got %d)",
                        HK_KERNEL_MAX_PARAMS, count);
    for (int i = 0; i < count; i++)
        if ((unsigned)types[i] > HK_ARG_BOOL)
            return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "types[%d] = %d is not a hk_arg_type", i, (int)types[i]);
    kernel *k = kernel_lookup(fn, handle);
    if (!k)
        return HK_ERROR_INVALID_HANDLE;
    int loaded_count = hk__kind_current()->function_param_count(k->function);
    if (loaded_count >= 0 && loaded_count != count)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "%s takes %d parameters, not %d", k->name, loaded_count, count);
    memcpy(k->params, types, (size_t)count * sizeof *types);
    k->param_count = count;
    lay_out(k);
    return hk__ok();
}

hk_status hk_kernel_get_attributes(hk_kernel handle, hk_kernel_attributes *attributes)
{
    static const char fn[] = "hk_kernel_get_attributes";
    if (!attributes)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "attributes must not be NULL");
    kernel *k = kernel_lookup(fn, handle);
    if (!k)
        return HK_ERROR_INVALID_HANDLE;
    *attributes = k->attributes;
    return hk__ok();
}

/* Grid, block and shared memory against the kernel's and the device's limits. */
static hk_status check_shape(const char *fn, kernel *k, hk_dim3 grid, hk_dim3 block, size_t shared_bytes)
{
    const hk__device_props *props = hk__device_properties(k->device);
    unsigned int g[3] = {grid.x, grid.y, grid.z}, b[3] = {block.x, block.y, block.z};
    static const char axis[3] = {'x', 'y', 'z'};
    for (int i = 0; i < 3; i++) {
        if (g[i] == 0 || b[i] == 0)
            return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "%s.%c is 0 for %s; every dimension must be at least 1",
                            g[i] == 0 ? "grid" : "block", axis[i], k->name);
        if (b[i] > (unsigned)props->max_block_dim[i])
            return hk__fail(HK_ERROR_LAUNCH_FAILED, fn,
                            "block.%c = %u threads for %s exceeds the device's limit of %d threads in that dimension",
                            axis[i], b[i], k->name, props->max_block_dim[i]);
        if (g[i] > (unsigned)props->max_grid_dim[i])
            return hk__fail(HK_ERROR_LAUNCH_FAILED, fn, "grid.%c = %u for %s exceeds the device's limit of %d", axis[i],
                            g[i], k->name, props->max_grid_dim[i]);
    }
    unsigned long long threads = (unsigned long long)b[0] * b[1] * b[2];
    if (threads > (unsigned long long)k->attributes.max_threads_per_block)
        return hk__fail(HK_ERROR_LAUNCH_FAILED, fn,
                        "a block of %u x %u x %u = %llu threads is more than %s allows on device %d (%d threads "
                        "per block)",
                        b[0], b[1], b[2], threads, k->name, k->device, k->attributes.max_threads_per_block);
    if (shared_bytes > k->attributes.max_dynamic_shared_bytes)
        return hk__fail(HK_ERROR_LAUNCH_FAILED, fn,
                        "%zu bytes of dynamic shared memory asked for %s, but at most %zu are available per block "
                        "on device %d (%zu more are used statically)",
                        shared_bytes, k->name, k->attributes.max_dynamic_shared_bytes, k->device,
                        k->attributes.static_shared_bytes);
    if (shared_bytes > k->shared_opted_in && shared_bytes > 48 * 1024) {
        HK_TRY(hk__kind_current()->function_allow_shared(fn, k->function, shared_bytes));
        k->shared_opted_in = shared_bytes;
    }
    return HK_SUCCESS;
}

static hk_status launch(const char *fn, kernel *k, hk_dim3 grid, hk_dim3 block, size_t shared_bytes, hk_stream stream,
                        void **params)
{
    void *vendor_stream;
    hk_status s = hk__resolve_stream(fn, stream, &vendor_stream);
    if (s != HK_SUCCESS)
        return s;
    const unsigned int g[3] = {grid.x, grid.y, grid.z}, b[3] = {block.x, block.y, block.z};
    s = hk__kind_current()->launch(fn, k->name, k->function, k->fast_function, g, b, shared_bytes, vendor_stream,
                                   params);
    return s == HK_SUCCESS ? hk__ok() : s;
}

/* Is `arg` acceptable for a parameter of type `param`? Writes it into `slot`. */
static hk_status convert(const char *fn, const kernel *k, int index, hk_arg_type param, const hk_arg *arg,
                         unsigned char *slot)
{
    hk_arg_type given = arg->type;
    if ((unsigned)given > HK_ARG_BOOL)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "argument %d of %s has type %d, not a hk_arg_type", index,
                        k->name, (int)given);
    int given_float = given == HK_ARG_FLOAT32 || given == HK_ARG_FLOAT64;
    int given_signed = given == HK_ARG_INT8 || given == HK_ARG_INT16 || given == HK_ARG_INT32 || given == HK_ARG_INT64;
    if (param == HK_ARG_POINTER || given == HK_ARG_POINTER) {
        if (param != given)
            return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "argument %d of %s is a %s parameter but a %s was given",
                            index, k->name, arg_name(param), arg_name(given));
        memcpy(slot, &arg->value.pointer, sizeof(void *)); // cppcheck-suppress pointerSize
        return HK_SUCCESS;
    }
    if (param == HK_ARG_FLOAT32 || param == HK_ARG_FLOAT64) {
        double v = given_float ? arg->value.f64 : given_signed ? (double)arg->value.i64 : (double)arg->value.u64;
        if (param == HK_ARG_FLOAT32) {
            float f = (float)v;
            memcpy(slot, &f, 4);
        } else {
            memcpy(slot, &v, 8);
        }
        return HK_SUCCESS;
    }
    if (given_float)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn,
                        "argument %d of %s is an integer parameter (%s) but a floating-point value was given", index,
                        k->name, arg_name(param));
    /* Integers: range-check against the parameter's width and signedness. */
    static const struct {
        long long min;
        unsigned long long max;
    } range[] = {
        [HK_ARG_INT8] = {-128, 127},
        [HK_ARG_UINT8] = {0, 255},
        [HK_ARG_INT16] = {-32768, 32767},
        [HK_ARG_UINT16] = {0, 65535},
        [HK_ARG_INT32] = {-2147483647LL - 1, 2147483647ULL},
        [HK_ARG_UINT32] = {0, 4294967295ULL},
        [HK_ARG_INT64] = {INT64_MIN, INT64_MAX},
        [HK_ARG_UINT64] = {0, UINT64_MAX},
        [HK_ARG_BOOL] = {0, 1},
    };
    int negative = given_signed && arg->value.i64 < 0;
    int fits = negative ? arg->value.i64 >= range[param].min
                        : (given_signed ? (unsigned long long)arg->value.i64 : arg->value.u64) <= range[param].max;
    if (!fits) {
        if (given_signed)
            return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "argument %d of %s is %s, which cannot hold %lld", index,
                            k->name, arg_name(param), (long long)arg->value.i64);
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "argument %d of %s is %s, which cannot hold %llu", index,
                        k->name, arg_name(param), (unsigned long long)arg->value.u64);
    }
    uint64_t bits = given_signed ? (uint64_t)arg->value.i64 : arg->value.u64;
    size_t size = arg_size(param);
    for (size_t i = 0; i < size; i++) /* little-endian, as every GPU host is */
        slot[i] = (unsigned char)(bits >> (8 * i));
    return HK_SUCCESS;
}

hk_status hk_kernel_launch(hk_kernel handle, hk_dim3 grid, hk_dim3 block, size_t shared_bytes, hk_stream stream,
                           const hk_arg *args, int num_args)
{
    static const char fn[] = "hk_kernel_launch";
    kernel *k = kernel_lookup(fn, handle);
    if (!k)
        return HK_ERROR_INVALID_HANDLE;
    if (num_args < 0 || num_args > HK_KERNEL_MAX_PARAMS || (num_args > 0 && !args))
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "num_args must be 0..%d with args given (got %d)",
                        HK_KERNEL_MAX_PARAMS, num_args);
    if (k->param_count >= 0 && num_args != k->param_count)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "%s takes %d argument%s but %d %s given", k->name,
                        k->param_count, k->param_count == 1 ? "" : "s", num_args, num_args == 1 ? "was" : "were");
    hk_status s = on_current_device(fn, "kernel", k->device);
    if (s != HK_SUCCESS || (s = check_shape(fn, k, grid, block, shared_bytes)) != HK_SUCCESS)
        return s;
    _Alignas(8) unsigned char storage[HK_KERNEL_MAX_PARAMS * 8];
    void *params[HK_KERNEL_MAX_PARAMS];
    for (int i = 0; i < num_args; i++) {
        hk_arg_type param = k->param_count >= 0 ? k->params[i] : args[i].type;
        unsigned char *slot = storage + 8 * i;
        if ((s = convert(fn, k, i, param, &args[i], slot)) != HK_SUCCESS)
            return s;
        params[i] = slot;
    }
    return launch(fn, k, grid, block, shared_bytes, stream, params);
}

hk_status hk_kernel_launch_packed(hk_kernel handle, hk_dim3 grid, hk_dim3 block, size_t shared_bytes, hk_stream stream,
                                  const void *args, size_t args_bytes)
{
    static const char fn[] = "hk_kernel_launch_packed";
    kernel *k = kernel_lookup(fn, handle);
    if (!k)
        return HK_ERROR_INVALID_HANDLE;
    if (k->param_count < 0)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn,
                        "the parameter types of %s are unknown; declare them with hk_kernel_set_params", k->name);
    if ((args_bytes != k->packed_size && args_bytes != k->struct_size) || (args_bytes > 0 && !args))
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn,
                        "%s's %d parameters take %zu packed bytes, but %zu were given (wrong number or types of "
                        "arguments?)",
                        k->name, k->param_count, k->packed_size, args_bytes);
    hk_status s = on_current_device(fn, "kernel", k->device);
    if (s != HK_SUCCESS || (s = check_shape(fn, k, grid, block, shared_bytes)) != HK_SUCCESS)
        return s;
    void *params[HK_KERNEL_MAX_PARAMS];
    for (int i = 0; i < k->param_count; i++)
        params[i] = (char *)args + k->offsets[i];
    return launch(fn, k, grid, block, shared_bytes, stream, params);
}

hk_status hk_kernel_suggest_launch(hk_kernel handle, size_t n, size_t shared_bytes, hk_dim3 *grid, hk_dim3 *block)
{
    static const char fn[] = "hk_kernel_suggest_launch";
    if (!grid || !block)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "grid and block must not be NULL");
    kernel *k = kernel_lookup(fn, handle);
    if (!k)
        return HK_ERROR_INVALID_HANDLE;
    hk_status s = on_current_device(fn, "kernel", k->device);
    if (s != HK_SUCCESS)
        return s;
    int best = shared_bytes == 0 ? k->suggested_block : 0;
    if (!best) {
        /* The largest block reaching the highest number of resident threads. */
        int warp = hk__device_properties(k->device)->warp_size;
        int limit = k->attributes.max_threads_per_block < 1024 ? k->attributes.max_threads_per_block : 1024;
        int best_threads = -1;
        for (int size = limit / warp * warp; size >= warp; size -= warp) {
            int blocks = 0;
            HK_TRY(hk__kind_current()->function_occupancy(fn, k->function, size, shared_bytes, &blocks));
            if (blocks * size > best_threads) {
                best_threads = blocks * size;
                best = size;
            }
        }
        if (best_threads <= 0)
            return hk__fail(HK_ERROR_LAUNCH_FAILED, fn,
                            "%s cannot run with %zu bytes of dynamic shared memory at any block size", k->name,
                            shared_bytes);
        if (shared_bytes == 0)
            k->suggested_block = best;
    }
    size_t blocks = n == 0 ? 1 : (n + (size_t)best - 1) / (size_t)best;
    size_t max_grid = (size_t)hk__device_properties(k->device)->max_grid_dim[0];
    if (blocks > max_grid)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn,
                        "%zu items need %zu blocks of %d, more than the grid limit %zu; use a grid-stride loop", n,
                        blocks, best, max_grid);
    *grid = (hk_dim3){(unsigned int)blocks, 1, 1};
    *block = (hk_dim3){(unsigned int)best, 1, 1};
    return hk__ok();
}

hk_status hk_kernel_launch_n(hk_kernel handle, size_t n, size_t shared_bytes, hk_stream stream, const hk_arg *args,
                             int num_args)
{
    hk_dim3 grid, block;
    hk_status s = hk_kernel_suggest_launch(handle, n, shared_bytes, &grid, &block);
    if (s != HK_SUCCESS)
        return s;
    if (n == 0)
        return hk__ok();
    return hk_kernel_launch(handle, grid, block, shared_bytes, stream, args, num_args);
}
