/* Before libslurm: is there a SLURM configuration at all (libslurm would
 * otherwise retry a missing file, then DNS, for about a minute, and then
 * exit from inside the library)? And after: the SPANK plugin's sharing
 * factor, read from the plugstack.conf the cluster's slurm.conf names, so
 * the daemon and the plugin use one value. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <slurm/slurm.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ballast/share.h>

#include "plugin_args.h"
#include "slurmsd.h"

/* Where libslurm looks when SLURM_CONF is unset (Debian's slurm-wlm 22.05):
 * the configured file, then slurmd's cache of a configless cluster. */
static const char *const DEFAULT_CONFS[] = {"/etc/slurm/slurm.conf", "/run/slurm/conf/slurm.conf"};

/* A regular file we can read, or why not. */
static int readable(const char *path, char *why, size_t n) {
  struct stat st;
  if (stat(path, &st) != 0 || access(path, R_OK) != 0) {
    snprintf(why, n, "%s", strerror(errno));
    return -1;
  }
  if (!S_ISREG(st.st_mode)) {
    snprintf(why, n, "not a regular file");
    return -1;
  }
  return 0;
}

int sd_slurm_init(const char *prog) {
  const char *env = getenv("SLURM_CONF");
  char why[128];
  if (env) {
    if (!*env || readable(env, why, sizeof why) != 0) {
      fprintf(stderr, "%s: SLURM_CONF='%s': %s\n", prog, env, *env ? why : "empty");
      return -1;
    }
  } else {
    bool found = false;
    for (size_t i = 0; i < sizeof DEFAULT_CONFS / sizeof *DEFAULT_CONFS && !found; i++)
      found = readable(DEFAULT_CONFS[i], why, sizeof why) == 0;
    if (!found) {
      fprintf(stderr,
              "%s: no SLURM configuration: set SLURM_CONF or create %s (a sandbox: eval "
              "\"$(slurm/sandbox start)\")\n",
              prog, DEFAULT_CONFS[0]);
      return -1;
    }
  }
  slurm_init(NULL);
  return 0;
}

int sd_plugin_sharing_factor(double flag, double *sf, char *msg, size_t n) {
  msg[0] = '\0';
  slurm_conf_t *conf = NULL;
  if (slurm_load_ctl_conf((time_t)0, &conf) != SLURM_SUCCESS || !conf) {
    snprintf(msg, n, "cannot read the cluster's configuration: %s",
             slurm_strerror(slurm_get_errno()));
    return -1;
  }
  char path[4096];
  snprintf(path, sizeof path, "%s", conf->plugstack ? conf->plugstack : "");
  slurm_free_ctl_conf(conf);
  bal__slurm_plugin_args args;
  bal__slurm_plugin_args_init(&args);
  char err[512];
  /* SLURM itself runs without plugins when the file does not exist. */
  int found = path[0] && access(path, F_OK) == 0 ? bal__slurm_plugstack_read(path, &args, err, sizeof err) : 0;
  if (found < 0) {
    snprintf(msg, n, "PlugStackConfig %s", err);
    return -1;
  }
  if (found == 0) {
    *sf = isnan(flag) ? BAL_SHARE_FACTOR_DEFAULT : flag;
    snprintf(msg, n, "no %s line in PlugStackConfig '%s': no node manager shrinks the mates",
             BAL_SLURM_PLUGIN_FILE, path);
    return 0;
  }
  if (!isnan(flag) && flag != args.sharing_factor) {
    snprintf(msg, n,
             "--sharing-factor %g differs from the SPANK plugin's sharing_factor=%g (%s): "
             "the plugin shrinks the mates by its value; drop the flag, or change the "
             "plugin's line",
             flag, args.sharing_factor, path);
    return -1;
  }
  *sf = args.sharing_factor;
  return 0;
}

int sd_check_partition(const char *name, char *msg, size_t n) {
  partition_info_msg_t *p = NULL;
  if (slurm_load_partitions((time_t)0, &p, SHOW_ALL) != SLURM_SUCCESS || !p) {
    snprintf(msg, n, "cannot read the partitions: %s", slurm_strerror(slurm_get_errno()));
    return -1;
  }
  bool found = false;
  for (uint32_t i = 0; i < p->record_count && !found; i++)
    found = p->partition_array[i].name && strcmp(p->partition_array[i].name, name) == 0;
  slurm_free_partition_info_msg(p);
  if (!found) snprintf(msg, n, "--partition: no partition '%s' in this cluster", name);
  return found ? 0 : -1;
}
