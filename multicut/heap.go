package multicut

// heapEntry is a priority-queue entry of GAEC (an edge of the cluster graph
// and its summed cost) and KLj (a node and its move gain). Deletion is lazy:
// ver is the item's version when pushed, and an entry whose version no longer
// matches the item's current one is stale and skipped when popped.
type heapEntry struct {
	key float64
	id  int32
	ver uint32
}

// maxHeap is a binary max-heap on key (ties: smaller id first, so runs are
// deterministic).
type maxHeap []heapEntry

func (h maxHeap) less(i, j int) bool {
	if h[i].key != h[j].key {
		return h[i].key > h[j].key
	}
	return h[i].id < h[j].id
}

// down sifts element i down in the first n elements.
func (h maxHeap) down(i, n int) {
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		b := l
		if r := l + 1; r < n && h.less(r, l) {
			b = r
		}
		if !h.less(b, i) {
			break
		}
		h[i], h[b] = h[b], h[i]
		i = b
	}
}

// heapify establishes the heap order on arbitrary contents in O(n).
func (h maxHeap) heapify() {
	for i := len(h)/2 - 1; i >= 0; i-- {
		h.down(i, len(h))
	}
}

func (h *maxHeap) push(e heapEntry) {
	*h = append(*h, e)
	s := *h
	i := len(s) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !s.less(i, p) {
			break
		}
		s[i], s[p] = s[p], s[i]
		i = p
	}
}

func (h *maxHeap) pop() heapEntry {
	s := *h
	top := s[0]
	n := len(s) - 1
	s[0] = s[n]
	s = s[:n]
	s.down(0, n)
	*h = s
	return top
}
