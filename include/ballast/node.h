/**
 * @file ballast/node.h
 * @brief Node-level malleability: a node-wide registry of processes and CPU
 *        masks in POSIX shared memory, in the style of DROM
 *        ([D'Amico 2018]), that lets a node manager shrink running jobs to
 *        make room for a new one and give the CPUs back when it ends
 *        (SD-Policy's node level, [D'Amico 2019] §3.3).
 *
 * Two sides share one registry, named like a POSIX shared-memory object:
 *  - the **process** side: a process attaches (bal_node_attach()), polls at
 *    each malleability point (bal_node_poll(): "has my mask changed, what is
 *    it now?") and detaches (bal_node_detach());
 *  - the **manager** side, meant for a node manager that is not the job and
 *    may serve several users: create and destroy a registry, list the
 *    processes and CPUs, set a process's mask (optionally waiting until the
 *    process applied it), admit a process about to start next to running
 *    jobs, remove a process.
 *
 * A registry declares either the machine's real CPUs (a process's mask is
 * applied to its polling thread with sched_setaffinity) or N **virtual
 * CPUs** (binding off: masks are numbers only), so a 2-core machine can
 * model a 64-CPU node.
 *
 * ## The distribution rule
 * A *job* is a job id; its processes on this node are the registered
 * processes with that id. Each CPU of the node is held by at most one
 * process (or is free) and remembers the job it was lent by, if any.
 *  - **Admission** of a guest next to mate jobs (given, or every other job
 *    on the node): a mate holding C CPUs of its own (not borrowed) lends
 *    `floor(SF × C)` of them, SF being the registry's sharing factor
 *    (default #BAL_SHARE_FACTOR_DEFAULT, 0.5), as `sched`'s simulator does
 *    — but the mate keeps at least one CPU per rank it has on the node, so
 *    it lends `min(floor(SF × C), C − ranks)`, and nothing when that is
 *    <= 0: ballast/share.h's rule, bal_share_lend(). The
 *    mate keeps its lowest CPU ids and lends its highest ones, so the guest
 *    gets one contiguous block per mate. The guest also receives every free
 *    CPU. If the guest would get nothing, admission fails with #BAL_EBUSY
 *    and changes nothing.
 *  - **The guest ends** (detaches, is removed, or is found dead): every CPU
 *    it borrowed returns to the job it was taken from; CPUs of its own go as
 *    an owner's do (below).
 *  - **An owner ends first**: its own CPUs go to another process of its job
 *    on this node if there is one; else to its guest (the lowest-numbered
 *    process holding CPUs it lent, which then owns everything it held from
 *    that job); else they become free.
 *  - Invariant after every operation: each CPU is in at most one mask (it
 *    may be free). The registry stores one holder per CPU, so a CPU in two
 *    masks cannot even be expressed.
 *
 * Expected masks on 16 CPUs with SF 0.5 (tested exactly, tests/unit/test_node_rule.c):
 * | scenario | after admit | after the guest ends |
 * |---|---|---|
 * | A (1 rank) holds 0–15; admit B | A 0–7, B 8–15 | A 0–15 |
 * | same; A ends while B runs | B 0–15 | — |
 * | A (12 ranks) holds 0–15; admit B | A 0–11, B 12–15 | A 0–15 |
 * | A holds 0–7, C holds 8–15; admit B next to both | A 0–3, C 8–11, B 4–7 and 12–15 | A 0–7, C 8–15 |
 *
 * ## Reliability and access
 *  - Processes are identified by pid and process start time (field 22 of
 *    /proc/PID/stat), so a reused pid is never taken for a live process.
 *    Dead processes (and zombies) are found and their CPUs handed on by the
 *    rule above at the next attach, detach or manager call — never in
 *    bal_node_poll(). All participants must share one pid namespace.
 *  - The registry lock is a robust process-shared mutex: a participant that
 *    dies while holding it does not block the others; the next one repairs
 *    what a half-done operation left and goes on.
 *  - A registry belongs to the user who created it, mode 0600; it can be
 *    created group-shared (0660, a named group) for a manager serving jobs
 *    of several users. Anyone else gets #BAL_EPERM.
 *  - A segment with a wrong magic, version or size, or with corrupted
 *    contents, gives #BAL_EFORMAT (the lock word itself is trusted).
 *  - A segment resized after it was mapped (a participant with write
 *    access truncating it, which would make every access past its new end
 *    raise SIGBUS) gives #BAL_EFORMAT too: each call that takes the lock
 *    checks the size (fstat) first, and bal_node_poll()'s one load when
 *    nothing changed runs under a SIGBUS guard (it refuses the segment
 *    once the shrink cut its counter's page off, else at the next change
 *    of its mask, which takes the lock). The guard is a SIGBUS handler
 *    that bal_node_attach() installs for the process (again, if another
 *    handler replaced it since): it acts only on a fault inside that load
 *    and passes every other SIGBUS to the handler installed before it, or
 *    ends the process as the default action would. A handler the
 *    application installs after attaching replaces it: a truncated
 *    registry then raises SIGBUS in the poll, as without the guard.
 *    bal_node_manager_set()'s wait reads the process's progress with
 *    pread, never a load, so it needs no handler and cannot fault. What
 *    is left: a shrink that lands inside a call that holds the lock, after
 *    its check, still raises SIGBUS in that call (a window of
 *    microseconds). Ballast never resizes a registry it created.
 *
 * ## Limits
 * #BAL_NODE_MAX_CPUS CPUs per node (a CPU id or count past it is
 * #BAL_EINVAL, as is a machine with more configured CPUs in real mode),
 * #BAL_NODE_MAX_PROCS registered processes, registry names shorter than
 * #BAL_NODE_NAME_MAX bytes: one path component (an optional leading '/',
 * no other, not "." or "..") without control characters (bytes below
 * 0x20, and 0x7f); any other name is #BAL_EINVAL.
 *
 * ## Lending
 * A process waiting in a blocking call (a rank in MPI) can lend the CPUs
 * it holds, LeWI-style: bal_node_lend() marks them lent (they stay its
 * own), other attached processes borrow them at their next
 * bal_node_poll(), bal_node_reclaim() takes them back at once and
 * borrowers move off at their next poll. A process's mask, as
 * bal_node_poll() reports it, is the CPUs it uses: in the registry each
 * CPU has one user at any instant, and a lent CPU always has its owner
 * (its holder above) to return to; between a reclaim and the borrower's
 * next poll the borrower's last mask still lists the CPU (docs/node.md,
 * "Lending", states the rule). Lend and reclaim cost the same whatever
 * the process's CPU count, take no lock and look for no dead process; a
 * dead borrower's CPUs are lent again, a dead lender's handed on by the
 * rule, by the cleaning of the locked calls. BALLAST_LEND=1 makes the PMPI
 * layer lend at every blocking MPI call (docs/node.md, "Lending").
 * ## Pools and OpenMP
 * A `for` pool can follow the mask: bal_pool_create_with() with a node
 * attach configuration, or any pool with BALLAST_NODE=1 (ballast/for.h,
 * bal_pool_config). OpenMP programs apply the mask at their malleability
 * points with the header-only ballast/node_omp.h. The command line,
 * `ballast node`, manages registries with the calls below (docs/node.md).
 */
