/* The pop API without libballast_pop.so (linked with the static library
 * only, so nothing is intercepted): calls before bal_pop_init(),
 * BALLAST_LEND read strictly, MPI time counted only through
 * bal_pop_mpi_enter/exit and bal_pop_mpi_poll_enter/exit, nested pairs
 * once. One rank.
 *   lend VALUE   BALLAST_LEND=VALUE: 0 and 1 accepted (1 warns once that
 *                this build cannot lend), anything else BAL_EINVAL, logged
 *                naming the variable; measuring starts either way */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ballast/log.h>
#include <ballast/pop.h>

#include "mpi_check.h"

static int warnings, errors;
static char last[256];

static void capture(bal_log_level level, const char *module, const char *msg, void *user) {
  (void)user;
  if (strcmp(module, "pop") != 0) return;
  if (level == BAL_LOG_WARN) warnings++;
  if (level == BAL_LOG_ERROR) errors++;
  snprintf(last, sizeof last, "%s", msg);
}

static void sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0) {
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  CHECK(argc == 3 && strcmp(argv[1], "lend") == 0);
  CHECK(bal_log_set_callback(capture, BAL_LOG_DEBUG, NULL) == BAL_OK);
  /* before bal_pop_init(): nothing to measure with */
  bal_pop_report *rep = NULL;
  CHECK(bal_pop_region_register("r") == BAL_ENOTSUP);
  CHECK(bal_pop_region_start(1) == BAL_ENOTSUP && bal_pop_region_stop(1) == BAL_ENOTSUP);
  CHECK(bal_pop_report_create(MPI_COMM_WORLD, &rep) == BAL_ENOTSUP);
  bal_pop_mpi_enter(); /* ignored */
  bal_pop_mpi_exit();

  const char *v = argv[2];
  setenv("BALLAST_LEND", v, 1);
  int rc = bal_pop_init();
  if (strcmp(v, "0") == 0) {
    CHECK(rc == BAL_OK && warnings == 0 && errors == 0);
  } else if (strcmp(v, "1") == 0) {
    /* no node registry to lend through (BALLAST_NODE_REGISTRY unset):
     * the attach error, logged; measuring goes on, lending stays off */
    CHECK(rc < 0 && errors == 1);
    CHECK(strstr(last, "BALLAST_LEND=1") != NULL && strstr(last, "does not lend") != NULL);
  } else {
    CHECK(rc == BAL_EINVAL && errors == 1);
    CHECK(strstr(last, "BALLAST_LEND") != NULL && strstr(last, "expected 1") != NULL);
  }
  CHECK(bal_pop_init() == BAL_OK); /* again: nothing happens, nothing logged */
  CHECK(warnings + errors <= 1);

  /* MPI time only where announced; nested pairs count once */
  MPI_Barrier(MPI_COMM_WORLD); /* not announced: useful time here */
  bal_pop_mpi_enter();
  bal_pop_mpi_enter();
  sleep_ms(50);
  bal_pop_mpi_exit();
  bal_pop_mpi_exit();
  bal_pop_mpi_exit(); /* one too many: ignored */
  sleep_ms(20);
  /* a poll is MPI time too, closed by the same exit; nested once */
  bal_pop_mpi_poll_enter();
  bal_pop_mpi_poll_enter();
  bal_pop_mpi_enter();
  sleep_ms(30);
  bal_pop_mpi_exit();
  bal_pop_mpi_exit();
  bal_pop_mpi_exit();
  CHECK(bal_pop_report_create(MPI_COMM_WORLD, &rep) == BAL_OK);
  bal_pop_rank_times t;
  CHECK(bal_pop_report_rank(rep, BAL_POP_GLOBAL, 0, &t) == BAL_OK);
  CHECK(t.calls == 2);
  CHECK(t.mpi_s >= 0.080 && t.mpi_s < 0.080 + 0.04);
  CHECK(t.useful_s >= 0.020 && t.elapsed_s >= 0.070);
  bal_pop_report_destroy(rep);
  bal_log_set_callback(NULL, BAL_LOG_ERROR, NULL);
  MPI_Finalize();
  return 0;
}
