"""Runs the scenarios of scenarios.json through Ironic 21.4's ipmitool
interfaces and records what they do: for every action, the ipmitool
command lines (the password file shown as <pwfile>, its content beside),
the sleeps, the result or error, and driver_internal_info afterwards.

Run with /usr/bin/python3 (python3-ironic installed) from anywhere:

    /usr/bin/python3 drivers/ipmi/testdata/gen_argv.py

It writes argv_golden.json next to this file, which
drivers/ipmi TestArgvGolden replays against our interfaces with a fake
runner. Nothing is executed: utils.execute is replaced by a fake BMC
(power state, canned outputs of testdata/outputs, scripted failures),
time by a fake clock, and the polling jitter by its mean.
"""
import json
import os
import subprocess
import tempfile

from oslo_concurrency import processutils
from oslo_service import loopingcall

from ironic.common import context as ironic_context
from ironic.conductor import task_manager
from ironic.conf import CONF
from ironic import objects
from ironic.drivers.modules import ipmitool

HERE = os.path.dirname(os.path.abspath(__file__))
NODE_UUID = '1be26c0b-03f2-4d2e-ae87-c02d7f33c123'

CONF([], project='ironic')
objects.register_all()


class Clock:
    def __init__(self):
        self.now = 1704164645.0  # 2024-01-02T03:04:05Z, as the Go test's
        self.sleeps = []

    def time(self):
        return self.now

    def sleep(self, seconds):
        self.sleeps.append(round(seconds, 6))
        self.now += seconds


class Mean:
    """random.gauss replaced by its mean: BackOffLoopingCall's jitter."""

    def gauss(self, mu, sigma):
        return mu


class FakeBMC:
    def __init__(self, scenario, clock):
        self.sc = scenario
        self.clock = clock
        self.power = 'off'
        self.soft_polls = 0
        self.calls = []
        self.failures = [dict(f) for f in scenario.get('failures', [])]

    def output(self, name):
        with open(os.path.join(HERE, 'outputs', name)) as f:
            return f.read()

    def execute(self, *cmd, **kwargs):
        cmd = list(cmd)
        pw = None
        if '-f' in cmd:
            i = cmd.index('-f')
            with open(cmd[i + 1]) as f:
                pw = f.read()
            cmd[i + 1] = '<pwfile>'
        self.calls.append({'argv': cmd, 'password': pw,
                           'timeout': kwargs.get('timeout'),
                           'check_exit_code': kwargs.get('check_exit_code')})
        self.clock.now += self.sc.get('command_seconds', 0)
        line = ' '.join(cmd)
        for f in self.failures:
            if f['match'] in line and f['count'] != 0:
                f['count'] -= 1
                if f.get('timeout'):
                    raise subprocess.TimeoutExpired(cmd, kwargs.get('timeout'))
                raise processutils.ProcessExecutionError(
                    stdout='', stderr=f['stderr'], exit_code=f['exit'],
                    cmd=line)
        outputs = self.sc.get('outputs', {})
        if line.endswith('power status'):
            if self.soft_polls > 0:
                self.soft_polls -= 1
                return 'Chassis Power is on\n', ''
            return 'Chassis Power is %s\n' % self.power, ''
        if line.endswith('power on'):
            if not self.sc.get('stuck_power'):
                self.power = 'on'
            return self.output('poweron.txt'), ''
        if line.endswith('power off'):
            if not self.sc.get('stuck_power'):
                self.power = 'off'
            return 'Chassis Power Control: Down/Off\n', ''
        if line.endswith('power soft'):
            if not self.sc.get('stuck_power'):
                self.soft_polls = self.sc.get('soft_off_polls', 0)
                self.power = 'off'
            return 'Chassis Power Control: Soft\n', ''
        for key, default in (('chassis bootparam get 5', 'bootparam.txt'),
                             ('sdr -v', 'sdr.txt'),
                             ('mc info', 'mcinfo.txt')):
            if line.endswith(key):
                return self.output(outputs.get(key, default)), ''
        return '', ''


