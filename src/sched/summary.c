/* The summary metrics of job outcomes (bal_sched_summarize()): one writer
 * of the formulas, for the simulator's result and for live outcomes that
 * tools fill into bal_sched_job records. */
#include <math.h>
#include <stdint.h>

#include <ballast/sched.h>

int bal_sched_summarize(const bal_sched_job *jobs, int64_t n, int64_t nodes,
                        bal_sched_summary *out) {
  if (!out || n < 0 || (!jobs && n > 0) || nodes < 1 || nodes > BAL_SCHED_MAX_NODES)
    return BAL_EINVAL;
  bal_sched_summary sum = {0};
  double first = INFINITY, last = -INFINITY, wait = 0, resp = 0, sd = 0, bsd = 0, work = 0;
  int64_t ran = 0;
  for (int64_t i = 0; i < n; i++) {
    const bal_sched_job *o = &jobs[i];
    if (o->rejected) {
      sum.rejected_too_large++;
      continue;
    }
    double submit = (double)o->submit, runtime = (double)o->runtime, r = o->end - submit;
    ran++;
    first = fmin(first, submit);
    last = fmax(last, o->end);
    wait += o->start - submit;
    resp += r;
    sd += r / fmax(runtime, 1.0);
    bsd += fmax(1.0, r / fmax(runtime, 10.0));
    work += (double)o->nodes * runtime;
    if (o->times_mate > 0) sum.mates++;
    if (o->mates > 0) {
      sum.malleable_jobs++;
      sum.mate_selections += o->mates;
    }
  }
  sum.jobs = ran;
  /* no job ran: the averages are undefined, not 0 (sched.h) */
  sum.makespan = sum.avg_wait = sum.avg_response = sum.avg_slowdown = NAN;
  sum.avg_bounded_slowdown = sum.utilization = NAN;
  if (ran > 0) {
    sum.makespan = last - first;
    sum.avg_wait = wait / (double)ran;
    sum.avg_response = resp / (double)ran;
    sum.avg_slowdown = sd / (double)ran;
    sum.avg_bounded_slowdown = bsd / (double)ran;
    sum.utilization = sum.makespan > 0 ? work / ((double)nodes * sum.makespan) : 0;
  }
  *out = sum;
  return BAL_OK;
}
