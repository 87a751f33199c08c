/* ballast_spank.so: SD-Policy's node manager inside a stock SLURM, as a
 * SPANK plugin (docs/slurm.md, "The SPANK plugin").
 *
 * plugstack.conf:
 *   optional /path/ballast_spank.so [registry=/ballast-%n] [cpus=N|real]
 *                                   [sharing_factor=F] [group=NAME]
 *
 * - `--malleable` (sbatch, salloc, srun) marks a job malleable.
 * - In slurmstepd, for each task of a malleable job's step (not the batch
 *   script, not the extern step), before the task may exec
 *   (slurm_spank_task_post_fork: all tasks of the step are forked and
 *   blocked until it returns), the plugin admits the task's pid in the node
 *   registry of its node (named by `registry`, %n the SLURM node name;
 *   created on first use with `cpus` virtual CPUs, or the machine's CPUs
 *   with cpus=real). If the job's AdminComment holds "sd:mates=ID,..." and
 *   some of those jobs have processes on this node, the job's first task
 *   there is admitted as their guest: they shrink by the distribution rule
 *   (ballast/node.h); each further task of the guest on the node (several
 *   ranks per node) takes an equal part of what the guest holds
 *   (bal_node_manager_admit_sibling), still lent by the mates. A mate
 *   whose guest started on the node first takes the guest's CPUs and lends
 *   it the rule's share back (bal_node_manager_admit_mate). Otherwise the
 *   tasks share the free CPUs.
 * - When a task exits (slurm_spank_task_exit) its entry is removed, so its
 *   CPUs go back by the rule at once (mates expand); a task that dies
 *   without slurmstepd noticing is cleaned by the registry's dead-process
 *   cleanup at the next call.
 * The job's record is read from slurmctld with slurm_load_job(), which
 * slurmstepd's own libslurmfull provides (the plugin does not link libslurm). */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <slurm/slurm.h>
#include <slurm/spank.h>

#include <ballast/error.h>
#include <ballast/node.h>
#include <ballast/share.h>

#include "mates.h"
#include "plugin_args.h"

SPANK_PLUGIN(ballast, 1) /* the macro brings its own semicolons */

static bool malleable;

/* Plugin arguments (plugstack.conf), parsed by the code slurm-sd reads
 * them with. */
static bal__slurm_plugin_args args;

static int on_malleable(int val, const char *optarg, int remote) {
  (void)val;
  (void)optarg;
  (void)remote;
  malleable = true;
  return 0;
}

static struct spank_option malleable_option = {
    "malleable", NULL,
    "Malleable job (SD-Policy): the node manager may shrink its tasks to "
    "start a guest next to them, and give the CPUs back when it ends",
    0, 0, on_malleable};

static int parse_args(int ac, char **av) {
  bal__slurm_plugin_args_init(&args);
  int bad = 0;
  if (bal__slurm_plugin_args_parse(&args, ac, av, &bad) == 0) return 0;
  slurm_error("ballast: bad plugstack.conf argument '%s' (registry=PATTERN cpus=N|real "
              "sharing_factor=F in %s group=NAME)",
              av[bad], BAL_SHARE_FACTOR_RANGE);
  return -1;
}

/* Arguments first: a plugin with a bad plugstack.conf line registers no
 * option, so `--malleable` is refused loudly rather than half-working. */
int slurm_spank_init(spank_t sp, int ac, char **av) {
  if (parse_args(ac, av) != 0) return -1;
  if (spank_option_register(sp, &malleable_option) != ESPANK_SUCCESS) {
    slurm_error("ballast: cannot register --malleable");
    return -1;
  }
  return 0;
}

/* In sbatch, salloc and srun, after the options: a malleable job also
 * carries SPANK_BALLAST_MALLEABLE=1 in its job-control environment, which
 * slurmctld keeps with the job (prolog, epilog and job_submit plugins see
 * it). */
int slurm_spank_init_post_opt(spank_t sp, int ac, char **av) {
  (void)ac;
  (void)av;
  if (!malleable || spank_remote(sp)) return 0;
  if (spank_job_control_setenv(sp, "BALLAST_MALLEABLE", "1", 1) != ESPANK_SUCCESS)
    slurm_error("ballast: cannot mark the job malleable in its job-control environment");
  return 0;
}

