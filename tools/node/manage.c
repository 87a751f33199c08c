/* init, destroy, list, set, remove: one manager call each, with the
 * library's codes turned into messages that name the argument at fault.
 * Every refusal comes from a call that changes nothing when it refuses
 * (ballast/node.h), so a failed command leaves the registry as it was. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cli.h"
#include "common/json.h"
#include "node_tool.h"

int node_fail(const char *what, int code) {
  fprintf(stderr, "%s: %s: %s\n", NODE_PROG, what, bal_strerror(code));
  return 1;
}

void node_json_begin(json_writer *j, const node_opts *o) {
  json_init(j, stdout);
  json_object_begin(j, NULL);
  json_string(j, "tool", "node");
  json_string(j, "command", o->command);
  json_string(j, "registry", o->registry);
}

static int name_error(const node_opts *o) {
  char q[4 * BAL_NODE_NAME_MAX + 8];
  return cli_usage_error(NODE_PROG,
                         "%s: '%s' is not a registry name (one word, an optional "
                         "leading '/', under %d bytes, no control characters)",
                         o->registry_src, cli_quote(o->registry, q, sizeof q),
                         BAL_NODE_NAME_MAX - 1);
}

/* Where the object of a (valid) registry name lives: glibc keeps POSIX
 * shared-memory objects in /dev/shm on Linux. */
static void object_path(const node_opts *o, char *buf, size_t len) {
  snprintf(buf, len, "/dev/shm/%s", o->registry[0] == '/' ? o->registry + 1 : o->registry);
}

/* For an object under the name that is no registry: what it is, and the
 * command that removes it. */
static void say_not_a_registry(const node_opts *o) {
  char path[BAL_NODE_NAME_MAX + 16], what[BAL_NODE_NAME_MAX + 128];
  object_path(o, path, sizeof path);
  struct stat st;
  bool dir = false;
  if (lstat(path, &st) != 0)
    snprintf(what, sizeof what, "gone or unreadable (%s: %s)", path, strerror(errno));
  else if (S_ISDIR(st.st_mode) && (dir = true))
    snprintf(what, sizeof what, "a directory (%s)", path);
  else if (S_ISLNK(st.st_mode))
    snprintf(what, sizeof what, "a symbolic link (%s)", path);
  else if (!S_ISREG(st.st_mode))
    snprintf(what, sizeof what, "a special file (%s)", path);
  else
    snprintf(what, sizeof what,
             "an object of %lld bytes that is not a registry of this Ballast (wrong size, "
             "magic or version)",
             (long long)st.st_size);
  fprintf(stderr, "%s: %s: '%s' is %s; remove it with '%s %s'\n", NODE_PROG, o->registry_src,
          o->registry, what, dir ? "rmdir" : "ballast node destroy --force --registry",
          dir ? path : o->registry);
}

int node_open(const node_opts *o, bal_node_manager **m) {
  int rc = bal_node_manager_open(o->registry, m);
  switch (rc) {
  case BAL_OK: return 0;
  case BAL_EINVAL: return name_error(o);
  case BAL_ENOTFOUND:
    fprintf(stderr, "%s: %s: no registry '%s' (create it with 'ballast node init')\n",
            NODE_PROG, o->registry_src, o->registry);
    return 1;
  case BAL_EPERM:
    fprintf(stderr, "%s: %s: '%s': permission denied (another user's registry)\n",
            NODE_PROG, o->registry_src, o->registry);
    return 1;
  case BAL_EFORMAT: say_not_a_registry(o); return 1;
  default: return node_fail(o->registry, rc);
  }
}

