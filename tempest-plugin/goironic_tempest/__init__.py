"""goironic's own tempest tests: what ironic-tempest-plugin does not cover."""
