/* libFuzzer target for the SWF reader: any bytes, strict and lenient, must
 * give BAL_OK or BAL_EFORMAT (never crash, leak or read out of bounds), and
 * an accepted trace must be sorted with resolved fields. A small simulation
 * runs on what was accepted, under a policy of the registry picked by the
 * input's length, and must keep its node accounting. The same bytes fed
 * in two pieces, as the file reader feeds its chunks, must read the same.
 * Build: clang -fsanitize=fuzzer,address (tests/fuzz/run.sh). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <ballast/ballast.h>

#include "sched/swf_internal.h"

static void check(const bal_swf_trace *t) {
  for (int64_t i = 0; i < t->njobs; i++) {
    const bal_swf_job *j = &t->jobs[i];
    if (j->procs < 1 || j->runtime < 0 || j->req_time < 0) abort();
    if (i > 0 && t->jobs[i - 1].submit > j->submit) abort();
  }
}

/* The file reader's way: the same bytes in two pieces, cut where the
 * input's second byte says, the unfinished line carried into the second
 * piece, must give what the memory reader gave in one (rc, the error's line
 * and message, or the jobs and counts). */
static void check_pieces(const uint8_t *data, size_t size, const bal_swf_options *opt, int rc,
                         const bal_swf_trace *t, const bal_swf_error *err) {
  size_t cut = size > 1 ? data[1] * size / 256 : 0;
  char *buf = malloc(size + 1);
  if (!buf) abort();
  memcpy(buf, data, cut);
  bal_swf_trace t2 = {0};
  bal_swf_error e2;
  bal__sched_swf_parser p;
  bal__sched_swf_begin(&p, opt, &t2, &e2);
  size_t used;
  int rc2 = bal__sched_swf_feed(&p, buf, cut, false, &used);
  if (rc2 == BAL_OK) {
    size_t keep = cut - used;
    memmove(buf, buf + used, keep);
    memcpy(buf + keep, data + cut, size - cut);
    rc2 = bal__sched_swf_feed(&p, buf, keep + size - cut, true, &used);
  }
  if (rc2 == BAL_OK) rc2 = bal__sched_swf_finish(&p);
  bal__sched_swf_abandon(&p);
  if (rc2 != rc) abort();
  if (rc == BAL_EFORMAT && (e2.line != err->line || strcmp(e2.message, err->message))) abort();
  if (rc == BAL_OK) {
    if (t2.njobs != t->njobs || memcmp(&t2.stats, &t->stats, sizeof t2.stats)) abort();
    for (int64_t i = 0; i < t->njobs; i++)
      if (t2.jobs[i].id != t->jobs[i].id || t2.jobs[i].submit != t->jobs[i].submit) abort();
  }
  free(t2.jobs);
  free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  bal_swf_options opt;
  bal_swf_options_init(&opt);
  opt.lenient = size > 0 && (data[0] & 1);
  bal_swf_trace *t = NULL;
  bal_swf_error err;
  int rc = bal_swf_read_mem((const char *)data, size, &opt, &t, &err);
  if (rc != BAL_OK && rc != BAL_EFORMAT) abort();
  check_pieces(data, size, &opt, rc, t, &err);
  if (rc != BAL_OK) return 0;
  check(t);
  if (t->njobs <= 64) {
    bal_sched_config cfg;
    bal_sched_config_init(&cfg);
    cfg.nodes = 8;
    cfg.cores_per_node = 4;
    int npolicies = 0;
    while (bal_sched_policy_name(npolicies)) npolicies++;
    cfg.policy = bal_sched_policy_name((int)(size % (size_t)npolicies));
    cfg.check_invariants = true;
    bal_sched_result *r = NULL;
    if (bal_sched_run(t, &cfg, &r) == BAL_OK) {
      if (bal_sched_result_summary(r)->invariant_violations != 0) abort();
      bal_sched_result_destroy(r);
    }
  }
  bal_swf_trace_destroy(t);
  return 0;
}
