# The two commands of the quick start:
#   make bench   the benchmark suite on its built-in default data
#   make test    every test (release, ASan+UBSan, aarch64/NEON under qemu)
# and
#   make fuzz    every fuzz target (tests/fuzz) for FUZZ_SECONDS each (60)
# Both install what they need (Debian packages) themselves.

.PHONY: all bench test check fuzz clean

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

clean:
	rm -rf build