class Task(task_manager.TaskManager):
    """An exclusive task over node (require_exclusive_lock checks it)."""

    def __init__(self, node, driver):  # noqa: no TaskManager set-up
        self._node = node
        self.driver = driver
        self.shared = False
        self.context = node._context


class Driver:
    def __init__(self):
        self.power = ipmitool.IPMIPower()
        self.management = ipmitool.IPMIManagement()
        self.vendor = ipmitool.VendorPassthru()


def set_config(scenario, tmp):
    CONF.reset()
    CONF.set_override('tempdir', tmp)
    for key, value in scenario.get('config', {}).items():
        group, name = key.split('.')
        opt = CONF[group]._group._opts[name]['opt']
        CONF.set_override(name, opt.type(value) if not opt.multi
                          else [value], group=group)


def error_text(e):
    return '%s: %s' % (type(e).__name__, e)


def run_action(task, action):
    words = action.split(' ')
    verb = words[0]
    d = task.driver
    if verb == 'validate':
        return d.power.validate(task)
    if verb == 'get_power_state':
        return d.power.get_power_state(task)
    if verb == 'set_power_state':
        return d.power.set_power_state(task, ' '.join(words[1:]))
    if verb == 'reboot':
        return d.power.reboot(task)
    if verb == 'set_boot_device':
        return d.management.set_boot_device(
            task, words[1], persistent=words[2] == 'true')
    if verb == 'get_boot_device':
        return d.management.get_boot_device(task)
    if verb == 'get_sensors_data':
        return d.management.get_sensors_data(task)
    if verb == 'inject_nmi':
        return d.management.inject_nmi(task)
    if verb == 'detect_vendor':
        return d.management.detect_vendor(task)
    if verb == 'send_raw':
        return d.vendor.send_raw(task, 'POST', raw_bytes=' '.join(words[1:]))
    if verb == 'bmc_reset':
        if len(words) > 1:
            return d.vendor.bmc_reset(task, 'POST', warm=words[1])
        return d.vendor.bmc_reset(task, 'POST')
    if verb == 'vendor_validate':
        return d.vendor.validate(task, method=words[1])
    raise ValueError(action)


def run(scenario):
    tmp = tempfile.mkdtemp()
    set_config(scenario, tmp)
    ipmitool.LAST_CMD_TIME.clear()
    clock = Clock()
    bmc = FakeBMC(scenario, clock)
    ipmitool.time = clock
    ipmitool.utils.execute = bmc.execute
    loopingcall.LoopingCallBase._sleep = lambda self, t: clock.sleep(t)
    loopingcall.BackOffLoopingCall._RNG = Mean()

    node = objects.Node(ironic_context.get_admin_context())
    node.uuid = NODE_UUID
    node.driver = 'ipmi'
    node.driver_info = scenario.get('driver_info', {})
    node.driver_internal_info = scenario.get('driver_internal_info', {})
    node.properties = scenario.get('properties', {})
    node.instance_info = scenario.get('instance_info', {})
    node.provision_state = 'manageable'
    node.save = lambda *a, **k: None
    task = Task(node, Driver())

    results = []
    for action in scenario['actions']:
        bmc.calls = []
        clock.sleeps = []
        entry = {'action': action}
        try:
            entry['result'] = run_action(task, action)
        except Exception as e:  # noqa: the error is the point
            entry['error'] = error_text(e)
        entry['calls'] = bmc.calls
        entry['sleeps'] = clock.sleeps
        entry['driver_internal_info'] = dict(node.driver_internal_info)
        results.append(entry)
    return {'name': scenario['name'], 'results': results}


def main():
    ipmitool.TIMING_SUPPORT = True
    ipmitool.SINGLE_BRIDGE_SUPPORT = True
    ipmitool.DUAL_BRIDGE_SUPPORT = True
    ipmitool.TMP_DIR_CHECKED = True
    with open(os.path.join(HERE, 'scenarios.json')) as f:
        scenarios = json.load(f)
    out = [run(sc) for sc in scenarios]
    with open(os.path.join(HERE, 'argv_golden.json'), 'w') as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write('\n')


if __name__ == '__main__':
    main()
