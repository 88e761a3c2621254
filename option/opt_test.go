package option

import (
	"strings"
	"testing"
)

func TestTable(t *testing.T) {
	opts := Table()
	seen := map[string]bool{}
	for _, o := range opts {
		if seen[o.Key()] {
			t.Errorf("duplicate option %s", o.Key())
		}
		seen[o.Key()] = true
		if o.Section != NormalizeSection(o.Section) || o.Name == "" || strings.ContainsAny(o.Name, " -") {
			t.Errorf("bad option name %q", o.Key())
		}
		if o.Type < String || o.Type > Octal {
			t.Errorf("%s: bad type %d", o.Key(), o.Type)
		}
		if o.Help == "" {
			t.Errorf("%s: no help", o.Key())
		}
	}
	if len(opts) < 900 {
		t.Errorf("only %d options", len(opts))
	}
	idx := NewIndex(opts)
	for _, o := range opts {
		for _, d := range o.DeprecatedNames {
			if got, ok := idx.Lookup(NormalizeKey(d)); !ok || (got.Key() != o.Key() && idx.byKey[NormalizeKey(d)] == 0) {
				t.Errorf("deprecated name %s of %s does not resolve", d, o.Key())
			}
		}
	}
}
