package agent

import "github.com/goironic/ironic/drivers"

// The texts below are Ironic 21.4's property descriptions, kept byte for
// byte: GET /v1/drivers/{name}/properties shows them.

// agentProperties are the properties of the direct and custom-agent deploy interfaces.
func agentProperties() drivers.Properties {
	return drivers.Properties{
		{Name: "deploy_kernel", Description: "UUID (from Glance) of the deployment kernel. Required."},
		{Name: "deploy_ramdisk", Description: "UUID (from Glance) of the ramdisk with agent that is used at deploy time. Required."},
		{Name: "image_http_proxy", Description: "URL of a proxy server for HTTP connections. Optional."},
		{Name: "image_https_proxy", Description: "URL of a proxy server for HTTPS connections. Optional."},
		{Name: "image_no_proxy", Description: "A comma-separated list of host names, IP addresses and domain names (with optional :port) that will be excluded from proxying. To denote a domain name, use a dot to prefix the domain name. This value will be ignored if ``image_http_proxy`` and ``image_https_proxy`` are not specified. Optional."},
		{Name: "image_download_source", Description: "Specifies whether direct deploy interface should try to use the image source directly or if ironic should cache the image on the conductor and serve it from ironic's own HTTP server. Accepted values are \"swift\", \"http\" and \"local\". Optional."},
		{Name: "deploy_forces_oob_reboot", Description: "Whether Ironic should force a reboot of the Node via the out-of-band channel after deployment is complete. Provides compatibility with older deploy ramdisks. Defaults to False. Optional."},
		{Name: "agent_verify_ca", Description: "Either a Boolean value, a path to a CA_BUNDLE file or directory with certificates of trusted CAs. If set to True ironic will verify the agent's certificate; if False the driver will ignore verifying the SSL certificate. If it's a path the driver will use the specified certificate or one of the certificates in the directory. Defaults to True. Optional"},
	}
}
