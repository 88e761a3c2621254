package deployutil

import (
	"context"

	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/states"
)

// StepPhase is the phase of the step the node is running: cleaning when
// it has a clean_step, else deploying (Ironic tells them apart the same
// way).
func StepPhase(task drivers.Task) drivers.StepPhase {
	if task.CurrentStep(drivers.CleanStep).Len() > 0 {
		return drivers.CleanStep
	}
	return drivers.DeployStep
}

// AsyncStepReturnState is get_async_step_return_state: clean wait while
// cleaning, deploy wait otherwise.
func AsyncStepReturnState(task drivers.Task) states.Provision {
	if StepPhase(task) == drivers.CleanStep {
		return states.CleanWait
	}
	return states.DeployWait
}

// Flag is an optional flag of SetAsyncStepFlags.
type Flag int

// Flag values: leave the flag alone, or set it false or true.
const (
	Unset Flag = iota
	False
	True
)

// SetAsyncStepFlags is set_async_step_flags: the phase's reboot,
// skip-current-step and polling flags in driver_internal_info
// (cleaning_reboot or deployment_reboot, ...), the agent's token dropped
// before a reboot unless it was pregenerated, and the node saved.
func SetAsyncStepFlags(ctx context.Context, task drivers.Task, reboot, skipCurrent, polling Flag) error {
	rebootField, skipField, pollField := "deployment_reboot", "skip_current_deploy_step", "deployment_polling"
	if StepPhase(task) == drivers.CleanStep {
		rebootField, skipField, pollField = "cleaning_reboot", "skip_current_clean_step", "cleaning_polling"
	}
	dii := task.DriverInternalInfo()
	if reboot != Unset {
		dii.Set(rebootField, reboot == True)
		if reboot == True {
			if pre, _ := dii.Get("agent_secret_token_pregenerated").(bool); !pre {
				dii.Delete("agent_secret_token")
			}
		}
	}
	if skipCurrent != Unset {
		dii.Set(skipField, skipCurrent == True)
	}
	if polling != Unset {
		dii.Set(pollField, polling == True)
	}
	return task.Save(ctx)
}

// RebootToFinishStep is reboot_to_finish_step: unless cleaning runs
// without a ramdisk, the boot interface prepares the agent's ramdisk;
// then the node reboots, and the step waits (clean wait or deploy wait)
// for the agent to come back. Fast track is not supported.
func RebootToFinishStep(ctx context.Context, task drivers.Task) (states.Provision, error) {
	if disable, _ := task.DriverInternalInfo().Get("cleaning_disable_ramdisk").(bool); !disable {
		if drv := task.Driver(); drv != nil && drv.Boot != nil {
			if err := drv.Boot.PrepareRamdisk(ctx, task, map[string]any{}, drivers.RamdiskDeploy); err != nil {
				return "", err
			}
		}
	}
	if err := task.PowerAction(ctx, states.Rebooting); err != nil {
		return "", err
	}
	return AsyncStepReturnState(task), nil
}