#ifndef BALLAST_NODE_H
#define BALLAST_NODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ballast/defs.h>
#include <ballast/share.h>

BAL_BEGIN_DECLS

/** Most CPUs a registry can declare (CPU ids are 0 .. this − 1). */
#define BAL_NODE_MAX_CPUS 1024
/** Most processes registered at once in one registry. */
#define BAL_NODE_MAX_PROCS 256
/** Registry names (with the leading '/', which is optional) are shorter than this. */
#define BAL_NODE_NAME_MAX 200
/** Environment variable naming the registry when a configuration gives none. */
#define BAL_NODE_REGISTRY_ENV "BALLAST_NODE_REGISTRY"

/**
 * A set of CPU ids 0 .. #BAL_NODE_MAX_CPUS − 1. A plain value (copy it,
 * compare it with bal_node_mask_equal()), like `cpu_set_t`; use the
 * functions below rather than the bits.
 */
typedef struct bal_node_mask {
  uint64_t bits[BAL_NODE_MAX_CPUS / 64]; /**< bit c of word c / 64: CPU c */
} bal_node_mask;

/** Empty m. Thread-safety: safe on distinct masks. NULL is ignored. */
BAL_API void bal_node_mask_zero(bal_node_mask *m);

/**
 * Add CPUs first .. last (inclusive) to m.
 * @return BAL_OK; BAL_EINVAL if m is NULL, first < 0, last < first or
 *         last >= #BAL_NODE_MAX_CPUS (m unchanged). Thread-safety: safe on
 *         distinct masks.
 */
