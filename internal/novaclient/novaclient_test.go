package novaclient_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/internal/keystoneauth"
	"github.com/goironic/ironic/internal/novaclient"
	"github.com/goironic/ironic/states"
	"github.com/goironic/ironic/test/fakenova"
)

const server = "1c1c1c1c-0000-4000-8000-000000000001"

func notifier(url string, send bool, log *bytes.Buffer) *novaclient.Notifier {
	return novaclient.New(novaclient.Config{SendPowerNotifications: send,
		Options: keystoneauth.Options{AuthType: "none", EndpointOverride: url}},
		slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelDebug})))
}

// TestPowerUpdate: the events Nova gets, in order, as Ironic sends them
// (body, microversion headers, the request's global ID), and Ironic's log
// lines for what Nova answers.
func TestPowerUpdate(t *testing.T) {
	nova := fakenova.ForTest(t, fakenova.Options{Servers: []string{server}})
	var log bytes.Buffer
	n := notifier(nova.URL, true, &log)
	ctx := ironic.WithRequestContext(context.Background(), &ironic.RequestContext{RequestID: "req-1", GlobalRequest: "req-global"})
	n.PowerUpdate(ctx, server, states.PowerOff)
	n.PowerUpdate(context.Background(), server, states.PowerOn)
	n.PowerUpdate(context.Background(), "2d2d2d2d-0000-4000-8000-000000000002", states.PowerOn) // unknown to Nova
	n.PowerUpdate(context.Background(), server, states.Rebooting)                               // not a power state Nova takes
	n.Wait()
	reqs := nova.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests: %+v", len(reqs), reqs)
	}
	want := []string{
		`{"events":[{"name":"power-update","server_uuid":"1c1c1c1c-0000-4000-8000-000000000001","tag":"POWER_OFF"}]}`,
		`{"events":[{"name":"power-update","server_uuid":"1c1c1c1c-0000-4000-8000-000000000001","tag":"POWER_ON"}]}`,
		`{"events":[{"name":"power-update","server_uuid":"2d2d2d2d-0000-4000-8000-000000000002","tag":"POWER_ON"}]}`,
	}
	for i, r := range reqs {
		var got, w any
		_ = json.Unmarshal(r.Body, &got)
		_ = json.Unmarshal([]byte(want[i]), &w)
		gb, _ := json.Marshal(got)
		wb, _ := json.Marshal(w)
		if r.Method != "POST" || r.Path != "/v2.1/os-server-external-events" || string(gb) != string(wb) {
			t.Errorf("request %d: %s %s %s", i, r.Method, r.Path, r.Body)
		}
		if r.Headers["OpenStack-API-Version"] != "compute 2.76" || r.Headers["X-OpenStack-Nova-API-Version"] != "2.76" {
			t.Errorf("request %d: headers %v", i, r.Headers)
		}
	}
	if got := reqs[0].Headers["X-OpenStack-Request-ID"]; got != "req-global" {
		t.Errorf("global request ID: %q", got)
	}
	for _, line := range []string{
		"Invalid Power State rebooting.",
		`Nova event: {\"code\":404,\"name\":\"power-update\",\"server_uuid\":\"2d2d2d2d-0000-4000-8000-000000000002\",\"status\":\"failed\",\"tag\":\"POWER_ON\"} returned with failed status.`,
	} {
		if !strings.Contains(log.String(), line) {
			t.Errorf("log lacks %q:\n%s", line, log.String())
		}
	}
}

// TestPowerUpdateNovaUnavailable: Nova answering 503, or not there, or
// the option off: a warning (or nothing), never an error or a wait.
func TestPowerUpdateNovaUnavailable(t *testing.T) {
	nova := fakenova.ForTest(t, fakenova.Options{Servers: []string{server}})
	nova.SetDown(true)
	var log bytes.Buffer
	n := notifier(nova.URL, true, &log)
	n.PowerUpdate(context.Background(), server, states.PowerOff)
	n.Wait()
	if !strings.Contains(log.String(), "Failed to notify nova on event") {
		t.Errorf("503: %s", log.String())
	}
	log.Reset()
	n = notifier("http://127.0.0.1:1/v2.1", true, &log)
	n.PowerUpdate(context.Background(), server, states.PowerOff)
	n.Wait()
	if !strings.Contains(log.String(), "Could not connect to Nova to send a power notification, please check configuration.") {
		t.Errorf("unreachable: %s", log.String())
	}
	log.Reset()
	n = novaclient.New(novaclient.Config{SendPowerNotifications: true}, slog.New(slog.NewTextHandler(&log, nil)))
	n.PowerUpdate(context.Background(), server, states.PowerOff)
	n.Wait()
	if !strings.Contains(log.String(), "Could not connect to Nova to send a power notification") {
		t.Errorf("no endpoint: %s", log.String())
	}
	nova.SetDown(false)
	n = notifier(nova.URL, false, &log)
	n.PowerUpdate(context.Background(), server, states.PowerOff)
	n.Wait()
	if got := len(nova.Requests()); got != 1 {
		t.Errorf("send_power_notifications=False sent something: %d requests", got)
	}
}