int node_init(const node_opts *o) {
  /* Opening first tells a malformed name (usage) from a machine with too
   * many CPUs for --real, which create() reports with the same code. */
  bal_node_manager *m;
  int rc = bal_node_manager_open(o->registry, &m);
  if (rc == BAL_EINVAL) return name_error(o);
  if (rc == BAL_OK) bal_node_manager_close(m);
  bool foreign = rc == BAL_EFORMAT; /* something under the name, not a registry */
  bal_node_registry_config cfg;
  bal_node_registry_config_init(&cfg);
  cfg.name = o->registry;
  cfg.virtual_cpus = o->real ? 0 : o->cpus;
  cfg.sharing_factor = o->sharing_factor;
  cfg.group = o->group;
  rc = bal_node_registry_create(&cfg);
  switch (rc) {
  case BAL_OK: break;
  case BAL_EBUSY:
    if (foreign) {
      say_not_a_registry(o);
      return 1;
    }
    fprintf(stderr, "%s: %s: '%s' exists already (remove it with 'ballast node destroy')\n",
            NODE_PROG, o->registry_src, o->registry);
    return 1;
  case BAL_ENOTFOUND:
    fprintf(stderr, "%s: --group: no group '%s'\n", NODE_PROG, o->group);
    return 1;
  case BAL_EPERM:
    fprintf(stderr, "%s: %s: cannot create '%s'%s%s: permission denied\n", NODE_PROG, o->registry_src,
            o->registry, o->group ? " with --group " : "", o->group ? o->group : "");
    return 1;
  case BAL_EINVAL:
    fprintf(stderr, "%s: --real: this machine has more than %d CPUs (use --cpus)\n", NODE_PROG,
            BAL_NODE_MAX_CPUS);
    return 1;
  default: return node_fail(o->registry, rc);
  }
  int64_t ncpus = 0;
  bool is_virtual = !o->real;
  if (bal_node_manager_open(o->registry, &m) == BAL_OK) {
    bal_node_manager_info(m, &ncpus, &is_virtual);
    bal_node_manager_close(m);
  }
  if (o->json) {
    json_writer j;
    node_json_begin(&j, o);
    if (o->cpus_given) json_int(&j, "cpus", o->cpus);
    else json_string(&j, "cpus", NULL);
    json_bool(&j, "real", o->real);
    json_double(&j, "sharing_factor", o->sharing_factor);
    json_string(&j, "group", o->group);
    json_int(&j, "node_cpus", ncpus);
    json_bool(&j, "virtual", is_virtual);
    json_object_end(&j);
    if (!json_finish(&j)) cli_output_failed("--json");
  } else {
    printf("registry '%s': %" PRId64 " %s CPUs, sharing factor %g, mode %s%s\n", o->registry,
           ncpus, is_virtual ? "virtual" : "real", o->sharing_factor, o->group ? "0660 group " : "0600",
           o->group ? o->group : "");
  }
  return 0;
}

/* destroy --force: whatever object of the user's is under the name, a
 * corrupted registry or a foreign object, which plain destroy refuses.
 * Only the owner's: /dev/shm is sticky, so unlinking another user's object
 * would fail anyway, and saying whose it is is clearer. 0 to go on, or
 * the exit status. */
static int check_force(const node_opts *o) {
  bal_node_manager *m;
  int rc = bal_node_manager_open(o->registry, &m);
  if (rc == BAL_EINVAL) return name_error(o);
  if (rc == BAL_OK) bal_node_manager_close(m);
  char path[BAL_NODE_NAME_MAX + 16];
  object_path(o, path, sizeof path);
  struct stat st;
  if (lstat(path, &st) != 0) {
    if (errno != ENOENT) {
      fprintf(stderr, "%s: %s: %s: %s\n", NODE_PROG, o->registry_src, path, strerror(errno));
      return 1;
    }
    fprintf(stderr, "%s: %s: no registry '%s'\n", NODE_PROG, o->registry_src, o->registry);
    return 1;
  }
  if (st.st_uid != geteuid()) {
    fprintf(stderr, "%s: --force: '%s' (%s) belongs to uid %ld, not to you: left alone\n",
            NODE_PROG, o->registry, path, (long)st.st_uid);
    return 1;
  }
  if (S_ISDIR(st.st_mode)) {
    say_not_a_registry(o);
    return 1;
  }
  return 0;
}

int node_destroy(const node_opts *o) {
  /* Only a registry is removed: another program's shared-memory object of
   * that name is refused (open checks magic, version and size), unless
   * --force. */
  int procs = 0, rc;
  if (o->force) {
    if ((rc = check_force(o)) != 0) return rc;
  } else {
    bal_node_manager *m;
    if ((rc = node_open(o, &m)) != 0) return rc;
    procs = bal_node_manager_list(m, NULL, 0);
    bal_node_manager_close(m);
  }
  rc = bal_node_registry_destroy(o->registry);
  if (rc == BAL_ENOTFOUND) { /* destroyed by someone else meanwhile */
    fprintf(stderr, "%s: %s: no registry '%s'\n", NODE_PROG, o->registry_src, o->registry);
    return 1;
  }
  if (rc == BAL_EPERM) {
    fprintf(stderr, "%s: %s: '%s': permission denied\n", NODE_PROG, o->registry_src, o->registry);
    return 1;
  }
  if (rc != BAL_OK) return node_fail(o->registry, rc);
  if (o->json) {
    json_writer j;
    node_json_begin(&j, o);
    json_int(&j, "processes", procs > 0 ? procs : 0);
    json_bool(&j, "force", o->force);
    json_object_end(&j);
    if (!json_finish(&j)) cli_output_failed("--json");
  } else {
    printf(o->force ? "removed '%s'" : "removed registry '%s'", o->registry);
    if (procs > 0)
      printf(" (%d process%s still registered: mapped until %s)", procs, procs == 1 ? "" : "es",
             procs == 1 ? "it ends" : "they end");
    printf("\n");
  }
  return 0;
}

