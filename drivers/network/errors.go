package network

import (
	"errors"

	"github.com/goironic/ironic"
)

// done turns what leaves an interface method into a fault: Neutron error
// answers that Ironic lets through (openstacksdk exceptions it doesn't
// catch) and failures to reach Neutron become NetworkError faults with
// their message; faults pass as they are.
func done(err error) error {
	if err == nil {
		return nil
	}
	var f *ironic.Fault
	if errors.As(err, &f) {
		return err
	}
	return ironic.Errorf(ironic.NetworkError, "%s", err.Error())
}

func isMissingParameter(err error) bool { return ironic.IsClass(err, ironic.MissingParameterValue) }
