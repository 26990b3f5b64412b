// Written by the build (buildtools/mode_registry.py) from engine/modes/; edit a mode there.
// Every mode as its engine module declares it ({cmd: "modes"}), in the order of its tab.
export const MODES = [
  {"id": "paths", "tab": "Path sums", "commands": ["paths", "growth"], "params": [{"name": "wrt", "link": "wrt", "default": null, "kind": "input"}, {"name": "family", "link": "family", "default": "diamonds", "kind": "choice", "values": ["diamonds", "neuron"]}], "fields": ["pathsum"]},
  {"id": "naive", "tab": "Naive recursion", "commands": ["naive"], "params": [], "fields": []},
  {"id": "pushpull", "tab": "Push and pull", "commands": [], "params": [{"name": "rule", "link": "rule", "default": "push", "kind": "choice", "values": ["push", "pull"]}], "fields": []},
  {"id": "forward", "tab": "Forward mode", "commands": ["forward"], "params": [{"name": "wrt", "link": "wrt", "default": null, "kind": "input"}], "fields": ["tangent"]},
  {"id": "again", "tab": "Backward twice", "commands": ["again"], "params": [{"name": "zero_grad", "link": "zero", "default": false, "kind": "flag"}], "fields": []},
  {"id": "descent", "tab": "Gradient descent", "commands": ["descent"], "params": [{"name": "rate", "link": "lr", "default": 0.1, "kind": "number", "above": 0, "at_most": 10}, {"name": "inputs", "link": "inputs", "default": null, "kind": "inputs"}, {"name": "moves", "link": "moves", "default": null, "kind": "moves", "most": 200}], "fields": []},
];