BAL_API int bal_node_mask_add(bal_node_mask *m, int64_t first, int64_t last);

/** Whether CPU cpu is in m (false for NULL or an id out of range). Thread-safe. */
BAL_API bool bal_node_mask_has(const bal_node_mask *m, int64_t cpu);

/** Number of CPUs in m (0 for NULL). Thread-safe. */
BAL_API int64_t bal_node_mask_count(const bal_node_mask *m);

/** Whether a and b hold the same CPUs (NULL equals only NULL). Thread-safe. */
BAL_API bool bal_node_mask_equal(const bal_node_mask *a, const bal_node_mask *b);

/**
 * Parse a CPU list such as "0-3,8,10-11" (decimal ids, ascending or not,
 * no spaces; "" is the empty mask).
 * @return BAL_OK; BAL_EINVAL if an argument is NULL, the list is malformed
 *         or an id is >= #BAL_NODE_MAX_CPUS (out unchanged).
 * Thread-safety: safe.
 */
BAL_API int bal_node_mask_parse(const char *list, bal_node_mask *out);

/**
 * Write m as a CPU list in canonical form ("0-3,8,10-11"; "" when empty).
 * @param buf receives the NUL-terminated list; size its length in bytes.
 * @return the list's length (without the NUL), or BAL_EINVAL (NULL m or
 *         buf), BAL_ERANGE (size too small: buf holds "" then).
 * Thread-safety: safe.
 */
BAL_API int bal_node_mask_format(const bal_node_mask *m, char *buf, size_t size);

/* ------------------------------------------------------------------ */
/* Registries                                                          */

/** How to create a registry; initialise with bal_node_registry_config_init(). */
typedef struct bal_node_registry_config {
  const char *name;       /**< POSIX shm name ("/x" or "x"); NULL: $BALLAST_NODE_REGISTRY */
  int64_t virtual_cpus;   /**< 1 .. #BAL_NODE_MAX_CPUS virtual CPUs (binding off), or
                               0: the machine's configured CPUs (default 0) */
  double sharing_factor;  /**< SF of the rule, in #BAL_SHARE_FACTOR_RANGE
                               (bal_share_factor_valid(); default
                               #BAL_SHARE_FACTOR_DEFAULT, 0.5) */
  const char *group;      /**< NULL: mode 0600 (default); else a group name:
                               mode 0660, owned by that group */
} bal_node_registry_config;

/**
 * Defaults: name NULL (from the environment), real CPUs, SF 0.5, mode 0600.
 * @return BAL_OK; BAL_EINVAL if cfg is NULL. Thread-safety: safe.
 */
BAL_API int bal_node_registry_config_init(bal_node_registry_config *cfg);

/**
 * Create an empty registry (a new shared-memory object).
 * @return BAL_OK; BAL_EINVAL (NULL cfg, no name and no environment
 *         variable, malformed or too long name, CPU count or SF out of
 *         range, real mode on a machine with more than #BAL_NODE_MAX_CPUS
 *         CPUs); BAL_EBUSY (a registry of that name exists); BAL_ENOTFOUND
 *         (unknown group); BAL_EPERM (not allowed to create it or to give
 *         it that group); BAL_ESYS (other system failures). On error no
 *         object is left behind.
 * Thread-safety: safe.
 */
BAL_API int bal_node_registry_create(const bal_node_registry_config *cfg);

/**
 * Remove a registry's name (shm_unlink). Processes still attached keep
 * their mapping until they detach; new attaches get BAL_ENOTFOUND.
 * @param name the registry; NULL: $BALLAST_NODE_REGISTRY.
 * Whatever object is under the name is removed, registry or not (a
 * corrupted one included); check it with bal_node_manager_open() first
 * to remove only registries.
 * @return BAL_OK; BAL_EINVAL (no or malformed name); BAL_ENOTFOUND;
 *         BAL_EPERM; BAL_EFORMAT (a directory is under the name); BAL_ESYS.
 *         Thread-safety: safe.
 */