/* One consistent view of the registry: the processes, and for each CPU its
 * holder and lender. Two snapshots (two calls, two lock holds) are retried
 * until they agree, so that "who lent what" matches the masks. */
typedef struct view {
  int64_t ncpus;
  bool is_virtual;
  int nprocs;
  bal_node_proc_info procs[BAL_NODE_MAX_PROCS];
  bal_node_cpu_info cpus[BAL_NODE_MAX_CPUS];
} view;

static bool consistent(const view *v) {
  for (int i = 0; i < v->nprocs; i++)
    for (int64_t c = 0; c < v->ncpus; c++)
      if (bal_node_mask_has(&v->procs[i].mask, c) != (v->cpus[c].pid == v->procs[i].pid))
        return false;
  return true;
}

static int take_view(bal_node_manager *m, view *v) {
  bal_node_manager_info(m, &v->ncpus, &v->is_virtual);
  for (int attempt = 0;; attempt++) {
    int n = bal_node_manager_list(m, v->procs, BAL_NODE_MAX_PROCS);
    if (n < 0) return n;
    v->nprocs = n;
    int c = bal_node_manager_cpus(m, v->cpus, BAL_NODE_MAX_CPUS);
    if (c < 0) return c;
    if (consistent(v) || attempt == 100) return BAL_OK;
  }
}

static void format(const bal_node_mask *m, char *buf, size_t size) {
  if (bal_node_mask_format(m, buf, size) < 0) snprintf(buf, size, "?");
}

/* The CPUs of process i lent by job `lender`. */
static bal_node_mask lent_by(const view *v, int i, int64_t lender) {
  bal_node_mask m;
  bal_node_mask_zero(&m);
  for (int64_t c = 0; c < v->ncpus; c++)
    if (v->cpus[c].pid == v->procs[i].pid && v->cpus[c].owner == lender)
      bal_node_mask_add(&m, c, c);
  return m;
}

/* Each lender of process i, once, in CPU order; returns how many. */
static int lenders(const view *v, int i, int64_t *out) {
  int n = 0;
  for (int64_t c = 0; c < v->ncpus; c++) {
    if (v->cpus[c].pid != v->procs[i].pid || v->cpus[c].owner < 0) continue;
    bool seen = false;
    for (int k = 0; k < n; k++) seen = seen || out[k] == v->cpus[c].owner;
    if (!seen) out[n++] = v->cpus[c].owner;
  }
  return n;
}

/* The CPUs process i holds and lends now (bal_node_lend()). */
static bal_node_mask lending(const view *v, int i) {
  bal_node_mask m;
  bal_node_mask_zero(&m);
  for (int64_t c = 0; c < v->ncpus; c++)
    if (v->cpus[c].pid == v->procs[i].pid && v->cpus[c].lent) bal_node_mask_add(&m, c, c);
  return m;
}

/* The CPUs lent by process `holder` that process i uses now. */
static bal_node_mask using_of(const view *v, int i, int64_t holder) {
  bal_node_mask m;
  bal_node_mask_zero(&m);
  for (int64_t c = 0; c < v->ncpus; c++)
    if (v->cpus[c].pid == holder && v->cpus[c].user == v->procs[i].pid && holder != v->procs[i].pid)
      bal_node_mask_add(&m, c, c);
  return m;
}

/* Each process whose lent CPUs process i uses, once, in CPU order; returns
 * how many. */
static int lent_to(const view *v, int i, int64_t *out) {
  int n = 0;
  for (int64_t c = 0; c < v->ncpus; c++) {
    const bal_node_cpu_info *u = &v->cpus[c];
    if (u->user != v->procs[i].pid || u->pid == v->procs[i].pid || u->pid < 0) continue;
    bool seen = false;
    for (int k = 0; k < n; k++) seen = seen || out[k] == u->pid;
    if (!seen) out[n++] = u->pid;
  }
  return n;
}

/* The JSON array `array` of process i's CPUs by source: one object per id
 * in ids[0..n) with `key` = the id and "cpus" = cpus_of(v, i, id). */
