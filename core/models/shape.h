/*
 * shape.h - the shape arguments of a cpu_op ("Input Dims", "Input type",
 * "Input Strides", "Concrete Inputs"), stored by the reader as raw JSON
 * text, parsed into fixed-size lists: int64 dims per input, strings per
 * input. Robust to any text: garbage gives TG_EFORMAT, never a crash, and
 * lists longer than the limits are cut (flagged).
 */
#ifndef TG_SHAPE_H
#define TG_SHAPE_H

#include <stddef.h>
#include <stdint.h>

#define TG_SHAPE_MAX_ITEMS 32 /* inputs kept per argument */
#define TG_SHAPE_MAX_DIMS 12  /* dims kept per input */
#define TG_SHAPE_MAX_STR 64   /* bytes kept of a string item, NUL included */

typedef enum tg_shape_kind {
	TG_SHAPE_NONE = 0, /* null, or an item past the end */
	TG_SHAPE_DIMS,     /* a list of integers ([] is a scalar, nd 0) */
	TG_SHAPE_STR,      /* a string ("c10::BFloat16", "[1, 1]", "") */
	TG_SHAPE_NUM,      /* a bare number */
	TG_SHAPE_OTHER     /* nested lists (TensorList), objects, bools */
} tg_shape_kind;

typedef struct tg_shape_item {
	uint8_t kind;  /* tg_shape_kind */
	uint8_t nd;    /* dims held in d (TG_SHAPE_DIMS) */
	uint8_t cut;   /* 1: more dims or string bytes than kept */
	int64_t d[TG_SHAPE_MAX_DIMS];
	double num;    /* TG_SHAPE_NUM */
	char s[TG_SHAPE_MAX_STR]; /* TG_SHAPE_STR, decoded, NUL-terminated */
} tg_shape_item;

typedef struct tg_shape_list {
	size_t n;  /* items kept */
	int cut;   /* 1: the list had more than TG_SHAPE_MAX_ITEMS items */
	tg_shape_item v[TG_SHAPE_MAX_ITEMS];
} tg_shape_list;

/* Parses json, a JSON array (an argument's raw text), into *out (caller's
 * storage; nothing allocated). NULL json gives an empty list. Returns 0,
 * or TG_EFORMAT when json is not a JSON array (out is then empty). */
int tg_shape_parse(tg_shape_list *out, const char *json);

/* Item i of l, or NULL when i is past the end or the item is not of kind. */
const tg_shape_item *tg_shape_get(const tg_shape_list *l, size_t i, tg_shape_kind kind);

/* Product of the dims of a TG_SHAPE_DIMS item (1 for []); 0 for NULL or
 * other kinds; saturates at INT64_MAX. */
int64_t tg_shape_numel(const tg_shape_item *it);

/* Parses the integers of a concrete-input text such as "[1, 1]", "(2,)",
 * "3" or "-1" into v (at most cap); returns the count, 0 for "" or text
 * without integers. */
size_t tg_shape_ints(int64_t *v, size_t cap, const char *text);

/* Bytes per element of a PyTorch type string, as TraceLens's name2bpe:
 * 8 double/long int, 4 float/int/Scalar, 2 c10::Half/c10::BFloat16,
 * 1 float8 and fp4 variants, unsigned/signed char; 0 when unknown. */
int tg_shape_dtype_bytes(const char *type);

/* TraceLens's precision name of a type string ("bf16", "fp32", "fp8"...)
 * or NULL when unknown. Static string. */
const char *tg_shape_dtype_precision(const char *type);

/* Writes a TG_SHAPE_DIMS item as a Python tuple: "(128,)", "(2, 3)", "()".
 * buf of cap bytes, always NUL-terminated. */
void tg_shape_tuple(char *buf, size_t cap, const tg_shape_item *it);

#endif
