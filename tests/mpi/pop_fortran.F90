! An unmodified Fortran program for `ballast pop` (tests/mpi/pop.sh),
! built twice: with module mpi, and with mpi_f08 (-DPOP_F08): rank r
! sleeps (r + 1) x T ms per iteration, then MPI_Allreduce, so its load
! balance is (P + 1) / (2P); then one MPI_Iprobe and one MPI_Test (of a
! null request), polls that return at once: 3 measured calls per
! iteration. Arguments: T ITERS.
#ifdef POP_F08
#define IERR
#define IERR_ONLY
#else
#define IERR , ierr
#define IERR_ONLY ierr
#endif
program pop_fortran
#ifdef POP_F08
  use mpi_f08
#else
  use mpi
#endif
  use, intrinsic :: iso_c_binding, only: c_int
  implicit none
  interface
    integer(c_int) function usleep(us) bind(c, name="usleep")
      import :: c_int
      integer(c_int), value :: us
    end function
  end interface
  integer :: rank, x, s, i, iters, t_ms, rc
  character(len=32) :: arg
  logical :: flag
#ifdef POP_F08
  type(MPI_Request) :: req
  type(MPI_Status) :: st
#else
  integer :: ierr, req
  integer :: st(MPI_STATUS_SIZE)
#endif
  call MPI_Init(IERR_ONLY)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank IERR)
  call get_command_argument(1, arg)
  read (arg, *) t_ms
  call get_command_argument(2, arg)
  read (arg, *) iters
  do i = 1, iters
    rc = usleep(int((rank + 1) * t_ms * 1000, c_int))
    x = rank
    call MPI_Allreduce(x, s, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD IERR)
    call MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, flag, st IERR)
    req = MPI_REQUEST_NULL
    call MPI_Test(req, flag, st IERR)
  end do
  call MPI_Finalize(IERR_ONLY)
end program
