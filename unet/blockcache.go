package unet

// The block cache (blockcache.cpp) is libtorch's CPU allocator in every
// densify process.
//
// Why: a training step allocates and frees the same sequence of tensors every
// time. glibc serves blocks above its mmap threshold (128 KiB, raised to at
// most 32 MiB as such blocks are freed) with fresh mmap regions, whose pages
// the kernel zero-fills on first touch: at 854×480 (unet-cpu, 2 threads) a
// step took ~130,000 minor page faults, 0.5 GB of zeroed pages, about 18 % of
// its CPU time in the kernel, and freed heap blocks fragment so that the peak
// RSS drifts above the step's live set. PyTorch on CPU does the same (its
// caching allocator is for CUDA only). Reusing each freed block of at least
// DefaultBlockCacheMin bytes for the next request of exactly the same size —
// which the next step makes — removes both. Measured on 2 cores with
// train/speed_test.go's worker, 16–20 steps per process, without → with:
//
//	shape            step (median)        system CPU   page faults     peak RSS (MiB)
//	train 1×854×480  1.10 → 0.91 s        7.0 → 1.0 s  1.9 M → 0.24 M  1,297–1,376 → 1,047
//	train 2×427×240  0.61 → 0.52–0.60 s   3.1 → 1.1 s  0.80 M → 0.15 M 695–706 → 647–650
//	infer 1×854×480  0.36 → 0.35 s        1.5 → 0.6 s  0.36 M → 0.12 M 510–549 → 544–546
//
// (2×427×240, the default training shape: three alternating process pairs.)
// User CPU rises a little (+0.4–1.9 s per 20 steps at 2×427×240): reused
// blocks are not in the CPU caches the way freshly zeroed pages are.
// Results are bit-identical: libtorch never reads memory it has not written
// (torch.empty semantics), so where a block comes from cannot change a value
// (TestBlockCacheKeepsResults).

/*
#cgo CXXFLAGS: -std=c++17 -O2
#cgo LDFLAGS: -lc10
#include <stdint.h>
int densify_block_cache_install(int64_t min_bytes, int64_t max_cached);
void densify_block_cache_trim(void);
void densify_block_cache_stats(uint64_t *hits, uint64_t *misses, int64_t *cached);
*/
import "C"

import (
	"fmt"
	"math"
	"os"
)

// DefaultBlockCacheMin is the smallest block the cache keeps (1 MiB): smaller
// ones stay in glibc's heap, which reuses them without page faults. With 256
// KiB the 854×480 step was no faster.
const DefaultBlockCacheMin = 1 << 20

// DefaultBlockCacheMax bounds the bytes of freed blocks the cache keeps
// (2 GiB); a block freed beyond it goes back to the system. A training step
// at 854×480 leaves 0.8 GiB in the cache between steps.
const DefaultBlockCacheMax = 2 << 30

// blockCacheOff records DENSIFY_BLOCK_CACHE=off at start-up, and
// blockCacheErr the outcome of installing the cache then.
var (
	blockCacheOff = os.Getenv("DENSIFY_BLOCK_CACHE") == "off"
	blockCacheErr = func() error {
		if blockCacheOff {
			return SetBlockCache(0, 0)
		}
		return SetBlockCache(DefaultBlockCacheMin, DefaultBlockCacheMax)
	}()
)

// blockCacheSummary says which allocator libtorch's CPU tensors came from at
// start-up (densify doctor).
func blockCacheSummary() string {
	switch {
	case blockCacheErr != nil:
		return fmt.Sprintf("libtorch's default CPU allocator (%v)", blockCacheErr)
	case blockCacheOff:
		return "libtorch's default CPU allocator (DENSIFY_BLOCK_CACHE=off)"
	}
	return fmt.Sprintf("cache for CPU tensors ≥ %d KiB, at most %d MiB kept (DENSIFY_BLOCK_CACHE=off: none)", DefaultBlockCacheMin>>10, DefaultBlockCacheMax>>20)
}

// SetBlockCache sets which CPU tensors libtorch takes from the block cache:
// those of at least minBytes, with at most maxCached bytes of freed blocks
// kept for reuse (freed blocks of exactly the requested size are reused,
// newest first). minBytes ≤ 0 turns caching off: every block then comes from
// and goes back to libtorch's default allocator (blocks already cached stay
// until TrimBlockCache). The cache is installed as libtorch's CPU allocator
// at start-up with DefaultBlockCacheMin and DefaultBlockCacheMax, or off when
// the environment has DENSIFY_BLOCK_CACHE=off.
func SetBlockCache(minBytes, maxCached int64) error {
	if minBytes <= 0 {
		minBytes = math.MaxInt64
	}
	if maxCached < 0 {
		return fmt.Errorf("unet: block cache limit %d bytes, want ≥ 0", maxCached)
	}
	switch C.densify_block_cache_install(C.int64_t(minBytes), C.int64_t(maxCached)) {
	case 0:
		return nil
	case 2:
		return fmt.Errorf("unet: libtorch's CPU allocator has no raw deleter; the block cache is not installed")
	default:
		return fmt.Errorf("unet: installing the block cache failed")
	}
}

// TrimBlockCache gives every cached block back to the system. Training and
// prediction call it when they end, so that a process that goes on (densify
// run: training, then prediction at another shape) keeps no blocks it will
// not reuse.
func TrimBlockCache() { C.densify_block_cache_trim() }

// BlockCacheStats returns the cache's hits (blocks reused) and misses (blocks
// of at least the minimum size allocated anew) so far, and the bytes of freed
// blocks it holds now.
func BlockCacheStats() (hits, misses uint64, cached int64, err error) {
	var h, m C.uint64_t
	var c C.int64_t
	C.densify_block_cache_stats(&h, &m, &c)
	return uint64(h), uint64(m), int64(c), blockCacheErr
}
