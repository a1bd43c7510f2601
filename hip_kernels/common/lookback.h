// lookback.h: the pauses of the decoupled look-backs in scan/ and sort/, as
// CUB's delay constructors: spinning warps otherwise take issue slots and L2
// bandwidth from the blocks that do the work.
#ifndef HIPKIT_LOOKBACK_H
#define HIPKIT_LOOKBACK_H

#include <stdint.h>
#include <stdlib.h>

#include "common/hipkit_device.h"
#include "gpu/device.h"

namespace hk_lookback
{

// `ns` packs two durations: the low 16 bits between polls of a tile state not
// yet published, the high 16 bits once before the first poll (the
// predecessors' words are then more likely to have landed). 0: no pause.
HK_DEVICE void backoff_poll(unsigned ns)
{
    hk_dev::sleep_ns(ns & 0xffffu);
}
HK_DEVICE void backoff_first(unsigned ns)
{
    hk_dev::sleep_ns(ns >> 16);
}

// Host side: the packed pauses, from HIPKIT_LOOKBACK_NS=poll[,first]
// (nanoseconds, each below 65536; default 0,0), read once by src/core/settings.c.
inline unsigned lookback_ns_wanted(const hkk_launch *l)
{
    return l->tuning ? l->tuning->lookback_ns : 0u;
}

} // namespace hk_lookback

#endif
