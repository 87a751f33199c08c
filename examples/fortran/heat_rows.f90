!> A 2-D heat equation (explicit Jacobi steps) on NY x NX cells whose rows
!> are distributed over the MPI ranks, as in a 1-D domain decomposition,
!> and rebalanced through module ballast_mpi: Ballast measures each rank's
!> rate and moves boundary rows between neighbouring ranks through the
!> pack/unpack/remove callbacks below. Rank 0 is made slow on purpose
!> (a busy wait per row, as if it shared its core), so rows leave it.
!>
!> Same grid, initial values, iterations and checksum as its C twin,
!> examples/heat_rows.c: both print the checksum's bits, which do not
!> depend on the language, the number of ranks or on balancing (every
!> cell is computed by the same expression, and the checksum adds row sums
!> in global row order on rank 0).
!>
!> Build (installed Ballast):
!>   mpif90 -ffp-contract=off heat_rows.f90 $(pkg-config --cflags --libs ballast-fortran-mpi)
!> Run:  mpiexec -n 4 ./a.out [--no-balance]
module heat_rows_domain
  use, intrinsic :: iso_c_binding
  use ballast_mpi, only: BAL_REBALANCE_LOW
  implicit none
  integer, parameter :: nx = 64          !< columns
  integer, parameter :: ny = 96          !< rows of the whole grid
  integer, parameter :: iters = 300
  real(c_double), parameter :: alpha = 0.1_c_double
  real(c_double), parameter :: slow_s = 50.0e-6_c_double !< rank 0's extra time per row
  !> This rank's rows 1..n of the grid, with halo rows 0 and n+1:
  !> u(j, i) is column j of local row i (a row is contiguous).
  real(c_double), allocatable, save :: u(:, :)
  integer, save :: n = 0
contains
  !> Replace the local rows by rows(:, 1:m), with empty halos.
  subroutine set_rows(rows, m)
    integer, intent(in) :: m
    real(c_double), intent(in) :: rows(nx, m)
    real(c_double), allocatable :: v(:, :)
    allocate(v(nx, 0:m + 1))
    v = 0
    v(:, 1:m) = rows
    call move_alloc(v, u)
    n = m
  end subroutine set_rows

  ! ---- the rebalance callbacks: items are rows, in global row order ----

  function count_rows(count, arg) bind(c) result(rc)
    integer(c_int64_t), intent(out) :: count
    type(c_ptr), value :: arg
    integer(c_int) :: rc
    count = n
    rc = 0
    if (c_associated(arg)) rc = 1 ! no arg is used here
  end function count_rows

  !> Copy `count` rows `skip` rows away from `end` into buf.
  function pack_rows(end, skip, count, buf, bytes, arg) bind(c) result(rc)
    integer(c_int), value :: end
    integer(c_int64_t), value :: skip, count
    type(c_ptr), value :: buf
    integer(c_size_t), value :: bytes
    type(c_ptr), value :: arg
    integer(c_int) :: rc
    real(c_double), pointer :: out(:, :)
    integer :: first
    rc = 1
    if (bytes /= 8 * nx * count .or. c_associated(arg)) return
    call c_f_pointer(buf, out, [int(nx, c_int64_t), count])
    if (end == BAL_REBALANCE_LOW) then
      first = int(skip) + 1
    else
      first = n - int(skip + count) + 1
    end if
    out = u(:, first:first + count - 1)
    rc = 0
  end function pack_rows

  !> Insert the `count` rows of buf before the first row (LOW) or after
  !> the last (HIGH).
  function unpack_rows(end, count, buf, bytes, arg) bind(c) result(rc)
    integer(c_int), value :: end
    integer(c_int64_t), value :: count
    type(c_ptr), value :: buf
    integer(c_size_t), value :: bytes
    type(c_ptr), value :: arg
    integer(c_int) :: rc
    real(c_double), pointer :: in(:, :)
    rc = 1
    if (bytes /= 8 * nx * count .or. c_associated(arg)) return
    call c_f_pointer(buf, in, [int(nx, c_int64_t), count])
    if (end == BAL_REBALANCE_LOW) then
      call set_rows(reshape([in, u(:, 1:n)], [nx, n + int(count)]), n + int(count))
    else
      call set_rows(reshape([u(:, 1:n), in], [nx, n + int(count)]), n + int(count))
    end if
    rc = 0
  end function unpack_rows

  !> Drop `count` rows at `end` (they were sent).
  subroutine remove_rows(end, count, arg) bind(c)
    integer(c_int), value :: end
    integer(c_int64_t), value :: count
    type(c_ptr), value :: arg
    if (c_associated(arg)) return
    if (end == BAL_REBALANCE_LOW) then
      call set_rows(u(:, int(count) + 1:n), n - int(count))
    else
      call set_rows(u(:, 1:n - int(count)), n - int(count))
    end if
  end subroutine remove_rows
end module heat_rows_domain

