/* The POP table, one row per region: printed by libballast_pop.so at
 * MPI_Finalize when no tool collects the report, and by `ballast pop`
 * (which compiles this file too), so that both look the same. */
#ifndef BALLAST_POP_TABLE_H
#define BALLAST_POP_TABLE_H

#include <stdio.h>

#include <ballast/pop.h>

/* Print the header and one row per region (names[i], fig[i]); undefined
 * figures (NaN) as n/a. */
void pop_table_print(FILE *f, int regions, const char *const *names, const bal_pop_figures *fig);

#endif
