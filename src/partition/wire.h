/* Private, for other modules: a partition result in one flat buffer, so
 * that one rank can partition and the others rebuild the same handle from
 * the buffer and the items' new parts, without the coordinates and
 * without partitioning again (rebalance_geo.h: only rank 0 holds every
 * item). The buffer is raw memory of this build of the library, for
 * processes of one binary on one architecture (an MPI job's ranks), not a
 * file format. */
#ifndef BALLAST_PARTITION_WIRE_H
#define BALLAST_PARTITION_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include <ballast/partition.h>

/* Bytes bal__partition_wire_pack() writes for r. */
size_t bal__partition_wire_size(const bal_partition_result *r);

/* Write r into buf (bal__partition_wire_size(r) bytes). */
void bal__partition_wire_pack(const bal_partition_result *r, unsigned char *buf);

/* The handle packed in buf (size bytes), with the transfers of the n
 * items from `from` to `part` (`from` NULL: none); the same handle as the
 * packed one when they are its caller's. BAL_OK; BAL_EFORMAT when buf is
 * not a packed handle of this build, or an item's part is out of range;
 * BAL_ENOMEM. */
int bal__partition_wire_unpack(const unsigned char *buf, size_t size, int64_t n, const int *from,
                               const int *part, bal_partition_result **out);

#endif
