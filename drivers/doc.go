// Package drivers declares what Ironic calls driver interfaces and composes
// them into drivers.
//
// A node's driver is a hardware type (fake-hardware, manual-management,
// ipmi, redfish) plus one implementation per interface kind: bios, boot,
// console, deploy, inspect, management, network, power, raid, rescue,
// storage and vendor. This package declares one Go interface per kind, the
// Task through which an implementation sees its node, and the Registry that
// knows, like Ironic's driver_factory, which implementations every hardware
// type supports, which ones the configuration enables, and which one is the
// default for a node that names none.
//
// Implementations live in child packages (fake, generic, ipmi, redfish, pxe,
// agent) and are handed to NewRegistry by the binaries. Drivers never import
// the database, RPC or conductor packages: everything they need of a node
// comes through Task.
package drivers
