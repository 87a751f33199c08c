/**
 * @file ballast/node_omp.h
 * @brief Header-only helper for OpenMP programs attached to a node registry
 *        (ballast/node.h): apply the current mask at a malleability point.
 *
 * Usage: attach once with bal_node_attach(), then between parallel regions
 * (the program's malleability points) call bal_node_omp_apply():
 * @code
 *   bal_node_proc *p;
 *   bal_node_attach(&cfg, &p);
 *   for (int step = 0; step < steps; step++) {
 *     bal_node_omp_apply(p, NULL);   // follow the manager
 *     #pragma omp parallel for
 *     for (int i = 0; i < n; i++) work(i);
 *   }
 *   bal_node_detach(p);
 * @endcode
 *
 * OpenMP stays optional for Ballast itself: this header is only usable in a
 * translation unit compiled with OpenMP (-fopenmp); without it, including
 * it is an error. It needs only the library's node calls.
 */
#ifndef BALLAST_NODE_OMP_H
#define BALLAST_NODE_OMP_H

#ifndef _OPENMP
#error "ballast/node_omp.h needs OpenMP: compile this file with -fopenmp (or your compiler's OpenMP flag)"
#endif

#include <omp.h>
#include <stdbool.h>

#include <ballast/error.h>
#include <ballast/node.h>

/**
 * Apply the process's current mask to OpenMP: poll (bal_node_poll()), and
 * when the mask changed (the first call after attaching always reports a
 * change) set the number of threads of later parallel regions to the
 * mask's CPU count (omp_set_num_threads(); 1 for an empty mask, i.e. a
 * process a manager removed) and, in a registry of real CPUs, open one
 * parallel region of that many threads in which thread t binds itself to
 * the t-th CPU of the mask (bal_node_bind_thread()). OpenMP runtimes reuse
 * the same threads, in the same team positions, for later regions of that
 * size, so they stay one per CPU; set OMP_PROC_BIND=false (or leave it
 * unset) so that the runtime does not move them itself. With a virtual
 * registry nothing is bound.
 * @param p       the attachment.
 * @param changed receives whether the mask changed (may be NULL).
 * @return BAL_OK; the error of bal_node_poll() (BAL_ENOTFOUND after a
 *         removal: the thread count is then set to 1) or of
 *         bal_node_bind_thread() (BAL_ESYS: binding refused; the thread
 *         count is set all the same).
 * Thread-safety: call from the thread that opens the parallel regions,
 * outside any region (omp_set_num_threads() sets that thread's count);
 * one thread at a time per handle, like bal_node_poll().
 */
static inline int bal_node_omp_apply(bal_node_proc *p, bool *changed) {
  bal_node_mask mask;
  bool moved = false;
  int rc = bal_node_poll(p, &mask, &moved);
  if (changed) *changed = moved;
  if (!moved || (rc != BAL_OK && rc != BAL_ENOTFOUND && rc != BAL_ESYS)) return rc;
  int64_t n = bal_node_mask_count(&mask);
  omp_set_num_threads(n > 0 ? (int)n : 1);
  bool is_virtual = true;
  if (n == 0 || bal_node_proc_cpus(p, NULL, &is_virtual) != BAL_OK || is_virtual) return rc;
  int bind_rc = BAL_OK;
#pragma omp parallel num_threads((int)n)
  {
    int t = omp_get_thread_num();
    int r = t < n ? bal_node_bind_thread(p, &mask, t) : BAL_OK;
    if (r != BAL_OK) {
#pragma omp atomic write
      bind_rc = r;
    }
  }
  return rc != BAL_OK ? rc : bind_rc;
}

#endif /* BALLAST_NODE_OMP_H */
