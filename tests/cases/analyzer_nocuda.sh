# Reading dumps needs no CUDA: `make analyzer` builds the analyzer with CUDA_HOME pointing to an
# empty directory (a laptop without the toolkit), the result reads a dump like the suite's build,
# and no analyzer source pulls in a CUDA header (checked with the compiler's dependency list, as
# a cuda.h installed elsewhere, e.g. /usr/include, would hide an include from the first check).
set -u
. "$(dirname "$0")/analyzer_lib.sh.inc"
mkdir -p nocuda/include
# BUILD: a scratch tree, the suite's build/ untouched
make -s -C "$CMT_ROOT" analyzer BUILD="$PWD/b" CUDA_HOME="$PWD/nocuda" >make.log 2>&1 ||
    { cat make.log; fail "make analyzer without CUDA headers failed"; }
[ -x b/cumemtrack ] || fail "make analyzer built no b/cumemtrack"
"$MKDUMP" "$CMT_ROOT/tests/golden/basic.script" basic.cmt || fail mkdump
b/cumemtrack report --json --no-symbols basic.cmt >nocuda.json || fail "the CUDA-less analyzer cannot read a dump"
"$CMT_BIN" report --json --no-symbols basic.cmt >suite.json || fail "report failed"
cmp -s nocuda.json suite.json || fail "the CUDA-less analyzer reports differently"
echo "ok make analyzer with an empty CUDA_HOME builds a working analyzer"
# the headers each analyzer source includes, with the real CUDA headers on the include path
cuda_inc=${CUDA_HOME:-/usr/local/cuda}/include
for src in "$CMT_ROOT"/analyzer/*/*.c; do
    ${CC:-cc} -std=c11 -D_GNU_SOURCE -I"$CMT_ROOT/include" -I"$cuda_inc" $(for d in "$CMT_ROOT"/analyzer/*/; do printf -- "-I%s " "$d"; done) -I"$CMT_BUILD/analyzer/gen" -M "$src" >deps.txt ||
        fail "cc -M $src"
    if tr ' \\' '\n\n' <deps.txt | grep -E '(^|/)(cuda[A-Za-z0-9_]*|cudaTypedefs|nvtx[A-Za-z0-9_]*|driver_types|vector_types)\.h$'; then
        fail "$(basename "$src") includes a CUDA header"
    fi
done
echo "ok no analyzer source includes a CUDA header"
echo PASS