static void json_sources(json_writer *j, const char *array, const char *key, const view *v, int i,
                         const int64_t *ids, int n,
                         bal_node_mask (*cpus_of)(const view *, int, int64_t)) {
  char list[BAL_NODE_MAX_CPUS * 6];
  json_array_begin(j, array);
  for (int k = 0; k < n; k++) {
    json_object_begin(j, NULL);
    json_int(j, key, ids[k]);
    bal_node_mask m = cpus_of(v, i, ids[k]);
    format(&m, list, sizeof list);
    json_string(j, "cpus", list);
    json_object_end(j);
  }
  json_array_end(j);
}

int node_list(const node_opts *o) {
  bal_node_manager *m;
  int rc = node_open(o, &m);
  if (rc) return rc;
  static view v;
  rc = take_view(m, &v);
  bal_node_manager_close(m);
  if (rc != BAL_OK) return node_fail(o->registry, rc);
  bal_node_mask free_cpus, idle;
  bal_node_mask_zero(&free_cpus);
  bal_node_mask_zero(&idle); /* lent and not borrowed yet */
  for (int64_t c = 0; c < v.ncpus; c++) {
    if (v.cpus[c].pid < 0) bal_node_mask_add(&free_cpus, c, c);
    if (v.cpus[c].pid >= 0 && v.cpus[c].lent && v.cpus[c].user < 0) bal_node_mask_add(&idle, c, c);
  }
  static char list[BAL_NODE_MAX_CPUS * 6];
  static int64_t lend[BAL_NODE_MAX_CPUS];
  if (o->json) {
    json_writer j;
    node_json_begin(&j, o);
    json_int(&j, "node_cpus", v.ncpus);
    json_bool(&j, "virtual", v.is_virtual);
    format(&free_cpus, list, sizeof list);
    json_string(&j, "free", list);
    format(&idle, list, sizeof list);
    json_string(&j, "lent_unused", list);
    json_array_begin(&j, "processes");
    for (int i = 0; i < v.nprocs; i++) {
      const bal_node_proc_info *p = &v.procs[i];
      json_object_begin(&j, NULL);
      json_int(&j, "pid", p->pid);
      json_int(&j, "job", p->job);
      json_int(&j, "ranks", p->ranks);
      json_bool(&j, "attached", p->attached);
      json_bool(&j, "applied", p->applied);
      format(&p->mask, list, sizeof list);
      json_string(&j, "cpus", list);
      json_int(&j, "ncpus", bal_node_mask_count(&p->mask));
      json_sources(&j, "borrowed", "from_job", &v, i, lend, lenders(&v, i, lend), lent_by);
      bal_node_mask l = lending(&v, i);
      format(&l, list, sizeof list);
      json_string(&j, "lends", list);
      json_sources(&j, "uses_lent", "from_pid", &v, i, lend, lent_to(&v, i, lend), using_of);
      json_object_end(&j);
    }
    json_array_end(&j);
    json_object_end(&j);
    if (!json_finish(&j)) cli_output_failed("--json");
    return 0;
  }
  format(&free_cpus, list, sizeof list);
  printf("registry '%s': %" PRId64 " %s CPUs, %d process%s, free: %s", o->registry, v.ncpus,
         v.is_virtual ? "virtual" : "real", v.nprocs, v.nprocs == 1 ? "" : "es",
         list[0] ? list : "none");
  format(&idle, list, sizeof list);
  printf("%s%s\n", list[0] ? ", lent and unused: " : "", list);
  if (v.nprocs == 0) return 0;
  printf("%-8s %-8s %-6s %-9s %-8s %-16s %-12s %-20s %s\n", "PID", "JOB", "RANKS", "STATE",
         "APPLIED", "CPUS", "LENDS", "USES_LENT", "BORROWED");
  for (int i = 0; i < v.nprocs; i++) {
    const bal_node_proc_info *p = &v.procs[i];
    format(&p->mask, list, sizeof list);
    printf("%-8" PRId64 " %-8" PRId64 " %-6" PRId64 " %-9s %-8s %-16s", p->pid, p->job, p->ranks,
           p->attached ? "attached" : "admitted", p->applied ? "yes" : "no", list[0] ? list : "-");
    bal_node_mask l = lending(&v, i);
    format(&l, list, sizeof list);
    printf(" %-12s", list[0] ? list : "-");
    char uses[sizeof list] = "";
    size_t len = 0;
    int nu = lent_to(&v, i, lend);
    for (int k = 0; k < nu && len < sizeof uses; k++) {
      bal_node_mask u = using_of(&v, i, lend[k]);
      format(&u, list, sizeof list);
      len += (size_t)snprintf(uses + len, sizeof uses - len, "%s%s of %" PRId64, k ? ", " : "",
                              list, lend[k]);
    }
    printf(" %-20s", uses[0] ? uses : "-");
    int nl = lenders(&v, i, lend);
    for (int k = 0; k < nl; k++) {
      bal_node_mask b = lent_by(&v, i, lend[k]);
      format(&b, list, sizeof list);
      printf("%s%s from job %" PRId64, k ? ", " : " ", list, lend[k]);
    }
    printf("%s\n", nl ? "" : " -");
  }
  return 0;
}

