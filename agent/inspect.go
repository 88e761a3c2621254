package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/goironic/ironic/agent/disk"
	"github.com/goironic/ironic/agent/hardware"
	"github.com/goironic/ironic/internal/ordered"
)

// IPA 9.4's inspection constants (ironic_python_agent/inspector.py and
// hardware.py).
const (
	// inspectionPostAttempts and inspectionPostWait: a connection error
	// posting to inspector is retried, 5 attempts 5 s apart.
	inspectionPostAttempts = 5
	inspectionPostWait     = 5 * time.Second
	// dhcpRetryInterval is how often wait_for_dhcp looks again.
	dhcpRetryInterval = 2 * time.Second
	// minRootDiskSize is guess_root_disk's smallest root disk (4 GiB).
	minRootDiskSize = 4 << 30
	// DefaultInspectionCollectors is IPA's inspection_collectors default.
	DefaultInspectionCollectors = "default"
)

// InspectionError is IPA's errors.InspectionError: inspection failed,
// but the agent goes on (lookup, heartbeats) after logging it.
type InspectionError struct{ Message string }

func (e *InspectionError) Error() string { return e.Message }

// failures is IPA's utils.AccumulatedFailures.
type failures []string

func (f failures) text() *string {
	if len(f) == 0 {
		return nil
	}
	items := make([]string, len(f))
	for i, s := range f {
		items[i] = "* " + s
	}
	s := "The following errors were encountered:\n" + strings.Join(items, "\n")
	return &s
}

// inspectionData is the body posted to inspector: a JSON object whose
// keys keep the order the collectors set them in (as the Python dict
// IPA encodes does).
type inspectionData = ordered.Map[any]

// collector is one of IPA's ironic_python_agent.inspector.collectors.
type collector func(ctx context.Context, data *inspectionData, fail *failures) error

func (a *Agent) collectors() map[string]collector {
	return map[string]collector{
		"default": a.collectDefault, "logs": a.collectLogs,
		"pci-devices": a.collectPCIDevices,
	}
}

// collectorNames is _get_collector_names.
func (a *Agent) collectorNames() []string {
	names := []string{}
	for _, n := range strings.Split(a.cfg.InspectionCollectors, ",") {
		if n = strings.TrimSpace(n); n != "" {
			names = append(names, n)
		}
	}
	return names
}

// Inspect is IPA's inspector.inspect: run the collectors named by
// InspectionCollectors, POST what they gathered (and their failures, in
// "error") to InspectionCallbackURL, and return the node UUID inspector
// answers with. Failures are posted first and returned after, as an
// *InspectionError, as is an inspector answering 4xx; a callback URL
// that cannot be reached after IPA's retries is another error (IPA's
// process then ends, and its service manager starts it again).
func (a *Agent) Inspect(ctx context.Context) (string, error) {
	if a.cfg.InspectionCallbackURL == "" {
		a.log.InfoContext(ctx, "Inspection is disabled, skipping")
		return "", nil
	}
	names := a.collectorNames()
	a.log.InfoContext(ctx, "inspection is enabled", "collectors", names)
	var fail failures
	data := &inspectionData{}
	known := a.collectors()
	var missing []string
	for _, n := range names {
		if known[n] == nil {
			missing = append(missing, n)
		}
	}
	if len(missing) > 0 {
		// stevedore's missing entry points: nothing is collected, the
		// failure is posted and raised.
		msg := "Failed to load collector " + pySet(missing)
		if _, err := a.callInspector(ctx, data, failures{msg}); err != nil {
			return "", err
		}
		return "", &InspectionError{Message: msg}
	}
	for _, n := range names {
		if err := known[n](ctx, data, &fail); err != nil {
			fail = append(fail, fmt.Sprintf("collector %s failed: %v", n, err))
			a.log.ErrorContext(ctx, "inspection collector failed", "collector", n, "error", err)
		}
	}
	resp, err := a.callInspector(ctx, data, fail)
	if err != nil {
		return "", err
	}
	if msg := fail.text(); msg != nil {
		return "", &InspectionError{Message: *msg}
	}
	if resp == nil {
		return "", &InspectionError{Message: "stopping inspection, as inspector returned an error"}
	}
	if _, ok := resp["ipmi_setup_credentials"]; ok {
		// Inspector before 6.0 could ask the ramdisk to set IPMI
		// credentials; IPA 9.4 has no such feature and ignores it.
		a.log.WarnContext(ctx, "inspector asked to set IPMI credentials; this agent does not, as IPA 9.4 does not")
	}
	a.log.InfoContext(ctx, "inspection finished successfully")
	uuid, _ := resp["uuid"].(string)
	return uuid, nil
}

