package states

import (
	"encoding/json"
	"os"
	"testing"
)

// machine-21.4.json was dumped from python3-ironic 21.4's
// ironic.common.states.machine (every state's stable flag and target, and
// every transition); the data table must match it edge for edge.
type reference struct {
	Transitions []Transition
	States      map[Provision]struct {
		Stable bool
		Target Provision
	}
}

func TestMachineMatchesIronic(t *testing.T) {
	var ref reference
	readRecorded(t, "testdata/machine-21.4.json", &ref)
	m := NewMachine()
	if got, want := len(Transitions()), len(ref.Transitions); got != want || want != 63 {
		t.Fatalf("%d transitions, Ironic has %d (63 expected)", got, want)
	}
	for _, tr := range ref.Transitions {
		to, ok := m.Next(tr.From, tr.Event)
		if !ok || to != tr.To {
			t.Errorf("(%s, %s) → %q (%v), Ironic → %q", tr.From, tr.Event, to, ok, tr.To)
		}
	}
	if len(ref.States) != len(All()) {
		t.Errorf("%d states, Ironic has %d", len(All()), len(ref.States))
	}
	for name, st := range ref.States {
		if !IsState(name) {
			t.Errorf("state %q missing", name)
		}
		if m.Stable(name) != st.Stable || m.Target(name) != st.Target {
			t.Errorf("%s: stable %v target %q, Ironic %v %q", name, m.Stable(name), m.Target(name), st.Stable, st.Target)
		}
	}
	// Every (state, event) pair not in the table is refused.
	events := map[Event]bool{}
	for _, tr := range ref.Transitions {
		events[tr.Event] = true
	}
	allowed := map[edge]bool{}
	for _, tr := range ref.Transitions {
		allowed[edge{tr.From, tr.Event}] = true
	}
	for _, s := range All() {
		for e := range events {
			if m.Actionable(s, e) != allowed[edge{s, e}] {
				t.Errorf("Actionable(%s, %s) = %v", s, e, m.Actionable(s, e))
			}
		}
	}
}

func TestVerbEvent(t *testing.T) {
	for verb, ev := range map[Verb]Event{"active": "deploy", "deploy": "deploy", "deleted": "delete",
		"undeploy": "delete", "manage": "manage", "rebuild": "rebuild", "bogus": "bogus"} {
		if got := verb.Event(); got != ev {
			t.Errorf("%s.Event() = %s, want %s", verb, got, ev)
		}
	}
}

// readRecorded decodes a file recorded from the reference into v.
func readRecorded(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatal(err)
	}
}