BAL_API int bal_node_registry_destroy(const char *name);

/* ------------------------------------------------------------------ */
/* Process side                                                        */

/** How a process attaches; initialise with bal_node_attach_config_init(). */
typedef struct bal_node_attach_config {
  const char *registry;   /**< NULL: $BALLAST_NODE_REGISTRY */
  int64_t job;            /**< job id >= 0; −1 (default): $SLURM_JOB_ID, else the pid */
  int64_t ranks;          /**< ranks of its job on this node, 1 .. #BAL_NODE_MAX_CPUS (1) */
  const bal_node_mask *cpus; /**< CPUs to claim, all free (NULL, default: the
                               free CPUs of its sched_getaffinity set, or every
                               free virtual CPU); ignored when a manager
                               admitted this process */
} bal_node_attach_config;

/** An attached process (opaque). */
typedef struct bal_node_proc bal_node_proc;

/**
 * Defaults: registry from the environment, job −1, 1 rank, cpus NULL.
 * @return BAL_OK; BAL_EINVAL if cfg is NULL. Thread-safety: safe.
 */
BAL_API int bal_node_attach_config_init(bal_node_attach_config *cfg);

/**
 * Attach the calling process. If a manager admitted this pid (with this
 * process's start time), the process takes the admitted entry and its mask
 * (its job and ranks are the admitted ones). Otherwise it registers with
 * the CPUs of cfg->cpus, which must all be free, or by default with the
 * free CPUs of its affinity set (virtual registries: every free CPU).
 * Dead processes are cleaned first.
 * @param out receives the handle (release with bal_node_detach()); the
 *        first bal_node_poll() reports the mask as changed.
 * @return BAL_OK; BAL_EINVAL (NULL argument, no registry name, job < −1,
 *         ranks out of range, malformed $SLURM_JOB_ID, cfg->cpus empty or
 *         outside the node); BAL_ENOTFOUND (no such registry); BAL_EPERM;
 *         BAL_EFORMAT (not a valid registry); BAL_EBUSY (this process is
 *         already attached, a requested CPU is held, no free CPU, or
 *         #BAL_NODE_MAX_PROCS processes registered); BAL_ENOMEM; BAL_ESYS.
 * Installs the process's SIGBUS guard ("Reliability" above) if it is not
 * in place (BAL_ESYS if sigaction refuses).
 * Thread-safety: safe; one attachment per process. A child forked after
 * attaching must not use its parent's handle (it is another process: it
 * attaches itself).
 */
BAL_API int bal_node_attach(const bal_node_attach_config *cfg, bal_node_proc **out);

/**
 * A malleability point: has this process's mask changed since the last
 * poll (or since attach), and what is it now? When it changed, in a
 * real-CPU registry the new mask is applied to the calling thread with
 * sched_setaffinity (the application places its other threads), and the
 * manager waiting in bal_node_manager_set() is released.
 * Cost: two atomic loads (this process's counter and the registry's count
 * of lends; under the SIGBUS guard of "Reliability" above)
 * and a copy when nothing changed (no lock, no system call); the lock, a
 * size check and a scan of the CPUs when it did.
 * @param mask    receives the current mask (may be NULL).
 * @param changed receives whether it changed (may be NULL).
 * @return BAL_OK; BAL_EINVAL (NULL p); BAL_ENOTFOUND (a manager removed
 *         this process, or it was cleaned as dead: its mask is then empty
 *         and stays so); BAL_EFORMAT (the registry is corrupted or was
 *         truncated); BAL_ESYS (sched_setaffinity refused the mask: the mask is reported all the
 *         same).
 * Thread-safety: one thread at a time per handle.
 */
BAL_API int bal_node_poll(bal_node_proc *p, bal_node_mask *mask, bool *changed);

/**
 * Detach: the process leaves the registry and its CPUs are handed on by
 * the rule; dead processes are cleaned too. Always releases the handle.
 * @return BAL_OK (also for NULL p and a process already removed);
 *         BAL_EFORMAT (the registry is corrupted: the entry may remain until
 *         the registry is repaired or destroyed).
 * Thread-safety: not concurrently with other calls on p.
 */
BAL_API int bal_node_detach(bal_node_proc *p);

