// A cache of large CPU blocks for libtorch: freed blocks of at least
// min_bytes are kept in per-size free lists and handed out again for a request
// of exactly the same size (see blockcache.go for why and what it measured).
#include <c10/core/Allocator.h>
#include <c10/core/CPUAllocator.h>
#include <c10/core/impl/alloc_cpu.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace {

struct BlockCache;
BlockCache *installed = nullptr;

// BlockCache hands out large blocks from per-size free lists. Its DataPtrs
// have the data pointer as their context, as libtorch's raw_allocate (used by
// oneDNN convolutions) requires, and one deleter for large and small blocks.
struct BlockCache final : c10::Allocator {
  c10::Allocator *base = nullptr;
  c10::DeleterFnPtr base_raw = nullptr;
  std::atomic<size_t> min_bytes{0};
  size_t max_cached = 0; // under mu
  std::mutex mu;
  std::unordered_map<void *, size_t> live;                    // large blocks in use
  std::unordered_map<size_t, std::vector<void *>> free_blocks; // by exact size
  size_t cached = 0;
  uint64_t hits = 0, misses = 0;

  static void release(void *p) { installed->put(p); }

  // put takes back a block: a large one into its size's free list (or to the
  // system beyond max_cached), a small one (raw_allocate's) to the base.
  void put(void *p) {
    if (p == nullptr) {
      return;
    }
    bool large = false;
    {
      std::lock_guard<std::mutex> g(mu);
      auto it = live.find(p);
      if (it != live.end()) {
        large = true;
        size_t n = it->second;
        live.erase(it);
        if (cached + n <= max_cached) {
          free_blocks[n].push_back(p);
          cached += n;
          return;
        }
      }
    }
    if (large) {
      c10::free_cpu(p); // over the limit
    } else {
      base_raw(p);
    }
  }

  c10::DataPtr allocate(size_t n) const override {
    auto *self = const_cast<BlockCache *>(this);
    if (n < min_bytes.load(std::memory_order_relaxed)) {
      return base->allocate(n);
    }
    void *p = nullptr;
    {
      std::lock_guard<std::mutex> g(self->mu);
      auto it = self->free_blocks.find(n);
      if (it != self->free_blocks.end() && !it->second.empty()) {
        p = it->second.back();
        it->second.pop_back();
        self->cached -= n;
        self->hits++;
      } else {
        self->misses++;
      }
    }
    if (p == nullptr) {
      p = c10::alloc_cpu(n);
    }
    {
      std::lock_guard<std::mutex> g(self->mu);
      self->live[p] = n;
    }
    return {p, p, &BlockCache::release, c10::Device(c10::DeviceType::CPU)};
  }

  c10::DeleterFnPtr raw_deleter() const override { return &BlockCache::release; }

  void trim() {
    std::vector<void *> out;
    {
      std::lock_guard<std::mutex> g(mu);
      for (auto &kv : free_blocks) {
        out.insert(out.end(), kv.second.begin(), kv.second.end());
      }
      free_blocks.clear();
      cached = 0;
    }
    for (void *p : out) {
      c10::free_cpu(p);
    }
  }
};


} // namespace

extern "C" {

// densify_block_cache_install makes libtorch's CPU tensors of at least
// min_bytes come from a cache of freed blocks of the same size (at most
// max_cached bytes kept). It can be called once; later calls change the
// limits. Returns 0 on success.
int densify_block_cache_install(int64_t min_bytes, int64_t max_cached) {
  try {
    if (installed == nullptr) {
      c10::Allocator *base = c10::GetCPUAllocator();
      if (base->raw_deleter() == nullptr) {
        return 2;
      }
      BlockCache *c = new BlockCache();
      c->base = base;
      c->base_raw = base->raw_deleter();
      c->min_bytes = size_t(min_bytes);
      c->max_cached = size_t(max_cached);
      installed = c;
      c10::SetCPUAllocator(c, /*priority=*/1);
    } else {
      std::lock_guard<std::mutex> g(installed->mu);
      installed->min_bytes = size_t(min_bytes);
      installed->max_cached = size_t(max_cached);
    }
    return 0;
  } catch (...) {
    return 1;
  }
}

// densify_block_cache_trim frees every cached block.
void densify_block_cache_trim(void) {
  if (installed != nullptr) {
    installed->trim();
  }
}

// densify_block_cache_stats reports the cache's hits, misses and cached bytes.
void densify_block_cache_stats(uint64_t *hits, uint64_t *misses, int64_t *cached) {
  *hits = *misses = 0;
  *cached = 0;
  if (installed != nullptr) {
    std::lock_guard<std::mutex> g(installed->mu);
    *hits = installed->hits;
    *misses = installed->misses;
    *cached = int64_t(installed->cached);
  }
}
}