// pySet renders names as Python's repr of a set of strings (the
// missing-collector message's form).
func pySet(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = "'" + strings.ReplaceAll(n, "'", `\'`) + "'"
	}
	return "{" + strings.Join(q, ", ") + "}"
}

// collectDefault is collect_default: the inventory, the root disk deploy
// would pick without hints, the PXE interface and the configuration.
func (a *Agent) collectDefault(ctx context.Context, data *inspectionData, _ *failures) error {
	a.waitForDHCP(ctx)
	inv, err := a.inventory(ctx)
	if err != nil {
		return err
	}
	data.Set("inventory", inv)
	if root, ok := guessRootDisk(inv.Disks); ok {
		data.Set("root_disk", root)
	} else {
		a.log.WarnContext(ctx, "no suitable root device detected")
	}
	data.Set("boot_interface", inv.Boot.PXEInterface)
	data.Set("configuration", map[string]any{
		"collectors": a.collectorNames(),
		// The one hardware manager, as IPA's
		// GenericHardwareManager.get_version reports it.
		"managers": []map[string]string{{"name": "generic_hardware_manager", "version": "1.1"}},
	})
	return nil
}

// collectLogs is collect_logs: the system logs (log.collect_system_logs'
// tar.gz, base64) for inspector's ramdisk_error hook.
func (a *Agent) collectLogs(ctx context.Context, data *inspectionData, _ *failures) error {
	logs, err := a.collectSystemLogs(ctx)
	if err != nil {
		a.log.WarnContext(ctx, "failed to get system logs", "error", err)
		return nil
	}
	data.Set("logs", logs)
	return nil
}

// guessRootDisk is utils.guess_root_disk: the smallest disk of at least
// 4 GiB, by size then name.
func guessRootDisk(devs []disk.BlockDevice) (disk.BlockDevice, bool) {
	sorted := slices.Clone(devs)
	slices.SortStableFunc(sorted, func(x, y disk.BlockDevice) int {
		if x.Size != y.Size {
			if x.Size < y.Size {
				return -1
			}
			return 1
		}
		return strings.Compare(x.Name, y.Name)
	})
	for _, d := range sorted {
		if d.Size >= minRootDiskSize {
			return d, true
		}
	}
	return disk.BlockDevice{}, false
}

// interfaceLister lists the NICs without the rest of the inventory
// (hardware.Reader).
type interfaceLister interface {
	Interfaces() ([]hardware.NetworkInterface, error)
}

func (a *Agent) interfaces(ctx context.Context) ([]hardware.NetworkInterface, error) {
	if l, ok := a.cfg.Inventory.(interfaceLister); ok {
		return l.Interfaces()
	}
	inv, err := a.inventory(ctx)
	return inv.Interfaces, err
}

