/**
 * @file ballast/ballast.h
 * @brief Umbrella header: includes every Ballast public header.
 *
 * Modules (one header each):
 *  - ballast/for.h : parallel loop balanced by lock-free work stealing (threads)
 *  - ballast/overlay.h : small-world overlay of ranks, routing, victim selection
 *  - ballast/sched.h : job scheduling simulator (FCFS, EASY, SD-Policy) on
 *    SWF workload traces (ballast/swf.h)
 *  - ballast/node.h : node-level malleability, a shared-memory registry of
 *    processes and CPU masks
 *  - ballast/steal.h : distributed work stealing over MPI
 *  - ballast/rebalance.h : iterative rebalancing of domain-decomposed MPI codes
 *
 * The two MPI modules are included only when Ballast was built with MPI
 * (BALLAST_HAVE_STEAL, BALLAST_HAVE_REBALANCE in ballast/features.h) and
 * <mpi.h> is reachable (compile with mpicc); otherwise include them yourself.
 *
 *  - ballast/share.h : SD-Policy's sharing rule, shared by sched, node and SLURM
 *
 * Common: ballast/error.h (status codes), ballast/log.h (diagnostics),
 * ballast/version.h (versions), ballast/features.h (optional modules).
 */
#ifndef BALLAST_H
#define BALLAST_H

#include <ballast/defs.h>
#include <ballast/error.h>
#include <ballast/log.h>
#include <ballast/version.h>
#include <ballast/for.h>
#include <ballast/overlay.h>
#include <ballast/swf.h>
#include <ballast/sched.h>
#include <ballast/share.h>
#include <ballast/node.h>
#include <ballast/features.h>

/* BALLAST_MPI_REACHABLE: <mpi.h> is already included or can be. */
#if defined(MPI_VERSION)
#define BALLAST_MPI_REACHABLE 1
#elif defined(__has_include)
#if __has_include(<mpi.h>)
#define BALLAST_MPI_REACHABLE 1
#endif
#endif

#if defined(BALLAST_MPI_REACHABLE) && BALLAST_HAVE_STEAL
#include <ballast/steal.h>
#endif
#if defined(BALLAST_MPI_REACHABLE) && BALLAST_HAVE_REBALANCE
#include <ballast/rebalance.h>
#endif

#endif /* BALLAST_H */
