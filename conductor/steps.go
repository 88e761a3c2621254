package conductor

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/internal/pyjson"
	"github.com/goironic/ironic/internal/pyschema"
	"github.com/goironic/ironic/states"
)

// stepInterfacePriority breaks ties between clean or deploy steps of the
// same priority (CLEANING_INTERFACE_PRIORITY and
// DEPLOYING_INTERFACE_PRIORITY, which are the same).
var stepInterfaces = []drivers.Kind{drivers.Power, drivers.Management, drivers.Deploy, drivers.BIOS, drivers.RAID}

func stepInterfacePriority(iface string) int {
	for i, k := range stepInterfaces {
		if string(k) == iface {
			return len(stepInterfaces) - i
		}
	}
	return 0
}

// stepDict renders a driver step as Ironic keeps it in
// driver_internal_info (get_clean_steps / get_deploy_steps).
func stepDict(s drivers.Step) map[string]any {
	var args any
	if s.ArgsInfo != nil {
		a := make(map[string]any, len(s.ArgsInfo))
		for _, x := range s.ArgsInfo {
			a[x.Name] = map[string]any{"description": x.Description, "required": x.Required}
		}
		args = a
	}
	d := map[string]any{"step": s.Name, "priority": s.Priority, "argsinfo": args, "interface": string(s.Interface)}
	if s.Phase == drivers.CleanStep {
		d["abortable"] = s.Abortable
		d["requires_ramdisk"] = s.RequiresRamdisk
	}
	return d
}

// inbandStepper is an interface whose steps also come from the node's
// agent (the steps it reported, cached in driver_internal_info).
type inbandStepper interface {
	// InbandSteps returns the agent's steps of phase as step
	// dictionaries, priorities as Ironic overrides them.
	InbandSteps(task drivers.Task, phase drivers.StepPhase) []map[string]any
}

// driverSteps lists the node's steps of a phase, interface by interface
// (_get_steps); enabled keeps those with a non-zero priority, sorted
// sorts them highest priority first.
func driverSteps(t *task, phase drivers.StepPhase, enabled, sorted bool) []map[string]any {
	var out []map[string]any
	for _, k := range stepInterfaces {
		st, ok := t.driver.Interface(k).(drivers.Stepper)
		if !ok || st == nil {
			continue
		}
		seen := map[string]bool{}
		for _, s := range st.Steps() {
			if s.Phase != phase {
				continue
			}
			seen[string(s.Interface)+"."+s.Name] = true
			if enabled && s.Priority == 0 {
				continue
			}
			out = append(out, stepDict(s))
		}
		// An agent's in-band steps, unless an out-of-band step of the
		// same name shadows them (AgentDeployMixin.get_deploy_steps).
		if ib, ok := st.(inbandStepper); ok {
			for _, s := range ib.InbandSteps(t, phase) {
				if seen[stepID(s)] || (enabled && intOf(s["priority"]) == 0) {
					continue
				}
				out = append(out, s)
			}
		}
	}
	if sorted {
		sortSteps(out)
	}
	return out
}

// sortSteps orders steps by priority, then interface priority, highest
// first, keeping the order of equals (Python's sorted(reverse=True)).
func sortSteps(steps []map[string]any) {
	sort.SliceStable(steps, func(i, j int) bool {
		pi, pj := intOf(steps[i]["priority"]), intOf(steps[j]["priority"])
		if pi != pj {
			return pi > pj
		}
		return stepInterfacePriority(strOf(steps[i]["interface"])) > stepInterfacePriority(strOf(steps[j]["interface"]))
	})
}

func intOf(v any) int {
	switch x := v.(type) {
	case int:
		return x
	case int64:
		return int(x)
	case float64:
		return int(x)
	case interface{ Int64() (int64, error) }:
		n, _ := x.Int64()
		return int(n)
	}
	return 0
}

func strOf(v any) string {
	s, _ := v.(string)
	return s
}

func stepID(s map[string]any) string { return strOf(s["interface"]) + "." + strOf(s["step"]) }

// asSteps reads a list of step dictionaries from a decoded JSON value.
func asSteps(v any) []map[string]any {
	switch x := v.(type) {
	case []map[string]any:
		return x
	case []any:
		out := make([]map[string]any, 0, len(x))
		for _, e := range x {
			if m, ok := e.(map[string]any); ok {
				out = append(out, m)
			}
		}
		return out
	}
	return nil
}

func stepsValue(steps []map[string]any) []any {
	out := make([]any, len(steps))
	for i, s := range steps {
		out[i] = s
	}
	return out
}