program heat_rows
  use, intrinsic :: iso_c_binding
  use mpi_f08
  use ballast, only: BAL_OK, bal_strerror
  use ballast_mpi
  use heat_rows_domain
  implicit none
  type(bal_rebalance) :: rb
  type(bal_rebalance_config) :: cfg
  type(bal_rebalance_callbacks) :: cb
  integer :: rank, nranks, it, i, j, g, first, prev, next, nreq
  integer, allocatable :: counts(:), displs(:)
  real(c_double), allocatable :: unew(:, :), row_sums(:), all_sums(:)
  real(c_double) :: t0, checksum
  integer(c_int64_t) :: moved, total_moved
  integer(c_int) :: rc
  logical :: balance
  character(len=32) :: argument
  type(MPI_Request) :: req(4)

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks)
  balance = .true.
  do i = 1, command_argument_count()
    call get_command_argument(i, argument)
    if (argument == '--no-balance') balance = .false.
  end do

  ! Block distribution of the rows, then the initial values.
  first = rank * ny / nranks
  n = (rank + 1) * ny / nranks - first
  allocate(unew(nx, n))
  do i = 1, n
    g = first + i - 1
    do j = 1, nx
      unew(j, i) = real(mod(7 * g + 13 * (j - 1), 17), c_double) / 16.0_c_double
    end do
  end do
  call set_rows(unew, n)

  if (balance) then
    rc = bal_rebalance_config_init(cfg)
    cfg%interval = 10 ! decide every 10 iterations
    cb%count = c_funloc(count_rows)
    cb%pack = c_funloc(pack_rows)
    cb%unpack = c_funloc(unpack_rows)
    cb%remove = c_funloc(remove_rows)
    cb%item_bytes = 8 * nx
    rc = bal_rebalance_create(MPI_COMM_WORLD, cb, rb, cfg)
    if (rc /= BAL_OK) then
      write (0, '(a, a)') 'bal_rebalance_create: ', bal_strerror(rc)
      call MPI_Abort(MPI_COMM_WORLD, 1)
    end if
  end if

  allocate(counts(0:nranks - 1), displs(0:nranks - 1))
  total_moved = 0
  do it = 1, iters
    ! Where the rows are now: the first global row of this rank and its
    ! nearest neighbours that hold rows (a rank may have given all away).
    call MPI_Allgather(n, 1, MPI_INTEGER, counts, 1, MPI_INTEGER, MPI_COMM_WORLD)
    first = sum(counts(0:rank - 1))
    prev = rank - 1
    do while (prev >= 0)
      if (counts(prev) > 0) exit
      prev = prev - 1
    end do
    next = rank + 1
    do while (next < nranks)
      if (counts(next) > 0) exit
      next = next + 1
    end do
    ! Halo rows from the neighbours.
    nreq = 0
    if (n > 0 .and. prev >= 0) then
      call MPI_Irecv(u(:, 0), nx, MPI_DOUBLE_PRECISION, prev, 2, MPI_COMM_WORLD, req(nreq + 1))
      call MPI_Isend(u(:, 1), nx, MPI_DOUBLE_PRECISION, prev, 1, MPI_COMM_WORLD, req(nreq + 2))
      nreq = nreq + 2
    end if
    if (n > 0 .and. next < nranks) then
      call MPI_Irecv(u(:, n + 1), nx, MPI_DOUBLE_PRECISION, next, 1, MPI_COMM_WORLD, &
        req(nreq + 1))
      call MPI_Isend(u(:, n), nx, MPI_DOUBLE_PRECISION, next, 2, MPI_COMM_WORLD, req(nreq + 2))
      nreq = nreq + 2
    end if
    call MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE)

    if (balance) rc = bal_rebalance_mark(rb)
    ! One Jacobi step; the outer rows and columns are fixed.
    if (allocated(unew)) deallocate(unew)
    allocate(unew(nx, n))
    do i = 1, n
      g = first + i - 1
      unew(:, i) = u(:, i)
      if (g == 0 .or. g == ny - 1) cycle
      do j = 2, nx - 1
        unew(j, i) = u(j, i) + alpha * (((u(j, i - 1) + u(j, i + 1)) + &
          (u(j - 1, i) + u(j + 1, i))) - 4.0_c_double * u(j, i))
      end do
    end do
    u(:, 1:n) = unew
    if (rank == 0) then ! the slow rank: busy for slow_s per row
      t0 = MPI_Wtime()
      do while (MPI_Wtime() - t0 < slow_s * n)
      end do
    end if
    if (balance) then
      rc = bal_rebalance_step(rb, moved=moved)
      if (rc /= BAL_OK) then
        write (0, '(a, a)') 'bal_rebalance_step: ', bal_strerror(rc)
        call MPI_Abort(MPI_COMM_WORLD, 1)
      end if
      total_moved = total_moved + moved
    end if
  end do

  ! Checksum: row sums in column order, added in global row order on rank 0.
  allocate(row_sums(n))
  do i = 1, n
    row_sums(i) = 0
    do j = 1, nx
      row_sums(i) = row_sums(i) + u(j, i)
    end do
  end do
  call MPI_Gather(n, 1, MPI_INTEGER, counts, 1, MPI_INTEGER, 0, MPI_COMM_WORLD)
  displs(0) = 0
  do i = 1, nranks - 1
    displs(i) = displs(i - 1) + counts(i - 1)
  end do
  allocate(all_sums(ny))
  call MPI_Gatherv(row_sums, n, MPI_DOUBLE_PRECISION, all_sums, counts, displs, &
    MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD)
  ! Every move is counted by its sender and its receiver.
  call MPI_Allreduce(MPI_IN_PLACE, total_moved, 1, MPI_INTEGER8, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0) then
    checksum = 0
    do i = 1, ny
      checksum = checksum + all_sums(i)
    end do
    write (*, '("heat_rows: ", i0, " x ", i0, ", ", i0, " iterations, ", i0, " ranks, ", a)') &
      ny, nx, iters, nranks, merge('balanced  ', 'unbalanced', balance)
    write (*, '("rows moved ", i0, ", rank 0 ends with ", i0, " rows")') total_moved / 2, counts(0)
    write (*, '("checksum ", i0, " (", es24.16, ")")') transfer(checksum, 0_c_int64_t), checksum
  end if
  if (balance) call bal_rebalance_destroy(rb)
  deallocate(u, unew, row_sums, all_sums, counts, displs)
  call MPI_Finalize()
end program heat_rows
