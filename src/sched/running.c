/* Indexes over running jobs: the array sorted by predicted end (reservations
 * walk it from the earliest end) and the buckets of shareable jobs by node
 * count (mate selection looks up sizes directly). A sorted array with
 * memmove beats a tree here: a few thousand running jobs at most. */
#include <string.h>

#include "sim.h"

static bool before(const bal__sched_sim *s, int32_t a, int32_t b) {
  double pa = s->jobs[a].pred_end, pb = s->jobs[b].pred_end;
  return pa < pb || (pa == pb && a < b);
}

/* First position whose job does not come before j. */
static int32_t lower(const bal__sched_sim *s, int32_t j) {
  int32_t lo = 0, hi = s->nrun;
  while (lo < hi) {
    int32_t mid = lo + (hi - lo) / 2;
    if (before(s, s->run[mid], j)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

void bal__sched_run_insert(bal__sched_sim *s, int32_t j) {
  int32_t pos = lower(s, j);
  memmove(s->run + pos + 1, s->run + pos, (size_t)(s->nrun - pos) * sizeof *s->run);
  s->run[pos] = j;
  s->nrun++;
  s->jobs[j].run_pos = 1;
  s->psd_sum += s->jobs[j].psd;
}

void bal__sched_run_remove(bal__sched_sim *s, int32_t j) {
  int32_t pos = lower(s, j); /* (pred_end, index) is unique: this is j */
  memmove(s->run + pos, s->run + pos + 1, (size_t)(s->nrun - pos - 1) * sizeof *s->run);
  s->nrun--;
  s->jobs[j].run_pos = -1;
  s->psd_sum -= s->jobs[j].psd;
}

void bal__sched_run_set_pred(bal__sched_sim *s, int32_t j, double pred) {
  sjob *jb = &s->jobs[j];
  bool running = jb->run_pos >= 0;
  if (running) bal__sched_run_remove(s, j);
  jb->pred_end = pred;
  jb->psd = (pred - jb->submit) / (jb->req > 1 ? jb->req : 1);
  if (running) bal__sched_run_insert(s, j);
}

static void size_insert(bal__sched_sim *s, int64_t w) {
  int32_t lo = 0, hi = s->nsizes;
  while (lo < hi) {
    int32_t mid = lo + (hi - lo) / 2;
    if (s->sizes[mid] < w) lo = mid + 1;
    else hi = mid;
  }
  memmove(s->sizes + lo + 1, s->sizes + lo, (size_t)(s->nsizes - lo) * sizeof *s->sizes);
  s->sizes[lo] = w;
  s->nsizes++;
}

static void size_erase(bal__sched_sim *s, int64_t w) {
  int32_t i = 0;
  while (s->sizes[i] != w) i++;
  memmove(s->sizes + i, s->sizes + i + 1, (size_t)(s->nsizes - i - 1) * sizeof *s->sizes);
  s->nsizes--;
}

void bal__sched_bucket_add(bal__sched_sim *s, int32_t j) {
  sjob *jb = &s->jobs[j];
  int64_t w = jb->nodes;
  jb->bprev = -1;
  jb->bnext = s->bucket_head[w];
  if (jb->bnext >= 0) s->jobs[jb->bnext].bprev = j;
  s->bucket_head[w] = j;
  if (s->bucket_count[w]++ == 0) size_insert(s, w);
  jb->in_bucket = true;
}

void bal__sched_bucket_remove(bal__sched_sim *s, int32_t j) {
  sjob *jb = &s->jobs[j];
  if (!jb->in_bucket) return;
  int64_t w = jb->nodes;
  if (jb->bprev >= 0) s->jobs[jb->bprev].bnext = jb->bnext;
  else s->bucket_head[w] = jb->bnext;
  if (jb->bnext >= 0) s->jobs[jb->bnext].bprev = jb->bprev;
  if (--s->bucket_count[w] == 0) size_erase(s, w);
  jb->in_bucket = false;
}
