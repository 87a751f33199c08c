#include "record.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

bool rec_init(record *r, const char *prog, int64_t items, const char *csv_path, bool json) {
  memset(r, 0, sizeof *r);
  r->prog = prog;
  r->items = items;
  r->last_active = -1;
  r->window = 1;
  r->json = json;
  if (json) {
    r->cap = 1024;
    r->e = malloc(sizeof *r->e * (size_t)r->cap);
    if (!r->e) {
      fprintf(stderr, "%s: out of memory\n", prog);
      return false;
    }
  }
  if (csv_path) {
    if (!out_open(&r->csv_out, prog, "--csv", csv_path)) {
      free(r->e);
      return false;
    }
    r->csv = true;
    fprintf(r->csv_out.f, "iteration,t_s,time_s,active,workers_used,items_per_s\n");
  }
  return true;
}

/* Merge entries in pairs: half as many, each twice the window. */
static void halve(record *r) {
  int64_t k = 0;
  for (int64_t i = 0; i < r->ne; i += 2, k++) {
    rec_entry m = r->e[i];
    if (i + 1 < r->ne) {
      const rec_entry *b = &r->e[i + 1];
      m.count += b->count;
      m.t_s = b->t_s;
      m.time_s += b->time_s;
      m.active = b->active;
      if (b->used > m.used) m.used = b->used;
    }
    r->e[k] = m;
  }
  r->ne = k;
  r->window *= 2;
}

static bool add_json(record *r, double t_s, double time_s, int active, int used) {
  rec_entry *last = r->ne ? &r->e[r->ne - 1] : NULL;
  if (last && last->count < r->window) { /* the open window */
    last->count++;
    last->t_s = t_s;
    last->time_s += time_s;
    last->active = active;
    if (used > last->used) last->used = used;
    return true;
  }
  if (r->ne == REC_JSON_MAX) halve(r);
  if (r->ne == r->cap) {
    int64_t cap = r->cap * 2 > REC_JSON_MAX ? REC_JSON_MAX : r->cap * 2;
    rec_entry *e = realloc(r->e, sizeof *e * (size_t)cap);
    if (!e) return false;
    r->e = e;
    r->cap = cap;
  }
  r->e[r->ne++] = (rec_entry){.first = r->n, .count = 1, .t_s = t_s, .time_s = time_s,
                              .active = active, .used = used};
  return true;
}

double rec_phase_rate(const record *r) {
  int64_t n = r->phase_n;
  double t = r->phase_sum_s;
  if (n > 1) {
    n--;
    t -= r->phase_first_time_s;
  }
  return t > 0 ? (double)r->items * (double)n / t : 0.0;
}

bool rec_add(record *r, double t_s, double time_s, int active, int used, double *before_rate,
             bool *ok) {
  *ok = true;
  if (r->csv)
    fprintf(r->csv_out.f, "%" PRId64 ",%.6f,%.6f,%d,%d,%.1f\n", r->n, t_s, time_s, active, used,
            (double)r->items / time_s);
  if (r->json && !add_json(r, t_s, time_s, active, used)) {
    fprintf(stderr, "%s: out of memory after %" PRId64 " iterations\n", r->prog, r->n);
    *ok = false;
  }
  bool changed = active != r->last_active;
  /* The iteration after which the active count changed opens the new
   * phase (the one in which the change landed: left out of the phase's
   * rate when the phase has others). */
  if (changed && before_rate) *before_rate = rec_phase_rate(r);
  if (changed) {
    r->phase_first = r->n;
    r->phase_n = 0;
    r->phase_sum_s = 0;
  }
  if (r->phase_n == 0) r->phase_first_time_s = time_s;
  r->phase_n++;
  r->phase_sum_s += time_s;
  r->n++;
  r->last_t_s = t_s;
  r->last_active = active;
  return changed;
}

bool rec_finish_csv(record *r, bool keep) {
  if (!r->csv) return true;
  r->csv = false;
  if (keep) return out_commit(&r->csv_out);
  out_discard(&r->csv_out);
  return true;
}

void rec_free(record *r) {
  free(r->e);
  r->e = NULL;
}
