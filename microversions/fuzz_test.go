package microversions

import (
	"strings"
	"testing"
)

// FuzzNegotiate: any header value yields either a version in range or a
// 406 fault, never a panic.
func FuzzNegotiate(f *testing.F) {
	for _, s := range []string{"1.1", "latest", "1.82", "2.0", "1", "1.2.3", " 1.5 ", "1.-1", "+1._5", "", "9999999999999999999.1"} {
		f.Add(s)
	}
	r := Default()
	f.Fuzz(func(t *testing.T, v string) {
		n := r.Negotiate(v, true)
		if n.Fault != nil {
			if n.Fault.HTTPStatus() != 406 {
				t.Fatalf("%q: fault with status %d", v, n.Fault.HTTPStatus())
			}
			return
		}
		if n.Version < r.Min || n.Version > r.Max {
			t.Fatalf("%q: version %v out of range", v, n.Version)
		}
		if strings.EqualFold(v, "latest") && n.Version != r.Max {
			t.Fatalf("latest gave %v", n.Version)
		}
	})
}
