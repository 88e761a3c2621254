package drivers

import (
	"context"

	"github.com/goironic/ironic/internal/pyjson"
	"github.com/goironic/ironic/states"
)

// StepPhase is when a step runs.
type StepPhase string

// The step phases.
const (
	CleanStep  StepPhase = "clean"
	DeployStep StepPhase = "deploy"
	VerifyStep StepPhase = "verify"
)

// StepArg describes one argument of a step (an argsinfo entry).
type StepArg struct {
	Name        string
	Description string
	Required    bool
}

// Step declares one clean, deploy or verify step of an implementation, as
// Ironic's @clean_step, @deploy_step and @verify_step decorators do.
type Step struct {
	Phase     StepPhase
	Interface Kind
	// Name is the step's name (the Python method name).
	Name string
	// Priority orders automated steps (highest first); 0 means the step
	// only runs when asked for.
	Priority int
	// Abortable (clean steps) says whether an abort may interrupt it.
	Abortable bool
	// ArgsInfo describes the step's arguments; nil means none.
	ArgsInfo []StepArg
	// RequiresRamdisk (clean steps) says whether the agent must run.
	RequiresRamdisk bool
}

// Object renders the step as Ironic stores and lists it: clean steps as
// {"step", "priority", "abortable", "argsinfo", "interface",
// "requires_ramdisk"}, deploy steps as {"step", "priority", "argsinfo",
// "interface"}, verify steps as {"step", "priority", "interface"}.
func (s Step) Object() pyjson.Object {
	var args any
	if s.ArgsInfo != nil {
		o := make(pyjson.Object, len(s.ArgsInfo))
		for i, a := range s.ArgsInfo {
			o[i] = pyjson.Member{Key: a.Name, Value: pyjson.Object{
				{Key: "description", Value: a.Description},
				{Key: "required", Value: a.Required},
			}}
		}
		args = o
	}
	switch s.Phase {
	case CleanStep:
		return pyjson.Object{
			{Key: "step", Value: s.Name},
			{Key: "priority", Value: s.Priority},
			{Key: "abortable", Value: s.Abortable},
			{Key: "argsinfo", Value: args},
			{Key: "interface", Value: string(s.Interface)},
			{Key: "requires_ramdisk", Value: s.RequiresRamdisk},
		}
	case DeployStep:
		return pyjson.Object{
			{Key: "step", Value: s.Name},
			{Key: "priority", Value: s.Priority},
			{Key: "argsinfo", Value: args},
			{Key: "interface", Value: string(s.Interface)},
		}
	}
	return pyjson.Object{
		{Key: "step", Value: s.Name},
		{Key: "priority", Value: s.Priority},
		{Key: "interface", Value: string(s.Interface)},
	}
}

// Stepper is implemented by interfaces that declare steps. The conductor
// lists them to build clean, deploy and verify plans and runs them through
// ExecuteStep.
type Stepper interface {
	// Steps lists the declared steps of every phase.
	Steps() []Step
	// ExecuteStep runs the step called name with args (nil when none). It
	// returns states.CleanWait or states.DeployWait when the step goes on
	// asynchronously, "" when done. An unknown name is an
	// InvalidParameterValue fault.
	ExecuteStep(ctx context.Context, task Task, name string, args map[string]any) (states.Provision, error)
}
