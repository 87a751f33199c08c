/**
 * @file ballast/defs.h
 * @brief Definitions shared by every Ballast public header (export macro,
 *        standard includes). Included by the other headers; no need to
 *        include it directly.
 */
#ifndef BALLAST_DEFS_H
#define BALLAST_DEFS_H

#include <stddef.h>
#include <stdint.h>

#if defined(BALLAST_BUILDING) && defined(__GNUC__)
#define BAL_API __attribute__((visibility("default")))
#else
#define BAL_API
#endif

#ifdef __cplusplus
#define BAL_BEGIN_DECLS extern "C" {
#define BAL_END_DECLS }
#else
#define BAL_BEGIN_DECLS
#define BAL_END_DECLS
#endif

#endif /* BALLAST_DEFS_H */
