package disk

import "fmt"

// Error is one of IPA's RESTError classes (ironic_python_agent.errors):
// the agent serialises it as {"type", "code", "message", "details"} and
// Ironic's last_error shows its str(), "<message>: <details>".
type Error struct {
	// Type is IPA's class name (ImageDownloadError, ...).
	Type string
	// Code is the class's status_code.
	Code int
	// Message is the class's fixed message.
	Message string
	// Details is the instance's details.
	Details string
}

func (e *Error) Error() string { return e.Message + ": " + e.Details }

// The IPA errors this package raises, with IPA's texts.

func errImageDownload(imageID, msg string) *Error {
	return &Error{Type: "ImageDownloadError", Code: 500, Message: "Error downloading image",
		Details: fmt.Sprintf("Download of image %s failed: %s", imageID, msg)}
}

func errImageChecksum(location, imageID, checksum, calculated string) *Error {
	return &Error{Type: "ImageChecksumError", Code: 500, Message: "Error verifying image checksum",
		Details: fmt.Sprintf("Image failed to verify against checksum. location: %s; image ID: %s; image checksum: %s; verification checksum: %s",
			location, imageID, checksum, calculated)}
}

func errImageWrite(device string, exitCode int, stdout, stderr string) *Error {
	return &Error{Type: "ImageWriteError", Code: 500, Message: "Error writing image to device",
		Details: fmt.Sprintf("Writing image to device %s failed with exit code %d. stdout: %s. stderr: %s", device, exitCode, stdout, stderr)}
}

func errDeviceNotFound(details string) *Error {
	return &Error{Type: "DeviceNotFound", Code: 404, Message: "Error finding the disk or partition device to deploy the image onto", Details: details}
}

func errInvalidCommandParams(details string) *Error {
	return &Error{Type: "InvalidCommandParamsError", Code: 400, Message: "Invalid command parameters", Details: details}
}

func errREST(details string) *Error {
	return &Error{Type: "RESTError", Code: 500, Message: "An error occurred", Details: details}
}

func errBlockDeviceErase(details string) *Error {
	return &Error{Type: "BlockDeviceEraseError", Code: 500, Message: "Error erasing block device", Details: details}
}

func errCommandExecution(details string) *Error {
	return &Error{Type: "CommandExecutionError", Code: 500, Message: "Command execution failed", Details: details}
}

// errInstanceDeployFailure is ironic_lib's InstanceDeployFailure, not a
// RESTError: IPA's command runner reports it as CommandExecutionError(str(e)).
func errInstanceDeployFailure(msg string) *Error {
	return errCommandExecution(msg)
}
