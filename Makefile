# The two commands of the quick start:
#   make bench   the benchmark suite on its built-in default data
#   make test    every test (release, ASan+UBSan, aarch64/NEON under qemu)
# Both install what they need (Debian packages) themselves.

.PHONY: all bench test check clean

all:
	@bash -c '. scripts/lib.sh && mkdir -p build && build_tree build/release -DCMAKE_BUILD_TYPE=Release'

bench:
	@bash scripts/bench.sh

test:
	@bash scripts/test.sh

# Quick: the release build's tests only.
check:
	@bash -c '. scripts/lib.sh && mkdir -p build && build_tree build/release -DCMAKE_BUILD_TYPE=Release && ctest --test-dir build/release --output-on-failure -j $$(nproc)'

clean:
	rm -rf build
