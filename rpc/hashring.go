package rpc

import (
	"crypto/md5"
	"math/big"
	"sort"
)

// HashRing is tooz's consistent hash ring as Ironic builds it: each host
// owns `partitions` points, the i-th being the md5 of the host name fed i+1
// times into one running digest; a key belongs to the first point after
// md5(key), wrapping around.
type HashRing struct {
	points []*big.Int
	owners []string
}

// NewHashRing builds a ring over hosts with 2**exponent partitions per host
// ([DEFAULT]hash_partition_exponent, 5 by default).
func NewHashRing(hosts []string, exponent int) *HashRing {
	partitions := 1 << exponent
	type point struct {
		v    *big.Int
		host string
	}
	pts := make([]point, 0, len(hosts)*partitions)
	for _, h := range hosts {
		d := md5.New()
		for i := 0; i < partitions; i++ {
			d.Write([]byte(h))
			sum := d.Sum(nil)
			pts = append(pts, point{new(big.Int).SetBytes(sum), h})
		}
	}
	sort.SliceStable(pts, func(i, j int) bool { return pts[i].v.Cmp(pts[j].v) < 0 })
	r := &HashRing{points: make([]*big.Int, len(pts)), owners: make([]string, len(pts))}
	for i, p := range pts {
		r.points[i], r.owners[i] = p.v, p.host
	}
	return r
}

// Get returns the host owning key ("" for an empty ring).
func (r *HashRing) Get(key string) string {
	if len(r.points) == 0 {
		return ""
	}
	sum := md5.Sum([]byte(key))
	v := new(big.Int).SetBytes(sum[:])
	// bisect_right: first point strictly greater than v.
	i := sort.Search(len(r.points), func(i int) bool { return r.points[i].Cmp(v) > 0 })
	if i == len(r.points) {
		i = 0
	}
	return r.owners[i]
}