/**
 * The CPUs of the registry p is attached to.
 * @param ncpus receives the registry's CPU count; is_virtual whether they
 *        are virtual (either may be NULL).
 * @return BAL_OK; BAL_EINVAL (NULL p). Thread-safety: safe (both values are
 *         fixed when the registry is created).
 */
BAL_API int bal_node_proc_cpus(const bal_node_proc *p, int64_t *ncpus, bool *is_virtual);

/**
 * Bind the calling thread within a mask, as attached pools bind their
 * workers and the OpenMP helper (ballast/node_omp.h) binds OpenMP threads:
 * to the k-th CPU (from 0, ascending) of mask, or with k = −1 to the whole
 * mask. Does nothing (BAL_OK) in a virtual registry.
 * @param p    the attachment (says whether the registry's CPUs are real).
 * @param mask the CPUs, typically the last mask bal_node_poll() reported.
 * @return BAL_OK; BAL_EINVAL (NULL p or mask, empty mask, k < −1 or
 *         k >= the mask's CPU count); BAL_ESYS (sched_setaffinity refused).
 * Thread-safety: safe; it moves only the calling thread.
 */
BAL_API int bal_node_bind_thread(const bal_node_proc *p, const bal_node_mask *mask, int64_t k);

/**
 * Lend the CPUs this process holds while it waits (LeWI-style: a rank
 * entering a blocking MPI call; docs/node.md, "Lending"): each becomes
 * lent (it stays this process's own), and CPUs it borrowed are passed on
 * to be borrowed again. Other attached processes borrow lent CPUs at their
 * next bal_node_poll() (this one borrows nothing until it reclaims; its
 * own next poll reports an empty mask). All of them, the calling thread's
 * CPU included: a thread waiting in MPI still runs, on the CPUs its
 * affinity names, but shares them with the borrower (see docs/node.md for
 * why nothing is kept).
 * Cost: the same whatever the CPU count: one guarded load, an exchange of
 * this process's lending word and an atomic add to the registry's count of
 * lends; no lock, no system call, no search for dead processes (measured
 * in docs/BENCHMARKS.md, "node", with `build/bench/node/bench_node_lend
 * 500 N`). The SIGBUS guard covers its first load only: a registry
 * truncated during the call may still raise SIGBUS in it.
 * @return the number of CPUs this process holds, now lent (>= 0; 0 if it
 *         was lending already); BAL_EINVAL (NULL p); BAL_ENOTFOUND (a
 *         manager removed this process, or it was cleaned: nothing lent);
 *         BAL_EFORMAT (the registry was truncated).
 * Thread-safety: safe against bal_node_poll() on the same handle from
 * another thread and against every other participant; lend and reclaim on
 * one handle are to be called by one thread at a time, in pairs. A manager
 * removing this process during the call (and another process taking its
 * slot within that window) is not detected.
 */
BAL_API int bal_node_lend(bal_node_proc *p);

/**
 * Take back every CPU bal_node_lend() lent: each is this process's to use
 * again at once in the registry (a manager that moved one meanwhile wins:
 * it is no longer this process's). A borrower sees its mask shrink at its
 * next bal_node_poll() (one poll interval) and moves off it then; until
 * then its last mask still lists the CPU. This process's own next poll
 * reports its CPUs again. Reclaiming without a lend first does nothing
 * (returns 0).
 * Cost: as bal_node_lend(), plus an atomic add per process that borrowed
 * from this one since its last poll (not per CPU).
 * @return the number of CPUs this process holds, reclaimed (>= 0; 0 if it
 *         was not lending); BAL_EINVAL (NULL p); BAL_ENOTFOUND (removed or
 *         cleaned); BAL_EFORMAT (truncated).
 * Thread-safety: as bal_node_lend().
 */
BAL_API int bal_node_reclaim(bal_node_proc *p);

/* ------------------------------------------------------------------ */
/* Manager side                                                        */

/** A manager's connection to a registry (opaque). */
typedef struct bal_node_manager bal_node_manager;

/** One registered process, as bal_node_manager_list() reports it. */
typedef struct bal_node_proc_info {
  int64_t pid;            /**< process id */
  int64_t job;            /**< its job */
  int64_t ranks;          /**< ranks of its job on this node */
  bool attached;          /**< false: admitted, not yet attached */
  bool applied;           /**< the process has polled its current mask */
  bal_node_mask mask;     /**< CPUs it holds */
  bal_node_mask borrowed; /**< the part of mask lent by other jobs */
} bal_node_proc_info;

