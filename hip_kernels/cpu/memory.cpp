// memory.cpp: the CPU device's memcpy and memset, spread over the cores for
// large sizes (one core does not reach the memory bandwidth of the machine).
#include <string.h>

#include "cpu/cpu.h"
#include "cpu/parallel.h"

// Bytes per chunk below which one thread copies.
static const int64_t copy_grain = (int64_t)1 << 20;

extern "C" void hkc_copy_bytes(void *dst, const void *src, size_t bytes)
{
    if (bytes == 0 || dst == src)
        return;
    unsigned char *d = static_cast<unsigned char *>(dst);
    const unsigned char *s = static_cast<const unsigned char *>(src);
    // Overlapping ranges (a copy within one allocation) are moved on one thread, as memmove.
    if ((d < s + bytes) && (s < d + bytes)) {
        memmove(d, s, bytes);
        return;
    }
    hkc::parallel_for((int64_t)bytes, copy_grain,
                      [&](int64_t begin, int64_t end) { memcpy(d + begin, s + begin, (size_t)(end - begin)); });
}

extern "C" void hkc_set_bytes(void *dst, int value, size_t bytes)
{
    unsigned char *d = static_cast<unsigned char *>(dst);
    hkc::parallel_for((int64_t)bytes, copy_grain,
                      [&](int64_t begin, int64_t end) { memset(d + begin, value, (size_t)(end - begin)); });
}