// validateUserSteps is steps._validate_user_steps: each user step must
// name a driver step, with the arguments it declares. Clean steps take
// the driver's priority and abortable flag. Errors are one
// InvalidParameterValue listing every problem.
func validateUserSteps(user, driver []map[string]any, stepType, prefix string, skipMissing, disableRamdisk bool) ([]map[string]any, error) {
	byID := map[string]map[string]any{}
	for _, d := range driver {
		byID[stepID(d)] = d
	}
	var errs []string
	var result []map[string]any
	for _, u := range user {
		d, ok := byID[stepID(u)]
		if !ok {
			if !skipMissing {
				errs = append(errs, fmt.Sprintf("node does not support this %s step: %s", stepType, stepRepr(u)))
			}
			continue
		}
		errs = append(errs, validateUserStep(u, d, stepType, disableRamdisk)...)
		result = append(result, u)
	}
	if stepType == "deploy" {
		seen, dups := map[string]int{}, []string{}
		for _, s := range result {
			seen[stepID(s)]++
			if seen[stepID(s)] == 2 {
				dups = append(dups, stepID(s))
			}
		}
		if len(dups) > 0 {
			errs = append(errs, "deploy steps from all deploy templates matching this node's instance traits cannot have the same interface and step. Duplicate deploy steps for "+strings.Join(dups, ", "))
		}
	}
	if len(errs) > 0 {
		return nil, ironic.Errorf(ironic.InvalidParameterValue, "%s%s", prefix, strings.Join(errs, "; "))
	}
	return result, nil
}

func validateUserStep(u, d map[string]any, stepType string, disableRamdisk bool) []string {
	var errs []string
	argsinfo, _ := d["argsinfo"].(map[string]any)
	userArgs, _ := u["args"].(map[string]any)
	var unexpected []string
	for k := range userArgs {
		if _, ok := argsinfo[k]; !ok {
			unexpected = append(unexpected, k)
		}
	}
	slices.Sort(unexpected)
	if len(unexpected) > 0 {
		errs = append(errs, fmt.Sprintf("%s step %s has these unexpected arguments: %s", stepType, stepRepr(u), strings.Join(unexpected, ", ")))
	}
	if stepType == "clean" || intOf(u["priority"]) > 0 {
		var names []string
		for k := range argsinfo {
			names = append(names, k)
		}
		slices.Sort(names)
		var missing []string
		for _, k := range names {
			info, _ := argsinfo[k].(map[string]any)
			if req, _ := info["required"].(bool); !req {
				continue
			}
			if _, ok := userArgs[k]; ok {
				continue
			}
			msg := k
			if desc, _ := info["description"].(string); desc != "" {
				msg += " (" + desc + ")"
			}
			missing = append(missing, msg)
		}
		if len(missing) > 0 {
			errs = append(errs, fmt.Sprintf("%s step %s is missing these required arguments: %s", stepType, stepRepr(u), strings.Join(missing, ", ")))
		}
		if req, ok := d["requires_ramdisk"].(bool); disableRamdisk && (!ok || req) {
			errs = append(errs, fmt.Sprintf("clean step %s requires booting a ramdisk", stepRepr(u)))
		}
	}
	if stepType == "clean" {
		u["abortable"] = d["abortable"]
		u["priority"] = intOf(d["priority"])
		if _, ok := d["abortable"]; !ok {
			u["abortable"] = false
		}
	} else if intOf(u["priority"]) > 0 && strOf(d["interface"]) == "deploy" && strOf(d["step"]) == "deploy" {
		errs = append(errs, fmt.Sprintf("deploy step %s on interface %s is a core step and cannot be overridden by user steps. It may be disabled by setting the priority to 0",
			strOf(u["step"]), strOf(u["interface"])))
	}
	return errs
}

const deployStepsPrefix = `Validation of deploy steps from "deploy steps" argument failed.`

// validatedUserDeploySteps is _get_validated_user_deploy_steps: the given
// steps, or those saved in driver_internal_info.
func validatedUserDeploySteps(t *task, user []map[string]any, skipMissing bool) ([]map[string]any, error) {
	if len(user) == 0 {
		user = asSteps(t.DriverInternalInfo()["user_deploy_steps"])
	}
	if len(user) == 0 {
		return nil, nil
	}
	return validateUserSteps(user, driverSteps(t, drivers.DeployStep, false, false), "deploy", deployStepsPrefix, skipMissing, false)
}

// stepKeyOrder is the order in which Python shows a step dictionary's
// keys: the order Ironic builds template steps in
// (_get_steps_from_deployment_templates), which is also the order of the
// API's step schemas and of what clients send.
var stepKeyOrder = []string{"interface", "step", "args", "priority"}

// stepRepr is Python's repr() of a step dictionary: its keys in
// stepKeyOrder, then any others sorted (Go maps don't keep the order a
// client sent them in).
func stepRepr(s map[string]any) string {
	o := make(pyjson.Object, 0, len(s))
	for _, k := range stepKeyOrder {
		if v, ok := s[k]; ok {
			o = append(o, pyjson.Member{Key: k, Value: v})
		}
	}
	var rest []string
	for k := range s {
		if !slices.Contains(stepKeyOrder, k) {
			rest = append(rest, k)
		}
	}
	slices.Sort(rest)
	for _, k := range rest {
		o = append(o, pyjson.Member{Key: k, Value: s[k]})
	}
	return pyschema.Repr(o)
}

