package states

import (
	"slices"
	"testing"
)

// vocabulary-21.4.json is written by testdata/gen_vocabulary.py from
// python3-ironic 21.4 (ironic.common.states and faults): the state sets
// the predicates stand for, the API verbs, the power states and the
// faults.
type vocabulary struct {
	Sets    map[string][]Provision
	Verbs   map[Verb]Event
	Power   map[string]Power
	Deleted Provision
	Faults  []Fault
}

func TestVocabularyMatchesIronic(t *testing.T) {
	var ref vocabulary
	readRecorded(t, "testdata/vocabulary-21.4.json", &ref)
	m := NewMachine()
	preds := map[string]func(Provision) bool{
		"UPDATE_ALLOWED_STATES":           UpdateAllowed,
		"DELETE_ALLOWED_STATES":           func(s Provision) bool { return DeleteAllowed(s, false) },
		"STABLE_STATES":                   m.Stable,
		"UNSTABLE_STATES":                 Unstable,
		"STUCK_STATES_TREATED_AS_FAIL":    StuckOnRestart,
		"LOOKUP_ALLOWED_STATES":           LookupAllowed,
		"FASTTRACK_LOOKUP_ALLOWED_STATES": FastTrackLookupAllowed,
		"FAILURE_STATES":                  Failure,
	}
	if len(ref.Sets) != len(preds) {
		t.Fatalf("%d sets recorded, %d predicates", len(ref.Sets), len(preds))
	}
	for name, in := range preds {
		want := ref.Sets[name]
		if len(want) == 0 {
			t.Fatalf("%s not recorded", name)
		}
		for _, s := range append(All(), Deleted) {
			if in(s) != slices.Contains(want, s) {
				t.Errorf("%s: %q in = %v, Ironic %v", name, s, in(s), slices.Contains(want, s))
			}
		}
	}
	if !DeleteAllowed(Available, true) {
		t.Error("available nodes may be deleted when allowed")
	}
	if len(ref.Verbs) != 12 {
		t.Errorf("%d verbs recorded, Ironic 21.4 has 12", len(ref.Verbs))
	}
	for v, ev := range ref.Verbs {
		if got := v.Event(); got != ev {
			t.Errorf("%s.Event() = %s, Ironic %s", v, got, ev)
		}
	}
	for name, want := range map[string]Power{"POWER_ON": PowerOn, "POWER_OFF": PowerOff, "REBOOT": Rebooting,
		"SOFT_REBOOT": SoftRebooting, "SOFT_POWER_OFF": SoftPowerOff, "ERROR": PowerError} {
		if ref.Power[name] != want {
			t.Errorf("%s = %q, Ironic %q", name, want, ref.Power[name])
		}
	}
	if ref.Deleted != Deleted {
		t.Errorf("Deleted = %q, Ironic %q", Deleted, ref.Deleted)
	}
	if !slices.Equal(Faults(), ref.Faults) {
		t.Errorf("Faults() = %q, Ironic %q", Faults(), ref.Faults)
	}
}

func TestJoin(t *testing.T) {
	if got := Join([]Verb{VerbActive, VerbRebuild}, ", "); got != "active, rebuild" {
		t.Errorf("Join = %q", got)
	}
}
