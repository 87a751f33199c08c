!> A balanced loop from Fortran: sum f(i) over [0, n) where the cost of
!> f grows with i (a skewed loop), with bal_for. Each worker adds into its
!> own padded slot, indexed by bal_worker_id(), so the body needs no
!> atomics; integer sums make the result independent of who ran what.
!>
!> Build (installed Ballast):
!>   gfortran loop.f90 $(pkg-config --cflags --libs ballast-fortran)
!> Run: ./a.out [n]
module loop_kernel
  use, intrinsic :: iso_c_binding
  use ballast
  implicit none
  !> Slots are 8 integers (64 bytes) apart: one cache line per worker.
  integer, parameter :: pad = 8
contains
  !> Cost grows with i: item i does mod(i, 2000) inner steps.
  recursive function f(i) result(x)
    integer(c_int64_t), intent(in) :: i
    integer(c_int64_t) :: x, k
    x = 0
    do k = 0, mod(i, 2000_c_int64_t) - 1
      x = x + mod(i * 31 + k, 97_c_int64_t)
    end do
  end function f

  !> The loop body: [lo, hi) of the 0-based range. `recursive`, because
  !> workers run it concurrently (gfortran would otherwise be free to put
  !> its locals in static storage).
  recursive subroutine body(lo, hi, arg) bind(c)
    integer(c_int64_t), value :: lo, hi
    type(c_ptr), value :: arg
    integer(c_int64_t), pointer :: partial(:)
    integer(c_int64_t) :: i, local
    call c_f_pointer(arg, partial, [pad * (bal_worker_id() + 1)]) ! up to our slot
    local = 0
    do i = lo, hi - 1
      local = local + f(i)
    end do
    partial(pad * bal_worker_id() + 1) = partial(pad * bal_worker_id() + 1) + local
  end subroutine body
end module loop_kernel

program loop
  use, intrinsic :: iso_c_binding
  use ballast
  use loop_kernel
  implicit none
  type(bal_pool) :: pool
  type(bal_for_stats) :: stats
  integer(c_int64_t), allocatable, target :: partial(:)
  integer(c_int64_t) :: n, i, serial
  integer(c_int) :: rc
  character(len=32) :: argument

  n = 200000
  if (command_argument_count() >= 1) then
    call get_command_argument(1, argument)
    read (argument, *) n
  end if
  rc = bal_pool_create(pool) ! BALLAST_NUM_THREADS or all CPUs
  if (rc /= BAL_OK) then
    write (0, '(a, a)') 'bal_pool_create: ', bal_strerror(rc)
    stop 1
  end if
  allocate(partial(pad * bal_pool_size(pool)))
  partial = 0
  rc = bal_for(pool, 0_c_int64_t, n, body, c_loc(partial))
  if (rc /= BAL_OK) then
    write (0, '(a, a)') 'bal_for: ', bal_strerror(rc)
    stop 1
  end if
  rc = bal_for_last_stats(pool, stats)
  serial = 0
  do i = 0, n - 1
    serial = serial + f(i)
  end do
  write (*, '("sum ", i0, " over ", i0, " items on ", i0, " workers (", i0, " steals)")') &
    sum(partial), n, bal_pool_size(pool), stats%steals_won
  call bal_pool_destroy(pool)
  if (sum(partial) /= serial) then
    write (0, '("wrong sum: serial ", i0)') serial
    stop 1
  end if
end program loop
