/* The simulated machine of `ballast simulate-dlb`: a homogeneous cluster of
 * multi-core nodes on one switched network, written as a SimGrid platform
 * file and the host file that places ranks on nodes. */
#ifndef SIMDLB_PLATFORM_H
#define SIMDLB_PLATFORM_H

#include <stdbool.h>

typedef struct sim_platform {
  long long ranks;         /* simulated MPI ranks */
  long long cores_per_node;
  double core_speed;       /* flop/s of one core */
  double latency;          /* s, node to switch (a message between nodes crosses two links) */
  double bandwidth;        /* bytes/s of a node's link */
  double intra_latency;    /* s, between ranks of one node (loopback) */
  double intra_bandwidth;  /* bytes/s, between ranks of one node */
} sim_platform;

/* Nodes needed for the ranks (the last one may be partly used). */
long long sim_nodes(const sim_platform *p);

/* Write `dir`/platform.xml and `dir`/hosts.txt (ranks fill nodes in order,
 * cores_per_node ranks each, so rank r is on node r / cores_per_node).
 * Returns false after printing an error naming the file. */
bool sim_write_platform(const sim_platform *p, const char *dir, const char *prog);

#endif
