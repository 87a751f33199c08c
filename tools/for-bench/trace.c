/* The per-worker trace of --trace: each worker appends to its own array
 * during the run (no sharing), the main thread writes them out afterwards. */
#include "trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "core/clock.h"

typedef struct call_rec {
  int64_t t0_ns, t1_ns; /* from the start of the bal_for call */
  int64_t lo, hi;
} call_rec;

typedef struct worker_log {
  _Alignas(64) call_rec *rec;
  size_t n, cap;
  bool oom;
} worker_log;

static struct {
  FILE *f;
  char *path, *tmp;
  int P;
  worker_log *logs;
  int64_t start_ns;
  const bench_job *job;
} tr;

static void traced_body(int64_t lo, int64_t hi, void *arg) {
  (void)arg;
  worker_log *w = &tr.logs[bal_worker_id()];
  int64_t t0 = bal__now_ns();
  bench_run_range(tr.job, lo, hi, &tr.job->acc[bal_worker_id()]);
  int64_t t1 = bal__now_ns();
  if (w->n == w->cap) {
    size_t cap = w->cap ? 2 * w->cap : 1024;
    call_rec *r = realloc(w->rec, cap * sizeof *r);
    if (!r) {
      w->oom = true;
      return;
    }
    w->rec = r;
    w->cap = cap;
  }
  w->rec[w->n++] = (call_rec){t0 - tr.start_ns, t1 - tr.start_ns, lo, hi};
}

bool trace_open(const char *path, int P) {
  size_t len = strlen(path);
  tr.path = malloc(len + 1);
  tr.tmp = malloc(len + 16);
  tr.logs = aligned_alloc(64, sizeof(worker_log) * (size_t)P);
  if (!tr.path || !tr.tmp || !tr.logs) {
    fprintf(stderr, PROG ": --trace: out of memory\n");
    return false;
  }
  memset(tr.logs, 0, sizeof(worker_log) * (size_t)P);
  tr.P = P;
  memcpy(tr.path, path, len + 1);
  snprintf(tr.tmp, len + 16, "%s.tmp%ld", path, (long)getpid());
  if (!(tr.f = fopen(tr.tmp, "w"))) {
    fprintf(stderr, PROG ": --trace: cannot create '%s'\n", tr.tmp);
    return false;
  }
  fprintf(tr.f, "# " PROG " trace: one line per body call of one bal_for run per workload;\n"
                "# times in seconds from the start of the call, indices [begin, end).\n"
                "# worker start_s end_s begin end\n");
  return true;
}

bool trace_run(bal_pool *on, bal_loop *loop, int64_t grain, const char *mode,
               const char *workload, const bench_job *job) {
  for (int w = 0; w < tr.P; w++) tr.logs[w].n = 0;
  memset(job->acc, 0, sizeof(acc_slot) * (size_t)job->threads);
  tr.job = job;
  tr.start_ns = bal__now_ns();
  int rc = loop ? bal_for_learn(on, loop, 0, job->n, grain, traced_body, NULL)
                : bal_for(on, 0, job->n, grain, traced_body, NULL);
  if (rc != BAL_OK) {
    fprintf(stderr, PROG ": --trace: bal_for_learn failed: %s\n", bal_strerror(rc));
    return false;
  }
  /* Two blank lines end a data block; its name is the comment that opens it
   * (gnuplot: index "spin mid"). */
  fprintf(tr.f, "\n\n# %s %s%s\n", mode, workload, loop ? " learn" : "");
  for (int w = 0; w < tr.P; w++) {
    if (tr.logs[w].oom) {
      fprintf(stderr, PROG ": --trace: out of memory\n");
      return false;
    }
    for (size_t k = 0; k < tr.logs[w].n; k++) {
      const call_rec *r = &tr.logs[w].rec[k];
      fprintf(tr.f, "%d %.9f %.9f %lld %lld\n", w, (double)r->t0_ns * 1e-9,
              (double)r->t1_ns * 1e-9, (long long)r->lo, (long long)r->hi);
    }
  }
  return true;
}

bool trace_close(bool ok) {
  if (tr.f) {
    bool written = !ferror(tr.f);
    if (fclose(tr.f) != 0) written = false;
    if (ok && !written) fprintf(stderr, PROG ": --trace: error writing '%s'\n", tr.tmp);
    ok = ok && written;
    if (ok && rename(tr.tmp, tr.path) != 0) {
      fprintf(stderr, PROG ": --trace: cannot rename '%s' to '%s'\n", tr.tmp, tr.path);
      ok = false;
    }
    if (!ok) unlink(tr.tmp);
  }
  for (int w = 0; w < tr.P && tr.logs; w++) free(tr.logs[w].rec);
  free(tr.logs);
  free(tr.path);
  free(tr.tmp);
  memset(&tr, 0, sizeof tr);
  return ok;
}
