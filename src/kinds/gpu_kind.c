/* gpu_kind.c: the GPU kind's table: the HIP runtime on AMD, the CUDA runtime on NVIDIA (src/gpu/). */
#include "gpu/rtc.h"
#include "gpu/vendor_blas.h"
#include "kinds/gpu_internal.h"

/* The toolkit version hipkit was built against names the compiler in cache keys: asking the loaded
 * compiler would load NVRTC (tens of milliseconds) even for a cache hit, which must not need it. */
#if defined(HIPKIT_PLATFORM_NVIDIA)
#define RTC_BUILD_VERSION CUDART_VERSION
#else
#define RTC_BUILD_VERSION HIP_VERSION
#endif

const hk__kind hk__gpu_kind = {
    .platform = HK_GPU_PLATFORM,

    .device_count = hk__gpu_device_count,
    .device_describe = hk__gpu_device_describe,
    .runtime_version = hk__gpu_runtime_version,
    .driver_version = hk__gpu_driver_version,
    .activate = hk__gpu_activate,
    .free_memory = hk__gpu_free_memory,
    .synchronize = hk__gpu_synchronize,

    .device_alloc = hk__gpu_device_alloc,
    .device_release = hk__gpu_device_release,
    .host_alloc = hk__gpu_host_alloc,
    .host_release = hk__gpu_host_release,

    .stream_create = hk__gpu_stream_create,
    .stream_destroy = hk__gpu_stream_destroy,
    .stream_synchronize = hk__gpu_stream_synchronize,
    .stream_query = hk__gpu_stream_query,
    .stream_wait_event = hk__gpu_stream_wait_event,
    .stream_order = hk__gpu_stream_order,
    .event_create = hk__gpu_event_create,
    .event_destroy = hk__gpu_event_destroy,
    .event_record = hk__gpu_event_record,
    .event_synchronize = hk__gpu_event_synchronize,
    .event_query = hk__gpu_event_query,
    .event_elapsed_ms = hk__gpu_event_elapsed_ms,

    .module_load = hk__gpu_module_load,
    .module_unload = hk__gpu_module_unload,
    .module_function = hk__gpu_module_function,
    .function_attributes = hk__gpu_function_attributes,
    .function_param_count = hk__gpu_function_param_count,
    .function_allow_shared = hk__gpu_function_allow_shared,
    .function_occupancy = hk__gpu_function_occupancy,
    .launch = hk__gpu_launch_function,

    .rtc_name = HK_RTC_NAME,
    .rtc_build_version = RTC_BUILD_VERSION,
    .rtc_unavailable = hk__gpu_rtc_unavailable,
    .rtc_version = hk__gpu_rtc_version,
    .rtc_check_target = hk__gpu_rtc_check_target,
    .rtc_compile = hk__gpu_rtc_compile,

    .copy = hk__gpu_copy,
    .memset = hk__gpu_memset,

    .host_is_pinned = hk__gpu_host_is_pinned,
    .staging_markers_create = hk__gpu_staging_markers_create,
    .staging_markers_destroy = hk__gpu_staging_markers_destroy,
    .staging_copy = hk__gpu_staging_copy,
    .staging_wait = hk__gpu_staging_wait,
    .staging_finish = hk__gpu_staging_finish,

    .iota = hk__gpu_iota,
    .random_numbers = hk__gpu_random_numbers,
    .copy_array = hk__gpu_copy_array,
    .elementwise = hk__gpu_elementwise,
    .scan_scratch_bytes = hk__gpu_scan_scratch_bytes,
    .scan = hk__gpu_scan,
    .sort_scratch_bytes = hk__gpu_sort_scratch_bytes,
    .sort = hk__gpu_sort,
    .vendor_blas_unavailable = hk__vendor_blas_unavailable,
    .matmul_scratch = hk__gpu_matmul_scratch,
    .matmul = hk__gpu_matmul,
    .take_scratch_bytes = hk__gpu_take_scratch_bytes,
    .take = hk__gpu_take,
    .reduce_scratch_bytes = hk__gpu_reduce_scratch_bytes,
    .reduce = hk__gpu_reduce,
    .put_scratch_bytes = hk__gpu_put_scratch_bytes,
    .put = hk__gpu_put,
    .compact_scratch_bytes = hk__gpu_compact_scratch_bytes,
    .compact = hk__gpu_compact,
};
