!> Overhead of the Fortran binding: bal_for with a trivial body over n
!> indices (default 10^6) called from Fortran through module ballast, against
!> the same loop and body called from C (for_overhead_c.c), in interleaved
!> rounds (the order alternates every round). Prints the median time per
!> call of each and their difference. docs/BENCHMARKS.md has the figures.
!> Usage: bench_fortran_for_overhead [rounds] [n]   (threads: BALLAST_NUM_THREADS)
module overhead_body
  use, intrinsic :: iso_c_binding
  use ballast
  implicit none
contains
  recursive subroutine body(lo, hi, arg) bind(c)
    integer(c_int64_t), value :: lo, hi
    type(c_ptr), value :: arg
    integer(c_int64_t), pointer :: partial(:)
    call c_f_pointer(arg, partial, [8 * (bal_worker_id() + 1)])
    partial(8 * bal_worker_id() + 1) = partial(8 * bal_worker_id() + 1) + (hi - lo)
  end subroutine body

  subroutine sort(a)
    real(c_double), intent(inout) :: a(:)
    integer :: i, j
    real(c_double) :: x
    do i = 2, size(a)
      x = a(i)
      j = i - 1
      do while (j >= 1)
        if (a(j) <= x) exit
        a(j + 1) = a(j)
        j = j - 1
      end do
      a(j + 1) = x
    end do
  end subroutine sort
end module overhead_body

program for_overhead
  use, intrinsic :: iso_c_binding
  use ballast
  use overhead_body
  implicit none
  interface
    function bench_now() bind(c, name='bench_now') result(t)
      import :: c_double
      real(c_double) :: t
    end function bench_now
    function bench_c_for(pool, n, partial) bind(c, name='bench_c_for') result(rc)
      import :: c_ptr, c_int64_t, c_int
      type(c_ptr), value :: pool
      integer(c_int64_t), value :: n
      integer(c_int64_t) :: partial(*)
      integer(c_int) :: rc
    end function bench_c_for
  end interface
  type(bal_pool) :: pool
  integer(c_int64_t), allocatable, target :: partial(:)
  real(c_double), allocatable :: tf(:), tc(:)
  real(c_double) :: t0, mf, mc
  integer(c_int64_t) :: n
  integer :: rounds, r, k
  integer(c_int) :: rc
  character(len=32) :: argument

  rounds = 201
  n = 1000000
  if (command_argument_count() >= 1) then
    call get_command_argument(1, argument)
    read (argument, *) rounds
  end if
  if (command_argument_count() >= 2) then
    call get_command_argument(2, argument)
    read (argument, *) n
  end if
  if (bal_pool_create(pool) /= BAL_OK) error stop 'bal_pool_create'
  allocate(partial(8 * bal_pool_size(pool)), tf(rounds), tc(rounds))
  do r = 0, rounds ! round 0 warms up
    do k = 0, 1
      partial = 0
      t0 = bench_now()
      if (mod(r + k, 2) == 0) then
        rc = bal_for(pool, 0_c_int64_t, n, body, c_loc(partial))
        if (r > 0) tf(r) = bench_now() - t0
      else
        rc = bench_c_for(pool%ptr, n, partial)
        if (r > 0) tc(r) = bench_now() - t0
      end if
      if (rc /= BAL_OK .or. sum(partial) /= n) error stop 'wrong loop'
    end do
  end do
  call sort(tf)
  call sort(tc)
  mf = tf((rounds + 1) / 2)
  mc = tc((rounds + 1) / 2)
  write (*, '("bal_for over ", i0, " indices, ", i0, " workers, ", i0, " interleaved rounds")') &
    n, bal_pool_size(pool), rounds
  write (*, '("median per call: Fortran ", f10.3, " us, C ", f10.3, " us")') 1e6 * mf, 1e6 * mc
  write (*, '("Fortran - C: ", f10.1, " ns (", f6.2, " %)")') 1e9 * (mf - mc), 100 * (mf - mc) / mc
  call bal_pool_destroy(pool)
end program for_overhead