/* In slurmstepd, a job step the plugin manages: a malleable job's regular
 * step (the batch script and the extern step only wait). */
static bool managed_step(spank_t sp, uint32_t *job) {
  if (!malleable || !spank_remote(sp)) return false;
  uint32_t step;
  if (spank_get_item(sp, S_JOB_ID, job) != ESPANK_SUCCESS ||
      spank_get_item(sp, S_JOB_STEPID, &step) != ESPANK_SUCCESS)
    return false;
  return step != SLURM_BATCH_SCRIPT && step != SLURM_EXTERN_CONT &&
         step != SLURM_INTERACTIVE_STEP && step != SLURM_PENDING_STEP;
}

/* This node's SLURM name, in slurmstepd: the step's node list at this
 * node's index. ($SLURMD_NODENAME of the step's environment will not do:
 * a step launched from a batch script inherits the batch node's; each task
 * gets its own only when it is set up, after the admission.) */
static int node_name(spank_t sp, char *buf, size_t size) {
  uint32_t id;
  char list[4096];
  if (spank_get_item(sp, S_JOB_NODEID, &id) != ESPANK_SUCCESS ||
      spank_getenv(sp, "SLURM_STEP_NODELIST", list, sizeof list) != ESPANK_SUCCESS) {
    slurm_error("ballast: the step's node list or this node's index is unavailable");
    return -1;
  }
  hostlist_t hl = slurm_hostlist_create(list);
  char *host = NULL;
  for (uint32_t i = 0; hl && i <= id; i++) {
    free(host);
    host = slurm_hostlist_shift(hl);
    if (!host) break;
  }
  if (hl) slurm_hostlist_destroy(hl);
  int rc = host && strlen(host) < size ? 0 : -1;
  if (rc == 0) strcpy(buf, host);
  else slurm_error("ballast: node %u of the step's node list '%s' not found", id, list);
  free(host);
  return rc;
}

/* This node's registry name. */
static int registry_name(spank_t sp, char *name, size_t size) {
  char node[256];
  if (node_name(sp, node, sizeof node) != 0) return -1;
  if (bal__slurm_registry_name(args.registry, node, name, size) != 0) {
    slurm_error("ballast: registry pattern '%s' does not fit", args.registry);
    return -1;
  }
  return 0;
}

/* Open this node's registry, creating it on first use. */
static int open_registry(spank_t sp, bal_node_manager **m, char *name, size_t size) {
  if (registry_name(sp, name, size) != 0) return -1;
  int rc = bal_node_manager_open(name, m);
  if (rc == BAL_ENOTFOUND) {
    bal_node_registry_config cfg;
    bal_node_registry_config_init(&cfg);
    cfg.name = name;
    cfg.virtual_cpus = args.cpus;
    cfg.sharing_factor = args.sharing_factor;
    cfg.group = args.group[0] ? args.group : NULL;
    rc = bal_node_registry_create(&cfg);
    if (rc != BAL_OK && rc != BAL_EBUSY) { /* EBUSY: another step made it first */
      slurm_error("ballast: create registry %s: %s", name, bal_strerror(rc));
      return -1;
    }
    rc = bal_node_manager_open(name, m);
  }
  if (rc != BAL_OK) {
    slurm_error("ballast: open registry %s: %s", name, bal_strerror(rc));
    return -1;
  }
  return 0;
}

/* The job's mates from its AdminComment; 0 when it has none. */
static int load_mates(uint32_t job, int64_t *mates, int cap) {
  job_info_msg_t *msg = NULL;
  if (slurm_load_job(&msg, job, SHOW_ALL) != SLURM_SUCCESS || !msg || msg->record_count < 1) {
    slurm_error("ballast: job %u: cannot read its record: %s", job, slurm_strerror(slurm_get_errno()));
    if (msg) slurm_free_job_info_msg(msg);
    return -1;
  }
  int n = bal__slurm_parse_mates(msg->job_array[0].admin_comment, mates, cap);
  if (n < 0)
    slurm_error("ballast: job %u: malformed mate relation in AdminComment '%s'", job,
                msg->job_array[0].admin_comment);
  slurm_free_job_info_msg(msg);
  return n;
}

