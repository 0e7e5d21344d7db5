#!/usr/bin/env bash
# scripts/setup.sh — prepare the native stack densify builds on. Idempotent; silent when
# everything is already in place (a stamp file records a hash of every input).
#
# What it does:
#   1. apt-installs libtorch-dev, libopencv-dev and pkg-config when missing (sudo only if not root);
#      checks that pkg-config finds opencv4 (gocv v0.31.0 links OpenCV 4.6 through it).
#   2. Fetches github.com/sugarme/gotch v0.9.1 with the ordinary Go module client and copies it to
#      .build/gotch (git-ignored). gotch is generated for libtorch 2.1; Debian ships libtorch 1.13.1
#      (CPU only). The copy gets
#        a) a libtch/lib.go with CPU cgo flags for the system libtorch (C++ ABI 1, C++17,
#           -ltorch -lc10 -ltorch_cpu, /usr/include/torch/csrc/api/include on the include path);
#        b) throwing bodies for the generated wrappers (libtch/torch_api_generated.cpp.h) that do
#           not compile against the system libtorch. They are FOUND BY COMPILING torch_api.cpp
#           with `g++ -fsyntax-only` and mapping every error line to its enclosing function —
#           there is no hard-coded list. A throwing body sits inside the wrapper's PROTECT(...),
#           so calling one returns an ordinary Go error ("... not available in this libtorch").
#           The list of stubbed wrappers is written to .build/gotch/STUBBED.txt.
#   3. Generates go.work (git-ignored): `use .` + `replace github.com/sugarme/gotch v0.9.1 =>
#      ./.build/gotch`, so every go command in the repository builds against the patched copy.
#   4. Compiles libtch once (cgo; ~3 min on 2 cores the first time, then cached by Go).
#
# Official CUDA libtorch instead of Debian's:
#   LIBTORCH=/path/to/libtorch scripts/setup.sh
# uses an unpacked official libtorch 2.1 (the version gotch v0.9.1 is generated for): no stubs,
# gotch's own CUDA link flags (-lcudart -lc10_cuda -ltorch_cuda ..., CUDA in /usr/local/cuda or
# $CUDA_HOME), an rpath to $LIBTORCH/lib, and the C++ ABI detected from libc10.so (override with
# LIBTORCH_CXX11_ABI=0|1). libtorch-dev is then not installed. This path cannot be tested on the
# CPU-only development machine.
#
# Environment: SETUP_FORCE=1 redoes everything; SETUP_NO_PREBUILD=1 skips step 4.
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$(pwd)
GOTCH_VERSION=v0.9.1
BUILD=$ROOT/.build
DEST=$BUILD/gotch
STAMP=$DEST/.densify-stamp
LIBTORCH=${LIBTORCH:-}

say() { echo "setup: $*" >&2; }
die() { echo "setup: ERROR: $*" >&2; exit 1; }

command -v go >/dev/null || die "Go is not installed (need go >= $(sed -n 's/^go //p' go.mod)); see https://go.dev/dl/"

# --- 1. system packages ---------------------------------------------------------------------
pkgs=(libopencv-dev pkg-config g++)
[ -z "$LIBTORCH" ] && pkgs+=(libtorch-dev)
missing=()
for p in "${pkgs[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		missing+=("$p")
	fi
