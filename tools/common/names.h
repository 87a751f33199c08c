/* Registered names (victim policies, balancers) as the tools list them in
 * --help and in their errors: from the library's public enumerations
 * (bal_steal_policy_name(), bal_rebalance_balancer_name(), ...), so that a
 * newly registered one appears in every tool without editing the tool. */
#ifndef BALLAST_TOOLS_NAMES_H
#define BALLAST_TOOLS_NAMES_H

#include <stdbool.h>
#include <stddef.h>

/* A registry's enumeration: the i-th name, NULL past the end. */
typedef const char *(*names_fn)(int i);

/* Write into buf[n] `head` and then the names name(0), name(1), ...
 * separated by ", ", the one equal to dflt (if not NULL) followed by
 * " (default)", and `tail`; a help line is broken ('\n', which cli.h's
 * --help aligns) before a word that would take it past 55 characters.
 * Returns buf; text that does not fit in n bytes is cut off. */
const char *names_help(char *buf, size_t n, const char *head, names_fn name, const char *dflt,
                       const char *tail);

/* Write into buf[n] the names name(0), name(1), ... separated by sep (an
 * error's list of what is accepted). Returns buf; text that does not fit
 * in n bytes is cut off. */
const char *names_list(char *buf, size_t n, names_fn name, const char *sep);

/* The registered name equal to text, or NULL. */
const char *names_find(names_fn name, const char *text);

#endif