/* The processes registered on this node, as one admission sees them:
 * listed once (bal_node_manager_list() locks the registry and cleans dead
 * processes) and read by mates_here(), guest_here() and waiting_guest().
 * Static: a snapshot is 72 KiB, large for a stack frame in slurmstepd. */
static bal_node_proc_info procs[BAL_NODE_MAX_PROCS];

/* List the registry into procs; the count, 0 when it cannot be read. */
static int list_procs(bal_node_manager *m) {
  int np = bal_node_manager_list(m, procs, BAL_NODE_MAX_PROCS);
  if (np < 0) return 0;
  return np > BAL_NODE_MAX_PROCS ? BAL_NODE_MAX_PROCS : np;
}

/* Keep only the mates with a process among procs[0..np). */
static int64_t mates_here(int np, int64_t *mates, int64_t n) {
  int64_t k = 0;
  for (int64_t i = 0; i < n; i++) {
    bool here = false;
    for (int j = 0; j < np && !here; j++) here = procs[j].job == mates[i];
    if (here) mates[k++] = mates[i];
  }
  return k;
}

/* Is job a guest here: does one of its processes hold borrowed CPUs? (Its
 * first local task was admitted next to its mates.) */
static bool guest_here(int np, int64_t job) {
  for (int j = 0; j < np; j++)
    if (procs[j].job == job && bal_node_mask_count(&procs[j].borrowed) > 0) return true;
  return false;
}

/* A job on this node whose AdminComment names job as a mate: a guest that
 * started here before job did (SLURM can start the guest's step first);
 * -1 when there is none. One slurm_load_job per other job on the node. */
static int64_t waiting_guest(int np, uint32_t job) {
  for (int j = 0; j < np; j++) {
    int64_t other = procs[j].job;
    bool seen = other == (int64_t)job || other < 0 || other > UINT32_MAX;
    for (int k = 0; k < j && !seen; k++) seen = procs[k].job == other;
    if (seen) continue;
    int64_t mates[BAL_SLURM_MAX_MATES];
    int n = load_mates((uint32_t)other, mates, BAL_SLURM_MAX_MATES);
    for (int k = 0; k < n; k++)
      if (mates[k] == (int64_t)job) return other;
  }
  return -1;
}

/* Before the tasks are forked: name the node's registry in their
 * environment, where bal_node_attach() looks for it. */
int slurm_spank_user_init(spank_t sp, int ac, char **av) {
  (void)ac;
  (void)av;
  uint32_t job;
  if (!managed_step(sp, &job)) return 0;
  char name[BAL_NODE_NAME_MAX];
  if (registry_name(sp, name, sizeof name) != 0) return 0; /* reported */
  if (spank_setenv(sp, BAL_NODE_REGISTRY_ENV, name, 1) != ESPANK_SUCCESS)
    slurm_error("ballast: job %u: cannot set %s", job, BAL_NODE_REGISTRY_ENV);
  return 0;
}

static void format_mask(const bal_node_mask *mask, char *buf, size_t size) {
  if (bal_node_mask_format(mask, buf, size) < 0) snprintf(buf, size, "(long)");
}