// deploymentTemplates is _get_deployment_templates: the deploy templates
// named by one of the node's instance traits (instance_info.traits), in
// name order, the order in which the reference's
// "name IN (...)" query returns them (through the unique index on name,
// on SQLite and MySQL alike).
func deploymentTemplates(ctx context.Context, t *task) ([]models.DeployTemplate, error) {
	list, _ := t.node.InstanceInfo["traits"].([]any)
	var names []string
	for _, v := range list {
		if s, ok := v.(string); ok {
			names = append(names, s)
		}
	}
	if len(names) == 0 {
		return nil, nil
	}
	ts, err := t.m.store.ListDeployTemplatesByNames(ctx, names)
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(ts, func(a, b models.DeployTemplate) int { return strings.Compare(a.Name, b.Name) })
	return ts, nil
}

// templateSteps is _get_steps_from_deployment_templates: every step of
// the templates, template by template, as {interface, step, args,
// priority}.
func templateSteps(ts []models.DeployTemplate) []map[string]any {
	var out []map[string]any
	for _, tpl := range ts {
		for _, st := range tpl.Steps {
			args := map[string]any(st.Args)
			if args == nil {
				args = map[string]any{}
			}
			out = append(out, map[string]any{"interface": st.Interface, "step": st.Step, "args": args, "priority": int(st.Priority)})
		}
	}
	return out
}

// validatedTemplateSteps is _get_validated_steps_from_templates: the steps
// of the node's matching deploy templates, validated against the driver's
// deploy steps.
func validatedTemplateSteps(ctx context.Context, t *task, skipMissing bool) ([]map[string]any, error) {
	ts, err := deploymentTemplates(ctx, t)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(ts))
	for i, tpl := range ts {
		names[i] = tpl.Name
	}
	prefix := "Validation of deploy steps from deploy templates matching this node's instance traits failed. Matching deploy templates: " +
		strings.Join(names, ",") + ". Errors: "
	steps := templateSteps(ts)
	if len(steps) == 0 {
		return nil, nil
	}
	return validateUserSteps(steps, driverSteps(t, drivers.DeployStep, false, false), "deploy", prefix, skipMissing, false)
}

// validateDeployStepsAndTemplates is
// validate_user_deploy_steps_and_templates: the steps of the matching
// deploy templates, then the user's (given, or saved in
// driver_internal_info).
func validateDeployStepsAndTemplates(ctx context.Context, t *task, user []map[string]any, skipMissing bool) error {
	if _, err := validatedTemplateSteps(ctx, t, skipMissing); err != nil {
		return err
	}
	_, err := validatedUserDeploySteps(t, user, skipMissing)
	return err
}

// allDeploymentSteps is _get_all_deployment_steps: the enabled driver
// steps, overridden by the steps of the matching deploy templates, which
// the user's steps override in turn; steps of priority 0 only disable.
// Sorted by priority, then interface priority.
func allDeploymentSteps(ctx context.Context, t *task, skipMissing bool) ([]map[string]any, error) {
	user, err := validatedUserDeploySteps(t, nil, skipMissing)
	if err != nil {
		return nil, err
	}
	tpl, err := validatedTemplateSteps(ctx, t, skipMissing)
	if err != nil {
		return nil, err
	}
	userKeys := map[string]bool{}
	for _, s := range user {
		userKeys[stepID(s)] = true
	}
	for _, s := range tpl {
		if !userKeys[stepID(s)] {
			user = append(user, s)
		}
	}
	userKeys = map[string]bool{}
	for _, s := range user {
		userKeys[stepID(s)] = true
	}
	var steps []map[string]any
	for _, s := range driverSteps(t, drivers.DeployStep, true, false) {
		if !userKeys[stepID(s)] {
			steps = append(steps, s)
		}
	}
	for _, s := range user {
		if intOf(s["priority"]) > 0 {
			steps = append(steps, s)
		}
	}
	sortSteps(steps)
	return steps, nil
}

// executeStep runs one step through its interface (execute_clean_step /
// execute_deploy_step).
func executeStep(ctx context.Context, t *task, step map[string]any) (states.Provision, error) {
	k := drivers.Kind(strOf(step["interface"]))
	st, ok := t.driver.Interface(k).(drivers.Stepper)
	if !ok || st == nil {
		return "", ironic.Errorf(ironic.InvalidParameterValue, "Step %s is not supported by this interface.", strOf(step["step"]))
	}
	args, _ := step["args"].(map[string]any)
	return st.ExecuteStep(ctx, t, strOf(step["step"]), args)
}
