package agent

import "fmt"

// restError is IPA's errors.RESTError: what a failed command's
// command_error serialises to ({"type", "code", "message", "details"})
// and, for the API's own refusals, its HTTP status.
type restError struct {
	Type    string `json:"type"`
	Code    int    `json:"code"`
	Message string `json:"message"`
	Details string `json:"details"`
}

func (e *restError) Error() string { return e.Message + ": " + e.Details }

func newRESTError(typ string, code int, message, details string) *restError {
	return &restError{Type: typ, Code: code, Message: message, Details: details}
}

// The errors of IPA's errors.py this agent raises.

func errCommandExecution(details string) *restError {
	return newRESTError("CommandExecutionError", 500, "Command execution failed", details)
}

func errInvalidCommand(details string) *restError {
	return newRESTError("InvalidCommandError", 400, "Invalid command", details)
}

func errInvalidCommandParams(details string) *restError {
	return newRESTError("InvalidCommandParamsError", 400, "Invalid command parameters", details)
}

func errNotFound(typ, id string) *restError {
	return newRESTError("RequestedObjectNotFoundError", 404, "Not found", fmt.Sprintf("%s with id %s not found.", typ, id))
}

func errAgentIsBusy(command string) *restError {
	return newRESTError("AgentIsBusy", 409, "Agent is busy", "executing command "+command)
}

func errDeployment(details string) *restError {
	return newRESTError("DeploymentError", 500, "Deploy step failed", details)
}

func errCleaning(details string) *restError {
	return newRESTError("CleaningError", 500, "Clean step failed", details)
}

func errHardwareManagerMethodNotFound(method string) *restError {
	return newRESTError("HardwareManagerMethodNotFound", 500, "No HardwareManager found to handle method",
		fmt.Sprintf("Could not find method: %s", method))
}

func errSystemReboot(details string) *restError {
	return newRESTError("SystemRebootError", 500, "Error rebooting system", details)
}
