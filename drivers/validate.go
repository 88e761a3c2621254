package drivers

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/internal/pyjson"
)

// ValidationResult is one interface's line of GET /v1/nodes/{node}/validate.
type ValidationResult struct {
	Kind   Kind
	Result bool
	// Reason says why Result is false; empty when it is true.
	Reason string
}

// ValidationResults are a node's validation results, in ValidationKinds
// order.
type ValidationResults []ValidationResult

// Get returns the result for kind k.
func (v ValidationResults) Get(k Kind) (ValidationResult, bool) {
	for _, r := range v {
		if r.Kind == k {
			return r, true
		}
	}
	return ValidationResult{}, false
}

// Object renders the results as Ironic answers them: {"boot": {"result":
// true}, "deploy": {"result": false, "reason": "..."}, ...}.
func (v ValidationResults) Object() pyjson.Object {
	o := make(pyjson.Object, len(v))
	for i, r := range v {
		entry := pyjson.Object{{Key: "result", Value: r.Result}}
		if !r.Result {
			entry = append(entry, pyjson.Member{Key: "reason", Value: r.Reason})
		}
		o[i] = pyjson.Member{Key: string(r.Kind), Value: entry}
	}
	return o
}

// ValidateOption adjusts ValidateNode.
type ValidateOption func(*validateOptions)

type validateOptions struct {
	host        string
	afterDeploy func(context.Context, Task) error
	log         *slog.Logger
}

// WithHost names the conductor host in the reason of unexpected errors.
func WithHost(host string) ValidateOption {
	return func(o *validateOptions) { o.host = host }
}

// WithDeployChecks adds checks run after a successful deploy interface
// validation, as Ironic's conductor checks the instance_info traits and the
// deploy steps and templates there.
func WithDeployChecks(f func(context.Context, Task) error) ValidateOption {
	return func(o *validateOptions) { o.afterDeploy = f }
}

// WithLogger logs unexpected validation errors to l.
func WithLogger(l *slog.Logger) ValidateOption {
	return func(o *validateOptions) { o.log = l }
}

// ValidateNode validates every interface but vendor of the task's driver,
// as Ironic's validate_driver_interfaces does. Validation faults
// (InvalidParameterValue and its kinds, UnsupportedDriverExtension) become
// the reason as is; any other error is reported as unexpected, with the
// conductor host.
//
// As in Ironic, the caller first refreshes the node's image type
// (conductor.utils.update_image_type: instance_info/image_type and
// driver_internal_info/is_whole_disk_image), which may need the image
// service and is therefore not done here.
func (r *Registry) ValidateNode(ctx context.Context, task Task, opts ...ValidateOption) ValidationResults {
	var o validateOptions
	for _, f := range opts {
		f(&o)
	}
	drv := task.Driver()
	out := make(ValidationResults, 0, len(ValidationKinds()))
	for _, k := range ValidationKinds() {
		res := ValidationResult{Kind: k, Result: true}
		var err error
		if iface, ok := drv.Interface(k).(Interface); ok {
			err = iface.Validate(ctx, task)
		} else {
			err = ironic.Errorf(ironic.IronicException, "no %s interface", k)
		}
		if err == nil && k == Deploy && o.afterDeploy != nil {
			err = o.afterDeploy(ctx, task)
		}
		if err != nil {
			res.Result = false
			if isValidationFault(err) {
				res.Reason = err.Error()
			} else {
				res.Reason = fmt.Sprintf("Unexpected exception, traceback saved into log by ironic conductor service that is running on %s: %s",
					o.host, err.Error())
				if o.log != nil {
					o.log.ErrorContext(ctx, "Unexpected exception occurred while validating driver interface",
						"interface", string(k), "driver", task.DriverName(), "node", task.NodeUUID(), "error", err)
				}
			}
		}
		out = append(out, res)
	}
	return out
}

// faultClass returns the class of err's fault, if it has one.
func faultClass(err error) (ironic.Class, bool) {
	var f *ironic.Fault
	if errors.As(err, &f) {
		return f.Class, true
	}
	return "", false
}