int slurm_spank_task_post_fork(spank_t sp, int ac, char **av) {
  (void)ac;
  (void)av;
  uint32_t job;
  if (!managed_step(sp, &job)) return 0;
  pid_t pid;
  int local;
  uint32_t ntasks;
  if (spank_get_item(sp, S_TASK_PID, &pid) != ESPANK_SUCCESS ||
      spank_get_item(sp, S_TASK_ID, &local) != ESPANK_SUCCESS ||
      spank_get_item(sp, S_JOB_LOCAL_TASK_COUNT, &ntasks) != ESPANK_SUCCESS) {
    slurm_error("ballast: job %u: task items unavailable", job);
    return 0;
  }
  /* A malleable job that cannot be registered still runs, unmanaged: the
   * error is logged, the step goes on. */
  char name[BAL_NODE_NAME_MAX];
  bal_node_manager *m;
  if (open_registry(sp, &m, name, sizeof name) != 0) return 0;
  int64_t mates[BAL_SLURM_MAX_MATES];
  int n = local == 0 ? load_mates(job, mates, BAL_SLURM_MAX_MATES) : 0;
  int np = list_procs(m);
  int64_t nhere = n > 0 ? mates_here(np, mates, n) : 0;
  bool sibling = local > 0 && guest_here(np, job);
  bal_node_mask granted;
  int rc;
  const char *as;
  if (nhere > 0) {
    /* A guest's first local task: admitted next to its mates here, it
     * takes all they lend (and the free CPUs); its other local tasks take
     * their parts of that below. */
    as = "guest";
    rc = bal_node_manager_admit(m, pid, job, ntasks, mates, nhere, &granted);
  } else if (sibling) {
    /* A further task of a guest (several ranks per node): an equal part
     * of what the guest holds here, each CPU still lent by its mate, so
     * the mates get it back whichever task ends. */
    as = "guest";
    rc = bal_node_manager_admit_sibling(m, pid, job, ntasks, &granted);
  } else if (local == 0) {
    /* Not a guest. A mate whose guest started here first takes the CPUs
     * the guest holds and lends it the rule's share back, so the roles in
     * the registry are right; otherwise the free CPUs (next to every job
     * here, should SLURM itself have placed it on a shared node). */
    int64_t guest = waiting_guest(np, job);
    as = guest >= 0 ? "mate (its guest came first)" : "owner";
    rc = guest >= 0 ? bal_node_manager_admit_mate(m, pid, job, ntasks, guest, &granted)
                    : BAL_ENOTFOUND;
    if (rc != BAL_OK) {
      as = "owner";
      rc = bal_node_manager_admit(m, pid, job, ntasks, NULL, 0, &granted);
    }
  } else {
    /* Another task of the job on this node: the free CPUs only (its own
     * job never lends to itself). */
    as = "owner";
    int64_t self = job;
    rc = bal_node_manager_admit(m, pid, job, ntasks, &self, 1, &granted);
  }
  if (rc == BAL_OK && nhere == 0 && !sibling && ntasks > 1 && (uint32_t)local + 1 < ntasks) {
    /* Share this job's CPUs between its local tasks: keep the lowest
     * count / (tasks left) of them, free the others for the next ones. */
    int64_t count = bal_node_mask_count(&granted);
    int64_t keep = count / (int64_t)(ntasks - (uint32_t)local);
    if (keep < 1) keep = 1;
    bal_node_mask slice;
    bal_node_mask_zero(&slice);
    for (int64_t c = 0, k = 0; c < BAL_NODE_MAX_CPUS && k < keep; c++)
      if (bal_node_mask_has(&granted, c)) {
        bal_node_mask_add(&slice, c, c);
        k++;
      }
    if (bal_node_manager_set(m, pid, &slice, 0) == BAL_OK) granted = slice;
  }
  char list[512];
  if (rc == BAL_OK) {
    format_mask(&granted, list, sizeof list);
    slurm_info("ballast: job %u task %d (pid %ld) admitted as %s in %s: CPUs %s", job, local,
               (long)pid, as, name, list);
  } else {
    slurm_error("ballast: job %u task %d (pid %ld): admission in %s refused: %s", job, local,
                (long)pid, name, bal_strerror(rc));
  }
  bal_node_manager_close(m);
  return 0;
}

int slurm_spank_task_exit(spank_t sp, int ac, char **av) {
  (void)ac;
  (void)av;
  uint32_t job;
  if (!managed_step(sp, &job)) return 0;
  pid_t pid;
  if (spank_get_item(sp, S_TASK_PID, &pid) != ESPANK_SUCCESS) return 0;
  char name[BAL_NODE_NAME_MAX];
  bal_node_manager *m;
  if (open_registry(sp, &m, name, sizeof name) != 0) return 0;
  int rc = bal_node_manager_remove(m, pid);
  /* ENOTFOUND: it detached itself, or was cleaned as dead already. */
  if (rc != BAL_OK && rc != BAL_ENOTFOUND)
    slurm_error("ballast: job %u: remove pid %ld from %s: %s", job, (long)pid, name,
                bal_strerror(rc));
  else
    slurm_verbose("ballast: job %u: pid %ld left %s", job, (long)pid, name);
  bal_node_manager_close(m);
  return 0;
}
