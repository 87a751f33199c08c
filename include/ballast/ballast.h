/**
 * @file ballast/ballast.h
 * @brief Umbrella header: includes every Ballast public header.
 *
 * Modules (one header each):
 *  - ballast/for.h : parallel loop balanced by lock-free work stealing (threads)
 *  - ballast/overlay.h : small-world overlay of ranks, routing, victim selection
 *  - ballast/sched.h : job scheduling simulator (FCFS, EASY, SD-Policy) on
 *    SWF workload traces (ballast/swf.h)
 * Common: ballast/error.h (status codes), ballast/log.h (diagnostics),
 * ballast/version.h (versions), ballast/features.h (optional modules).
 *  - ballast/steal.h : distributed work stealing over MPI; included only
 *    when Ballast was built with MPI (BALLAST_HAVE_STEAL) and <mpi.h> is
 *    available (compile with mpicc), else include it yourself.
 *  - ballast/rebalance.h : iterative rebalancing of domain-decomposed MPI
 *    codes; included under the same conditions (BALLAST_HAVE_REBALANCE).
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
#include <ballast/features.h>
#if BALLAST_HAVE_STEAL
#if defined(MPI_VERSION)
#include <ballast/steal.h>
#elif defined(__has_include)
#if __has_include(<mpi.h>)
#include <ballast/steal.h>
#endif
#endif
#endif
#if BALLAST_HAVE_REBALANCE
#if defined(MPI_VERSION)
#include <ballast/rebalance.h>
#elif defined(__has_include)
#if __has_include(<mpi.h>)
#include <ballast/rebalance.h>
#endif
#endif
#endif

#endif /* BALLAST_H */