/** One CPU, as bal_node_manager_cpus() reports it. */
typedef struct bal_node_cpu_info {
  int64_t pid;   /**< process holding it, −1 if free */
  int64_t job;   /**< that process's job, −1 if free */
  int64_t owner; /**< the job that lent it to the holder, −1 if the holder's own or free */
  int64_t user;  /**< process using it now (bal_node_lend()): the holder, a
                      borrower, or −1 (free, or lent and not borrowed yet) */
  bool lent;     /**< the holder lends it (bal_node_lend()) */
} bal_node_cpu_info;

/**
 * Connect to an existing registry.
 * @param name the registry; NULL: $BALLAST_NODE_REGISTRY.
 * @return BAL_OK; BAL_EINVAL (NULL out, no or malformed name);
 *         BAL_ENOTFOUND; BAL_EPERM; BAL_EFORMAT (wrong magic, version or
 *         size, or no shared-memory object under the name: a directory,
 *         a symbolic link); BAL_ENOMEM; BAL_ESYS.
 * Thread-safety: safe.
 */
BAL_API int bal_node_manager_open(const char *name, bal_node_manager **out);

/**
 * Disconnect (the registry stays). NULL is ignored.
 * Thread-safety: not while another thread uses m (as free()); other
 * handles are unaffected.
 */
BAL_API void bal_node_manager_close(bal_node_manager *m);

/**
 * The registry's CPUs.
 * @param ncpus receives the CPU count; is_virtual whether they are virtual
 *        (either may be NULL).
 * @return BAL_OK; BAL_EINVAL (NULL m). Thread-safety: safe.
 */
BAL_API int bal_node_manager_info(const bal_node_manager *m, int64_t *ncpus, bool *is_virtual);

/**
 * Snapshot of the registered processes, in registry order, after cleaning
 * dead ones.
 * @param out receives up to cap entries (may be NULL when cap is 0).
 * @return the number of processes registered (may exceed cap: call again
 *         with more room), or BAL_EINVAL (NULL m, cap < 0, NULL out with
 *         cap > 0), BAL_EFORMAT, BAL_ESYS.
 * Thread-safety: safe (the registry is locked while copying).
 */
BAL_API int bal_node_manager_list(bal_node_manager *m, bal_node_proc_info *out, int64_t cap);

/**
 * Snapshot of every CPU of the node (who holds it and who lent it), after
 * cleaning dead processes.
 * @param out receives up to cap entries, one per CPU id from 0.
 * @return the node's CPU count, or BAL_EINVAL, BAL_EFORMAT, BAL_ESYS.
 * Thread-safety: safe.
 */
BAL_API int bal_node_manager_cpus(bal_node_manager *m, bal_node_cpu_info *out, int64_t cap);

/**
 * Set the mask of process pid. Each CPU of mask must be free or already
 * held by pid (shrink another process first); CPUs that leave pid's mask
 * become free (a borrowed one is not returned to its lender).
 * @param timeout_s 0: return at once; > 0: then wait up to that many
 *        seconds until the process has polled the new mask (past about
 *        292 years, what nanoseconds in an int64 hold: without limit).
 * @return BAL_OK; BAL_EINVAL (NULL argument, empty mask, a CPU outside the
 *         node, negative or non-finite timeout); BAL_ENOTFOUND (pid not
 *         registered, or dead); BAL_EBUSY (a CPU is held by another
 *         process); BAL_EFORMAT; BAL_ESYS; BAL_ETIMEDOUT (the mask is set
 *         but was not applied in time). Nothing changes on the other
 *         errors, except BAL_EFORMAT or BAL_ESYS during the wait (the
 *         registry truncated, or a read failing, after the mask was set):
 *         the mask is then set, as with BAL_ETIMEDOUT.
 * Thread-safety: safe, also against other managers and processes.
 */
BAL_API int bal_node_manager_set(bal_node_manager *m, int64_t pid, const bal_node_mask *mask,
                                 double timeout_s);

