package ipmi

import "github.com/goironic/ironic/drivers"

// The texts below are Ironic 21.4's property descriptions, kept byte for
// byte: GET /v1/drivers/{name}/properties shows them.

// commonProperties are the properties of the ipmitool power, management and vendor interfaces.
func commonProperties() drivers.Properties {
	return drivers.Properties{
		{Name: "ipmi_address", Description: "IP address or hostname of the node. Required."},
		{Name: "ipmi_password", Description: "password. Optional."},
		{Name: "ipmi_hex_kg_key", Description: "Kg key for IPMIv2 authentication. The key is expected in hexadecimal format. Optional."},
		{Name: "ipmi_port", Description: "remote IPMI RMCP port. Optional."},
		{Name: "ipmi_priv_level", Description: "privilege level; default is ADMINISTRATOR. One of ADMINISTRATOR, CALLBACK, OPERATOR, USER. Optional."},
		{Name: "ipmi_username", Description: "username; default is NULL user. Optional."},
		{Name: "ipmi_bridging", Description: "bridging_type; default is \"no\". One of \"single\", \"dual\", \"no\". Optional."},
		{Name: "ipmi_transit_channel", Description: "transit channel for bridged request. Required only if ipmi_bridging is set to \"dual\"."},
		{Name: "ipmi_transit_address", Description: "transit address for bridged request. Required only if ipmi_bridging is set to \"dual\"."},
		{Name: "ipmi_target_channel", Description: "destination channel for bridged request. Required only if ipmi_bridging is set to \"single\" or \"dual\"."},
		{Name: "ipmi_target_address", Description: "destination address for bridged request. Required only if ipmi_bridging is set to \"single\" or \"dual\"."},
		{Name: "ipmi_local_address", Description: "local IPMB address for bridged requests. Used only if ipmi_bridging is set to \"single\" or \"dual\". Optional."},
		{Name: "ipmi_protocol_version", Description: "the version of the IPMI protocol; default is \"2.0\". One of \"1.5\", \"2.0\". Optional."},
		{Name: "ipmi_force_boot_device", Description: "Whether Ironic should specify the boot device to the BMC each time the server is turned on, eg. because the BMC is not capable of remembering the selected boot device across power cycles; default value is False. Optional."},
		{Name: "ipmi_disable_boot_timeout", Description: "By default ironic will send a raw IPMI command to disable the 60 second timeout for booting. Setting this option to False will NOT send that command on this node. The [ipmi]disable_boot_timeout will be used if this option is not set. Optional."},
		{Name: "ipmi_cipher_suite", Description: "The number of a cipher suite to use. Only 3 (AES-128 with SHA1) or 17 (AES-128 with SHA256) should ever be used; 17 is preferred. The default value depends on the ipmitool version, some recent versions have switched from 3 to 17."},
	}
}

// consoleProperties are the properties of the ipmitool console interfaces.
func consoleProperties() drivers.Properties {
	return drivers.Properties{
		{Name: "ipmi_address", Description: "IP address or hostname of the node. Required."},
		{Name: "ipmi_password", Description: "password. Optional."},
		{Name: "ipmi_hex_kg_key", Description: "Kg key for IPMIv2 authentication. The key is expected in hexadecimal format. Optional."},
		{Name: "ipmi_port", Description: "remote IPMI RMCP port. Optional."},
		{Name: "ipmi_priv_level", Description: "privilege level; default is ADMINISTRATOR. One of ADMINISTRATOR, CALLBACK, OPERATOR, USER. Optional."},
		{Name: "ipmi_username", Description: "username; default is NULL user. Optional."},
		{Name: "ipmi_bridging", Description: "bridging_type; default is \"no\". One of \"single\", \"dual\", \"no\". Optional."},
		{Name: "ipmi_transit_channel", Description: "transit channel for bridged request. Required only if ipmi_bridging is set to \"dual\"."},
		{Name: "ipmi_transit_address", Description: "transit address for bridged request. Required only if ipmi_bridging is set to \"dual\"."},
		{Name: "ipmi_target_channel", Description: "destination channel for bridged request. Required only if ipmi_bridging is set to \"single\" or \"dual\"."},
		{Name: "ipmi_target_address", Description: "destination address for bridged request. Required only if ipmi_bridging is set to \"single\" or \"dual\"."},
		{Name: "ipmi_local_address", Description: "local IPMB address for bridged requests. Used only if ipmi_bridging is set to \"single\" or \"dual\". Optional."},
		{Name: "ipmi_protocol_version", Description: "the version of the IPMI protocol; default is \"2.0\". One of \"1.5\", \"2.0\". Optional."},
		{Name: "ipmi_force_boot_device", Description: "Whether Ironic should specify the boot device to the BMC each time the server is turned on, eg. because the BMC is not capable of remembering the selected boot device across power cycles; default value is False. Optional."},
		{Name: "ipmi_disable_boot_timeout", Description: "By default ironic will send a raw IPMI command to disable the 60 second timeout for booting. Setting this option to False will NOT send that command on this node. The [ipmi]disable_boot_timeout will be used if this option is not set. Optional."},
		{Name: "ipmi_cipher_suite", Description: "The number of a cipher suite to use. Only 3 (AES-128 with SHA1) or 17 (AES-128 with SHA256) should ever be used; 17 is preferred. The default value depends on the ipmitool version, some recent versions have switched from 3 to 17."},
		{Name: "ipmi_terminal_port", Description: "node's UDP port to connect to. Only required for console access."},
	}
}
