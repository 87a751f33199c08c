/* libFuzzer target for the SWF reader: any bytes, strict and lenient, must
 * give BAL_OK or BAL_EFORMAT (never crash, leak or read out of bounds), and
 * an accepted trace must be sorted with resolved fields. A small simulation
 * runs on what was accepted, under a policy of the registry picked by the
 * input's length, and must keep its node accounting. Build: clang
 * -fsanitize=fuzzer,address (tests/fuzz/run.sh). */
#include <stdint.h>
#include <stdlib.h>

#include <ballast/ballast.h>

static void check(const bal_swf_trace *t) {
  for (int64_t i = 0; i < t->njobs; i++) {
    const bal_swf_job *j = &t->jobs[i];
    if (j->procs < 1 || j->runtime < 0 || j->req_time < 0) abort();
    if (i > 0 && t->jobs[i - 1].submit > j->submit) abort();
  }
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