/**
 * Admit process pid, about to start (e.g. forked, not yet exec'ed), as a
 * guest of job `job` with `ranks` ranks on this node, taking CPUs from the
 * jobs next_to[0 .. n_next_to − 1] (n_next_to 0: every other job on the
 * node) by the rule in this header's introduction. When pid later calls
 * bal_node_attach() it gets this mask.
 * @param granted receives the guest's mask (may be NULL).
 * @return BAL_OK; BAL_EINVAL (NULL m, job < 0, ranks out of range,
 *         n_next_to < 0 or > #BAL_NODE_MAX_PROCS, NULL next_to with
 *         n_next_to > 0, pid already registered); BAL_ENOTFOUND (pid is
 *         not a live process, or a job of next_to has no process here);
 *         BAL_EBUSY (the guest would get no CPU, or #BAL_NODE_MAX_PROCS
 *         processes registered); BAL_EFORMAT; BAL_ESYS. Nothing changes
 *         on error.
 * Thread-safety: safe, also against other managers and processes.
 */
BAL_API int bal_node_manager_admit(bal_node_manager *m, int64_t pid, int64_t job, int64_t ranks,
                                   const int64_t *next_to, int64_t n_next_to,
                                   bal_node_mask *granted);

/**
 * Admit process pid, about to start, as one more process of job `job`,
 * which already has processes on this node (e.g. the second rank of a
 * guest, admitted after its first by bal_node_manager_admit()): it takes
 * floor(T / (P + 1)) of the T CPUs the job's P processes hold here, the
 * highest CPUs of the process holding the most first, never a process's
 * last CPU. A borrowed CPU keeps its lender, so it returns to that job
 * when pid ends, as it would have from the process it was taken from.
 * @param granted receives pid's mask (may be NULL).
 * @return BAL_OK; BAL_EINVAL (NULL m, job < 0, ranks out of range, pid
 *         already registered); BAL_ENOTFOUND (pid is not a live process,
 *         or job has no process here); BAL_EBUSY (the part would be empty,
 *         or #BAL_NODE_MAX_PROCS processes registered); BAL_EFORMAT;
 *         BAL_ESYS. Nothing changes on error.
 * Thread-safety: safe, also against other managers and processes.
 */
BAL_API int bal_node_manager_admit_sibling(bal_node_manager *m, int64_t pid, int64_t job,
                                           int64_t ranks, bal_node_mask *granted);

/**
 * Admit process pid of job `job` as the mate of job `guest`, a guest of
 * `job` that was admitted on this node first (SLURM may start a guest's
 * step on a node before its mate's, and the guest then took the node's
 * free CPUs as its own). The CPUs the guest holds of its own become pid's,
 * and the guest gets back, lent by `job`, the share the sharing rule lends
 * (bal_share_lend(): min(floor(SF × C), C − ranks) of those C CPUs), the
 * highest ones, in contiguous blocks of near-equal size, one per guest
 * process: the registry reads as if the mate had come first, so the CPUs
 * go where the rule says whichever job ends first.
 * @param granted receives pid's mask (may be NULL).
 * @return BAL_OK; BAL_EINVAL (NULL m, job or guest < 0, job == guest,
 *         ranks out of range, pid already registered); BAL_ENOTFOUND (pid
 *         is not a live process, or guest has no process here); BAL_EBUSY
 *         (the guest holds no CPU of its own, the share would leave a
 *         guest process or pid without a CPU, or #BAL_NODE_MAX_PROCS
 *         processes registered); BAL_EFORMAT; BAL_ESYS. Nothing changes on
 *         error.
 * Thread-safety: safe, also against other managers and processes.
 */
BAL_API int bal_node_manager_admit_mate(bal_node_manager *m, int64_t pid, int64_t job,
                                        int64_t ranks, int64_t guest, bal_node_mask *granted);

/**
 * Remove process pid as if it had ended: its CPUs are handed on by the rule
 * (the process's next bal_node_poll() returns BAL_ENOTFOUND).
 * @return BAL_OK; BAL_EINVAL (NULL m); BAL_ENOTFOUND (not registered);
 *         BAL_EFORMAT; BAL_ESYS.
 * Thread-safety: safe, also against other managers and processes.
 */
BAL_API int bal_node_manager_remove(bal_node_manager *m, int64_t pid);

BAL_END_DECLS

#endif /* BALLAST_NODE_H */
