/* op_table.c: the rows of HK_OP_TABLE (hipkit.h) as data, for hk_op_get_info, hk_op_name, hk_op_arity
 * and hk_elementwise's validation; and the dtype lists its messages print. */
#include <stdio.h>

#include "core/status.h"
#include "ops/op_table.h"

static const hk_op_info rows[HK_OP_COUNT] = {
#define HK_OP_ROW_(NAME, name, api, arity, dtypes, rule, identity, summary)                                            \
    [HK_OP_##NAME] = {#name, api, summary, arity, dtypes, rule, identity},
    HK_OP_TABLE(HK_OP_ROW_)
#undef HK_OP_ROW_
};

const hk_op_info *hk__op_row(hk_op op)
{
    return (unsigned)op < HK_OP_COUNT ? &rows[op] : NULL;
}

hk_status hk_op_get_info(hk_op op, hk_op_info *info)
{
    static const char fn[] = "hk_op_get_info";
    if (!info)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "info must not be NULL");
    if ((unsigned)op >= HK_OP_COUNT)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "op %d is not a hk_op (0..%d)", (int)op, HK_OP_COUNT - 1);
    *info = rows[op];
    return hk__ok();
}

const char *hk_op_name(hk_op op)
{
    return (unsigned)op < HK_OP_COUNT ? rows[op].name : "invalid";
}

hk_status hk_op_arity(hk_op op, int *inputs)
{
    static const char fn[] = "hk_op_arity";
    if (!inputs)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "inputs must not be NULL");
    if ((unsigned)op >= HK_OP_COUNT)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "op %d is not a hk_op (0..%d)", (int)op, HK_OP_COUNT - 1);
    *inputs = rows[op].arity;
    return hk__ok();
}

bool hk__op_gives_bool(const hk_op_info *row)
{
    return row->rule == HK_RULE_TO_BOOL || row->rule == HK_RULE_FLOAT_TO_BOOL;
}

hk_dtype hk__op_out_dtype(const hk_op_info *row, hk_dtype t)
{
    if (hk__op_gives_bool(row))
        return HK_BOOL;
    if (row->rule == HK_RULE_REAL_PART)
        return t == HK_COMPLEX64 ? HK_FLOAT32 : t == HK_COMPLEX128 ? HK_FLOAT64 : t;
    return t;
}

const char *hk__dtype_list(uint32_t mask, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int d = 0; d < HK_DTYPE_COUNT; d++) {
        if (!(mask & HK_DTYPE_BIT(d)))
            continue;
        int w = snprintf(buf + used, size - used, "%s%s", used ? ", " : "", hk_dtype_name((hk_dtype)d));
        if (w < 0 || (size_t)w >= size - used)
            break;
        used += (size_t)w;
    }
    return buf;
}
