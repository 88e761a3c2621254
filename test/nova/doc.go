// Package nova drives Nova's unmodified ironic virt driver (Debian 12's
// python3-nova, Nova 26 Zed: nova.virt.ironic.driver.IronicDriver, which
// talks to Ironic through openstacksdk and python-ironicclient) against
// this service, the way a nova-compute would: a Python process
// (testdata/novadriver.py) builds the driver from a nova.conf and calls
// its methods one at a time as the Go test asks; a recording reverse proxy
// in front of the API keeps what the driver sent (method, path and query,
// microversion).
//
//   - TestFakeHardware: our all-in-one with fake-hardware nodes: the
//     resource tracker's view (get_available_nodes, node_is_available,
//     get_available_resource, update_provider_tree), spawn and destroy,
//     list_instances, instance_exists, get_info, power off/on, soft and
//     hard reboot, soft power off, trigger_crash_dump, rescue and
//     unrescue. The requests Nova sent, step by step, must equal
//     testdata/requests-fake-hardware.json, recorded from Python Ironic
//     21.4 by TestFakeHardwareReference (go test -run Reference -update).
//   - TestSplitKeystone: the same scenario on the split deployment
//     (ironic-api, ironic-conductor, MariaDB, RabbitMQ) behind a real
//     Keystone, with Nova authenticating as Nova does in production
//     (password auth, the baremetal endpoint from the catalog).
//   - TestRedfish and TestIPMI: Nova's power calls on a redfish node on
//     the Redfish BMC emulator (test/redfishbmc) and on an ipmi node on
//     OpenIPMI's ipmi_sim (test/ipmisim); each step checks the BMC's own
//     state, not only the node's power_state.
//   - TestSpawnOnVM: the end-to-end deploy as Nova does it: a redfish
//     node that is a QEMU machine (test/internal/vm) with our agent
//     ramdisk, its deploy kernel and ramdisk Glance images the conductor
//     fetches into http_root; spawn with a Glance image (test/fakeglance,
//     the agent downloads its Swift temp URL) and a config drive Nova builds; the
//     machine boots the deployed disk, whose marker names the node and
//     the instance; destroy cleans it through the agent. Skipped
//     without QEMU (IRONIC_TEST_REQUIRE_QEMU=1 fails instead).
//   - TestPowerNotifications: the other direction, Ironic telling Nova
//     of power changes (power-update events, [nova]send_power_notifications)
//     to test/fakenova, compared with Python Ironic 21.4's requests.
//
// The driver reads Nova's own records through Nova's objects (the compute
// services of its hash ring, the host's instances, Instance.refresh while
// it waits for a deploy); the script gives it a throw-away SQLite
// database created with Nova's own migrations. No Nova service runs and
// the driver is not patched. Missing python3-nova (or Python Ironic for
// the reference) skips, unless IRONIC_TEST_REQUIRE_PYTHON=1.
package nova