// waitForDHCP is wait_for_dhcp: until the PXE NIC (BootIF), or every NIC
// with InspectionDHCPAllInterfaces, has an IPv4 address, at most
// InspectionDHCPWaitTimeout.
func (a *Agent) waitForDHCP(ctx context.Context) bool {
	if a.cfg.InspectionDHCPWaitTimeout <= 0 {
		return true
	}
	pxe := strings.ToLower(a.cfg.BootIF)
	if pxe == "" && !a.cfg.InspectionDHCPAllInterfaces {
		a.log.WarnContext(ctx, "No PXE boot interface known - not waiting for it to get the IP address")
		return false
	}
	deadline := a.cfg.Clock.Now().Add(a.cfg.InspectionDHCPWaitTimeout)
	var missing []string
	for !a.cfg.Clock.Now().After(deadline) {
		ifaces, err := a.interfaces(ctx)
		if err != nil {
			a.log.WarnContext(ctx, "listing network interfaces", "error", err)
		}
		missing = missing[:0]
		for _, ni := range ifaces {
			if (a.cfg.InspectionDHCPAllInterfaces || strings.ToLower(ni.MACAddress) == pxe) && ni.IPv4Address == nil {
				missing = append(missing, ni.Name)
			}
		}
		if err == nil && len(missing) == 0 {
			return true
		}
		a.log.DebugContext(ctx, "still waiting for interfaces to get IP addresses", "missing", missing)
		select {
		case <-ctx.Done():
			return false
		case <-a.cfg.Clock.After(dhcpRetryInterval):
		}
	}
	a.log.WarnContext(ctx, "not all network interfaces received IP addresses in time",
		"timeout", a.cfg.InspectionDHCPWaitTimeout, "missing", missing)
	return false
}

// callInspector is call_inspector: the data with "error" set, posted to
// the callback URL; a connection error is retried (5 attempts, 5 s
// apart). An answer of 400 or more is logged and gives nil; a 2xx's
// JSON object is returned.
func (a *Agent) callInspector(ctx context.Context, data *inspectionData, fail failures) (map[string]any, error) {
	data.Set("error", fail.text())
	body, err := json.Marshal(data)
	if err != nil {
		return nil, err
	}
	url := a.cfg.InspectionCallbackURL
	a.log.InfoContext(ctx, "posting collected data to inspector", "url", url)
	var resp *http.Response
	for attempt := 1; ; attempt++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
		if err != nil {
			return nil, fmt.Errorf("inspection callback URL %q: %w", url, err)
		}
		req.Header.Set("Content-Type", "application/json")
		if resp, err = a.cfg.HTTP.Do(req); err == nil {
			break
		}
		if attempt >= inspectionPostAttempts || ctx.Err() != nil {
			return nil, fmt.Errorf("posting the inspection data to %s: %w", url, err)
		}
		a.log.WarnContext(ctx, "cannot reach inspector, retrying", "url", url, "attempt", attempt, "error", err)
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-a.cfg.Clock.After(inspectionPostWait):
		}
	}
	defer resp.Body.Close()
	text, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, &InspectionError{Message: fmt.Sprintf("reading inspector's answer: %v", err)}
	}
	if resp.StatusCode >= 400 {
		a.log.ErrorContext(ctx, "inspector error, proceeding with lookup", "url", url, "status", resp.StatusCode, "body", string(text))
		return nil, nil
	}
	var out map[string]any
	if err := json.Unmarshal(text, &out); err != nil {
		return nil, &InspectionError{Message: fmt.Sprintf("inspector's answer is not a JSON object: %v", err)}
	}
	return out, nil
}

// runInspection is the start of IPA's run: inspect when a callback URL
// is set, and look up with the node UUID inspector returned. An
// InspectionError is logged and the agent goes on.
func (a *Agent) runInspection(ctx context.Context) error {
	if a.cfg.InspectionCallbackURL == "" {
		return nil
	}
	uuid, err := a.Inspect(ctx)
	var ie *InspectionError
	switch {
	case errors.As(err, &ie):
		a.log.ErrorContext(ctx, "Failed to perform inspection", "error", err)
	case err != nil:
		return err
	}
	if uuid != "" {
		a.cfg.NodeUUID = uuid
	}
	if a.cfg.APIURL == "" {
		a.log.InfoContext(ctx, "No ipa-api-url configured, Heartbeat and lookup skipped for inspector.")
	}
	return nil
}
