/* Named regions (ballast/pop.h): start and stop record the clock and the
 * process's MPI counters; the differences are the region's times. */
#include <string.h>

#include "core/clock.h"
#include "pop_internal.h"

void bal__pop_region_now(const bal__pop_region *r, int64_t now_ns, int64_t *elapsed_ns,
                         int64_t *mpi_ticks, int64_t *calls) {
  *elapsed_ns = r->elapsed_ns;
  *mpi_ticks = r->mpi_ticks;
  *calls = r->calls;
  if (r->running) {
    *elapsed_ns += now_ns - r->start_ns;
    *mpi_ticks += bal__pop.mpi_ticks - r->start_mpi_ticks;
    *calls += bal__pop.calls - r->start_calls;
  }
}

int bal_pop_region_register(const char *name) {
  if (!bal__pop.initialized) return BAL_ENOTSUP;
  if (name == NULL || name[0] == '\0' || strlen(name) > BAL_POP_MAX_NAME) return BAL_EINVAL;
  /* Names go to reports one per line, tab-separated (pmpi/init.c). */
  for (const char *c = name; *c; c++)
    if ((unsigned char)*c < 0x20 || *c == 0x7f) return BAL_EINVAL;
  if (strcmp(name, "global") == 0) return BAL_POP_GLOBAL;
  for (int i = 1; i < bal__pop.nregions; i++)
    if (strcmp(bal__pop.region[i].name, name) == 0) return i;
  if (bal__pop.nregions >= BAL_POP_MAX_REGIONS) return BAL_ERANGE;
  bal__pop_region *r = &bal__pop.region[bal__pop.nregions];
  memset(r, 0, sizeof *r);
  strcpy(r->name, name);
  return bal__pop.nregions++;
}

/* BAL_OK if id names a region the user may start or stop. */
static int user_region(int id) {
  if (!bal__pop.initialized) return BAL_ENOTSUP;
  if (id <= BAL_POP_GLOBAL || id >= bal__pop.nregions) return BAL_EINVAL;
  return BAL_OK;
}

int bal_pop_region_start(int id) {
  int rc = user_region(id);
  if (rc != BAL_OK) return rc;
  bal__pop_region *r = &bal__pop.region[id];
  if (r->running) return BAL_EBUSY;
  r->running = true;
  r->start_mpi_ticks = bal__pop.mpi_ticks;
  r->start_calls = bal__pop.calls;
  r->start_ns = bal__now_ns();
  return BAL_OK;
}

int bal_pop_region_stop(int id) {
  int64_t now = bal__now_ns();
  int rc = user_region(id);
  if (rc != BAL_OK) return rc;
  bal__pop_region *r = &bal__pop.region[id];
  if (!r->running) return BAL_EINVAL;
  bal__pop_region_now(r, now, &r->elapsed_ns, &r->mpi_ticks, &r->calls);
  r->running = false;
  return BAL_OK;
}
