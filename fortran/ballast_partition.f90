!> @file fortran/ballast_partition.f90
!> Fortran 2008 binding of ballast/partition.h: geometric decomposition in
!> 2-D and 3-D from coordinates and weights, without MPI. In
!> libballast_fortran beside module ballast (whose status codes it
!> returns: use both modules).
!>
!> Conventions, as in module ballast (docs/fortran.md): functions return
!> an integer(c_int) status or count, C's values; on error outputs are
!> untouched. Part numbers and item indices are C's, from 0: part(i) of
!> item i (Fortran index i = C index i - 1) is in [0, parts), and a
!> transfer's items are C indices. Coordinates are interleaved, dim per
!> item (x1 y1 [z1] x2 y2 ...), as in C.
module ballast_partition
  use, intrinsic :: iso_c_binding
  use ballast, only: BAL_OK, BAL_EINVAL, bal_c_string, bal_to_c_string
  implicit none
  private

  !> Bits per dimension of the curve keys (BAL_PARTITION_CURVE_BITS).
  integer(c_int), parameter, public :: BAL_PARTITION_CURVE_BITS = 21
  !> Largest number of parts a call accepts (BAL_PARTITION_MAX_PARTS).
  integer(c_int), parameter, public :: BAL_PARTITION_MAX_PARTS = 2**20
  !> Default tolerance (BAL_PARTITION_TOLERANCE_DEFAULT).
  real(c_double), parameter, public :: BAL_PARTITION_TOLERANCE_DEFAULT = 0.04_c_double
  ! enum bal_partition_region_kind.
  integer(c_int), parameter, public :: BAL_PARTITION_REGION_BOX = 0
  integer(c_int), parameter, public :: BAL_PARTITION_REGION_CURVE = 1

  !> struct bal_partition_config: fill with bal_partition_config_init;
  !> the method is passed as a string to bal_partition_compute instead of
  !> the pointer.
  type, bind(c), public :: bal_partition_config
    type(c_ptr) :: method = c_null_ptr
    integer(c_int) :: parts = 1
    integer(c_int) :: grid(3) = 0
    real(c_double) :: min_extent(3) = 0
    real(c_double) :: max_move_fraction = 1
    real(c_double) :: tolerance = BAL_PARTITION_TOLERANCE_DEFAULT
    logical(c_bool) :: remap = .true.
    logical(c_bool) :: incremental = .true.
  end type bal_partition_config

  !> struct bal_partition_input, built by bal_partition_compute from its
  !> arguments (public for the layout test).
  type, bind(c), public :: bal_partition_input
    integer(c_int) :: dim = 0
    real(c_double) :: lo(3) = 0
    real(c_double) :: hi(3) = 0
    integer(c_int64_t) :: n = 0
    type(c_ptr) :: coords = c_null_ptr
    type(c_ptr) :: weights = c_null_ptr
    type(c_ptr) :: from = c_null_ptr
  end type bal_partition_input

  !> struct bal_partition_region: a box [lo, hi] (kind
  !> BAL_PARTITION_REGION_BOX) or the curve keys [key_lo, key_hi)
  !> (BAL_PARTITION_REGION_CURVE; uint64_t in C: a key of 2^63 reads as
  !> -huge - 1 here).
  type, bind(c), public :: bal_partition_region
    integer(c_int) :: kind = 0
    real(c_double) :: lo(3) = 0
    real(c_double) :: hi(3) = 0
    integer(c_int64_t) :: key_lo = 0
    integer(c_int64_t) :: key_hi = 0
  end type bal_partition_region

  !> struct bal_partition_transfer: `count` items go from part `from` to
  !> part `to`; bal_partition_transfer_items gives their C indices.
  type, bind(c), public :: bal_partition_transfer
    integer(c_int) :: from = 0
    integer(c_int) :: to = 0
    integer(c_int64_t) :: count = 0
    type(c_ptr) :: items = c_null_ptr
  end type bal_partition_transfer

  !> struct bal_partition_quality.
  type, bind(c), public :: bal_partition_quality
    real(c_double) :: imbalance = 0
    real(c_double) :: max_weight = 0
    real(c_double) :: avg_weight = 0
    integer(c_int64_t) :: halo_faces = 0
    integer(c_int) :: neighbors_max = 0
    real(c_double) :: neighbors_avg = 0
    integer(c_int) :: empty_parts = 0
  end type bal_partition_quality

  ! What bal_partition_transfer_items points to for an empty transfer.
  integer(c_int64_t), target, save :: no_items(0)

  !> A partition result (opaque; null until bal_partition_compute fills it).
  type, public :: bal_partition_result
    type(c_ptr) :: ptr = c_null_ptr
  end type bal_partition_result

  interface
    function c_config_init(cfg) bind(c, name='bal_partition_config_init') result(rc)
      import :: c_int, bal_partition_config
      type(bal_partition_config), intent(inout) :: cfg
      integer(c_int) :: rc
    end function c_config_init
    function c_method_name(i) bind(c, name='bal_partition_method_name') result(p)
      import :: c_int, c_ptr
      integer(c_int), value :: i
      type(c_ptr) :: p
    end function c_method_name
    function c_compute(in, cfg, prev, part, out) bind(c, name='bal_partition_compute') result(rc)
      import :: c_int, c_ptr, bal_partition_input, bal_partition_config
      type(bal_partition_input), intent(in) :: in
      type(bal_partition_config), intent(in) :: cfg
      type(c_ptr), value :: prev, part, out
      integer(c_int) :: rc
    end function c_compute
    subroutine c_result_destroy(r) bind(c, name='bal_partition_result_destroy')
      import :: c_ptr
      type(c_ptr), value :: r
    end subroutine c_result_destroy
    function c_result_parts(r) bind(c, name='bal_partition_result_parts') result(n)
      import :: c_int, c_ptr
      type(c_ptr), value :: r
      integer(c_int) :: n
    end function c_result_parts
    function c_result_method(r) bind(c, name='bal_partition_result_method') result(p)
      import :: c_ptr
      type(c_ptr), value :: r
      type(c_ptr) :: p
    end function c_result_method
    function c_region_get(r, k, out) bind(c, name='bal_partition_region_get') result(rc)
      import :: c_int, c_ptr, bal_partition_region
      type(c_ptr), value :: r
      integer(c_int), value :: k
      type(bal_partition_region), intent(inout) :: out
      integer(c_int) :: rc
    end function c_region_get
    function c_neighbors(r, k, list) bind(c, name='bal_partition_neighbors') result(n)
      import :: c_int, c_ptr
      type(c_ptr), value :: r
      integer(c_int), value :: k
      type(c_ptr), intent(out) :: list
      integer(c_int) :: n
    end function c_neighbors
    function c_exports(r, k, list) bind(c, name='bal_partition_exports') result(n)
      import :: c_int, c_ptr
      type(c_ptr), value :: r
      integer(c_int), value :: k
      type(c_ptr), intent(out) :: list
      integer(c_int) :: n
    end function c_exports
    function c_imports(r, k, list) bind(c, name='bal_partition_imports') result(n)
      import :: c_int, c_ptr
      type(c_ptr), value :: r
      integer(c_int), value :: k
      type(c_ptr), intent(out) :: list
      integer(c_int) :: n
    end function c_imports
    function c_grid_quality(dim, cells, n, w, parts, part, out) &
        bind(c, name='bal_partition_grid_quality') result(rc)
      import :: c_int, c_int64_t, c_ptr, bal_partition_quality
      integer(c_int), value :: dim
      integer(c_int64_t), intent(in) :: cells(3)
      integer(c_int64_t), value :: n
      type(c_ptr), value :: w
      integer(c_int), value :: parts
      integer(c_int), intent(in) :: part(*)
      type(bal_partition_quality), intent(inout) :: out
      integer(c_int) :: rc
    end function c_grid_quality
    function c_moved(n, w, a, b, items, weight) bind(c, name='bal_partition_moved') result(rc)
      import :: c_int, c_int64_t, c_double, c_ptr
      integer(c_int64_t), value :: n
      type(c_ptr), value :: w
      integer(c_int), intent(in) :: a(*), b(*)
      integer(c_int64_t), intent(out) :: items
      real(c_double), intent(out) :: weight
      integer(c_int) :: rc
    end function c_moved
  end interface

  interface bal_is_null
    module procedure result_is_null
  end interface bal_is_null
  public :: bal_is_null

  public :: bal_partition_config_init, bal_partition_method_name, bal_partition_compute, &
    bal_partition_result_destroy, bal_partition_result_parts, bal_partition_result_method, &
    bal_partition_region_get, bal_partition_neighbors, bal_partition_exports, &
    bal_partition_imports, bal_partition_transfer_items, bal_partition_grid_quality, &
    bal_partition_moved

