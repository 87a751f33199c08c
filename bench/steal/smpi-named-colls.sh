# Sourced by the bench scripts that run smpirun themselves
# (smpi-collectives.sh, uts-peers.sh): the collective algorithms that
# `ballast simulate-dlb` and `simulate-uts` name, in SMPI_NAMED_COLLS. The
# launchers' list is `colls[]` in tools/simulate-common/simrun.c (why each
# is chosen is said there); keep the two equal. SMPI_NAMED_COLLS_BASE is
# the part every setting of smpi-collectives.sh shares.
SMPI_NAMED_COLLS_BASE=(--cfg=smpi/coll-selector:default --cfg=smpi/bcast:binomial_tree
  --cfg=smpi/reduce:binomial --cfg=smpi/gather:ompi_binomial --cfg=smpi/barrier:ompi_tree)
SMPI_NAMED_COLLS=("${SMPI_NAMED_COLLS_BASE[@]}" --cfg=smpi/allreduce:redbcast --cfg=smpi/allgather:GB)
