/* Private to `ballast slurm-sd` and `ballast slurm-replay`: SD-Policy on a
 * stock SLURM through libslurm's public API (slurm/slurm.h).
 *
 *  slurm.c    the cluster as the scheduler sees it (jobs and nodes loaded
 *             with slurm_load_jobs / slurm_load_node) and the three acts it
 *             performs: release a held job onto chosen nodes, extend a
 *             running job's time limit, hold a job SLURM would start alone
 *  conf.c     SLURM's configuration checked before libslurm starts, and
 *             the SPANK plugin's sharing factor read from plugstack.conf
 *  marks.c    the words left on a job: sd:malleable (admin comment or
 *             comment), sd:req=S (comment), and the scheduler's decisions
 *             in the admin comment (sd:static, sd:mates=ID,ID), where a
 *             restarted daemon finds them
 *  daemon.c   ballast-slurm-sd: poll, feed sched's step API, enforce
 *  replay.c   ballast-slurm-replay: submit a trace window, wait, measure
 *  job.c      ballast-slurm-job: the malleable test job
 *
 * The life of one job under the daemon: submitted held (priority 0, sbatch
 * --hold); the daemon sees it PENDING with no sd: admin comment and queues
 * it for the policy; when the policy starts it, one update RPC writes its
 * required nodes, its admin comment and releases it (priority INFINITE), so
 * a decision is either wholly in SLURM or not at all; SLURM's scheduler
 * starts it on exactly those nodes (it has no other choice: every other
 * pending job is held); it runs, and ends. */
#ifndef BALLAST_TOOLS_SLURMSD_H
#define BALLAST_TOOLS_SLURMSD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <ballast/sched.h>

#define SD_MAX_MATES BAL_SCHED_MAX_MATES /* = BAL_SLURM_MAX_MATES (slurm/common/mates.h) */
#define SD_NAME_LEN 64
#define SD_ADMIN_LEN 512

/* The scheduler's view of a job. */
typedef enum sd_job_state {
  SD_QUEUED,   /* pending, held, not decided: the policy's queue */
  SD_RELEASED, /* pending, decided (sd: admin comment), SLURM has yet to start it */
  SD_RUNNING,  /* running (or completing: its nodes are still taken) */
  SD_FINISHED, /* ended in any way */
  SD_FOREIGN   /* pending, not held and not ours: SLURM could start it alone */
} sd_job_state;

typedef struct sd_job {
  uint32_t id;
  sd_job_state state;
  bool held;        /* priority 0 */
  bool malleable;   /* sd:malleable in its admin comment or comment */
  bool decided;     /* admin comment carries sd:static or sd:mates= */
  int64_t nodes;    /* nodes it asked for */
  int64_t cpus;     /* CPUs it asked for */
  double req_s;     /* requested seconds (sd:req= in the comment, else the time limit) */
  uint32_t time_limit; /* minutes, as SLURM has it (INFINITE possible) */
  time_t submit, start, end;
  uint32_t exit_state; /* SLURM's base job state */
  int64_t restarts;    /* times SLURM requeued it (restart_cnt) */
  int64_t mates[SD_MAX_MATES]; /* guest: its mates' job ids, from the admin comment */
  int nmates;
  bool bad_mates; /* its admin comment's sd:mates= is malformed (nmates 0) */
  int32_t *node_idx; /* allocated (running) or required (released) nodes, indices into the
                        cluster's nodes */
  int64_t nnode_idx;
  char admin[SD_ADMIN_LEN];
  char comment[SD_ADMIN_LEN];
  char name[SD_NAME_LEN];
} sd_job;

typedef struct sd_node {
  char name[SD_NAME_LEN];
  bool usable; /* neither down, drained nor failing */
  int64_t cpus;
} sd_node;

typedef struct sd_cluster {
  sd_node *nodes;
  int64_t nnodes;
  sd_job *jobs;
  int64_t njobs;
  time_t loaded; /* wall-clock time of the load */
} sd_cluster;

/* slurm.c. Each returns 0, or -1 after writing SLURM's reason to err. */
int sd_cluster_load(sd_cluster *c, const char *partition, char *err, size_t errlen);
void sd_cluster_free(sd_cluster *c);
sd_job *sd_cluster_find(sd_cluster *c, uint32_t id);
/* One update RPC: required nodes (their names, comma-separated), admin
 * comment, time limit (minutes; NO_VAL keeps it) and release. */
int sd_release(uint32_t id, const char *nodes, const char *admin, uint32_t time_limit, char *err,
               size_t errlen);
/* Set a job's time limit (minutes) and admin comment in one RPC. */
int sd_set_limit(uint32_t id, uint32_t time_limit, const char *admin, char *err, size_t errlen);
/* Hold a pending job (priority 0) and write admin (may be NULL: unchanged). */
int sd_hold(uint32_t id, const char *admin, char *err, size_t errlen);
/* SLURM's name of a base job state (COMPLETED, TIMEOUT, ...). */
const char *sd_state_name(uint32_t base);
/* Write a job's comment and admin comment (NULL: unchanged) in one RPC. */
int sd_set_comments(uint32_t id, const char *comment, const char *admin, char *err,
                    size_t errlen);

/* How sbatch passes the SPANK plugin's --malleable to the job (its SPANK
 * environment), where slurmstepd's plugin and job_submit.lua read it. */
#define SD_SPANK_MALLEABLE_ENV "_SLURM_SPANK_OPTION_ballast_malleable"

/* Submit a held batch job (priority 0): the scheduler decides when and
 * where; malleable: with the SPANK plugin's --malleable. Returns the job
 * id, or 0 after writing SLURM's reason to err. */
uint32_t sd_submit_held(const char *name, const char *script, const char *comment,
                        bool malleable, int64_t nodes, int64_t cpus, uint32_t time_limit,
                        const char *out_path, const char *work_dir, char *err, size_t errlen);

/* Unix time in seconds (SLURM's clock is the wall clock), and a sleep of
 * s seconds (nothing when s <= 0). */
double sd_now(void);
void sd_sleep(double s);

/* conf.c */
/* Check that a SLURM configuration exists ($SLURM_CONF, else SLURM's
 * default places) and start libslurm; -1 after printing why on stderr,
 * naming SLURM_CONF, without waiting in libslurm's retries. */
int sd_slurm_init(const char *prog);
/* The sharing factor: the SPANK plugin's, from the plugstack.conf the
 * cluster's slurm.conf names (its default when the line sets none).
 * flag: a --sharing-factor given (NaN: none); one that differs from the
 * plugin's is refused. 0 on success (msg non-empty: a warning, e.g. no
 * plugin line, then the flag or BAL_SHARE_FACTOR_DEFAULT is used); -1
 * with the reason in msg. */
int sd_plugin_sharing_factor(double flag, double *sf, char *msg, size_t n);
/* 0 if the cluster has a partition of that name; else -1 with msg (a
 * --partition that names none would schedule nothing, silently). */
int sd_check_partition(const char *name, char *msg, size_t n);

/* marks.c */
/* The user's comment: malleable, and the requested seconds (0 if absent). */
void sd_parse_comment(const char *comment, bool *malleable, double *req_s);
/* The admin comment: decided (sd:static or sd:mates=), malleable, mates
 * (*nmates -1: a malformed sd:mates= relation, see bal__slurm_parse_mates). */
void sd_parse_admin(const char *admin, bool *decided, bool *malleable, int64_t *mates,
                    int *nmates);
/* Append " TOKEN" to an admin comment; false if it does not fit. */
bool sd_admin_append(char *admin, size_t len, const char *token);

#endif
