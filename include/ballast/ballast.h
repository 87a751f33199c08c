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
 *  - ballast/rebalance.h : iterative rebalancing of domain-decomposed MPI codes;
 *    ballast/rebalance_plan.h : its building blocks (no MPI needed);
 *    ballast/rebalance_geo.h : its geometric balancer (2-D/3-D items,
 *    partitioned by ballast/partition.h)
 *  - ballast/share.h : SD-Policy's sharing rule, shared by sched, node and SLURM
 *  - ballast/pop.h : the POP efficiency metrics of an MPI run, per code region
 *
 * The MPI modules are included when this installation of Ballast has
 * them (BALLAST_HAVE_STEAL, BALLAST_HAVE_REBALANCE, BALLAST_HAVE_POP in
 * ballast/features.h):
 * then <mpi.h> must be reachable. pkg-config (ballast.pc) and the CMake
 * targets (Ballast::ballast, Ballast::ballast_static) of such a build pass
 * MPI's include path, so plain `cc` works through them. A program that uses
 * no MPI module and cannot reach <mpi.h> (flags written by hand) defines
 * BALLAST_NO_MPI before including this header, or includes the module
 * headers it uses instead of this one.
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

#include <ballast/rebalance_plan.h>
#include <ballast/partition.h>

/* By the installed features, not by probing for <mpi.h>: a program then
 * sees the same declarations whichever include path it was given, and a
 * missing <mpi.h> is an error naming it rather than a missing function. */
#if BALLAST_HAVE_STEAL && !defined(BALLAST_NO_MPI)
#include <ballast/steal.h>
#endif
#if BALLAST_HAVE_REBALANCE && !defined(BALLAST_NO_MPI)
#include <ballast/rebalance.h>
#include <ballast/rebalance_geo.h>
#endif
#if BALLAST_HAVE_POP && !defined(BALLAST_NO_MPI)
#include <ballast/pop.h>
#endif

#endif /* BALLAST_H */
