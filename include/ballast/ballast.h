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
 * ballast/version.h (versions).
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

#endif /* BALLAST_H */
