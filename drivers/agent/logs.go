package agent

import (
	"context"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"

	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/drivers/internal/py"
	"github.com/goironic/ironic/internal/pyjson"
)

// CollectSystemLogs is log.collect_system_logs (wait=true).
func (c *Client) CollectSystemLogs(ctx context.Context, task drivers.Task) (Command, error) {
	return c.Run(ctx, task, "log.collect_system_logs", pyjson.Object{}, true, false)
}

// collectRamdiskLogs is driver_utils.collect_ramdisk_logs: the agent's
// logs archive is fetched and stored under [agent]deploy_logs_local_path
// as <node>[_<name>][_<instance>][_<label>]_<time>.tar.gz. Failures are
// only logged. The swift backend is not supported (logged).
func (c Config) collectRamdiskLogs(ctx context.Context, task drivers.Task, label string) {
	if c.DeployLogsCollect == "never" {
		return
	}
	res, err := c.client().CollectSystemLogs(ctx, task)
	if err != nil {
		c.logf(ctx, task, true, "Failed to invoke collect_system_logs agent command for node %s. Error: %s", task.NodeUUID(), err)
		return
	}
	if fs, ok := res["faultstring"]; ok && fs != nil {
		c.logf(ctx, task, true, "Failed to collect logs from the node %s deployment. Error: %s", task.NodeUUID(), py.Str(fs))
		return
	}
	if c.DeployLogsStorageBackend != "" && c.DeployLogsStorageBackend != "local" {
		c.logf(ctx, task, true, "Failed to store the logs from the node %s deployment: the %s storage backend is not supported by this service",
			task.NodeUUID(), c.DeployLogsStorageBackend)
		return
	}
	data, err := base64.StdEncoding.DecodeString(py.Str(res.Result().Get("system_logs")))
	if err != nil {
		c.logf(ctx, task, true, "Unknown error when storing logs from the node %s deployment. Error: %s", task.NodeUUID(), err)
		return
	}
	fields := []string{task.NodeUUID()}
	if name := task.NodeName(); name != "" {
		fields = append(fields, name)
	}
	if task.InstanceUUID() != "" {
		fields = append(fields, task.InstanceUUID())
	}
	if label != "" {
		fields = append(fields, label)
	}
	fields = append(fields, c.Clock.Now().UTC().Format("2006-01-02-15-04-05"))
	dir := c.DeployLogsLocalPath
	if dir == "" {
		dir = "/var/log/ironic/deploy"
	}
	err = os.MkdirAll(dir, 0o755)
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, strings.Join(fields, "_")+".tar.gz"), data, 0o644)
	}
	if err != nil {
		c.logf(ctx, task, true, "Failed to store the logs from the node %s deployment due a file-system related error. Error: %s", task.NodeUUID(), err)
	}
}

// collectOnFailure is the collect_logs part of set_failed_state and
// log_and_raise_deployment_error: logs are collected when
// [agent]deploy_logs_collect is on_failure or always.
func (c Config) collectOnFailure(ctx context.Context, task drivers.Task) {
	if c.DeployLogsCollect == "on_failure" || c.DeployLogsCollect == "always" {
		c.collectRamdiskLogs(ctx, task, "")
	}
}
