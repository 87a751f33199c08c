/* `ballast slurm-job`: a malleable test job whose progress follows the CPUs
 * it holds in its node's registry (ballast/node.h). It has `--work` seconds
 * of work at full speed on `--demand` CPUs; each tick it polls its mask (its
 * malleability point) and advances by tick × min(1, held / demand), so a
 * mate shrunk to half its CPUs runs at half speed — the simulator's rate
 * ([D'Amico 2019] §3.4) — and a guest at the share it was lent. The work is
 * sleeping (the CPUs are virtual: a 2-core host models many nodes; see
 * docs/slurm.md). It prints one JSON line when it starts, whenever its
 * mask changes, and when it ends, so a test reads what it held and when.
 * Without a registry (no node manager on the node) it runs at full speed
 * and says so; a registry named on the command line must be usable, as for
 * `ballast node` and `ballast malleable` (a malformed name is a usage
 * error, a missing one an error). */
#define _POSIX_C_SOURCE 200809L
#include <ballast/node.h>
#include <ballast/error.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/cli.h"
#include "common/json.h"
#include "slurmsd.h"

#define PROG "ballast-slurm-job"

static volatile sig_atomic_t stop_signal;
static void on_signal(int sig) { stop_signal = sig; }

static void say(const char *event, double t, double done, int64_t held, const char *mask,
                const char *note) {
  json_writer j;
  json_init(&j, stdout);
  json_object_begin(&j, NULL);
  json_double(&j, "t", t);
  json_string(&j, "event", event);
  json_string(&j, "job", getenv("SLURM_JOB_ID"));
  json_string(&j, "node", getenv("SLURMD_NODENAME"));
  json_int(&j, "pid", (int64_t)getpid());
  json_double(&j, "work_done_s", done);
  if (held >= 0) json_int(&j, "cpus", held);
  if (mask) json_string(&j, "mask", mask);
  if (note) json_string(&j, "note", note);
  json_object_end(&j);
  if (!json_finish(&j)) cli_output_failed("the event line");
}

int main(int argc, char **argv) {
  double work = 0;
  int64_t demand = 0, tick_ms = 100;
  const char *registry = NULL;
  const cli_flag flags[] = {
      CLI_DOUBLE("--work", "S", &work, 0, 1e9, "seconds of work at full speed (required)"),
      CLI_INT("--demand", "C", &demand, 1, BAL_NODE_MAX_CPUS,
              "CPUs it uses at full speed (default: $SLURM_CPUS_ON_NODE, else\n"
              "the CPUs it holds when it attaches)"),
      CLI_INT("--tick-ms", "MS", &tick_ms, 1, 60000, "time between malleability points (100)"),
      CLI_STRING("--registry", "NAME", &registry,
                 "node registry (default: $" BAL_NODE_REGISTRY_ENV ")"),
      CLI_END};
  const cli_program prog = {
      .name = PROG,
      .usage = "ballast slurm-job --work S [--demand C] [--tick-ms MS] [--registry NAME]",
      .description = "A malleable test job: progress follows the CPUs held in the node registry.",
      .flags = flags};
  int rc = cli_parse(&prog, argc, argv);
  if (rc != CLI_CONTINUE) return rc;
  if (work <= 0) return cli_usage_error(PROG, "--work: required, > 0");
  if (demand == 0 && getenv("SLURM_CPUS_ON_NODE")) {
    /* SLURM's own variable: a bad value means no SLURM step around us;
     * say so and take the CPUs held at the attachment instead. */
    char err[128];
    if (!cli_int_text(getenv("SLURM_CPUS_ON_NODE"), 1, BAL_NODE_MAX_CPUS, &demand, err,
                      sizeof err)) {
      fprintf(stderr, "%s: warning: ignoring $SLURM_CPUS_ON_NODE: %s\n", PROG, err);
      demand = 0;
    }
  }
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGINT, &sa, NULL);

  bal_node_attach_config cfg;
  bal_node_attach_config_init(&cfg);
  cfg.registry = registry;
  bal_node_proc *p = NULL;
  double t0 = sd_now();
  const char *env = getenv(BAL_NODE_REGISTRY_ENV);
  rc = (registry || env) ? bal_node_attach(&cfg, &p) : BAL_ENOTFOUND;
  /* The configuration is defaults but the name: EINVAL is the name. */
  if (rc == BAL_EINVAL)
    return cli_usage_error(PROG, "%s: '%s' is not a registry name (one word, an optional "
                           "leading '/', under %d bytes)",
                           registry ? "--registry" : "$" BAL_NODE_REGISTRY_ENV,
                           registry ? registry : env, BAL_NODE_NAME_MAX - 1);
  if (rc != BAL_OK && registry) {
    fprintf(stderr, "%s: --registry: cannot attach to '%s': %s\n", PROG, registry,
            rc == BAL_ENOTFOUND ? "no such registry (create it with 'ballast node init')"
                                : bal_strerror(rc));
    return 1;
  }
  if (rc != BAL_OK) {
    char note[160];
    snprintf(note, sizeof note, "no node registry (%s): full speed", bal_strerror(rc));
    say("start", t0, 0, demand > 0 ? demand : -1, NULL, note);
    p = NULL;
  }
  double done = 0, last = t0;
  int64_t held = demand;
  bool first = true;
  const struct timespec tick = {tick_ms / 1000, (long)(tick_ms % 1000) * 1000000L};
  while (!stop_signal && done < work) {
    if (p) {
      bal_node_mask mask;
      bool changed;
      rc = bal_node_poll(p, &mask, &changed);
      if (rc == BAL_ENOTFOUND) { /* removed: its CPUs are gone, nothing to run on */
        say("removed", sd_now(), done, 0, NULL, "a manager removed this process");
        break;
      }
      if (changed) {
        held = bal_node_mask_count(&mask);
        if (demand == 0) demand = held > 0 ? held : 1;
        char text[512];
        bal_node_mask_format(&mask, text, sizeof text);
        say(first ? "start" : "mask", sd_now(), done, held, text, NULL);
        first = false;
      }
    }
    nanosleep(&tick, NULL);
    double t = sd_now();
    double rate = demand > 0 ? fmin(1.0, (double)held / (double)demand) : 1.0;
    done += (t - last) * rate;
    last = t;
  }
  say(stop_signal ? "killed" : "end", sd_now(), done, -1, NULL, NULL);
  if (p) bal_node_detach(p);
  return stop_signal ? 1 : 0;
}
