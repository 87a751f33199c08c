/* bal_swf_scale(): a window of a trace, on a smaller machine, run faster —
 * the one transformation behind a trace replay on a sandbox and the
 * simulation of that same replay (rules in ballast/swf.h). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <ballast/swf.h>

int bal_swf_scaling_init(bal_swf_scaling *sc) {
  if (!sc) return BAL_EINVAL;
  memset(sc, 0, sizeof *sc);
  sc->from_id = -1;
  sc->speedup = 1.0;
  sc->time_unit = 1;
  return BAL_OK;
}

/* ceil(x / k) for x >= 0, exact when k is 1. */
static int64_t div_up(int64_t x, double k) { return k == 1.0 ? x : (int64_t)ceil((double)x / k); }

static bool valid(const bal_swf_scaling *sc) {
  if (sc->from_id < -1 || sc->from_index < 0 || sc->count < 0 || !isfinite(sc->speedup) ||
      sc->speedup < 1.0 || sc->min_runtime < 0 || sc->time_unit < 1 || sc->nodes < 0)
    return false;
  if (sc->nodes == 0) return true;
  return sc->cores_per_node >= 1 && sc->trace_nodes >= 1 && sc->trace_cores >= 1 &&
         sc->nodes <= INT64_MAX / sc->cores_per_node &&
         sc->trace_nodes <= INT64_MAX / sc->trace_cores;
}

/* Index of the window's first job, or a negative code. */
static int64_t window_start(const bal_swf_trace *t, const bal_swf_scaling *sc) {
  if (sc->from_id >= 0) {
    for (int64_t i = 0; i < t->njobs; i++)
      if (t->jobs[i].id == sc->from_id) return i;
    return BAL_ENOTFOUND;
  }
  if (t->njobs == 0) return 0;
  return sc->from_index < t->njobs ? sc->from_index : BAL_EINVAL;
}

/* One job under sc; false when a value would overflow. */
static bool scale_job(const bal_swf_scaling *sc, int64_t s0, const bal_swf_job *in, bal_swf_job *o,
                      bal_swf_scaling_stats *st) {
  *o = *in;
  o->submit = (int64_t)floor((double)(in->submit - s0) / sc->speedup);
  if (sc->speedup == 1.0) o->submit = in->submit - s0;
  o->runtime = div_up(in->runtime, sc->speedup);
  if (o->runtime < sc->min_runtime) {
    st->lengthened++;
    st->lengthened_s += sc->min_runtime - o->runtime;
    o->runtime = sc->min_runtime;
  }
  int64_t req = div_up(in->req_time, sc->speedup);
  if (req < o->runtime) {
    st->req_raised++;
    req = o->runtime;
  }
  if (req > INT64_MAX - sc->time_unit) return false;
  o->req_time = (req + sc->time_unit - 1) / sc->time_unit * sc->time_unit;
  o->runtime_over_req = false;
  if (sc->nodes > 0) {
    int64_t procs = sc->trace_nodes * sc->trace_cores, n = sc->nodes;
    if (in->procs > procs) {
      st->capped++;
    } else {
      if (in->procs > INT64_MAX / sc->nodes) return false;
      n = (in->procs * sc->nodes + procs - 1) / procs;
    }
    o->procs = n * sc->cores_per_node;
  }
  if (o->submit + o->runtime > st->span) st->span = o->submit + o->runtime;
  return true;
}

int bal_swf_scale(const bal_swf_trace *trace, const bal_swf_scaling *sc, bal_swf_trace **out,
                  bal_swf_scaling_stats *stats) {
  if (!trace || !sc || !out || trace->njobs < 0 || (!trace->jobs && trace->njobs > 0) ||
      !valid(sc))
    return BAL_EINVAL;
  int64_t i0 = window_start(trace, sc);
  if (i0 < 0) return (int)i0;
  int64_t n = trace->njobs - i0;
  if (sc->count > 0 && sc->count < n) n = sc->count;
  bal_swf_scaling_stats st = {.jobs = n, .first_index = i0};
  bal_swf_trace *t = calloc(1, sizeof *t);
  if (!t || (size_t)n > SIZE_MAX / sizeof *t->jobs) {
    free(t);
    return BAL_ENOMEM;
  }
  t->jobs = malloc((size_t)(n > 0 ? n : 1) * sizeof *t->jobs);
  if (!t->jobs) {
    free(t);
    return BAL_ENOMEM;
  }
  int64_t s0 = n > 0 ? trace->jobs[i0].submit : 0;
  for (int64_t i = 0; i < n; i++) {
    if (!scale_job(sc, s0, &trace->jobs[i0 + i], &t->jobs[i], &st)) {
      bal_swf_trace_destroy(t);
      return BAL_EINVAL;
    }
  }
  t->njobs = n;
  t->header = trace->header;
  if (sc->nodes > 0) {
    t->header.max_nodes = sc->nodes;
    t->header.max_procs = sc->nodes * sc->cores_per_node;
  }
  if (t->header.unix_start_time >= 0) t->header.unix_start_time += s0;
  t->stats = trace->stats;
  t->stats.jobs = n;
  t->stats.runtime_over_req = 0;
  *out = t;
  if (stats) *stats = st;
  return BAL_OK;
}