done
if [ ${#missing[@]} -gt 0 ]; then
	command -v apt-get >/dev/null || die "missing packages ${missing[*]} and no apt-get; install them by hand"
	SUDO=
	[ "$(id -u)" -ne 0 ] && SUDO=sudo
	say "installing ${missing[*]} with apt-get (a few minutes)"
	$SUDO apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
pkg-config --exists opencv4 || die "pkg-config does not find opencv4 (libopencv-dev installed?)"

# --- inputs hash: skip everything when nothing changed --------------------------------------
libtorch_id() {
	if [ -n "$LIBTORCH" ]; then
		echo "libtorch-dir:$LIBTORCH:$(cat "$LIBTORCH/build-version" 2>/dev/null || true):${LIBTORCH_CXX11_ABI:-auto}"
	else
		dpkg-query -W -f='libtorch-dev:${Version}' libtorch-dev
	fi
}
inputs_hash() {
	{
		cat "$ROOT/scripts/setup.sh"
		echo "$GOTCH_VERSION"
		libtorch_id
		g++ --version | head -1
		go version
	} | sha256sum | cut -d' ' -f1
}
HASH=$(inputs_hash)

want_work() {
	[ -f go.work ] && grep -q "github.com/sugarme/gotch $GOTCH_VERSION => ./.build/gotch" go.work
}
gen_work() {
	rm -f go.work go.work.sum
	go work init .
	go work edit -replace="github.com/sugarme/gotch@$GOTCH_VERSION=./.build/gotch"
}

# patch_generated_go DIR: four fixes to gotch's Go wrappers (ts/tensor-generated.go, ts/tensor.go, ts/scalar.go),
# each checked by counting its pattern, so a gotch that no longer matches fails loudly:
#   a) In-place ops (relu_, lerp_, addcdiv_, ...) assigned the handle that libtorch returns (a new
#      torch::Tensor* aliasing self) to the receiver and never freed the old one: every in-place op
#      leaked a handle, and with it the old tensor's storage. Now the receiver keeps its handle
#      (so copies of the Go struct, e.g. from VarStore.Variables, stay valid) and the returned
#      alias is freed.
#   b) The C out-buffer of every op was C.malloc(0), never freed (a leak per op) and, for ops with
#      several outputs, written past its end (up to 7 pointers into a 24-byte chunk). Now it is
#      sized (8 pointers) and freed when the wrapper returns.
#   c) ts/tensor.go attached a 100 KB Go ballast (bigStruct) to every tensor handle so that the
#      garbage collector runs often enough to finalize forgotten tensors. densify frees every
#      tensor explicitly (unet.Scope); the ballast only cost a 100 KB allocation and clearing
#      per op and tens of MB of Go heap. It is no longer allocated.
#   d) Scalar.Drop (ts/scalar.go) was a no-op, so every scalar (unet.Scope.Float: Adam's step
#      sizes, BCE weights, ...) lived until the garbage collector finalized it. Each is a small C
#      allocation made between a step's large tensor allocations; left alive, they pinned glibc's
#      heap, freed activations could not coalesce, and the training RSS grew by ~5 MB per step
#      at 854x480 (950 -> 1,465 MiB after 100 steps) until a garbage collection released them.
#      Drop now frees the C scalar once and clears the finalizer; the Go value is unusable after.
patch_generated_go() {
	local gen=$1/ts/tensor-generated.go tsgo=$1/ts/tensor.go n
	n=$(grep -c '^  ts\.ctensor = \*ptr$' "$gen" || true)
	[ "$n" -gt 100 ] || die "gotch patch (a): in-place pattern found $n times in $gen"
	sed -i 's/^  ts\.ctensor = \*ptr$/  lib.AtFree(*ptr) \/\/ densify: the receiver keeps its handle/' "$gen"
	n=$(grep -c '^  ptr := (\*lib\.Ctensor)(unsafe\.Pointer(C\.malloc(0)))$' "$gen" || true)
	[ "$n" -gt 1000 ] || die "gotch patch (b): out-buffer pattern found $n times in $gen"
	sed -i -e 's/^  ptr := (\*lib\.Ctensor)(unsafe\.Pointer(C\.malloc(0)))$/  ptr := (*lib.Ctensor)(C.malloc(64)); defer C.free(unsafe.Pointer(ptr))/' \
		-e 's/^  ctensorPtr0 := (\*lib\.Ctensor)(unsafe\.Pointer(C\.malloc(0)))$/  ctensorPtr0 := (*lib.Ctensor)(C.malloc(64)); defer C.free(unsafe.Pointer(ctensorPtr0))/' "$gen"
	! grep -q 'C\.malloc(0)' "$gen" || die "gotch patch (b): unpatched C.malloc(0) left in $gen"
	! grep -q 'ctensorPtr8' "$gen" || die "gotch patch (b): an op has more than 8 outputs"
	n=$(grep -c '^	x\.d = new(bigStruct)$' "$tsgo" || true)
	[ "$n" = 1 ] || die "gotch patch (c): ballast allocation found $n times in $tsgo"
	sed -i 's/^	x\.d = new(bigStruct)$/	\/\/ densify: no 100 KB ballast per handle (scripts\/setup.sh)/' "$tsgo"
	local scgo=$1/ts/scalar.go
	n=$(grep -c '^	// lib\.AtsFree(sc\.cscalar)$' "$scgo" || true)
	[ "$n" = 2 ] && grep -q '^func (sc \*Scalar) Drop() (err error) {$' "$scgo" ||
		die "gotch patch (d): Scalar.Drop not found as expected in $scgo"
	awk '
		/^func \(sc \*Scalar\) Drop\(\) \(err error\) \{$/ {
			print
			print "\t// densify: free the C scalar now (scripts/setup.sh, patch d)"
			print "\tif sc == nil || sc.cscalar == nil {"
			print "\t\treturn nil"
			print "\t}"
			print "\truntime.SetFinalizer(sc, nil)"
			print "\terr = freeCScalar(sc)"
			print "\tsc.cscalar = nil"
			print "\treturn err"
			print "}"
			skip = 1; next
		}
		skip && /^}$/ { skip = 0; next }
		skip { next }
		{ print }
	' "$scgo" >"$scgo.new" && mv "$scgo.new" "$scgo"
}

if [ "${SETUP_FORCE:-0}" != 1 ] && [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$HASH" ]; then
	want_work || gen_work
	exit 0
fi

# --- 2. gotch copy ----------------------------------------------------------------------------
t0=$(date +%s)
say "preparing gotch $GOTCH_VERSION for $( [ -n "$LIBTORCH" ] && echo "libtorch at $LIBTORCH (CUDA)" || libtorch_id ) in .build/gotch"
# Run outside the workspace so a stale go.work cannot interfere.
SRC=$(GOWORK=off GOFLAGS=-mod=mod go mod download -json "github.com/sugarme/gotch@$GOTCH_VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
[ -n "$SRC" ] && [ -d "$SRC" ] || die "could not download github.com/sugarme/gotch@$GOTCH_VERSION (network? GOPROXY=$(go env GOPROXY))"

mkdir -p "$BUILD"
rm -rf "$DEST.tmp"
cp -r "$SRC" "$DEST.tmp"
chmod -R u+w "$DEST.tmp"
LIB=$DEST.tmp/libtch

if [ -n "$LIBTORCH" ]; then
	[ -f "$LIBTORCH/lib/libtorch.so" ] || die "LIBTORCH=$LIBTORCH has no lib/libtorch.so"
	ABI=${LIBTORCH_CXX11_ABI:-}
	if [ -z "$ABI" ]; then
		if nm -DC "$LIBTORCH/lib/libc10.so" 2>/dev/null | grep -q '__cxx11::basic_string'; then ABI=1; else ABI=0; fi
	fi
	CUDA=${CUDA_HOME:-/usr/local/cuda}
	cat >"$LIB/lib.go" <<EOF
package libtch

// Generated by densify scripts/setup.sh for an official libtorch at $LIBTORCH (CUDA build).

// #cgo CPPFLAGS: -I\${SRCDIR} -D_GLIBCXX_USE_CXX11_ABI=$ABI -I$CUDA/include
// #cgo CFLAGS: -O2 -w
// #cgo CXXFLAGS: -std=c++17 -O2 -w -I$LIBTORCH/include -I$LIBTORCH/include/torch/csrc/api/include
// #cgo LDFLAGS: -lstdc++ -L$LIBTORCH/lib -Wl,-rpath,$LIBTORCH/lib -ltorch -lc10 -ltorch_cpu
// #cgo LDFLAGS: -L$CUDA/lib64 -lcuda -lcudart -lcublas -lcudnn -lcaffe2_nvrtc -lnvrtc-builtins -lnvrtc -lnvToolsExt -lc10_cuda -ltorch_cuda
import "C"
EOF
	: >"$DEST.tmp/STUBBED.txt"
else
	TORCH_API_INC=/usr/include/torch/csrc/api/include
	[ -f "$TORCH_API_INC/torch/version.h" ] || die "libtorch-dev headers not found in $TORCH_API_INC"
	cat >"$LIB/lib.go" <<EOF
package libtch

// Generated by densify scripts/setup.sh: CPU build against Debian's libtorch-dev
// ($(libtorch_id)). Wrappers that libtorch lacks throw; see ../STUBBED.txt.

// #cgo CPPFLAGS: -I\${SRCDIR} -D_GLIBCXX_USE_CXX11_ABI=1
// #cgo CFLAGS: -O2 -w
// #cgo CXXFLAGS: -std=c++17 -O1 -w -I$TORCH_API_INC
// #cgo LDFLAGS: -lstdc++ -ltorch -lc10 -ltorch_cpu
import "C"
EOF

	GEN=$LIB/torch_api_generated.cpp.h
	: >"$DEST.tmp/STUBBED.txt"
	for pass in 1 2 3; do
		say "checking which generated wrappers compile against the system libtorch (pass $pass, ~20 s)"
		errs=$BUILD/syntax.err
		if g++ -std=c++17 -fsyntax-only -fmax-errors=0 -w -D_GLIBCXX_USE_CXX11_ABI=1 \
			-I"$LIB" -I"$TORCH_API_INC" "$LIB/torch_api.cpp" 2>"$errs"; then
			break
		fi
		[ "$pass" = 3 ] && die "torch_api.cpp still does not compile after stubbing; see $errs"
		# Errors outside the generated wrappers cannot be stubbed automatically.
		if grep -E '(^|/)torch_api\.(cpp|h):[0-9]+:[0-9]+: error' "$errs" >/dev/null; then
			die "errors outside the generated wrappers (see $errs)"
		fi
		# Every line of the generated file that the compiler names (errors and "required from here").
		grep -oE 'torch_api_generated\.cpp\.h:[0-9]+:[0-9]+' "$errs" | cut -d: -f2 | sort -un >"$BUILD/errlines"
		[ -s "$BUILD/errlines" ] || die "g++ failed without naming a generated wrapper (see $errs)"
		# Map lines to enclosing functions, then replace each such function's PROTECT body with a throw.
		awk -v listfile="$BUILD/errlines" -v stubbed="$DEST.tmp/STUBBED.txt" '
			BEGIN { while ((getline l < listfile) > 0) bad[l] = 1 }
			FNR == NR {
				if ($0 ~ /^[A-Za-z].*[ *]atg[A-Za-z0-9_]*\(/) { fn = $0; sub(/\(.*/, "", fn); sub(/.*[ *]/, "", fn) }
				if (FNR in bad && fn != "") hit[fn] = 1
				next
			}
			$0 ~ /^[A-Za-z].*[ *]atg[A-Za-z0-9_]*\(/ { fn = $0; sub(/\(.*/, "", fn); sub(/.*[ *]/, "", fn); inprot = 0 }
			fn in hit && $0 == "  PROTECT(" {
				print
				print "    throw std::runtime_error(\"" fn ": not available in this libtorch (densify CPU build of gotch)\");"
				inprot = 1; print fn >> stubbed; next
			}
			inprot && $0 == "  )" { inprot = 0 }
			inprot { next }
			{ print }
		' "$GEN" "$GEN" >"$GEN.new"
		mv "$GEN.new" "$GEN"
	done
	sort -u -o "$DEST.tmp/STUBBED.txt" "$DEST.tmp/STUBBED.txt"
	say "$(wc -l <"$DEST.tmp/STUBBED.txt") generated wrappers get throwing bodies (list: .build/gotch/STUBBED.txt)"
fi

patch_generated_go "$DEST.tmp"

rm -rf "$DEST"
mv "$DEST.tmp" "$DEST"

# --- 3. go.work -----------------------------------------------------------------------------
gen_work

# --- 4. compile libtch once, with a visible message ---------------------------------------------
if [ "${SETUP_NO_PREBUILD:-0}" != 1 ]; then
	say "compiling gotch's libtch (cgo, C++; about 3 min on 2 cores the first time)"
	t1=$(date +%s)
	go build github.com/sugarme/gotch/ts
	say "libtch compiled in $(( $(date +%s) - t1 )) s"
fi

echo "$HASH" >"$STAMP"
say "done in $(( $(date +%s) - t0 )) s"
