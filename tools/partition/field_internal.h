/* Shared by the readers of tools/partition (field.c). */
#ifndef BALLAST_PARTITION_FIELD_INTERNAL_H
#define BALLAST_PARTITION_FIELD_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Print "ballast-partition: PATH: UNIT WHERE: MESSAGE" (UNIT "line" or
 * "byte"; without UNIT, "PATH: MESSAGE") and return false. */
bool part_bad(const char *path, const char *unit, int64_t where, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* A weight (finite, >= 0) or a coordinate (finite) written as the tools'
 * flags write doubles (cli_double_text): no spaces, '+', hex, inf or nan. */
bool part_number(const char *text, bool weight, double *out, char *err, size_t n);

#endif