contains

  pure logical function result_is_null(h)
    type(bal_partition_result), intent(in) :: h
    result_is_null = .not. c_associated(h%ptr)
  end function result_is_null

  !> Fill cfg with the defaults (method "rcb", 1 part, ...). @return BAL_OK.
  function bal_partition_config_init(cfg) result(rc)
    type(bal_partition_config), intent(inout) :: cfg
    integer(c_int) :: rc
    rc = c_config_init(cfg)
  end function bal_partition_config_init

  !> The i-th method name (from 0): "hilbert", "morton", "rcb", "tensor",
  !> "staggered"; '' past the last.
  function bal_partition_method_name(i) result(name)
    integer(c_int), intent(in) :: i
    character(len=:), allocatable :: name
    name = bal_c_string(c_method_name(i))
  end function bal_partition_method_name

  !> Partition n = size(part) items into cfg%parts parts (C's
  !> bal_partition_compute; read ballast/partition.h for the methods).
  !> dim: 2 or 3; lo, hi: the domain box (first dim entries); coords:
  !> dim * n interleaved coordinates; weights: n weights (absent: unit);
  !> from: n current owners in [0, parts) (absent: none); cfg: absent for
  !> the defaults; method: a name of bal_partition_method_name, overriding
  !> cfg%method (absent with cfg absent: "rcb"); prev: the previous result
  !> for incremental box methods; res: receives the result handle (absent:
  !> owners only). part receives the owners, from 0.
  !> @return BAL_OK; BAL_EINVAL as C (and when coords, weights or from
  !> have the wrong size); BAL_ERANGE; BAL_ENOMEM. part and res untouched
  !> on error.
  function bal_partition_compute(dim, lo, hi, coords, part, weights, from, cfg, method, &
                                 prev, res) result(rc)
    integer(c_int), intent(in) :: dim
    real(c_double), intent(in) :: lo(:), hi(:)
    real(c_double), intent(in), target, contiguous :: coords(:)
    integer(c_int), intent(inout), target, contiguous :: part(:)
    real(c_double), intent(in), target, contiguous, optional :: weights(:)
    integer(c_int), intent(in), target, contiguous, optional :: from(:)
    type(bal_partition_config), intent(in), optional :: cfg
    character(len=*), intent(in), optional :: method
    type(bal_partition_result), intent(in), optional :: prev
    type(bal_partition_result), intent(inout), optional :: res
    integer(c_int) :: rc
    type(bal_partition_input) :: in
    type(bal_partition_config) :: c
    character(kind=c_char), allocatable, target :: name(:)
    type(c_ptr), target :: out
    type(c_ptr) :: pprev, pout
    integer(c_int64_t) :: n
    rc = BAL_EINVAL
    n = size(part, kind=c_int64_t)
    if (dim < 2 .or. dim > 3 .or. size(lo) < dim .or. size(hi) < dim) return
    if (size(coords, kind=c_int64_t) /= dim * n) return
    in%dim = dim
    in%lo(1:dim) = lo(1:dim)
    in%hi(1:dim) = hi(1:dim)
    in%n = n
    if (n > 0) in%coords = c_loc(coords)
    if (present(weights)) then
      if (size(weights, kind=c_int64_t) /= n) return
      if (n > 0) in%weights = c_loc(weights)
    end if
    if (present(from)) then
      if (size(from, kind=c_int64_t) /= n) return
      if (n > 0) in%from = c_loc(from)
    end if
    rc = c_config_init(c)
    if (present(cfg)) c = cfg
    if (present(method)) then
      name = bal_to_c_string(method)
      c%method = c_loc(name) ! read during the call only
    end if
    pprev = c_null_ptr
    if (present(prev)) pprev = prev%ptr
    out = c_null_ptr
    pout = c_null_ptr
    if (present(res)) pout = c_loc(out)
    if (n > 0) then
      rc = c_compute(in, c, pprev, c_loc(part), pout)
    else
      rc = c_compute(in, c, pprev, c_null_ptr, pout) ! C refuses n < 1
    end if
    if (rc == BAL_OK .and. present(res)) res%ptr = out
  end function bal_partition_compute

  !> Free a result; r becomes null. A null result is ignored.
  subroutine bal_partition_result_destroy(r)
    type(bal_partition_result), intent(inout) :: r
    call c_result_destroy(r%ptr)
    r%ptr = c_null_ptr
  end subroutine bal_partition_result_destroy

  !> Number of parts of a result; 0 for a null one.
  function bal_partition_result_parts(r) result(n)
    type(bal_partition_result), intent(in) :: r
    integer(c_int) :: n
    n = c_result_parts(r%ptr)
  end function bal_partition_result_parts

  !> Name of the method that made the result; '' for a null one.
  function bal_partition_result_method(r) result(name)
    type(bal_partition_result), intent(in) :: r
    character(len=:), allocatable :: name
    name = bal_c_string(c_result_method(r%ptr))
  end function bal_partition_result_method

  !> The region of part k (from 0). @return BAL_OK; BAL_EINVAL (null
  !> result, k out of range; region untouched).
  function bal_partition_region_get(r, k, region) result(rc)
    type(bal_partition_result), intent(in) :: r
    integer(c_int), intent(in) :: k
    type(bal_partition_region), intent(inout) :: region
    integer(c_int) :: rc
    type(bal_partition_region) :: tmp
    rc = c_region_get(r%ptr, k, tmp)
    if (rc == BAL_OK) region = tmp
  end function bal_partition_region_get

  !> The neighbours of part k (from 0), ascending, k excluded; list
  !> (optional) receives a copy. @return their number (>= 0); BAL_EINVAL
  !> (null result, k out of range; list untouched).
  function bal_partition_neighbors(r, k, list) result(n)
    type(bal_partition_result), intent(in) :: r
    integer(c_int), intent(in) :: k
    integer(c_int), allocatable, intent(inout), optional :: list(:)
    integer(c_int) :: n
    type(c_ptr) :: p
    integer(c_int), pointer :: src(:)
    n = c_neighbors(r%ptr, k, p)
    if (n < 0 .or. .not. present(list)) return
    call c_f_pointer(p, src, [n])
    if (n == 0) then
      list = [integer(c_int) ::]
    else
      list = src
    end if
  end function bal_partition_neighbors

  !> The transfers leaving part k (from 0), ordered by destination; list
  !> (optional) receives copies of them (their item lists stay in r).
  !> @return their number (>= 0); BAL_EINVAL (null result, k out of
  !> range; list untouched).
  function bal_partition_exports(r, k, list) result(n)
    type(bal_partition_result), intent(in) :: r
    integer(c_int), intent(in) :: k
    type(bal_partition_transfer), allocatable, intent(inout), optional :: list(:)
    integer(c_int) :: n
    type(c_ptr) :: p
    type(bal_partition_transfer), pointer :: src(:)
    n = c_exports(r%ptr, k, p)
    if (n < 0 .or. .not. present(list)) return
    if (allocated(list)) deallocate(list)
    allocate(list(n))
    if (n == 0) return
    call c_f_pointer(p, src, [n])
    list = src
  end function bal_partition_exports

  !> The transfers arriving at part k (from 0), ordered by source; list
  !> (optional) receives copies of them, the same as the senders' exports.
  !> @return their number (>= 0); BAL_EINVAL (null result, k out of
  !> range; list untouched).
  function bal_partition_imports(r, k, list) result(n)
    type(bal_partition_result), intent(in) :: r
    integer(c_int), intent(in) :: k
    type(bal_partition_transfer), allocatable, intent(inout), optional :: list(:)
    integer(c_int) :: n
    type(c_ptr) :: p
    type(c_ptr), pointer :: src(:)
    type(bal_partition_transfer), pointer :: t
    integer :: i
    n = c_imports(r%ptr, k, p)
    if (n < 0 .or. .not. present(list)) return
    if (allocated(list)) deallocate(list)
    allocate(list(n))
    if (n == 0) return
    call c_f_pointer(p, src, [n])
    do i = 1, n
      call c_f_pointer(src(i), t)
      list(i) = t
    end do
  end function bal_partition_imports

  !> The C indices (from 0, ascending) of a transfer's items: a pointer
  !> into the result that made it, valid until that result is destroyed.
  function bal_partition_transfer_items(t) result(items)
    type(bal_partition_transfer), intent(in) :: t
    integer(c_int64_t), pointer :: items(:)
    if (t%count <= 0 .or. .not. c_associated(t%items)) then
      items => no_items
      return
    end if
    call c_f_pointer(t%items, items, [t%count])
  end function bal_partition_transfer_items

  !> Quality of an assignment of the cells of a cells(1) x cells(2)
  !> [x cells(3)] grid, x fastest (C's bal_partition_grid_quality);
  !> n = size(part) cells; w: n weights (absent: unit).
  !> @return BAL_OK; BAL_EINVAL (as C, or w of another size); BAL_ERANGE;
  !> BAL_ENOMEM. q untouched on error.
  function bal_partition_grid_quality(dim, cells, parts, part, q, w) result(rc)
    integer(c_int), intent(in) :: dim
    integer(c_int64_t), intent(in) :: cells(:)
    integer(c_int), intent(in) :: parts
    integer(c_int), intent(in) :: part(:)
    type(bal_partition_quality), intent(inout) :: q
    real(c_double), intent(in), target, contiguous, optional :: w(:)
    integer(c_int) :: rc
    integer(c_int64_t) :: c(3)
    type(c_ptr) :: pw
    type(bal_partition_quality) :: tmp
    rc = BAL_EINVAL
    if (size(cells) < dim .or. dim < 2 .or. dim > 3) return
    c = 1
    c(1:dim) = cells(1:dim)
    pw = c_null_ptr
    if (present(w)) then
      if (size(w) /= size(part)) return
      if (size(w) > 0) pw = c_loc(w)
    end if
    rc = c_grid_quality(dim, c, size(part, kind=c_int64_t), pw, parts, part, tmp)
    if (rc == BAL_OK) q = tmp
  end function bal_partition_grid_quality

  !> Items (and their weight) whose owner differs between a and b (same
  !> size); w: their weights (absent: unit). items and weight optional.
  !> @return BAL_OK; BAL_EINVAL (sizes differ, bad weight; outputs
  !> untouched).
  function bal_partition_moved(a, b, items, weight, w) result(rc)
    integer(c_int), intent(in) :: a(:), b(:)
    integer(c_int64_t), intent(inout), optional :: items
    real(c_double), intent(inout), optional :: weight
    real(c_double), intent(in), target, contiguous, optional :: w(:)
    integer(c_int) :: rc
    integer(c_int64_t) :: m
    real(c_double) :: mw
    type(c_ptr) :: pw
    rc = BAL_EINVAL
    if (size(a) /= size(b)) return
    pw = c_null_ptr
    if (present(w)) then
      if (size(w) /= size(a)) return
      if (size(w) > 0) pw = c_loc(w)
    end if
    rc = c_moved(size(a, kind=c_int64_t), pw, a, b, m, mw)
    if (rc /= BAL_OK) return
    if (present(items)) items = m
    if (present(weight)) weight = mw
  end function bal_partition_moved

end module ballast_partition
