/* Private to libballast_pop.so: what the C (init.c) and Fortran
 * (fortran.c) entry points share. */
#ifndef BALLAST_POP_PMPI_H
#define BALLAST_POP_PMPI_H

/* After MPI_Init: if MPI is initialized, a barrier over MPI_COMM_WORLD,
 * then start measuring (bal_pop_init), with warnings of the library on
 * stderr. */
void pop_start(void);

/* Before MPI_Finalize: gather the report and, on rank 0, write it to
 * $BALLAST_POP_OUTPUT or print the POP table on stderr. */
void pop_finish(void);

#endif
