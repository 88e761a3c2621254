#!/usr/bin/python3
"""Writes vocabulary-21.4.json: the state sets, verbs, power states and
faults of Python Ironic 21.4 (ironic/common/states.py, faults.py), for
TestVocabularyMatchesIronic. Run with Debian's Python, from the
repository root:

    /usr/bin/python3 states/testdata/gen_vocabulary.py
"""

import json
import os

from ironic.common import faults
from ironic.common import states

SETS = ["UPDATE_ALLOWED_STATES", "DELETE_ALLOWED_STATES", "STABLE_STATES",
        "UNSTABLE_STATES", "STUCK_STATES_TREATED_AS_FAIL",
        "LOOKUP_ALLOWED_STATES", "FASTTRACK_LOOKUP_ALLOWED_STATES",
        "FAILURE_STATES"]

out = {
    "sets": {name: sorted(getattr(states, name)) for name in SETS},
    "verbs": states.VERBS,
    "power": {name: getattr(states, name) for name in
              ["POWER_ON", "POWER_OFF", "REBOOT", "SOFT_REBOOT",
               "SOFT_POWER_OFF", "ERROR"]},
    "deleted": states.DELETED,
    "faults": list(faults.VALID_FAULTS),
}

path = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                    "vocabulary-21.4.json")
with open(path, "w") as f:
    json.dump(out, f, indent=1, sort_keys=True)
    f.write("\n")
