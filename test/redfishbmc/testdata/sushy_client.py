"""Drives the emulator with Python's sushy (Debian's python3-sushy, the
client of Ironic 21.4), as Ironic's redfish modules call it, and prints
what it read as one JSON object.

    python3 sushy_client.py BASE_URL IMAGE_URL EVENT_URL

Run by redfishbmc's TestSushy; every step must succeed.
"""
import json
import sys

import sushy
from sushy import auth
from sushy.taskmonitor import TaskMonitor
from sushy.resources.registry.message_registry_file import (
    MessageRegistryFileCollection)

base, image, event_url = sys.argv[1:4]
out = {}


def connect(password='password'):
    return sushy.Sushy(base, root_prefix='/redfish/v1',
                       auth=auth.SessionOrBasicAuth(username='admin',
                                                    password=password))


conn = connect()
system = conn.get_system()  # the only system, found through the collection
out['system'] = {'id': system.identity, 'uuid': system.uuid,
                 'power': str(system.power_state.value)}
out['reset_types'] = sorted(v.value for v in
                            system.get_allowed_reset_system_values())
out['boot_targets'] = sorted(
    v.value for v in system.get_allowed_system_boot_source_values())

# power, as ironic's redfish power interface does it
system.reset_system(sushy.RESET_ON)
system.refresh()
out['power_after_on'] = system.power_state.value
system.reset_system(sushy.RESET_NMI)
system.reset_system(sushy.RESET_FORCE_OFF)
system.refresh()
out['power_after_off'] = system.power_state.value

# boot device and mode
system.set_system_boot_options(sushy.BOOT_SOURCE_TARGET_PXE,
                               enabled=sushy.BOOT_SOURCE_ENABLED_CONTINUOUS,
                               mode=sushy.BOOT_SOURCE_MODE_UEFI)
system.refresh()
out['boot'] = [system.boot.target.value, system.boot.enabled.value,
               system.boot.mode.value]
system.set_indicator_led(sushy.INDICATOR_LED_BLINKING)
system.refresh()
out['indicator'] = system.indicator_led.value

# inventory, as ironic's redfish inspect interface reads it
out['processors'] = {'count': system.processors.summary.count,
                     'arch': system.processors.summary.architecture.value}
out['threads'] = sum(p.total_threads for p in
                     system.processors.get_members())
out['instruction_sets'] = sorted({p.instruction_set.value for p in
                                  system.processors.get_members()})
out['memory_gib'] = system.memory_summary.size_gib
out['simple_storage_max'] = system.simple_storage.max_size_bytes
out['storage_max'] = system.storage.max_drive_size_bytes
out['nics'] = {mac: str(state.value) for mac, state in
               system.ethernet_interfaces.summary.items()}

# bios: attributes, registry, staged settings applied at the next boot
bios = system.bios
# Debian's python3-sushy 4.3.3 ships without sushy/standard_registries, so
# sushy's registries property (and with it Bios.get_attribute_registry)
# raises FileNotFoundError there; read the registry file the service lists
# with sushy's own classes instead.
files = MessageRegistryFileCollection(
    conn._conn, conn.json['Registries']['@odata.id'],
    redfish_version=conn.redfish_version)
reg_file = [f for f in files.get_members()
            if f.identity == bios._attribute_registry][0]
reg = reg_file.get_attribute_registry('en', None)
out['bios_registry_attrs'] = sorted(a.name for a in
                                    reg.registry_entries.attributes)
out['bios_supported_apply_times'] = [t.value for t in
                                     bios.supported_apply_times]
bios.set_attributes({'ProcTurboMode': 'Disabled'},
                    apply_time=sushy.APPLY_TIME_ON_RESET)
out['bios_pending'] = bios.pending_attributes
bios.refresh()
out['bios_before_reboot'] = bios.attributes['ProcTurboMode']
system.reset_system(sushy.RESET_ON)
bios.refresh()
out['bios_after_reboot'] = bios.attributes['ProcTurboMode']
out['bios_update_status'] = bios.update_status.status
try:
    bios.set_attributes({'ProcTurboMode': 'Sometimes'})
except sushy.exceptions.BadRequestError as e:
    out['bios_bad_value'] = e.status_code
