# bench/bots_env.sh — sourced by the BOTS benchmarks (bench/compact/e2e.sh,
# bench/probe/bots.sh).
#
#   bots_setup BOTS_DIR TMP
#     copies BOTS's common/ and omp-tasks/ into TMP (the checkout is never
#     modified) and sets bots_link: BOTS's driver sources and the -D macros
#     its own Makefile gives common/bots_main.c, to put after a program's
#     sources on a clang command line.
bots_setup() {
  cp -r "$1/common" "$1/omp-tasks" "$2/"
  bots_link=("$2/common/bots_main.c" "$2/common/bots_common.c"
             '-DCDATE="ompdag"' '-DCC="clang-14"' '-DLD="clang-14"' '-DCMESSAGE=""' '-DLDFLAGS=""'
             '-DCFLAGS="-O2 -g"')
}
