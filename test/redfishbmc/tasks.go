package redfishbmc

import (
	"net/http"
	"time"
)

// task is an operation that completes at a system's next boot
// (OperationApplyTime OnReset).
type task struct {
	id, name   string
	sys        *System
	state      string
	start, end time.Time
}

// startTask schedules op for s's next boot and answers 202 with the
// task, whose URI is in Location. As on iDRAC, GET of the task answers
// 202 while it runs and 200 once it is done.
func (c *call) startTask(s *System, name string, op func()) *reply {
	c.b.taskSeq++
	t := &task{id: "JID_" + itoa(c.b.taskSeq), name: name, sys: s, state: "Pending", start: c.now}
	c.b.tasks[t.id] = t
	c.b.taskOrder = append(c.b.taskOrder, t.id)
	s.onBoot = append(s.onBoot, func(now time.Time) {
		op()
		t.state, t.end = "Completed", now
	})
	return &reply{status: http.StatusAccepted, body: c.renderTask(t),
		header: http.Header{"Location": {c.uri("TaskService", "Tasks", t.id)}}}
}

func (t *task) running() bool {
	return t.state != "Completed" && t.state != "Exception" && t.state != "Killed"
}

func (c *call) renderTask(t *task) map[string]any {
	m := map[string]any{
		"@odata.type":     "#Task.v1_4_3.Task",
		"@odata.id":       c.uri("TaskService", "Tasks", t.id),
		"Id":              t.id,
		"Name":            t.name,
		"TaskState":       t.state,
		"TaskStatus":      "OK",
		"TaskMonitor":     c.uri("TaskService", "Tasks", t.id),
		"StartTime":       t.start.UTC().Format(time.RFC3339),
		"PercentComplete": 0,
		"Messages":        []any{},
	}
	if !t.running() {
		m["EndTime"] = t.end.UTC().Format(time.RFC3339)
		m["PercentComplete"] = 100
		m["Messages"] = []any{map[string]any{
			"MessageId": registryPrefix + "Success", "Message": "Successfully Completed Request",
			"Severity": "OK", "MessageSeverity": "OK", "MessageArgs": []string{},
		}}
	}
	return m
}

func getTaskService(c *call) (*reply, error) {
	return okReply(map[string]any{
		"@odata.type":                     "#TaskService.v1_1_4.TaskService",
		"@odata.id":                       c.uri("TaskService"),
		"Id":                              "TaskService",
		"Name":                            "Task Service",
		"ServiceEnabled":                  true,
		"CompletedTaskOverWritePolicy":    "Oldest",
		"LifeCycleEventOnTaskStateChange": true,
		"Status":                          status(true),
		"Tasks":                           c.ref("TaskService", "Tasks"),
	}), nil
}

func getTasks(c *call) (*reply, error) {
	return okReply(c.collection("#TaskCollection.TaskCollection", "Task Collection",
		[]string{"TaskService", "Tasks"}, c.b.taskOrder)), nil
}

func getTask(c *call) (*reply, error) {
	t := c.b.tasks[c.args[0]]
	if t == nil {
		return nil, errNotFound(c.r.URL.Path)
	}
	t.sys.settle(c.now)
	status := http.StatusOK
	if t.running() {
		status = http.StatusAccepted
	}
	return &reply{status: status, body: c.renderTask(t)}, nil
}
