/* MPI tests of the pop module, linked with libballast_pop.so (its MPI_Init
 * starts measuring, its wrappers time the calls):
 *   exact T_MS ITERS  rank r sleeps (r + 1) x T ms per iteration, then
 *                     MPI_Allreduce: LB and CE within 2% of their closed
 *                     forms (avg/max of (r + 1) = (P + 1) / (2P); CE ~ 1),
 *                     nested regions add up, the per-rank table is right
 *   regions           misuse of regions: stopped twice, never started,
 *                     started twice, the implicit region, unknown ids
 *   mismatch          a region registered on some ranks only: the report
 *                     is refused on every rank
 *   figures           bal_pop_figures_compute() on hand-made times, nodes
 *                     included (LB = LB_in x LB_out)
 *   pool              bal_pop_pool_load_balance(): avg/max of the workers'
 *                     busy times of the pool's last loop
 * Sleeping, not computing, so that the times are wall time on a loaded,
 * oversubscribed machine. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ballast/pop.h>

#include "mpi_check.h"

static int rank, size;

static void sleep_ms(double ms) {
  struct timespec ts = {(time_t)(ms / 1000), (long)(fmod(ms, 1000.0) * 1e6)};
  while (nanosleep(&ts, &ts) != 0) {
  }
}

static bool near(double x, double want, double rel) { return fabs(x - want) <= rel * fabs(want); }

static void exact(double t_ms, int iters) {
  int outer = bal_pop_region_register("loop");
  int work = bal_pop_region_register("compute");
  int comm = bal_pop_region_register("allreduce");
  CHECK(outer > 0 && work > 0 && comm > 0 && outer != work && work != comm);
  CHECK(bal_pop_region_register("loop") == outer);
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK(bal_pop_region_start(outer) == BAL_OK);
  for (int i = 0; i < iters; i++) {
    CHECK(bal_pop_region_start(work) == BAL_OK);
    sleep_ms((rank + 1) * t_ms);
    CHECK(bal_pop_region_stop(work) == BAL_OK);
    CHECK(bal_pop_region_start(comm) == BAL_OK);
    int x = rank, s = 0;
    MPI_Allreduce(&x, &s, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(s == size * (size - 1) / 2);
    CHECK(bal_pop_region_stop(comm) == BAL_OK);
  }
  CHECK(bal_pop_region_stop(outer) == BAL_OK);

  bal_pop_report *rep = NULL;
  CHECK(bal_pop_report_create(MPI_COMM_WORLD, &rep) == BAL_OK);
  CHECK(bal_pop_report_ranks(rep) == size);
  CHECK(bal_pop_report_regions(rep) == 4);
  CHECK(strcmp(bal_pop_report_region_name(rep, BAL_POP_GLOBAL), "global") == 0);
  CHECK(strcmp(bal_pop_report_region_name(rep, outer), "loop") == 0);
  bal_pop_figures f;
  CHECK(bal_pop_report_figures(rep, outer, &f) == BAL_OK);
  double lb = (size + 1) / (2.0 * size);
  if (rank == 0)
    printf("loop: LB %.4f (closed form %.4f) CE %.4f (1) PE %.4f elapsed %.3f s\n",
           f.load_balance, lb, f.communication_efficiency, f.parallel_efficiency, f.elapsed_s);
  CHECK(near(f.load_balance, lb, 0.02));
  CHECK(near(f.communication_efficiency, 1.0, 0.02));
  CHECK(near(f.parallel_efficiency, f.load_balance * f.communication_efficiency, 1e-12));
  double max_want = size * t_ms * 1e-3 * iters;
  CHECK(fabs(f.useful_max_s - max_want) <= 0.02 * max_want + 0.04 * iters);
  CHECK(f.nodes == 1 && near(f.load_balance_in, f.load_balance, 1e-12) &&
        f.load_balance_out == 1.0);
  /* Nested regions add up on every rank: loop = compute + allreduce (plus
   * the region calls themselves), MPI time only in allreduce. */
  for (int k = 0; k < size; k++) {
    bal_pop_rank_times lo, wk, cm, gl;
    CHECK(bal_pop_report_rank(rep, outer, k, &lo) == BAL_OK);
    CHECK(bal_pop_report_rank(rep, work, k, &wk) == BAL_OK);
    CHECK(bal_pop_report_rank(rep, comm, k, &cm) == BAL_OK);
    CHECK(bal_pop_report_rank(rep, BAL_POP_GLOBAL, k, &gl) == BAL_OK);
    CHECK(wk.mpi_s == 0.0 && wk.calls == 0);
    CHECK(cm.calls == iters && lo.calls == iters && gl.calls >= iters + 1);
    CHECK(lo.mpi_s == cm.mpi_s);
    CHECK(fabs(lo.elapsed_s - (wk.elapsed_s + cm.elapsed_s)) < 1e-3);
    /* one rank's sleeping, stretched at every wake-up when the machine is
     * loaded (up to 26 ms each, measured at load 27 on these 2 cores): 2%
     * plus 40 ms per sleep */
    double want = (k + 1) * t_ms * 1e-3 * iters;
    CHECK(fabs(wk.useful_s - want) <= 0.02 * want + 0.04 * iters);
    CHECK(gl.elapsed_s >= lo.elapsed_s && gl.mpi_s >= lo.mpi_s);
    CHECK(lo.node == 0);
  }
  bal_pop_report_destroy(rep);
}

