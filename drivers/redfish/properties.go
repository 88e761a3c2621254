package redfish

import "github.com/goironic/ironic/drivers"

// The texts below are Ironic 21.4's property descriptions, kept byte for
// byte: GET /v1/drivers/{name}/properties shows them.

// commonProperties are the properties of the redfish power, management, bios, inspect and raid interfaces.
func commonProperties() drivers.Properties {
	return drivers.Properties{
		{Name: "redfish_address", Description: "The URL address to the Redfish controller. It must include the authority portion of the URL. If the scheme is missing, https is assumed. For example: https://mgmt.vendor.com. If a path is added, it will be used as the API endpoint root_prefix. Required"},
		{Name: "redfish_system_id", Description: "The canonical path to the ComputerSystem resource that the driver will interact with. It should include the root service, version and the unique resource path to a ComputerSystem within the same authority as the redfish_address property. For example: /redfish/v1/Systems/1. This property is only required if target BMC manages more than one ComputerSystem. Otherwise ironic will pick the only available ComputerSystem automatically."},
		{Name: "redfish_username", Description: "User account with admin/server-profile access privilege. Although this property is not mandatory it's highly recommended to set a username. Optional"},
		{Name: "redfish_password", Description: "User account password. Although this property is not mandatory, it's highly recommended to set a password. Optional"},
		{Name: "redfish_verify_ca", Description: "Either a Boolean value, a path to a CA_BUNDLE file or directory with certificates of trusted CAs. If set to True the driver will verify the host certificates; if False the driver will ignore verifying the SSL certificate. If it's a path the driver will use the specified certificate or one of the certificates in the directory. Defaults to True. Optional"},
		{Name: "redfish_auth_type", Description: "Redfish HTTP client authentication method. Can be \"basic\", \"session\" or \"auto\". If not set, the default value is taken from Ironic configuration as ``[redfish]auth_type`` option."},
	}
}

// virtualMediaProperties are the properties of the redfish-virtual-media boot interface.
func virtualMediaProperties() drivers.Properties {
	return drivers.Properties{
		{Name: "deploy_kernel", Description: "URL or Glance UUID of the deployment kernel. Required if deploy_iso is not set."},
		{Name: "deploy_ramdisk", Description: "URL or Glance UUID of the ramdisk that is mounted at boot time. Required if deploy_iso is not set."},
		{Name: "deploy_iso", Description: "URL or Glance UUID of the deployment ISO to use. Required if deploy_kernel/deploy_ramdisk are not set."},
	}
}
