/* user_kernel.c: write a kernel once in HIP C++, compile it at run time for
 * whatever GPU this machine has (hiprtc on AMD, NVRTC on NVIDIA), launch it
 * and check the result. When the current device is the CPU device (no GPU,
 * or HIPKIT_DEVICE=cpu), which does not run user kernels yet, it still
 * compiles the kernel for a named architecture (no GPU is needed for that)
 * and says what it made. */
#include <hipkit/hipkit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static const char *source = "#include <hipkit_device.h>\n"
                            "extern \"C\" __global__ void saxpy(float a, const float *x, float *y, size_t n)\n"
                            "{\n"
                            "    for (size_t i = hk_global_index(); i < n; i += hk_grid_stride())\n"
                            "        y[i] = a * x[i] + y[i];\n"
                            "}\n";

#define CHECK(call)                                                                                                    \
    do {                                                                                                               \
        hk_status status_ = (call);                                                                                    \
        if (status_ != HK_SUCCESS) {                                                                                   \
            fprintf(stderr, "user_kernel: %s: %s\n", hk_status_name(status_), hk_last_error());                        \
            return 1;                                                                                                  \
        }                                                                                                              \
    } while (0)

int main(void)
{
    int device = 0;
    hk_device_info info;
    hk_platform platform;
    CHECK(hk_device_get(&device));
    CHECK(hk_device_get_info(device, &info));
    CHECK(hk_platform_get(&platform));
    hk_program program = NULL;
    if (info.kind != HK_DEVICE_KIND_GPU) {
        /* The same source compiles for either vendor's GPUs; this build makes
         * code for its own vendor's architectures. */
        const char *target = platform == HK_PLATFORM_AMD ? "gfx90a" : "sm_90";
        CHECK(hk_program_compile(&program, source, "saxpy.hip", NULL, 0, target));
        const void *binary;
        size_t bytes;
        int cached;
        CHECK(hk_program_get_binary(program, &binary, &bytes));
        CHECK(hk_program_is_cached(program, &cached));
        printf("user_kernel: the current device is the CPU device, which does not run user kernels yet; "
               "compiled saxpy.hip for %s anyway: %zu bytes%s\n",
               target, bytes, cached ? " (from the cache)" : "");
        CHECK(hk_program_destroy(program));
        return 0;
    }

    const size_t n = 1000003;
    float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    if (!x || !y)
        return 1;
    for (size_t i = 0; i < n; i++) {
        x[i] = (float)rand() / (float)RAND_MAX;
        y[i] = (float)rand() / (float)RAND_MAX;
    }
    const float a = 2.5f;

    hk_module module;
    hk_kernel saxpy;
    CHECK(hk_program_compile(&program, source, "saxpy.hip", NULL, 0, NULL)); /* NULL: this device */
    CHECK(hk_module_load(&module, program));
    CHECK(hk_module_get_kernel(&saxpy, module, "saxpy"));

    void *dx, *dy;
    CHECK(hk_malloc(&dx, n * sizeof(float)));
    CHECK(hk_malloc(&dy, n * sizeof(float)));
    CHECK(hk_memcpy_htod(dx, x, n * sizeof(float)));
    CHECK(hk_memcpy_htod(dy, y, n * sizeof(float)));
    /* Typed arguments: checked against the kernel's parameters before launch. */
    hk_arg args[4] = {{.type = HK_ARG_FLOAT32, .value.f64 = a},
                      {.type = HK_ARG_POINTER, .value.pointer = dx},
                      {.type = HK_ARG_POINTER, .value.pointer = dy},
                      {.type = HK_ARG_UINT64, .value.u64 = n}};
    CHECK(hk_kernel_launch_n(saxpy, n, 0, NULL, args, 4)); /* block size from occupancy */
    float *got = malloc(n * sizeof *got);
    if (!got)
        return 1;
    CHECK(hk_memcpy_dtoh(got, dy, n * sizeof(float)));
    size_t wrong = 0;
    for (size_t i = 0; i < n; i++)
        if (fabsf(got[i] - (a * x[i] + y[i])) > 1e-5f * (1.0f + fabsf(a * x[i] + y[i])))
            wrong++;
    printf("user_kernel: saxpy on %zu floats: %zu wrong\n", n, wrong);

    CHECK(hk_free(dx));
    CHECK(hk_free(dy));
    CHECK(hk_module_unload(module));
    CHECK(hk_program_destroy(program));
    free(x);
    free(y);
    free(got);
    return wrong ? 1 : 0;
}