static void regions(void) {
  int r = bal_pop_region_register("r");
  CHECK(r > 0);
  CHECK(bal_pop_region_stop(r) == BAL_EINVAL); /* never started */
  CHECK(bal_pop_region_start(r) == BAL_OK);
  CHECK(bal_pop_region_start(r) == BAL_EBUSY);
  CHECK(bal_pop_region_stop(r) == BAL_OK);
  CHECK(bal_pop_region_stop(r) == BAL_EINVAL); /* stopped twice */
  CHECK(bal_pop_region_start(BAL_POP_GLOBAL) == BAL_EINVAL);
  CHECK(bal_pop_region_stop(BAL_POP_GLOBAL) == BAL_EINVAL);
  CHECK(bal_pop_region_start(-1) == BAL_EINVAL && bal_pop_region_start(99) == BAL_EINVAL);
  CHECK(bal_pop_region_register(NULL) == BAL_EINVAL);
  CHECK(bal_pop_region_register("") == BAL_EINVAL);
  CHECK(bal_pop_region_register("a\tb") == BAL_EINVAL);
  char longname[BAL_POP_MAX_NAME + 2];
  memset(longname, 'x', sizeof longname - 1);
  longname[sizeof longname - 1] = '\0';
  CHECK(bal_pop_region_register(longname) == BAL_EINVAL);
  longname[BAL_POP_MAX_NAME] = '\0';
  CHECK(bal_pop_region_register(longname) > 0);
  CHECK(bal_pop_region_register("global") == BAL_POP_GLOBAL);
  char name[16];
  int rc = 0;
  for (int i = 0; rc >= 0; i++) {
    snprintf(name, sizeof name, "n%d", i);
    rc = bal_pop_region_register(name);
  }
  CHECK(rc == BAL_ERANGE);
  CHECK(bal_pop_report_create(MPI_COMM_WORLD, NULL) == BAL_EINVAL);
  bal_pop_report *rep = NULL;
  CHECK(bal_pop_report_create(MPI_COMM_WORLD, &rep) == BAL_OK);
  CHECK(bal_pop_report_regions(rep) == BAL_POP_MAX_REGIONS);
  bal_pop_figures f;
  bal_pop_rank_times t;
  CHECK(bal_pop_report_figures(rep, BAL_POP_MAX_REGIONS, &f) == BAL_EINVAL);
  CHECK(bal_pop_report_rank(rep, 0, size, &t) == BAL_EINVAL);
  CHECK(bal_pop_report_region_name(rep, -1) == NULL);
  CHECK(bal_pop_report_regions(NULL) == BAL_EINVAL);
  bal_pop_report_destroy(rep);
  bal_pop_report_destroy(NULL);
}

static void mismatch(void) {
  CHECK(bal_pop_region_register("everyone") > 0);
  if (rank % 2 == 1) CHECK(bal_pop_region_register("odd ranks only") > 0);
  bal_pop_report *rep = NULL;
  CHECK(bal_pop_report_create(MPI_COMM_WORLD, &rep) == BAL_EINVAL);
  CHECK(rep == NULL);
}

