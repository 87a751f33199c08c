/* DLB_Bench workload: how many tasks each rank owns and how long each task
 * works, as in [Fontenaille 2018] §5.1. A pure function of the parameters and the
 * seed, so every rank computes the same distribution without talking. */
#ifndef DLB_WORKLOAD_H
#define DLB_WORKLOAD_H

#include <stddef.h>
#include <stdint.h>

typedef enum { DIST_GAUSSIAN, DIST_UNIFORM, DIST_SINGLE, DIST_RANDOM } dlb_dist;

typedef struct dlb_params {
  double work_per_rank;   /* seconds */
  double tasks_per_rank;  /* average */
  double bytes_per_rank;  /* input bytes, average */
  double spread;          /* task duration = mean * (1 + spread * (2u - 1)) */
  double drift;           /* how far the distribution moves per iteration, in x */
  dlb_dist dist;
  uint64_t seed;
} dlb_params;

/* Header at the start of every task input (the rest is payload). */
typedef struct dlb_task_hdr {
  uint64_t gid;   /* global task number */
  double seconds; /* work to do */
} dlb_task_hdr;

/* Result of a task, checked by its owner. */
typedef struct dlb_result {
  uint64_t gid;
  uint64_t checksum; /* FNV-1a of the whole input */
  double seconds;    /* measured work */
  int64_t rank;      /* where it ran */
} dlb_result;

/* The distributions' names in dlb_dist order, NULL-terminated. */
extern const char *const dlb_dist_names[];
const char *dlb_dist_name(dlb_dist d);
/* A uniform number in [0, 1) drawn from (seed, i), the same on every rank. */
double dlb_unit(uint64_t seed, uint64_t i);

/* Tasks owned by each of p ranks in iteration `iter` (0-based) (counts[p],
 * sum = round(p * tasks_per_rank)). Rank r sits at x = 10 (r + 1/2) / p; in
 * iteration k the distribution is shifted by k * drift along x, wrapping
 * around [0, 10), as a reaction zone moves through a domain. */
void dlb_counts(const dlb_params *prm, int p, int iter, long long *counts);
/* First global id of rank r's tasks given counts. */
uint64_t dlb_first_gid(const long long *counts, int r);
/* Task input length in bytes (header included). */
size_t dlb_input_len(const dlb_params *prm);
/* Bytes of a len-byte task input that are filled and checked: all of them,
 * except in an SMPI build where only BALLAST_SMPI_TASK_BYTES_KEPT survive
 * (the rest of the input is simulated traffic, see ballast/steal.h). */
size_t dlb_checked_len(size_t len);
/* Fill the input of task gid of iteration `iter` (its dlb_checked_len(len)
 * first bytes) and return their checksum. Durations are drawn anew each
 * iteration: no task costs what it cost last time. */
uint64_t dlb_make_input(const dlb_params *prm, int iter, uint64_t gid, unsigned char *buf,
                        size_t len);
uint64_t dlb_checksum(const void *p, size_t n);

#endif
