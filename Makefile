# The two commands of the quick start:
#   make bench   the benchmark suite on its built-in default data
#   make test    every test (release, ASan+UBSan, aarch64/NEON under qemu)
# and
#   make fuzz    every fuzz target (tests/fuzz) for FUZZ_SECONDS each (60)
# Both install what they need (Debian packages) themselves.
#   make amalgamation   the library as one header and one source file,
#                build/amalgamation/sdx.h and sdx.c (scripts/amalgamate.py;
#                tested by tests/amalgamation/check.sh)

.PHONY: all bench test check fuzz amalgamation clean

FUZZ_SECONDS ?= 60

all:
	@bash -c '. scripts/lib.sh && mkdir -p build && build_tree build/release -DCMAKE_BUILD_TYPE=Release'

bench:
	@bash scripts/bench.sh

test:
	@bash scripts/test.sh

# Quick: the release build's tests only.
check:
	@bash -c '. scripts/lib.sh && mkdir -p build && build_tree build/release -DCMAKE_BUILD_TYPE=Release && ctest --test-dir build/release --output-on-failure -j $$(nproc)'

# libFuzzer with ASan and UBSan, every target for FUZZ_SECONDS (scripts/fuzz.sh).
fuzz:
	@bash scripts/fuzz.sh $(FUZZ_SECONDS)

# sdx.h and sdx.c: compile sdx.c alone (cc -c sdx.c, sdx.h beside it) and
# include "sdx.h"; tests/amalgamation/check.sh tests them.
amalgamation:
	python3 scripts/amalgamate.py --out build/amalgamation

clean:
	rm -rf build
