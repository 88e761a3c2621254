package rpc

import (
	"crypto/md5"
	"encoding/binary"
	"sort"
)

// point is a 128-bit md5 digest as two big-endian halves, compared as the
// integer Python's int(hexdigest, 16) gives.
type point struct{ hi, lo uint64 }

func (p point) less(q point) bool { return p.hi < q.hi || (p.hi == q.hi && p.lo < q.lo) }

func digestPoint(sum []byte) point {
	return point{binary.BigEndian.Uint64(sum[:8]), binary.BigEndian.Uint64(sum[8:16])}
}

// HashRing is tooz's consistent hash ring as Ironic builds it: each host
// owns `partitions` points, the i-th being the md5 of the host name fed i+1
// times into one running digest; a key belongs to the first point after
// md5(key), wrapping around.
type HashRing struct {
	points []point
	owners []string
}

// NewHashRing builds a ring over hosts with 2**exponent partitions per host
// ([DEFAULT]hash_partition_exponent, 5 by default).
func NewHashRing(hosts []string, exponent int) *HashRing {
	partitions := 1 << exponent
	type entry struct {
		p    point
		host string
	}
	pts := make([]entry, 0, len(hosts)*partitions)
	for _, h := range hosts {
		d := md5.New()
		for i := 0; i < partitions; i++ {
			d.Write([]byte(h))
			pts = append(pts, entry{digestPoint(d.Sum(nil)), h})
		}
	}
	sort.SliceStable(pts, func(i, j int) bool { return pts[i].p.less(pts[j].p) })
	r := &HashRing{points: make([]point, len(pts)), owners: make([]string, len(pts))}
	for i, e := range pts {
		r.points[i], r.owners[i] = e.p, e.host
	}
	return r
}

// Get returns the host owning key ("" for an empty ring).
func (r *HashRing) Get(key string) string {
	if len(r.points) == 0 {
		return ""
	}
	sum := md5.Sum([]byte(key))
	v := digestPoint(sum[:])
	// bisect_right: the first point strictly greater than v.
	i := sort.Search(len(r.points), func(i int) bool { return v.less(r.points[i]) })
	if i == len(r.points) {
		i = 0
	}
	return r.owners[i]
}
