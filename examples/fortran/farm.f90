!> A task farm with work stealing from Fortran (module ballast_mpi): each
!> rank adds its own tasks (Collatz path lengths, an irregular cost), rank
!> 0 four times as many as the others; idle ranks steal from busy ones and
!> every result travels back to the rank that added the task. The program
!> checks that each rank got every one of its results exactly once, right,
!> and that every task ran exactly once overall.
!>
!> Build (installed Ballast):
!>   mpif90 farm.f90 $(pkg-config --cflags --libs ballast-fortran-mpi)
!> Run:  mpiexec -n 4 ./a.out [tasks per rank]
module farm_tasks
  use, intrinsic :: iso_c_binding
  implicit none
contains
  !> Steps of the Collatz sequence from x down to 1.
  recursive function collatz(x0) result(steps)
    integer(c_int64_t), intent(in) :: x0
    integer(c_int64_t) :: steps, x
    x = x0
    steps = 0
    do while (x /= 1)
      if (mod(x, 2_c_int64_t) == 0) then
        x = x / 2
      else
        x = 3 * x + 1
      end if
      steps = steps + 1
    end do
  end function collatz

  !> The task function: input one int64 start, output its path length.
  !> `recursive`: in THREAD progress mode it runs on Ballast's worker
  !> thread while the main thread serves MPI.
  recursive function task(input, in_len, output, out_cap, out_len, arg) bind(c) result(rc)
    type(c_ptr), value :: input
    integer(c_size_t), value :: in_len
    type(c_ptr), value :: output
    integer(c_size_t), value :: out_cap
    integer(c_size_t), intent(out) :: out_len
    type(c_ptr), value :: arg
    integer(c_int) :: rc
    integer(c_int64_t), pointer :: start, steps
    out_len = 0
    rc = 1
    if (in_len /= 8 .or. out_cap < 8 .or. c_associated(arg)) return
    call c_f_pointer(input, start)
    call c_f_pointer(output, steps)
    steps = collatz(start)
    out_len = 8
    rc = 0
  end function task
end module farm_tasks

program farm
  use, intrinsic :: iso_c_binding
  use mpi_f08
  use ballast, only: BAL_OK, bal_strerror
  use ballast_mpi
  use farm_tasks
  implicit none
  type(bal_steal) :: s
  type(bal_steal_stats) :: st
  integer(c_int64_t), target :: start
  integer(c_int64_t), pointer :: steps
  integer(c_int64_t) :: ntasks, i, id, executed, bad
  integer(c_size_t) :: nbytes
  integer(c_int) :: rc, status
  integer :: rank, nranks, provided
  type(c_ptr) :: data
  character(len=32) :: argument

  call MPI_Init_thread(MPI_THREAD_FUNNELED, provided) ! THREAD progress
  if (provided < MPI_THREAD_FUNNELED) then
    ! The default progress mode (AUTO) then runs the tasks on this thread
    ! between message polls (POLL): still correct, only without overlap.
    write (0, '(a)') 'farm: MPI_THREAD_FUNNELED not provided, tasks run between polls'
  end if
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks)
  ntasks = 2000
  if (command_argument_count() >= 1) then
    call get_command_argument(1, argument)
    read (argument, *) ntasks
  end if
  if (rank == 0) ntasks = 4 * ntasks ! the imbalance that stealing removes

  rc = bal_steal_create(MPI_COMM_WORLD, s) ! default policy "smallworld"
  if (rc /= BAL_OK) then
    write (0, '(a, a)') 'bal_steal_create: ', bal_strerror(rc)
    call MPI_Abort(MPI_COMM_WORLD, 1)
  end if
  do i = 0, ntasks - 1
    start = 1000000_c_int64_t * rank + 10 * i + 1
    rc = bal_steal_add_task(s, c_loc(start), 8_c_size_t, id) ! the input is copied
    if (rc /= BAL_OK .or. id /= i) call MPI_Abort(MPI_COMM_WORLD, 1)
  end do
  rc = bal_steal_run(s, task, 8_c_size_t)
  if (rc /= BAL_OK) then
    write (0, '(a, a)') 'bal_steal_run: ', bal_strerror(rc)
    call MPI_Abort(MPI_COMM_WORLD, 1)
  end if

  ! Each of this rank's tasks has exactly one result, the right one.
  bad = 0
  do i = 0, ntasks - 1
    rc = bal_steal_result(s, i, data, nbytes, status)
    start = 1000000_c_int64_t * rank + 10 * i + 1
    if (rc /= BAL_OK .or. status /= 0 .or. nbytes /= 8) then
      bad = bad + 1
      cycle
    end if
    call c_f_pointer(data, steps)
    if (steps /= collatz(start)) bad = bad + 1
  end do
  rc = bal_steal_stats_get(s, st)
  executed = st%executed_own + st%executed_stolen
  write (*, '("rank ", i0, ": ", i0, " own tasks, ran ", i0, " own and ", i0, &
    & " stolen, ", i0, " thefts")') rank, ntasks, st%executed_own, st%executed_stolen, st%thefts
  call MPI_Allreduce(MPI_IN_PLACE, bad, 1, MPI_INTEGER8, MPI_SUM, MPI_COMM_WORLD)
  call MPI_Allreduce(MPI_IN_PLACE, executed, 1, MPI_INTEGER8, MPI_SUM, MPI_COMM_WORLD)
  call MPI_Allreduce(MPI_IN_PLACE, ntasks, 1, MPI_INTEGER8, MPI_SUM, MPI_COMM_WORLD)
  call bal_steal_destroy(s)
  call MPI_Finalize()
  if (bad /= 0 .or. executed /= ntasks) then
    if (rank == 0) write (0, '(i0, " wrong or missing results; ", i0, " of ", i0, " tasks ran")') &
      bad, executed, ntasks
    error stop 1
  end if
  if (rank == 0) write (*, '("farm: every result back exactly once (", i0, " tasks)")') ntasks
end program farm
