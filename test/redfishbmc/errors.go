package redfishbmc

import (
	"fmt"
	"net/http"
	"strings"
)

// registryPrefix is the Base message registry whose MessageIds and texts
// the emulator's errors use (DMTF Base 1.16.0).
const registryPrefix = "Base.1.16.0."

// rfError is a Redfish error answer: an HTTP status and one
// @Message.ExtendedInfo entry from the Base registry.
type rfError struct {
	status int
	// id is the Base registry MessageId ("PropertyValueNotInList").
	id      string
	message string
	args    []string
	// related are RelatedProperties JSON pointers ("#/ResetType").
	related    []string
	resolution string
	severity   string
}

func (e *rfError) Error() string { return fmt.Sprintf("%d %s: %s", e.status, e.id, e.message) }

// body is the error document of DSP0266 §9.6 (error responses).
func (e *rfError) body() map[string]any {
	info := map[string]any{
		"@odata.type":     "#Message.v1_1_1.Message",
		"MessageId":       registryPrefix + e.id,
		"Message":         e.message,
		"MessageArgs":     nonNil(e.args),
		"Severity":        e.severity,
		"MessageSeverity": e.severity,
		"Resolution":      e.resolution,
	}
	if len(e.related) > 0 {
		info["RelatedProperties"] = e.related
	}
	return map[string]any{"error": map[string]any{
		"code":                  registryPrefix + "GeneralError",
		"message":               "A general error has occurred. See ExtendedInfo for more information.",
		"@Message.ExtendedInfo": []any{info},
	}}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func quoteList(vals []string) string {
	q := make([]string, len(vals))
	for i, v := range vals {
		q[i] = "'" + v + "'"
	}
	return strings.Join(q, ", ")
}

// The Base registry messages the emulator answers with.

func errNotFound(uri string) *rfError {
	return &rfError{status: http.StatusNotFound, id: "ResourceMissingAtURI",
		message: fmt.Sprintf("The resource at the URI '%s' was not found.", uri), args: []string{uri},
		resolution: "Place a valid resource at the URI or correct the URI and resubmit the request.", severity: "Critical"}
}

func errNoValidSession() *rfError {
	return &rfError{status: http.StatusUnauthorized, id: "NoValidSession",
		message:    "There is no valid session established with the implementation.",
		resolution: "Establish a session before attempting any operations.", severity: "Critical"}
}

func errMethodNotAllowed() *rfError {
	return &rfError{status: http.StatusMethodNotAllowed, id: "OperationNotAllowed",
		message: "The HTTP method is not allowed on this resource.", resolution: "None.", severity: "Critical"}
}

func errMalformedJSON() *rfError {
	return &rfError{status: http.StatusBadRequest, id: "MalformedJSON",
		message:    "The request body submitted was malformed JSON and could not be parsed by the receiving service.",
		resolution: "Ensure that the request body is valid JSON and resubmit the request.", severity: "Critical"}
}

func errPreconditionFailed() *rfError {
	return &rfError{status: http.StatusPreconditionFailed, id: "PreconditionFailed",
		message:    "The ETag supplied did not match the ETag required to change this resource.",
		resolution: "Try the operation again using the appropriate ETag.", severity: "Critical"}
}

func errInternal() *rfError {
	return &rfError{status: http.StatusInternalServerError, id: "InternalError",
		message:    "The request failed due to an internal service error.  The service is still operational.",
		resolution: "Resubmit the request.  If the problem persists, consider resetting the service.", severity: "Critical"}
}

// errPropertyNotInList names the allowable values in its Resolution.
func errPropertyNotInList(pointer, value string, allowed []string) *rfError {
	prop := pointer[strings.LastIndex(pointer, "/")+1:]
	return &rfError{status: http.StatusBadRequest, id: "PropertyValueNotInList",
		message: fmt.Sprintf("The value '%s' for the property %s is not in the list of acceptable values.", value, prop),
		args:    []string{value, prop}, related: []string{pointer},
		resolution: "Choose a value from the enumeration list that the implementation can support and resubmit the request if the operation failed. Allowable values: " +
			quoteList(allowed) + ".",
		severity: "Warning"}
}

func errPropertyType(pointer string, value any) *rfError {
	prop := pointer[strings.LastIndex(pointer, "/")+1:]
	v := fmt.Sprint(value)
	return &rfError{status: http.StatusBadRequest, id: "PropertyValueTypeError",
		message: fmt.Sprintf("The value '%s' for the property %s is of a different type than the property can accept.", v, prop),
		args:    []string{v, prop}, related: []string{pointer},
		resolution: "Correct the value for the property in the request body and resubmit the request if the operation failed.", severity: "Warning"}
}

func errPropertyUnknown(pointer string) *rfError {
	prop := pointer[strings.LastIndex(pointer, "/")+1:]
	return &rfError{status: http.StatusBadRequest, id: "PropertyUnknown",
		message: fmt.Sprintf("The property %s is not in the list of valid properties for the resource.", prop),
		args:    []string{prop}, related: []string{pointer},
		resolution: "Remove the unknown property from the request body and resubmit the request if the operation failed.", severity: "Warning"}
}

func errPropertyNotWritable(pointer string) *rfError {
	prop := pointer[strings.LastIndex(pointer, "/")+1:]
	return &rfError{status: http.StatusBadRequest, id: "PropertyNotWritable",
		message: fmt.Sprintf("The property %s is a read only property and cannot be assigned a value.", prop),
		args:    []string{prop}, related: []string{pointer},
		resolution: "Remove the property from the request body and resubmit the request if the operation failed.", severity: "Warning"}
}

func errActionParamMissing(action, param string) *rfError {
	return &rfError{status: http.StatusBadRequest, id: "ActionParameterMissing",
		message: fmt.Sprintf("The action %s requires the parameter %s to be present in the request body.", action, param),
		args:    []string{action, param}, related: []string{"#/" + param},
		resolution: "Supply the action with the required parameter in the request body when the request is resubmitted.", severity: "Critical"}
}

// errActionParamNotInList names the allowable values in its Resolution.
func errActionParamNotInList(action, param, value string, allowed []string) *rfError {
	return &rfError{status: http.StatusBadRequest, id: "ActionParameterValueNotInList",
		message: fmt.Sprintf("The value '%s' for the parameter %s in the action %s is not in the list of acceptable values.", value, param, action),
		args:    []string{value, param, action}, related: []string{"#/" + param},
		resolution: "Choose a value from the enumeration list that the implementation can support and resubmit the request if the operation failed. Allowable values: " +
			quoteList(allowed) + ".",
		severity: "Warning"}
}

func errActionParamType(action, param string, value any) *rfError {
	v := fmt.Sprint(value)
	return &rfError{status: http.StatusBadRequest, id: "ActionParameterValueTypeError",
		message: fmt.Sprintf("The value '%s' for the parameter %s in the action %s is of a different type than the parameter can accept.", v, param, action),
		args:    []string{v, param, action}, related: []string{"#/" + param},
		resolution: "Correct the value for the parameter in the request body and resubmit the request if the operation failed.", severity: "Warning"}
}

func errActionParamUnknown(action, param string) *rfError {
	return &rfError{status: http.StatusBadRequest, id: "ActionParameterUnknown",
		message: fmt.Sprintf("The action %s was submitted with the invalid parameter %s.", action, param),
		args:    []string{action, param}, related: []string{"#/" + param},
		resolution: "Correct the invalid action parameter and resubmit the request if the operation failed.", severity: "Warning"}
}

func errCreateMissing(prop string) *rfError {
	return &rfError{status: http.StatusBadRequest, id: "CreateFailedMissingReqProperties",
		message: fmt.Sprintf("The create operation failed because the required property %s was missing from the request.", prop),
		args:    []string{prop}, related: []string{"#/" + prop},
		resolution: "Correct the body to include the required property with a valid value and resubmit the request if the operation failed.", severity: "Critical"}
}

func errPropertyValueOutOfRange(pointer, value string) *rfError {
	prop := pointer[strings.LastIndex(pointer, "/")+1:]
	return &rfError{status: http.StatusBadRequest, id: "PropertyValueOutOfRange",
		message: fmt.Sprintf("The value '%s' for the property %s is not in the supported range of acceptable values.", value, prop),
		args:    []string{value, prop}, related: []string{pointer},
		resolution: "Correct the value for the property in the request body and resubmit the request if the operation failed.", severity: "Warning"}
}

func errPropertyValueConflict(prop, other string) *rfError {
	return &rfError{status: http.StatusBadRequest, id: "PropertyValueConflict",
		message: fmt.Sprintf("The property '%s' could not be written because its value would conflict with the value of the '%s' property.", prop, other),
		args:    []string{prop, other}, related: []string{"#/" + prop},
		resolution: "No resolution is required.", severity: "Warning"}
}

func errPropertyValueResourceConflict(prop, value string) *rfError {
	return &rfError{status: http.StatusBadRequest, id: "PropertyValueResourceConflict",
		message: fmt.Sprintf("The property '%s' with the requested value of '%s' could not be written because the value conflicts with the state or configuration of the resource at '%s'.", prop, value, value),
		args:    []string{prop, value, value}, related: []string{"#/" + prop},
		resolution: "No resolution is required.", severity: "Warning"}
}

func errResourceInUse(what string) *rfError {
	return &rfError{status: http.StatusConflict, id: "ResourceInUse",
		message:    "The change to the requested resource failed because the resource is in use or in transition.",
		resolution: "Remove the condition and resubmit the request if the operation failed. " + what, severity: "Warning"}
}

func errCouldNotConnect(uri string) *rfError {
	return &rfError{status: http.StatusBadRequest, id: "CouldNotEstablishConnection",
		message: fmt.Sprintf("The service failed to establish a connection with the URI '%s'.", uri), args: []string{uri},
		related:    []string{"#/Image"},
		resolution: "Ensure that the URI contains a valid and reachable node name, protocol information and other URI components.", severity: "Critical"}
}

func errImageTooLarge(uri string, limit int64) *rfError {
	return &rfError{status: http.StatusBadRequest, id: "InsufficientStorage",
		message:    "Insufficient storage or memory available to complete the request.",
		related:    []string{"#/Image"},
		resolution: fmt.Sprintf("The image at '%s' is larger than this BMC takes (%d bytes).", uri, limit), severity: "Critical"}
}

func errPropertyValueFormat(pointer, value string) *rfError {
	prop := pointer[strings.LastIndex(pointer, "/")+1:]
	return &rfError{status: http.StatusBadRequest, id: "PropertyValueFormatError",
		message: fmt.Sprintf("The value '%s' for the property %s is of a different format than the property can accept.", value, prop),
		args:    []string{value, prop}, related: []string{pointer},
		resolution: "Correct the value for the property in the request body and resubmit the request if the operation failed.", severity: "Warning"}
}
