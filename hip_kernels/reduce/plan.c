/* plan.c: the reduce family's launch planner (plan.h), host code: the kernels
 * (skeleton.h) ask it for every reduction and launch what it says. */
#include "plan.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

static int64_t ceil_div(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

static int64_t pow2_at_least(int64_t v)
{
    int64_t p = 1;
    while (p < v)
        p *= 2;
    return p;
}

static int64_t abs64(int64_t v)
{
    return v < 0 ? -v : v;
}

static unsigned grid_cap(const hkk_launch *l, int64_t blocks)
{
    const int64_t cap = (int64_t)(l->multiprocessor_count > 0 ? l->multiprocessor_count : 1) * 32;
    return (unsigned)(blocks < 1 ? 1 : blocks > cap ? cap : blocks);
}

/* Split [0, count) into S pieces of chunk positions (a multiple of `align`),
 * none empty. */
static void split(int64_t count, int64_t want, int64_t align, int64_t *S, int64_t *chunk)
{
    if (count <= 0 || want <= 1) {
        *S = 1;
        *chunk = count > 0 ? count : 0;
        return;
    }
    int64_t c = ceil_div(ceil_div(count, want), align) * align;
    *chunk = c;
    *S = ceil_div(count, c);
}

void hkk_reduce_make_plan(const hkk_launch *l, const hkk_reduce_layout *L, size_t in_size, const void *in,
                          const hkk_reduce_residency *per_sm, const hkk_reduce_column_knobs *knobs,
                          hkk_reduce_plan *plan)
{
    hkk_reduce_plan p;
    memset(&p, 0, sizeof p);
    const int64_t sms = l->multiprocessor_count > 0 ? l->multiprocessor_count : 1;
    const int64_t vw = (int64_t)(16 / in_size);
    const int last_red = L->red_ndim - 1;
    /* Columns when the innermost kept dim runs faster through memory than the
     * innermost reduced one (a broadcast kept dim, stride 0, does not count). */
    const int64_t kept_inner = L->kept_ndim > 0 ? L->kept_in[L->kept_ndim - 1] : 0;
    const bool columns = kept_inner > 0 && kept_inner < abs64(L->red_in[last_red]);
    /* Splits fill at most one wave of resident blocks: a second, partial wave
     * would cost a whole block's time for a fraction of the work. */
    if (columns) {
        p.kind = HKK_REDUCE_COLUMNS;
        const int inner = L->kept_ndim - 1;
        const int64_t C = L->kept_shape[inner];
        bool vec = L->kept_in[inner] == 1 && C >= vw && ((uintptr_t)in & 15u) == 0;
        for (int k = 0; k < inner; k++)
            vec = vec && L->kept_in[k] % vw == 0;
        for (int k = 0; k < L->red_ndim; k++)
            vec = vec && L->red_in[k] % vw == 0;
        p.W = vec ? (int)vw : 1;
        p.VC = ceil_div(C, p.W);
        const int64_t xwork = (L->outputs / C) * p.VC;
        p.bx = (int)(pow2_at_least(xwork) < knobs->bx ? pow2_at_least(xwork) : knobs->bx);
        p.by = HKK_REDUCE_BLOCK / p.bx;
        const int64_t bxs = ceil_div(xwork, p.bx);
        p.gx = grid_cap(l, bxs);
        const int64_t resident = sms * (vec ? per_sm->col_vector : per_sm->col_scalar) * knobs->waves;
        int64_t want = 1;
        if (bxs < resident) {
            want = resident / bxs;
            const int64_t most = ceil_div(L->count, (int64_t)p.by * HKK_REDUCE_UNROLL); /* >= UNROLL rows per thread */
            want = want < most ? want : most;
            want = want < 65535 ? want : 65535;
        }
        split(L->count, want, 1, &p.S, &p.chunk);
    } else {
        const bool contig = L->red_ndim == 1 && L->red_in[0] == 1;
        p.kind = contig ? HKK_REDUCE_ROW_CONTIG : HKK_REDUCE_ROW_STRIDED;
        const int64_t w = contig ? vw : 1;
        const int64_t V = ceil_div(L->count, w); /* loads per reduction */
        const int64_t resident = sms * (contig ? per_sm->row_contig : per_sm->row_strided);
        int64_t want = 1;
        if (V <= 64) {
            const int64_t g = pow2_at_least(ceil_div(V, 2));
            p.G = (int)(g < 1 ? 1 : g > 32 ? 32 : g);
        } else if (L->outputs * 32 >= resident * HKK_REDUCE_BLOCK / 2) {
            /* Outputs enough for a warp each to fill half the device: a warp
             * streams its whole row (no block-wide combine, no split pass). */
            p.G = 32;
        } else {
            p.G = HKK_REDUCE_BLOCK;
            if (L->outputs < resident) {
                want = resident / L->outputs;
                const int64_t most =
                    ceil_div(V, (int64_t)HKK_REDUCE_BLOCK * HKK_REDUCE_UNROLL); /* >= UNROLL loads per thread */
                want = want < most ? want : most;
            }
        }
        split(L->count, want, w, &p.S, &p.chunk);
        p.grid = grid_cap(l, ceil_div(L->outputs * p.S, HKK_REDUCE_BLOCK / p.G));
    }
    if (p.S > 1) {
        p.fG = p.S <= 16 ? 1 : p.S <= 256 ? 32 : HKK_REDUCE_BLOCK;
        p.fgrid = grid_cap(l, ceil_div(L->outputs, HKK_REDUCE_BLOCK / p.fG));
    }
    *plan = p;
}
