package rpc

import "testing"

func TestHashRingMatchesTooz(t *testing.T) {
	// Vectors from tooz's ring as Ironic 21.4 configures it (rpc.md §2).
	three := NewHashRing([]string{"cond-1", "cond-2", "cond-3"}, 5)
	two := NewHashRing([]string{"cond-1", "cond-2"}, 5)
	cases := []struct{ key, three, two string }{
		{"1be26c0b-03f2-4d2e-ae87-c02d7f33c123", "cond-2", "cond-2"},
		{"00000000-0000-0000-0000-000000000000", "cond-1", "cond-1"},
		{"6bd73499-aa9b-42eb-b3e0-655f4d362dc4", "cond-2", "cond-2"},
	}
	for _, c := range cases {
		if got := three.Get(c.key); got != c.three {
			t.Errorf("3 hosts, %s: got %s want %s", c.key, got, c.three)
		}
		if got := two.Get(c.key); got != c.two {
			t.Errorf("2 hosts, %s: got %s want %s", c.key, got, c.two)
		}
	}
	if NewHashRing(nil, 5).Get("x") != "" {
		t.Error("empty ring returned a host")
	}
}
