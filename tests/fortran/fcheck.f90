!> Test helpers shared by the Fortran tests: a check that records failures
!> (the program ends with `call finish`, which stops with status 1 after
!> any), and the comparison of a bind(c) type's layout with C's
!> (tests/fortran/layout.c).
module fcheck
  use, intrinsic :: iso_c_binding
  implicit none
  private
  public :: check, finish, failures, addr, check_layout

  integer, save :: failures = 0

  interface
    function bal_test_layout(which, out, cap) bind(c, name='bal_test_layout') result(n)
      import :: c_int, c_int64_t
      integer(c_int), value :: which
      integer(c_int64_t) :: out(*)
      integer(c_int), value :: cap
      integer(c_int) :: n
    end function bal_test_layout
  end interface

contains

  subroutine check(cond, what)
    logical, intent(in) :: cond
    character(len=*), intent(in) :: what
    if (.not. cond) then
      failures = failures + 1
      write (0, '(a, a)') 'FAILED: ', what
    end if
  end subroutine check

  subroutine finish(name)
    character(len=*), intent(in) :: name
    if (failures > 0) then
      write (0, '(a, ": ", i0, " failure(s)")') name, failures
      error stop 1
    end if
    write (*, '(a, ": all checks passed")') name
  end subroutine finish

  !> The address of p as an integer, for offsets.
  function addr(p) result(a)
    type(c_ptr), intent(in) :: p
    integer(c_int64_t) :: a
    a = int(transfer(p, 0_c_intptr_t), c_int64_t)
  end function addr

  !> Compare got(1:n) (size, then offsets in declaration order, as the
  !> Fortran compiler laid out the bind(c) type) with C's for `which`.
  subroutine check_layout(which, name, got, n)
    integer(c_int), intent(in) :: which
    character(len=*), intent(in) :: name
    integer(c_int64_t), intent(in) :: got(:)
    integer, intent(in) :: n
    integer(c_int64_t) :: want(64)
    integer(c_int) :: m
    integer :: i
    m = bal_test_layout(which, want, 64_c_int)
    call check(m == n, name // ': the C struct and the Fortran type have different field counts')
    do i = 1, min(m, n)
      if (want(i) /= got(i)) then
        if (i == 1) then
          write (0, '(a, ": size C ", i0, " Fortran ", i0)') name, want(i), got(i)
        else
          write (0, '(a, ": field ", i0, " at C offset ", i0, ", Fortran ", i0)') &
            name, i - 1, want(i), got(i)
        end if
        call check(.false., name // ' layout')
      end if
    end do
  end subroutine check_layout

end module fcheck
