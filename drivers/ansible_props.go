package drivers

// ansibleProperties are the properties of Ironic's ansible deploy interface.
func ansibleProperties() Properties {
	return Properties{
		{"ansible_username", "Deploy ramdisk username for Ansible. This user must have passwordless sudo permissions. Optional."},
		{"ansible_key_file", "Full path to private SSH key file. If not specified, default keys for user running ironic-conductor process will be used. Note that for keys with password, those must be pre-loaded into ssh-agent. Optional."},
		{"ansible_playbooks_path", "Path to folder holding playbooks to use for this node. Optional. Default is set in ironic config."},
		{"ansible_deploy_playbook", "Name of the Ansible playbook file inside the \"ansible_playbooks_path\" folder which is used for node deployment. Optional."},
		{"ansible_shutdown_playbook", "Name of the Ansible playbook file inside the \"ansible_playbooks_path\" folder which is used for node shutdown. Optional."},
		{"ansible_clean_playbook", "Name of the Ansible playbook file inside the \"ansible_playbooks_path\" folder which is used for node cleaning. Optional."},
		{"ansible_clean_steps_config", "Name of the file inside the \"ansible_playbooks_path\" folder with cleaning steps configuration. Optional."},
		{"ansible_python_interpreter", "Absolute path to the python interpreter on the managed machines. Optional."},
		{"deploy_forces_oob_reboot", "Whether Ironic should force a reboot of the Node via the out-of-band channel after deployment is complete. Provides compatibility with older deploy ramdisks. Defaults to False. Optional."},
		{"agent_verify_ca", "Either a Boolean value, a path to a CA_BUNDLE file or directory with certificates of trusted CAs. If set to True ironic will verify the agent's certificate; if False the driver will ignore verifying the SSL certificate. If it's a path the driver will use the specified certificate or one of the certificates in the directory. Defaults to True. Optional"},
	}
}
