package agent

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
)

// collectSystemLogs is utils.collect_system_logs for this ramdisk (no
// journald, no /var/log): the kernel log as "dmesg", the agent's own log
// file and what /proc tells about the machine, as a tar.gz, base64
// encoded (gzip_and_b64encode's shape: command outputs under their name,
// files under their path without the leading "/").
func (a *Agent) collectSystemLogs(ctx context.Context) (string, error) {
	a.log.InfoContext(ctx, "collecting system logs and debugging information")
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	mtime := a.cfg.Clock.Now()
	add := func(name string, data []byte) error {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(data)), ModTime: mtime}); err != nil {
			return err
		}
		_, err := tw.Write(data)
		return err
	}
	if a.cfg.Dmesg != nil {
		if out, err := a.cfg.Dmesg(); err == nil {
			if err := add("dmesg", out); err != nil {
				return "", err
			}
		} else {
			a.log.WarnContext(ctx, "cannot read the kernel log", "error", err)
		}
	}
	var files []string
	if a.cfg.LogFile != "" {
		files = append(files, a.cfg.LogFile)
	}
	for _, p := range []string{"proc/cmdline", "proc/cpuinfo", "proc/meminfo", "proc/mounts", "proc/partitions", "proc/modules", "proc/net/dev"} {
		files = append(files, filepath.Join(a.cfg.Root, p))
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		name := strings.TrimPrefix(f, a.cfg.Root)
		if f == a.cfg.LogFile {
			name = f
		}
		if err := add(strings.TrimPrefix(name, "/"), data); err != nil {
			return "", err
		}
	}
	if err := tw.Close(); err != nil {
		return "", err
	}
	if err := zw.Close(); err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(buf.Bytes()), nil
}

// recordCommand writes a command request to Config.CommandLog.
func (a *Agent) recordCommand(name string, params map[string]any, wait, token string, tokenGiven bool) {
	if a.cfg.CommandLog == nil {
		return
	}
	rec := map[string]any{"name": name, "params": params, "wait": wait}
	if tokenGiven {
		rec["agent_token"] = token
	}
	line, err := json.Marshal(rec)
	if err != nil {
		return
	}
	a.logMu.Lock()
	defer a.logMu.Unlock()
	_, _ = a.cfg.CommandLog.Write(append(line, '\n'))
}