/* set refused with BAL_EBUSY: name a CPU of the mask and who holds it. */
static void explain_busy(bal_node_manager *m, const node_opts *o) {
  static view v;
  if (take_view(m, &v) == BAL_OK)
    for (int64_t c = 0; c < v.ncpus; c++)
      if (bal_node_mask_has(&o->mask, c) && v.cpus[c].pid >= 0 && v.cpus[c].pid != o->pid) {
        fprintf(stderr,
                "%s: CPULIST: CPU %" PRId64 " is held by pid %" PRId64 " (job %" PRId64
                "): shrink it first\n",
                NODE_PROG, c, v.cpus[c].pid, v.cpus[c].job);
        return;
      }
  fprintf(stderr, "%s: CPULIST: a CPU of %s is held by another process\n", NODE_PROG,
          o->cpulist_text);
}

int node_set(const node_opts *o) {
  bal_node_manager *m;
  int rc = node_open(o, &m);
  if (rc) return rc;
  int64_t ncpus = 0;
  bal_node_manager_info(m, &ncpus, NULL);
  for (int64_t c = ncpus; c < BAL_NODE_MAX_CPUS; c++)
    if (bal_node_mask_has(&o->mask, c)) {
      fprintf(stderr, "%s: CPULIST: CPU %" PRId64 " is outside the node (CPUs 0-%" PRId64 ")\n",
              NODE_PROG, c, ncpus - 1);
      bal_node_manager_close(m);
      return 1;
    }
  rc = bal_node_manager_set(m, o->pid, &o->mask, o->wait_s);
  int status = 0;
  if (rc == BAL_ENOTFOUND) {
    fprintf(stderr, "%s: PID: no process %" PRId64 " in registry '%s'\n", NODE_PROG, o->pid,
            o->registry);
    status = 1;
  } else if (rc == BAL_EBUSY) {
    explain_busy(m, o);
    status = 1;
  } else if (rc == BAL_ETIMEDOUT) {
    fprintf(stderr, "%s: --wait: pid %" PRId64 " has not applied the mask within %g s (it is set)\n",
            NODE_PROG, o->pid, o->wait_s);
    status = 1;
  } else if (rc != BAL_OK) {
    status = node_fail(o->registry, rc);
  }
  bal_node_manager_close(m);
  if (rc != BAL_OK && rc != BAL_ETIMEDOUT) return status;
  /* The mask is set (applied or not): say so, also after a timeout. */
  static char list[BAL_NODE_MAX_CPUS * 6];
  format(&o->mask, list, sizeof list);
  if (o->json) {
    json_writer j;
    node_json_begin(&j, o);
    json_int(&j, "pid", o->pid);
    json_string(&j, "cpus", list);
    json_double(&j, "wait_s", o->wait_s);
    if (o->wait_s > 0) json_bool(&j, "applied", rc == BAL_OK);
    else json_string(&j, "applied", NULL); /* not waited for: unknown */
    json_object_end(&j);
    if (!json_finish(&j)) cli_output_failed("--json");
  } else {
    printf("pid %" PRId64 ": CPUs %s%s\n", o->pid, list,
           o->wait_s == 0 ? "" : rc == BAL_OK ? " (applied)" : " (not applied yet)");
  }
  return status;
}

int node_remove(const node_opts *o) {
  bal_node_manager *m;
  int rc = node_open(o, &m);
  if (rc) return rc;
  rc = bal_node_manager_remove(m, o->pid);
  bal_node_manager_close(m);
  if (rc == BAL_ENOTFOUND) {
    fprintf(stderr, "%s: PID: no process %" PRId64 " in registry '%s'\n", NODE_PROG, o->pid,
            o->registry);
    return 1;
  }
  if (rc != BAL_OK) return node_fail(o->registry, rc);
  if (o->json) {
    json_writer j;
    node_json_begin(&j, o);
    json_int(&j, "pid", o->pid);
    json_object_end(&j);
    if (!json_finish(&j)) cli_output_failed("--json");
  } else {
    printf("removed pid %" PRId64 " (its CPUs are handed on)\n", o->pid);
  }
  return 0;
}
