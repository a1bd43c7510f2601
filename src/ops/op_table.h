/* op_table.h: the op table's rows for the library's own checks (op_table.c). Not installed. */
#ifndef HIPKIT_OP_TABLE_H
#define HIPKIT_OP_TABLE_H

#include <stdbool.h>
#include <stddef.h>

#include "hipkit/hipkit.h"

/* The row of op, or NULL when op is out of range. */
const hk_op_info *hk__op_row(hk_op op);
/* Whether the op's result is bool whatever T is (HK_RULE_TO_BOOL, HK_RULE_FLOAT_TO_BOOL). */
bool hk__op_gives_bool(const hk_op_info *row);
/* The dtype of the op's result for inputs of T: bool (HK_RULE_TO_BOOL, HK_RULE_FLOAT_TO_BOOL), T's real
 * dtype (HK_RULE_REAL_PART of a complex T), else T. */
hk_dtype hk__op_out_dtype(const hk_op_info *row, hk_dtype t);
/* "float16, float32, float64" for a dtype mask, into buf. */
const char *hk__dtype_list(uint32_t mask, char *buf, size_t size);

#endif
