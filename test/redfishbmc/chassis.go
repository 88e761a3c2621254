package redfishbmc

// Thermal and Power of a chassis: readings follow the system's power
// state.

func getThermal(c *call) (*reply, error) {
	s, err := c.system()
	if err != nil {
		return nil, err
	}
	on := s.reportedPower(c.now) == PowerOn
	fan, temp := 0, 24
	if on {
		fan, temp = 6000, 45
	}
	base := c.uri("Chassis", s.spec.ID, "Thermal")
	return okReply(map[string]any{
		"@odata.type": "#Thermal.v1_5_0.Thermal",
		"@odata.id":   base,
		"Id":          "Thermal",
		"Name":        "Thermal",
		"Status":      status(true),
		"Fans": []any{map[string]any{
			"@odata.id":              base + "#/Fans/0",
			"MemberId":               "0",
			"Name":                   "Fan 1",
			"PhysicalContext":        "SystemBoard",
			"Reading":                fan,
			"ReadingUnits":           "RPM",
			"MinReadingRange":        0,
			"MaxReadingRange":        10000,
			"LowerThresholdCritical": 500,
			"SerialNumber":           s.spec.SerialNumber + "-FAN1",
			"Status":                 status(true),
		}},
		"Temperatures": []any{map[string]any{
			"@odata.id":              base + "#/Temperatures/0",
			"MemberId":               "0",
			"Name":                   "CPU1 Temp",
			"SensorNumber":           1,
			"PhysicalContext":        "CPU",
			"ReadingCelsius":         temp,
			"MinReadingRangeTemp":    0,
			"MaxReadingRangeTemp":    120,
			"UpperThresholdCritical": 95,
			"Status":                 status(true),
		}},
	}), nil
}

func getPower(c *call) (*reply, error) {
	s, err := c.system()
	if err != nil {
		return nil, err
	}
	watts := 0
	if s.reportedPower(c.now) == PowerOn {
		watts = 250
	}
	base := c.uri("Chassis", s.spec.ID, "Power")
	return okReply(map[string]any{
		"@odata.type": "#Power.v1_5_0.Power",
		"@odata.id":   base,
		"Id":          "Power",
		"Name":        "Power",
		"PowerControl": []any{map[string]any{
			"@odata.id":          base + "#/PowerControl/0",
			"MemberId":           "0",
			"Name":               "System Power Control",
			"PowerConsumedWatts": watts,
			"PowerCapacityWatts": 900,
			"Status":             status(true),
		}},
		"PowerSupplies": []any{map[string]any{
			"@odata.id":            base + "#/PowerSupplies/0",
			"MemberId":             "0",
			"Name":                 "Power Supply 1",
			"PowerSupplyType":      "AC",
			"LineInputVoltageType": "ACWideRange",
			"LineInputVoltage":     230,
			"PowerCapacityWatts":   900,
			"LastPowerOutputWatts": watts,
			"Manufacturer":         s.spec.Manufacturer,
			"Model":                "PSU-900",
			"SerialNumber":         s.spec.SerialNumber + "-PSU1",
			"FirmwareVersion":      "1.0",
			"InputRanges": []any{map[string]any{
				"InputType": "AC", "MinimumVoltage": 100, "MaximumVoltage": 240,
				"MinimumFrequencyHz": 50, "MaximumFrequencyHz": 60, "OutputWattage": 900,
			}},
			"Status": status(true),
		}},
		"Voltages": []any{map[string]any{
			"@odata.id":       base + "#/Voltages/0",
			"MemberId":        "0",
			"Name":            "12V Rail",
			"PhysicalContext": "SystemBoard",
			"ReadingVolts":    12,
			"Status":          status(true),
		}},
	}), nil
}