bios.reset_bios()
bios.invalidate()
bios.refresh()
out['bios_reset_pending'] = bios.pending_attributes.get('ProcTurboMode')

# secure boot
sb = system.secure_boot
sb.set_enabled(True)
sb.refresh()
out['secure_boot'] = sb.enabled
sb.reset_keys(sushy.SECURE_BOOT_RESET_KEYS_TO_DEFAULT)
out['reset_keys_values'] = sorted(v.value for v in
                                  sb.get_allowed_reset_keys_values())

# raid: a volume now, one at the next boot (through a task), a delete
storage = system.storage.get_members()[0]
ctl = storage.storage_controllers[0]
out['raid_types'] = sorted(t.value for t in ctl.raid_types)
vols = storage.volumes
out['volume_apply_times'] = sorted(
    v.value for v in vols.operation_apply_time_support.mapped_supported_values)
drives = [d.path for d in storage.drives]
vol = vols.create({'RAIDType': 'RAID1', 'CapacityBytes': 100 * 2 ** 30,
                   'Links': {'Drives': [{'@odata.id': d} for d in drives]}},
                  apply_time=sushy.APPLY_TIME_IMMEDIATE)
out['volume'] = {'id': vol.identity, 'raid': vol.raid_type.value,
                 'size': vol.capacity_bytes}
mon = vols.create({'RAIDType': 'RAID0'}, apply_time=sushy.APPLY_TIME_ON_RESET)
out['task_processing'] = mon.is_processing
system.reset_system(sushy.RESET_FORCE_RESTART)
# Sushy.get_task_monitor reads the registries too (see above).
mon = TaskMonitor(conn._conn, mon.task_monitor_uri, conn.redfish_version)
out['task_processing_after_reboot'] = mon.is_processing
task = mon.get_task()
out['task'] = [task.task_state.value, task.task_status.value]
vols.refresh()
out['volumes'] = sorted(v.identity for v in vols.get_members())
vol.delete(apply_time=sushy.APPLY_TIME_IMMEDIATE)
# A refresh would reload the deleted member too: read the collection anew.
vols = system.storage.get_member(storage.path).volumes
out['volumes_after_delete'] = sorted(v.identity for v in vols.get_members())

# virtual media, as redfish-virtual-media and eject_vmedia use it
manager = system.managers[0]
media = {}
for vm in manager.virtual_media.get_members():
    media[vm.identity] = sorted(t.value for t in vm.media_types)
out['media_types'] = media
cd = manager.virtual_media.get_member(
    manager.virtual_media.members_identities[0])
cd.insert_media(image, inserted=True, write_protected=True)
cd.refresh()
out['cd'] = [cd.image, cd.image_name, cd.inserted]
cd.eject_media()
cd.refresh()
out['cd_after_eject'] = [cd.image, cd.inserted]

# sensors, as ironic's get_sensors_data reads them
chassis = system.chassis[0]
out['fans'] = [f.identity for f in chassis.thermal.fans]
out['temperatures'] = [t.reading_celsius for t in chassis.thermal.temperatures]
out['psus'] = [p.power_capacity_watts for p in chassis.power.power_supplies]
chassis.set_indicator_led(sushy.INDICATOR_LED_LIT)

# event subscriptions, as the redfish vendor passthru does them
events = conn.get_event_service()
out['event_types'] = sorted(t.value for t in
                            events.get_event_types_for_subscription())
sub = events.subscriptions.create({'Destination': event_url,
                                   'Protocol': 'Redfish', 'Context': 'ctx',
                                   'EventTypes': ['Alert']})
out['subscription'] = [sub.destination, sub.context, sub.event_types]
events.submit_test_event('1', '2025-01-01T00:00:00Z', 'Alert',
                         'Base.1.16.0.Success', [], 'test',
                         system.path, 'OK')
events.subscriptions.refresh()
out['subscriptions'] = len(events.subscriptions.get_members())
sub.delete()
events.subscriptions.refresh()
out['subscriptions_after_delete'] = len(events.subscriptions.get_members())

# a wrong password: the session POST and the basic fallback both 401
try:
    connect('wrong').get_system()
except sushy.exceptions.AccessError as e:
    out['wrong_password'] = e.status_code

print(json.dumps(out, sort_keys=True))
