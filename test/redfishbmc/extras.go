package redfishbmc

import "net/http"

// extraRoutes are the resources below a system, manager and chassis, and
// the services.
func extraRoutes(rt func(string, map[string]handler) *route) []*route {
	get, patch, post, del := http.MethodGet, http.MethodPatch, http.MethodPost, http.MethodDelete
	bios := rt("Systems/{}/Bios", map[string]handler{get: getBios})
	bios.etag = true
	biosSettings := rt("Systems/{}/Bios/Settings", map[string]handler{get: getBiosSettings, patch: patchBiosSettings})
	biosSettings.etag = true
	secureBoot := rt("Systems/{}/SecureBoot", map[string]handler{get: getSecureBoot, patch: patchSecureBoot})
	secureBoot.etag = true
	vmedia := rt("Managers/{}/VirtualMedia/{}", map[string]handler{get: locked(getVirtualMedia), patch: patchVirtualMedia})
	vmedia.etag, vmedia.unlocked = true, true
	insert := rt("Managers/{}/VirtualMedia/{}/Actions/VirtualMedia.InsertMedia", map[string]handler{post: postInsertMedia})
	insert.unlocked = true
	testEvent := rt("EventService/Actions/EventService.SubmitTestEvent", map[string]handler{post: postSubmitTestEvent})
	testEvent.unlocked = true
	return []*route{
		bios,
		biosSettings,
		rt("Systems/{}/Bios/Actions/Bios.ResetBios", map[string]handler{post: postResetBios}),
		rt("Systems/{}/Bios/Actions/Bios.ChangePassword", map[string]handler{post: postBiosChangePassword}),
		secureBoot,
		rt("Systems/{}/SecureBoot/Actions/SecureBoot.ResetKeys", map[string]handler{post: postResetKeys}),
		rt("Systems/{}/Processors", map[string]handler{get: processors.list}),
		rt("Systems/{}/Processors/{}", map[string]handler{get: processors.get}),
		rt("Systems/{}/Memory", map[string]handler{get: memory.list}),
		rt("Systems/{}/Memory/{}", map[string]handler{get: memory.get}),
		rt("Systems/{}/EthernetInterfaces", map[string]handler{get: ethernetInterfaces.list}),
		rt("Systems/{}/EthernetInterfaces/{}", map[string]handler{get: ethernetInterfaces.get}),
		rt("Systems/{}/SimpleStorage", map[string]handler{get: getSimpleStorageCollection}),
		rt("Systems/{}/SimpleStorage/{}", map[string]handler{get: getSimpleStorage}),
		rt("Systems/{}/Storage", map[string]handler{get: getStorageCollection}),
		rt("Systems/{}/Storage/{}", map[string]handler{get: getStorage}),
		rt("Systems/{}/Storage/{}/Drives/{}", map[string]handler{get: getDrive, patch: patchDrive}),
		rt("Systems/{}/Storage/{}/Volumes", map[string]handler{get: getVolumes, post: postVolume}),
		rt("Systems/{}/Storage/{}/Volumes/{}", map[string]handler{get: getVolume, del: deleteVolume}),
		rt("Managers/{}/VirtualMedia", map[string]handler{get: getVirtualMediaCollection}),
		vmedia,
		insert,
		rt("Managers/{}/VirtualMedia/{}/Actions/VirtualMedia.EjectMedia", map[string]handler{post: postEjectMedia}),
		rt("Chassis/{}/Thermal", map[string]handler{get: getThermal}),
		rt("Chassis/{}/Power", map[string]handler{get: getPower}),
		rt("EventService", map[string]handler{get: getEventService}),
		rt("EventService/Subscriptions", map[string]handler{get: getSubscriptions, post: postSubscription}),
		rt("EventService/Subscriptions/{}", map[string]handler{get: getSubscription, del: deleteSubscription}),
		testEvent,
		rt("TaskService", map[string]handler{get: getTaskService}),
		rt("TaskService/Tasks", map[string]handler{get: getTasks}),
		rt("TaskService/Tasks/{}", map[string]handler{get: getTask}),
		rt("Registries", map[string]handler{get: getRegistries}),
		rt("Registries/{}", map[string]handler{get: getRegistryFile}),
		rt("Registries/{}/BiosAttributeRegistry", map[string]handler{get: getBiosRegistry}),
	}
}

// locked runs h under the BMC's lock, for the routes whose other
// handlers take it themselves.
func locked(h handler) handler {
	return func(c *call) (*reply, error) {
		c.b.mu.Lock()
		defer c.b.mu.Unlock()
		return h(c)
	}
}
