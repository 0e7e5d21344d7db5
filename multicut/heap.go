package multicut

// gainEntry is an entry of gainHeap: an item and its key.
type gainEntry struct {
	key float64
	id  int32
}

// gainHeap is an indexed 4-ary max-heap of items (KLj: nodes and their move
// gains; GAEC: edges of the cluster graph and their summed costs) on key,
// ties to the smaller id, so runs are deterministic. An item is in it at
// most once, and set and remove change or delete its entry in place in
// O(log n), through pos (−1: not in the heap). Keys change after every move
// or contraction; updating the entries in place instead of pushing new ones
// and skipping stale ones later keeps the heap at one entry per item (on a
// DAVIS graph KLj pops five times fewer entries than with lazy deletion).
// Four children per entry halve the depth that an update climbs, which
// is most of the heap's work in GAEC and KLj; the order (key, then id) is
// total, so the pops do not depend on the arity.
type gainHeap struct {
	e   []gainEntry
	pos []int32 // per item: index in e, −1 when absent
}

func newGainHeap(n int) gainHeap {
	pos := make([]int32, n)
	for i := range pos {
		pos[i] = -1
	}
	return gainHeap{pos: pos}
}

func (h *gainHeap) len() int { return len(h.e) }

func (h *gainHeap) above(i, j int) bool {
	if h.e[i].key != h.e[j].key {
		return h.e[i].key > h.e[j].key
	}
	return h.e[i].id < h.e[j].id
}

func (h *gainHeap) swap(i, j int) {
	h.e[i], h.e[j] = h.e[j], h.e[i]
	h.pos[h.e[i].id] = int32(i)
	h.pos[h.e[j].id] = int32(j)
}

func (h *gainHeap) up(i int) {
	for i > 0 {
		p := (i - 1) / 4
		if !h.above(i, p) {
			return
		}
		h.swap(i, p)
		i = p
	}
}

func (h *gainHeap) down(i int) {
	n := len(h.e)
	for {
		l := 4*i + 1
		if l >= n {
			return
		}
		b := l
		for c := l + 1; c < min(l+4, n); c++ {
			if h.above(c, b) {
				b = c
			}
		}
		if !h.above(b, i) {
			return
		}
		h.swap(i, b)
		i = b
	}
}

// heapify establishes the heap order on the entries appended to e (each
// item once, pos not yet set) in O(n).
func (h *gainHeap) heapify() {
	for i, x := range h.e {
		h.pos[x.id] = int32(i)
	}
	for i := (len(h.e) - 2) / 4; i >= 0; i-- {
		h.down(i)
	}
}

// set inserts item v with key, or changes its key.
func (h *gainHeap) set(v int32, key float64) {
	if p := h.pos[v]; p >= 0 {
		old := h.e[p].key
		h.e[p].key = key
		if key > old {
			h.up(int(p))
		} else if key < old {
			h.down(int(p))
		}
		return
	}
	h.e = append(h.e, gainEntry{key, v})
	h.pos[v] = int32(len(h.e) - 1)
	h.up(len(h.e) - 1)
}

// remove deletes item v's entry, if any.
func (h *gainHeap) remove(v int32) {
	p := int(h.pos[v])
	if p < 0 {
		return
	}
	h.pos[v] = -1
	last := len(h.e) - 1
	if p != last {
		h.e[p] = h.e[last]
		h.pos[h.e[p].id] = int32(p)
	}
	h.e = h.e[:last]
	if p < last {
		h.down(p)
		h.up(p)
	}
}

// pop removes and returns the item of largest key (len() > 0).
func (h *gainHeap) pop() gainEntry {
	top := h.e[0]
	h.remove(top.id)
	return top
}

// reset empties the heap.
func (h *gainHeap) reset() {
	for _, x := range h.e {
		h.pos[x.id] = -1
	}
	h.e = h.e[:0]
}