static void figures(void) {
  /* 4 ranks on 2 nodes: node 0 has useful 1 and 3, node 1 has 2 and 2.
   * avg 2, max 3: LB 2/3; node averages 2 and 2: LB_in 2/3, LB_out 1. */
  double el[4] = {4, 4, 4, 4}, us[4] = {1, 3, 2, 2};
  int node[4] = {0, 0, 1, 1};
  bal_pop_figures f;
  CHECK(bal_pop_figures_compute(4, el, us, node, &f) == BAL_OK);
  CHECK(f.nodes == 2 && f.ranks == 4);
  CHECK(near(f.load_balance, 2.0 / 3, 1e-12) && near(f.load_balance_in, 2.0 / 3, 1e-12));
  CHECK(near(f.load_balance_out, 1.0, 1e-12) && near(f.communication_efficiency, 0.75, 1e-12));
  CHECK(near(f.parallel_efficiency, 0.5, 1e-12));
  /* node 1 with 4 and 4: avg 3, max 4, node averages 2 and 4: LB 3/4,
   * LB_in 4/4, LB_out 3/4 */
  us[2] = us[3] = 4;
  CHECK(bal_pop_figures_compute(4, el, us, node, &f) == BAL_OK);
  CHECK(near(f.load_balance, 0.75, 1e-12) && near(f.load_balance_in, 1.0, 1e-12));
  CHECK(near(f.load_balance_out, 0.75, 1e-12));
  /* nothing useful: undefined, not a number */
  double zero[2] = {0, 0};
  CHECK(bal_pop_figures_compute(2, zero, zero, NULL, &f) == BAL_OK);
  CHECK(isnan(f.load_balance) && isnan(f.communication_efficiency));
  double neg[2] = {-1, 0};
  CHECK(bal_pop_figures_compute(2, el, neg, NULL, &f) == BAL_EINVAL);
  CHECK(bal_pop_figures_compute(0, el, us, NULL, &f) == BAL_EINVAL);
  CHECK(bal_pop_figures_compute(2, el, us, NULL, NULL) == BAL_EINVAL);
  int badnode[2] = {0, -1};
  CHECK(bal_pop_figures_compute(2, el, us, badnode, &f) == BAL_EINVAL);
}

/* Index i sleeps (i + 1) ms: worker figures differ, whatever the deal. */
static void sleepy(int64_t b, int64_t e, void *arg) {
  (void)arg;
  for (int64_t i = b; i < e; i++) sleep_ms((double)(i + 1));
}

static void pool(void) {
  bal_pool *p = NULL;
  CHECK(bal_pool_create(3, &p) == BAL_OK);
  double lb = -1;
  CHECK(bal_pop_pool_load_balance(p, &lb) == BAL_ENOTSUP); /* no loop yet */
  CHECK(bal_pop_pool_load_balance(NULL, &lb) == BAL_EINVAL);
  CHECK(bal_pop_pool_load_balance(p, NULL) == BAL_EINVAL);
  CHECK(bal_for(p, 0, 12, 1, sleepy, NULL) == BAL_OK);
  CHECK(bal_pop_pool_load_balance(p, &lb) == BAL_OK);
  double sum = 0, max = 0;
  int n = bal_pool_size(p);
  for (int k = 0; k < n; k++) {
    bal_for_stats st;
    CHECK(bal_for_last_stats(p, k, &st) == BAL_OK);
    sum += st.busy_seconds;
    if (st.busy_seconds > max) max = st.busy_seconds;
  }
  CHECK(max > 0 && lb > 0 && lb <= 1);
  CHECK(near(lb, sum / n / max, 1e-12));
  bal_pool_destroy(p);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(argc >= 2);
  if (strcmp(argv[1], "exact") == 0 && argc == 4)
    exact(atof(argv[2]), atoi(argv[3]));
  else if (strcmp(argv[1], "regions") == 0)
    regions();
  else if (strcmp(argv[1], "mismatch") == 0)
    mismatch();
  else if (strcmp(argv[1], "figures") == 0)
    figures();
  else if (strcmp(argv[1], "pool") == 0)
    pool();
  else
    CHECK(!"unknown scenario");
  MPI_Finalize();
  return 0;
}
